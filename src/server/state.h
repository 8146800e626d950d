/* server/state.h: the state of one `hermes serve` session and the types its files pass between
 * them (messages, batches, calls, pooled requests). Internal to src/server.
 *
 * Who calls whom (never the other way): server.c (the reader loop) -> dispatch.c (one message)
 * -> methods.c (the method table) -> lifecycle.c, introspect.c, requests.c (the methods) ->
 * inflight.c (work in flight, idleness) -> replies.c (where a reply goes) -> output.c (the
 * writer). Nothing below dispatch.c calls back into it or into the reader loop; the loop is woken
 * through the self-pipe. */
#ifndef HERMES_SERVER_STATE_H
#define HERMES_SERVER_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <hermes/hermes.h>

#include "core/json.h"
#include "server/framing.h"
#include "server/jsonrpc.h"
#include "server/log.h"
#include "server/output.h"
#include "server/pool.h"
#include "server/server.h"

/* What the server holds for a client at most; past one of these it stops reading its input until
 * there is room again (backpressure), so its memory stays bounded whatever the client sends and
 * however slowly it reads. Documented in PROTOCOL.md. */
#define HERMES_SERVER_MAX_VALUES       (256 * 1024)  /* JSON values in one message */
#define HERMES_SERVER_MAX_INFLIGHT     1024u         /* requests queued or running */
#define HERMES_SERVER_MAX_HELD_BYTES   (32u << 20)   /* messages (text and tree) they hold */
#define HERMES_SERVER_MAX_QUEUED_BYTES (16u << 20)   /* replies not yet written */

struct server;

/* One framed message, read once into a tree. Shared by the requests it holds (a batch's elements
 * run at once), freed when the last reference goes. */
typedef struct message {
	char *body;               /* the message text; the tree's positions are offsets into it */
	size_t len;
	hermes_json_doc_t *doc;
	atomic_size_t refs;
	struct server *srv;
	size_t bytes;             /* counted in srv->held_bytes while it lives */
} message_t;

/* Takes a reference. */
message_t *hermes_message_ref(message_t *m);
/* Drops one; the last frees the message. NULL is fine. */
void hermes_message_unref(message_t *m);

/* A batch: its replies are collected and sent together once the last one is in. */
typedef struct batch {
	size_t n;          /* elements */
	size_t pending;    /* replies still to come, plus one held by the reader while dispatching */
	char **bodies;     /* per element: its reply body, NULL for a notification */
	size_t *lens;
} batch_t;

/* One request or notification being answered: what the method handlers are given. The handler
 * settles it exactly once, by a reply (replies.c) or by handing it to the pool (requests.c). */
typedef struct call {
	hermes_rpc_message_t m;               /* id (NULL: a notification), method, params */
	message_t *msg;                       /* the message holding m's tree (a reference) */
	batch_t *batch;                       /* NULL unless the message was a batch */
	size_t slot;                          /* the element's index in the batch */
	const struct hermes_verb_desc *verb;  /* a verb called by name as the method, else NULL */
} call_t;

/* A request (or notification) handed to the worker pool. Lives from dispatch until its reply is
 * placed; while it lives it is on the server's in-flight list, where $/cancelRequest finds it. */
typedef struct request {
	hermes_pool_job_t job;          /* first: the pool hands this back to run_request */
	struct request *prev, *next;    /* the in-flight list (server lock) */
	struct request *dropped;        /* a list of requests taken off the queue by a cancel */
	struct server *srv;
	message_t *msg;                 /* a reference: params live in its tree */
	hermes_executor_t *ex;          /* the workspace it runs in (one may replace it meanwhile) */
	bool mcp;                       /* an MCP tools/call: answered as a tool result */
	char *progress_token;           /* MCP: the raw text of _meta.progressToken, or NULL */
	const hermes_json_t *params;    /* the verb's arguments, or the envelope for hermes/execute */
	const char *verb;               /* the verb's name, or NULL for hermes/execute */
	char *id;                       /* raw id text; NULL for a notification */
	char *id_key;                   /* the id as matched by $/cancelRequest */
	size_t id_key_len;
	batch_t *batch;
	size_t slot;                    /* index of the reply in the batch */
	hermes_cancel_t *token;         /* LONG verbs, while running (server lock) */
	bool started, cancel_requested; /* server lock */
	bool silent;                    /* cancelled by an MCP notification: never answered */
	struct request *deferred_next;  /* the reader's list of requests not yet handed over */
} request_t;

typedef struct retired {
	struct retired *next;
	hermes_executor_t *ex;
} retired_t;

typedef struct pending_id {
	struct pending_id *next;
	char *id;
} pending_id_t;

typedef struct server {
	const hermes_server_options_t *opts;
	hermes_framer_t framer;
	hermes_pool_t *pool;
	hermes_output_t *out;
	int wake[2];                    /* self-pipe: signals, output trouble, work all done */

	/* reader thread only */
	hermes_protocol_t protocol;     /* HERMES or MCP; AUTO until the first initialize decides */
	const struct method *methods;   /* the method table of the protocol */
	hermes_executor_t *ex;          /* created by initialize or the first request that needs it */
	retired_t *retired;             /* workspaces replaced (MCP roots): freed at the end */
	bool client_roots;              /* MCP: the client has the roots capability */
	bool roots_pending;             /* MCP: tool calls wait for the answer to roots/list */
	char *roots_request;            /* MCP: the id text of the roots/list request in flight */
	unsigned next_request_id;       /* MCP: requests the server sends */
	atomic_int mcp_log_level;       /* MCP: notifications/message at or above this MCP level
	                                   (0 debug .. 7 emergency; above 7 until MCP begins) */
	char *workspace_error;          /* an initialize that named a root failed: why */
	bool initialized;
	bool stop_reading;              /* exit received */
	bool collecting;                /* requests are being read: defer INSTANT ones (requests.c) */
	request_t *deferred, **deferred_tail;
	int exit_status;                /* -1 while still running */

	pthread_mutex_t lock;           /* guards what follows */
	request_t *active;              /* queued or running */
	size_t active_count;
	bool shutdown;                  /* no new work (shutdown, signal, exit) */
	bool finishing;                 /* the loop waits for active_count == 0: wake it then */
	pending_id_t *shutdown_replies; /* shutdown requests to answer once the work is done */
	atomic_bool output_broken;
	atomic_size_t held_bytes;       /* of the messages alive */
	atomic_bool throttled;          /* the reader waits for room: wake it when some is made */
} server_t;

/* Wakes the reader loop (any thread; async-signal-safe). */
void hermes_server_wake(server_t *srv);
/* Some room was made (a request done, a message freed, replies written): wakes the reader if it
 * waits for it (any thread). */
void hermes_server_room(server_t *srv);

/* ---- dispatch.c: one framed message (body owned by the callee), or a broken frame ---------- */
void hermes_dispatch_message(server_t *srv, char *body, size_t len);
void hermes_dispatch_frame_error(server_t *srv, int code, const char *message);

/* ---- methods.c: the method table ---------------------------------------------------------- */
typedef enum {
	HERMES_METHOD_EITHER,       /* a request (answered) or a notification (not answered) */
	HERMES_METHOD_REQUEST,      /* only as a request: a notification of it is ignored (logged) */
	HERMES_METHOD_NOTIFICATION  /* only as a notification: a request of it gets -32600 */
} method_kind_t;

typedef struct method {
	const char *name;
	void (*handle)(server_t *srv, call_t *c);
	method_kind_t kind;
	bool before_initialize;   /* may come before initialize (else -32002, not initialized) */
	bool after_shutdown;      /* still taken once shutdown has begun (else -32600) */
	bool needs_workspace;     /* opens the workspace first (--root or the current directory) */
} method_t;

/* The tables of the two protocols, each ended by a row with name NULL. */
extern const method_t hermes_methods[];
extern const method_t hermes_mcp_methods[];

/* The row for a method name; a verb's name finds the verb row and sets *verb. NULL if nothing
 * answers to name. */
const method_t *hermes_method_find(server_t *srv, const char *name, const struct hermes_verb_desc **verb);

/* ---- lifecycle.c -------------------------------------------------------------------------- */
void hermes_method_initialize(server_t *srv, call_t *c);
void hermes_method_initialized(server_t *srv, call_t *c);
void hermes_method_shutdown(server_t *srv, call_t *c);
void hermes_method_exit(server_t *srv, call_t *c);
/* Makes sure there is an executor (--root, else the current directory). 0, or -1 with why. */
int hermes_server_workspace(server_t *srv, char *why, size_t why_len);
/* The path of a file: URI (file:///x or file://localhost/x, percent-decoded), as hosts send
 * workspace roots; text that is not a file: URI is a path already, unless file_only (NULL then).
 * NULL also for another host's URI, if memory runs out, or if it encodes a NUL (*bad set).
 * malloc'd. */
char *hermes_uri_path(const char *s, bool file_only, bool *bad);

/* ---- introspect.c ------------------------------------------------------------------------- */
void hermes_method_verbs(server_t *srv, call_t *c);
void hermes_method_schema(server_t *srv, call_t *c);

/* ---- requests.c: verb calls run on the pool, and $/cancelRequest ---------------------------- */
void hermes_method_execute(server_t *srv, call_t *c);   /* hermes/execute */
void hermes_method_verb(server_t *srv, call_t *c);      /* a verb called by name (c->verb) */
void hermes_method_cancel_request(server_t *srv, call_t *c);
/* Hands a verb call to the pool: params are its arguments (verb NULL: params is an envelope);
 * mcp: answered as an MCP tool result; progress_token: raw JSON text (copied), or NULL. While
 * srv->collecting, an INSTANT call waits on srv->deferred for hermes_requests_flush. */
void hermes_requests_queue(server_t *srv, call_t *c, const struct hermes_verb_desc *verb,
                           const hermes_json_t *params, bool mcp, const char *progress_token,
                           size_t progress_token_len);
/* After a read from the client: the INSTANT calls it held run right here on the reader thread,
 * while the replies waiting leave room (no hand-off to a worker and back), their replies gathered
 * and written from here; one that came alone with nothing else in flight is written as it is
 * made. Past the room, the deferred calls go to the pool. */
void hermes_requests_flush(server_t *srv);

/* ---- mcp.c: the Model Context Protocol's session methods ----------------------------------- */
void hermes_mcp_initialize(server_t *srv, call_t *c);
void hermes_mcp_initialized(server_t *srv, call_t *c);
void hermes_mcp_ping(server_t *srv, call_t *c);
void hermes_mcp_set_level(server_t *srv, call_t *c);
void hermes_mcp_cancelled(server_t *srv, call_t *c);
void hermes_mcp_roots_changed(server_t *srv, call_t *c);
/* A response from the client (to roots/list). */
void hermes_mcp_response(server_t *srv, call_t *c, const hermes_json_t *obj);
/* Sends a notification (params: JSON text) to the client, from any thread. */
void hermes_mcp_notify(server_t *srv, const char *method, const char *params, size_t len);
/* The log hook: warnings and errors as notifications/message. */
void hermes_mcp_log(void *ctx, hermes_log_level_t level, const char *message);

/* ---- mcp_tools.c: tools/list, tools/call --------------------------------------------------- */
void hermes_mcp_tools_list(server_t *srv, call_t *c);
void hermes_mcp_tools_call(server_t *srv, call_t *c);
/* The tools/call result of a verb run (result: its JSON, taken; NULL if out of memory). */
void hermes_mcp_tool_result(hermes_reply_t *r, const char *id, hermes_outcome_t outcome,
                            char *result, const hermes_error_t *err);

/* ---- inflight.c: the in-flight list, its count, and what happens when it empties ------------ */
/* Puts req on the list (and counts it in its batch). */
void hermes_inflight_add(server_t *srv, request_t *req);
/* The end of a pooled request: its reply r is placed (written out, or filed into its batch)
 * first, then req leaves the list and is freed; if nothing is left in flight, pending shutdown
 * replies go out after it and a finishing loop is woken. So every reply to a request received
 * before shutdown is queued before the shutdown reply. Takes r. */
void hermes_inflight_done(server_t *srv, request_t *req, hermes_reply_t *r);
/* Cancels the requests whose id key matches (key NULL: all): queued ones are answered -32800 at
 * once and never run; running LONG ones have their token cancelled. how: HERMES_CANCEL_* bits.
 * Returns how many matched. */
enum {
	HERMES_CANCEL_SILENT = 1,    /* MCP: no reply at all is sent for them */
	HERMES_CANCEL_LONG_ONLY = 2, /* only LONG verbs (the others finish in a moment anyway) */
	HERMES_CANCEL_URGENT = 4     /* no time left: a running program gets the short grace */
};
size_t hermes_inflight_cancel(server_t *srv, const char *key, size_t key_len, unsigned how);
/* Answers pending shutdown requests if nothing is in flight (and wakes a finishing loop); or,
 * with nothing in flight, answers shutdown id at once. id NULL: only the pending ones. Takes id. */
void hermes_inflight_shutdown(server_t *srv, char *id);
/* Builds the -32800 reply (with the verb's result as data.result when there is one). */
void hermes_reply_cancelled(hermes_reply_t *r, const char *id, const char *result);

/* ---- replies.c: where replies go, and their shapes ---------------------------------------- */
/* Files r into its batch (server lock held); returns the batch if that completed it (send it
 * with hermes_batch_send after unlocking). Takes r. */
batch_t *hermes_batch_place_locked(batch_t *batch, size_t slot, hermes_reply_t *r);
/* Sends a complete batch's replies as one array (nothing if all were notifications); frees it. */
void hermes_batch_send(server_t *srv, batch_t *b);
/* Places r: straight out, or into its batch (sent when complete). Takes r. */
void hermes_reply_place(server_t *srv, batch_t *batch, size_t slot, hermes_reply_t *r);
/* The replies a handler settles its call with. A notification is never answered: for one these
 * only settle its batch slot (and log an error). */
void hermes_reply_result(server_t *srv, call_t *c, char *json);       /* takes json (NULL: OOM) */
void hermes_reply_error(server_t *srv, call_t *c, int code, const char *message, const char *data);
void hermes_reply_nothing(server_t *srv, call_t *c);
/* -32602 with data {"errorCode": errcode, "field": field}. */
void hermes_reply_invalid_params(server_t *srv, call_t *c, const char *field, const char *errcode,
                                 const char *fmt, ...) HERMES_PRINTF(5, 6);
/* -32602 from a decoding error of the executor. */
void hermes_rpc_invalid_params(hermes_reply_t *r, const char *id, const hermes_error_t *err);

#endif
