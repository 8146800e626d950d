/* lsp/pool.h: the language servers Hermes knows (built in: clangd, pyright-langserver,
 * typescript-language-server, gopls; more or others from --lsp-server) and the pool of running
 * ones, one per server for the workspace, shared by every connection: started on first use, kept
 * warm, started again after a crash, stopped after HERMES_LSP_IDLE_SECONDS unused and with the
 * pool, at most HERMES_LSP_MAX_SERVERS at once. Thread-safe. */
#ifndef HERMES_LSP_POOL_H
#define HERMES_LSP_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include <hermes/hermes.h>

#include "fs/workspace.h"
#include "lsp/client.h"

#define HERMES_LSP_IDLE_SECONDS 600
#define HERMES_LSP_MAX_SERVERS 8
#define HERMES_LSP_START_MS 30000     /* longest a server may take to initialize */

typedef struct hermes_lsp_pool hermes_lsp_pool_t;

/* A new pool, whose servers run with config's environment and sandbox (copied). servers: NULL, or the --lsp-server entries separated by
 * '\n', each "LANGUAGE=COMMAND [ARG...]" (arguments split at spaces), which replace the built-in
 * server of LANGUAGE (c, cpp, python, javascript, typescript or go). NULL if out of memory or an
 * entry is malformed (*why then says which). */
hermes_lsp_pool_t *hermes_lsp_pool_new(const hermes_config_t *config,
                                       const char *servers, const char **why);
/* Stops every server and frees the pool; NULL is fine; void * to be part of executor state. */
void hermes_lsp_pool_free(hermes_lsp_pool_t *pool);

/* The language of a file by its name's extension ("c", "cpp", "python", "javascript", "typescript", "go"), and the LSP
 * languageId to open it with; NULL if Hermes knows no language for it. */
const char *hermes_lsp_language_of(const hermes_lsp_pool_t *pool, const char *path,
                                   const char **language_id);

/* A running server for language in the workspace ws (its root, PATH lookups relative to it),
 * started if need be (waits for its initialization, honouring cancel); one of another root is
 * stopped first (a server's workspace changed with MCP roots). On success 0 and *out is a reference to release with hermes_lsp_pool_release. On
 * failure -1 and err: Unavailable naming the language and what to install if no server for it is
 * on PATH, or why it could not start; LimitReached; Cancelled. */
int hermes_lsp_pool_get(hermes_lsp_pool_t *pool, const hermes_ws_t *ws, const char *language,
                        const hermes_cancel_t *cancel, hermes_lsp_client_t **out,
                        hermes_error_t *err);
void hermes_lsp_pool_release(hermes_lsp_pool_t *pool, hermes_lsp_client_t *client);

/* The server for language if one runs (alive) for the root of ws; never starts one (an edit tells
 * a running server what changed, and must not wait for a start). 0 and *out a reference to
 * release with hermes_lsp_pool_release, or -1 (none runs; *out untouched). */
int hermes_lsp_pool_peek(hermes_lsp_pool_t *pool, const hermes_ws_t *ws, const char *language,
                         hermes_lsp_client_t **out);

/* One known server, for code.servers. */
typedef struct hermes_lsp_server_info {
	char name[64];            /* the command's name */
	char command[512];        /* the command line */
	char languages[128];      /* languages it serves, comma-separated */
	char found[512];          /* its path on PATH, or "" */
	char install[160];        /* how to install it */
	char root[4096];          /* the root it serves, if started */
	bool started;             /* a client exists (running, or ended and not yet restarted) */
	hermes_lsp_info_t info;   /* if started */
	int64_t restarts;
} hermes_lsp_server_info_t;
/* Every known server (found: looked up on PATH for ws): *out is a malloc'd array of *count. 0, or
 * -1 if out of memory. */
int hermes_lsp_pool_list(hermes_lsp_pool_t *pool, const hermes_ws_t *ws,
                         hermes_lsp_server_info_t **out, size_t *count);

#endif
