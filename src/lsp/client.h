/* lsp/client.h: one language server, driven as an LSP client: the server runs under a supervisor
 * (proc/spawn.h) started from the client's own reader thread, so it dies with that thread, with
 * Hermes, even by SIGKILL (the supervisor's death signal), and everything it started dies with
 * it. The reader thread reads the server's messages, hands each response to the request waiting
 * for its id, answers the server's own requests, keeps the diagnostics it publishes per document
 * and the last HERMES_LSP_STDERR_KEEP bytes of its standard error.
 * Thread-safe: any number of threads may send requests at once. */
#ifndef HERMES_LSP_CLIENT_H
#define HERMES_LSP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <hermes/hermes.h>

#include "core/json.h"
#include "proc/spawn.h"

#define HERMES_LSP_STDERR_KEEP 4096     /* bytes of the server's standard error kept */
#define HERMES_LSP_MAX_OPEN_DOCS 256    /* documents kept open at the server (oldest closed) */

typedef struct hermes_lsp_client hermes_lsp_client_t;

/* Starts the server of spec (its in_fd, out_fd, err_fd are made here; its other descriptors stay
 * the caller's) and initializes it for the workspace root_path (absolute), waiting up to
 * timeout_ms. On success 0 and *out owns the client (free with hermes_lsp_client_free). On
 * failure -1, err says why (Unavailable: the server could not be started or did not initialize;
 * Cancelled), and nothing is left running. */
int hermes_lsp_client_start(const hermes_spawn_t *spec, const char *root_path, int timeout_ms,
                            const hermes_cancel_t *cancel, hermes_lsp_client_t **out,
                            hermes_error_t *err);

/* Asks the server to shut down and exit; stops it (and its descendants) if it does not within a
 * second; frees the client. NULL is fine. */
void hermes_lsp_client_free(hermes_lsp_client_t *c);

/* Sends a request (params_json: the JSON text of its params) and waits for the response, at most
 * timeout_ms, or until cancel is cancelled (then "$/cancelRequest" is sent). On success 0, *doc
 * owns the response message (free with hermes_json_doc_free) and *result points to its "result"
 * (possibly a JSON null). On failure -1 and err: Unavailable (the server ended, or failed with an
 * internal error), InvalidArgument (the server refused the request: its message is quoted),
 * Conflict (the content changed meanwhile), Timeout, Cancelled, Internal. */
int hermes_lsp_request(hermes_lsp_client_t *c, const char *method, const char *params_json,
                       int timeout_ms, const hermes_cancel_t *cancel, hermes_json_doc_t **doc,
                       const hermes_json_t **result, hermes_error_t *err);

/* Sends a notification. 0, or -1 and err (Unavailable). */
int hermes_lsp_notify(hermes_lsp_client_t *c, const char *method, const char *params_json,
                      hermes_error_t *err);

/* Makes the server see text[0..len) as the content of the document uri: didOpen the first time,
 * didChange (full text) when it differs from what was sent last, nothing otherwise. Past
 * HERMES_LSP_MAX_OPEN_DOCS open documents the least recently synced one is closed.
 * *changed (may be NULL) says whether anything was sent. 0, or -1 and err. */
int hermes_lsp_sync(hermes_lsp_client_t *c, const char *uri, const char *language_id,
                    const char *text, size_t len, bool *changed, hermes_error_t *err);

/* Memos: a value a caller computed from the server's answers about an open document's current
 * text, kept with that text so that the next call need not ask again (code.* keeps outlines:
 * clangd rebuilds a file's syntax tree to answer documentSymbol, up to tens of ms a file). A memo
 * lives as long as the text it was made for: syncing another text or closing the document drops
 * it, and past HERMES_LSP_MEMO_BYTES of memos in one client the least recently used are dropped.
 *
 * hermes_lsp_memo_get: if the document uri is open with text[0..len) as its text, *stamp names
 * that text (for hermes_lsp_memo_put), and if it has a memo, copy(memo, arg) is called with it
 * (under the client's lock: copy it, do not keep it) and its result returned. Otherwise *stamp
 * is -1 and false is returned. */
#define HERMES_LSP_MEMO_BYTES (16u << 20)
bool hermes_lsp_memo_get(hermes_lsp_client_t *c, const char *uri, const char *text, size_t len,
                         int64_t *stamp, bool (*copy)(const void *memo, void *arg), void *arg);
/* Keeps memo (taken: freed by free_fn when it is dropped; at once if the document's text is no
 * longer the one stamp names, or if it is larger than HERMES_LSP_MEMO_BYTES) as the memo of uri's
 * text, replacing any; bytes is what it costs. */
void hermes_lsp_memo_put(hermes_lsp_client_t *c, const char *uri, int64_t stamp, void *memo,
                         size_t bytes, void (*free_fn)(void *));

/* The URIs of the documents open at the server, in no particular order: *out is a malloc'd
 * array of *count malloc'd strings (free each and the array). 0, or -1 if out of memory (*out and
 * *count untouched). */
int hermes_lsp_open_documents(hermes_lsp_client_t *c, char ***out, size_t *count);

/* The diagnostics the server last published for uri, as the JSON text of their array (malloc'd,
 * caller frees), or NULL if none were published since the document was last synced. Waits for
 * them up to timeout_ms (0: does not wait), or until cancel. */
char *hermes_lsp_diagnostics(hermes_lsp_client_t *c, const char *uri, int timeout_ms,
                             const hermes_cancel_t *cancel);

/* Sends the document uri's text again as a new version (didChange), so that the server analyses
 * it afresh: diagnostics depend on other files too (a header changed or deleted since), which a
 * server does not watch for an open document. 0, 1 if uri is not open, or -1 and err. */
int hermes_lsp_reanalyse(hermes_lsp_client_t *c, const char *uri, hermes_error_t *err);

/* The diagnostics the server published for uri while the text it was last sent is text[0..len)
 * (the JSON text of their array: *out is malloc'd, caller frees), waiting for them up to
 * timeout_ms or until cancel: what an edit with diagnose needs, which must not take another
 * writer's text for its own. 0 and *out; 1 if the document's last synced text is another one (or
 * it is no longer open), so they never come; -1 if they did not come in time, the server ended,
 * the call was cancelled or memory ran out (*out untouched). */
int hermes_lsp_diagnostics_of(hermes_lsp_client_t *c, const char *uri, const char *text,
                              size_t len, int timeout_ms, const hermes_cancel_t *cancel,
                              char **out);

/* Waits until the server has no work-done progress under way (clangd's background index, for
 * one), at most timeout_ms or until cancel: what a workspace-wide answer needs. A server that
 * never reports progress is taken as settled HERMES_LSP_SETTLE_GRACE_MS after it started. True
 * if settled. */
/* How long a server that has reported no progress may still begin to (typescript-language-server
 * begins loading its project a moment after initialize: a second was too short on a loaded
 * machine, where it then answered a definition with the import line). */
#define HERMES_LSP_SETTLE_GRACE_MS 3000
bool hermes_lsp_wait_settled(hermes_lsp_client_t *c, int timeout_ms, const hermes_cancel_t *cancel);

/* The state of the client, for code.servers. Strings are copied into the struct. */
typedef struct hermes_lsp_info {
	bool running;
	pid_t pid;               /* the server's process (0 if not forked) */
	char name[64];           /* serverInfo.name from initialize, or "" */
	char version[64];        /* serverInfo.version, or "" */
	char last_error[256];    /* why it ended, or "" */
	char stderr_tail[HERMES_LSP_STDERR_KEEP + 1]; /* the end of its standard error */
	int64_t requests;        /* requests sent */
	int64_t last_used_ms;    /* CLOCK_MONOTONIC ms of the last request */
} hermes_lsp_info_t;
void hermes_lsp_client_info(hermes_lsp_client_t *c, hermes_lsp_info_t *info);

/* Sets err to Unavailable with why the server is not running. */
void hermes_lsp_dead_error(hermes_lsp_client_t *c, hermes_error_t *err);

/* Waits up to ms for the reader to have seen a dying server end (so that its info says how).
 * True once it has. */
bool hermes_lsp_client_wait_ended(hermes_lsp_client_t *c, int ms);

/* The monotonic clock in ms. */
int64_t hermes_lsp_now_ms(void);

/* True while the server runs and answers (false as soon as it has closed its output). */
bool hermes_lsp_client_alive(hermes_lsp_client_t *c);

/* The JSON text of the server's capabilities (from initialize); lives as long as the client. */
const hermes_json_t *hermes_lsp_capabilities(hermes_lsp_client_t *c);

#endif
