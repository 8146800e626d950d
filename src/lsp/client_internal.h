/* lsp/client_internal.h: the client's fields, shared by client.c (process, reader, requests),
 * client_life.c (start, initialize, shutdown), documents.c (documents, diagnostics) and memo.c
 * (what callers keep with a document's text). */
#ifndef HERMES_LSP_CLIENT_INTERNAL_H
#define HERMES_LSP_CLIENT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "lsp/client.h"

typedef struct hermes_lsp_pending hermes_lsp_pending_t;
struct hermes_lsp_pending {
	int64_t id;
	bool done;
	hermes_json_doc_t *doc;       /* the response, once done */
	hermes_lsp_pending_t *next;
};

typedef struct hermes_lsp_doc {
	char *uri;
	char *text;                   /* what the server was sent last */
	size_t len;
	int64_t version;
	int64_t text_since;           /* the first version of this text (hermes_lsp_reanalyse) */
	int64_t synced_ms;
	char *diagnostics;            /* JSON text of the last published array, or NULL */
	int64_t diag_version;         /* the document version it was published for (-1: unknown) */
	bool diag_fresh;              /* published since the last sync */
	int64_t stamp;                /* names this text among every text the client synced */
	void *memo;                   /* a caller's value for this text (memo.c), or NULL */
	void (*memo_free)(void *);
	size_t memo_bytes;
	uint64_t memo_used;           /* when it was last used, on the client's memo clock */
} hermes_lsp_doc_t;

struct hermes_lsp_client {
	pthread_mutex_t lock;         /* everything below but the write side */
	pthread_cond_t cond;          /* a response came, diagnostics came, the server ended */
	pthread_mutex_t write_lock;   /* one message at a time on the server's stdin */
	char command[128];            /* the program's name, for messages */
	hermes_spawn_t spec;
	hermes_run_t run;
	pthread_t reader;
	bool reader_started;
	int in_w, out_r, err_r;       /* Hermes' ends of the pipes */
	int child_in, child_out, child_err;
	int wake_r, wake_w;           /* wakes the reader to stop the server */
	atomic_bool stopping;
	bool started, dead;
	int start_rc;
	pid_t pid;
	int64_t next_id;
	hermes_lsp_pending_t *pending;
	char last_error[256];
	char stderr_tail[HERMES_LSP_STDERR_KEEP];
	size_t stderr_len;
	int64_t requests, last_used_ms;
	int64_t started_ms;           /* when initialize was answered */
	int progress_active;          /* work-done progress begun and not ended ($/progress) */
	bool progress_seen;
	hermes_json_doc_t *init_doc;  /* the initialize response */
	char name[64], version[64];
	hermes_lsp_doc_t docs[HERMES_LSP_MAX_OPEN_DOCS];
	size_t ndocs;
	pthread_mutex_t docs_lock;    /* serializes syncs, so versions go up in the order sent */
	int64_t stamps;               /* the last stamp given to a synced text */
	size_t memo_bytes;            /* what the documents' memos cost together */
	uint64_t memo_clock;          /* counts memo uses, for least recently used */
};

/* Sends one framed message body (write_lock taken here). 0, or -1 and err (Unavailable). */
int hermes_lsp_send(hermes_lsp_client_t *c, const char *body, size_t len, hermes_error_t *err);
/* The reader thread's entry and the pipe maker (client.c). */
void *hermes_lsp_reader_main(void *arg);
int hermes_lsp_make_pipe(int *ours, int *theirs, bool ours_is_write);
/* Handles one message body as the reader does: a response goes to its pending request, a
 * request of the server is answered, a notification is kept. False if it is not a JSON-RPC
 * message (the reader then drops the server). */
bool hermes_lsp_handle_message(hermes_lsp_client_t *c, const char *body, size_t len);
/* A client with no server (its answers go nowhere), freed with hermes_lsp_client_free: for the
 * fuzzer, which feeds it messages. NULL if out of memory. */
hermes_lsp_client_t *hermes_lsp_client_detached(void);

/* Called by the reader for textDocument/publishDiagnostics (documents.c). */
void hermes_lsp_docs_published(hermes_lsp_client_t *c, const char *body,
                               const hermes_json_t *params);
/* Frees the documents (documents.c). */
void hermes_lsp_docs_free(hermes_lsp_client_t *c);
/* Frees d's memo, if any (memo.c). c->lock held. */
void hermes_lsp_memo_drop(hermes_lsp_client_t *c, hermes_lsp_doc_t *d);

#endif
