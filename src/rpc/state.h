/* rpc/state.h: the inside of a session (session.h): its state, and the types and functions
 * its core files and the protocol modules pass between them (calls, batches, pooled requests,
 * method rows, protocol descriptors). Internal to the session, the protocols and this room;
 * transports use session/session.h only. The order of the rooms and files is drawn at the top of
 * session/session.h. */
#ifndef HERMES_SERVER_STATE_H
#define HERMES_SERVER_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <hermes/hermes.h>

#include "core/buf.h"
#include "core/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "rpc/message.h"
#include "rpc/pool.h"
#include "session/server.h"
#include "session/session.h"

struct server;
struct method;

/* A batch: its replies are collected and sent together, on its channel, once the last one is
 * in. */
typedef struct batch {
	size_t n;                  /* elements */
	atomic_size_t pending;     /* replies still to come, plus one held by the reader while
	                              dispatching */
	char **bodies;             /* per element: its reply body, NULL for a notification */
	size_t *lens;
	hermes_channel_t *ch;      /* held while the batch lives */
} batch_t;

/* One request or notification being answered: what the method handlers are given. The handler
 * settles it exactly once, by a reply (replies.c) or by handing it to the pool (requests.c). */
typedef struct call {
	hermes_rpc_message_t m;               /* id (NULL: a notification), method, params */
	message_t *msg;                       /* the message holding m's tree (a reference) */
	hermes_channel_t *ch;                 /* where its reply goes (unless it is in a batch) */
	batch_t *batch;                       /* NULL unless the message was a batch */
	size_t slot;                          /* the element's index in the batch */
	const struct hermes_verb_desc *verb;  /* a verb called by name as the method, else NULL */
} call_t;

/* How a protocol answers a verb call: the reply of a run (result taken, NULL if out of memory;
 * cancelled: the run was asked to stop and stopped) and, if it wants them, progress
 * notifications (token: the raw JSON text the client gave). */
typedef struct hermes_verb_answer {
	void (*reply)(hermes_reply_t *r, const char *id, hermes_outcome_t outcome, char *result,
	              const hermes_error_t *err, bool cancelled);
	void (*progress)(hermes_channel_t *ch, const char *token, double progress, double total,
	                 const char *message);
	/* How many copies of a result's content are alive at once while its reply is made (the
	 * content, the verb's JSON of it, what the protocol wraps around that): what the memory
	 * bound counts for a verb that announces a result (requests.c). */
	unsigned result_copies;
	/* Optional, used instead of reply when set: the same with the call's arguments and the
	 * workspace it ran in, for a reply that names the file the verb read (MCP's fs.readBytes). */
	void (*reply_call)(hermes_reply_t *r, const char *id, hermes_outcome_t outcome, char *result,
	                   const hermes_error_t *err, bool cancelled, const hermes_json_t *args,
	                   hermes_executor_t *ex);
} hermes_verb_answer_t;

/* A request (or notification) handed to the worker pool. Lives from dispatch until its reply is
 * placed; while it lives it is on the session's in-flight list, where a cancel finds it. */
typedef struct request {
	hermes_pool_job_t job;          /* first: the pool hands this back to run_request */
	struct request *prev, *next;    /* the in-flight list (session lock) */
	struct request *dropped;        /* a list of requests taken off the queue by a cancel */
	struct server *srv;
	message_t *msg;                 /* a reference: params live in its tree */
	hermes_channel_t *ch;           /* held: its reply and progress go there */
	hermes_executor_t *ex;          /* the workspace it runs in (one may replace it meanwhile) */
	const hermes_verb_answer_t *answer; /* the protocol's shape of its reply */
	char *progress_token;           /* the raw text of a progress token, or NULL */
	const hermes_json_t *params;    /* the verb's arguments, or the envelope for hermes/execute */
	const char *verb;               /* the verb's name, or NULL for hermes/execute */
	char *id;                       /* raw id text; NULL for a notification */
	char *id_key;                   /* the id as a cancel matches it */
	size_t id_key_len;
	batch_t *batch;
	size_t slot;                    /* index of the reply in the batch */
	hermes_cancel_t *token;         /* LONG verbs, while running (session lock) */
	size_t result_bytes;            /* counted in the budget's results for its result (its
	                                   worker only) */
	bool started, cancel_requested; /* session lock */
	bool silent;                    /* cancelled by an MCP notification: never answered */
	unsigned send_flags;            /* HERMES_SEND_GATHER while the reader runs it */
} request_t;

/* What a protocol module gives the core: its method table (ended by a row with name NULL), the
 * row verbs called by their own name answer to (NULL: they are not methods), and what to do with
 * a response from the client (NULL: ignored). A protocol with several tables (MCP: the 2026 era's
 * stateless requests beside the 2025 session) picks the one for a call with table_for (NULL:
 * always methods). tick (NULL: none) is called by the transport's loop (hermes_session_finished,
 * reader thread) for the protocol's own deadlines; it may lower *timeout_ms (-1: none). */
typedef struct hermes_protocol_desc {
	const struct method *methods;
	const struct method *verb_row;
	void (*response)(struct server *srv, call_t *c, const hermes_json_t *obj);
	const struct method *(*table_for)(const call_t *c);
	void (*tick)(struct server *srv, int *timeout_ms);
} hermes_protocol_desc_t;

typedef struct retired {
	struct retired *next;
	hermes_executor_t *ex;
} retired_t;

typedef struct pending_id {
	struct pending_id *next;
	char *id;
	hermes_channel_t *ch;           /* held */
} pending_id_t;

/* The memory budget (session.h): what the sessions sharing it hold together. */
struct hermes_budget {
	atomic_size_t held;             /* bytes of the messages alive (text and tree) */
	atomic_size_t queued;           /* bytes of replies the transport holds (hold_replies) */
	atomic_size_t inflight;         /* requests queued or running, all sessions together */
	pthread_mutex_t lock;           /* guards results */
	size_t results;                 /* results being built, as announced (requests.c) */
	pthread_cond_t room;            /* signalled when results go down, and when replies were
	                                   written while some wait on it */
	atomic_int waiters;             /* threads waiting on room */
};

/* The session (hermes_session_t, as the transports see it). */
typedef struct server {
	hermes_session_options_t opts;
	hermes_pool_t *pool;
	hermes_channel_t *channel;      /* the default channel */
	void (*wake)(void *ctx);        /* the transport's loop: look at the session again */
	void *wake_ctx;
	const hermes_protocol_desc_t *protocols[3]; /* by hermes_protocol_t (AUTO: Hermes's table) */

	/* reader thread only */
	hermes_protocol_t protocol;     /* HERMES or MCP; AUTO until the first initialize decides */
	hermes_executor_t *ex;          /* created by initialize or the first request that needs it */
	retired_t *retired;             /* workspaces replaced (MCP roots): freed at the end */
	char *workspace_error;          /* an initialize that named a root failed: why */
	bool initialized;
	bool ended;                     /* hermes_session_end: no pool, nothing sent any more */
	bool stop_reading;              /* exit received, a second signal, the client gone */
	bool eof, graceful;             /* the input ended; a first signal */
	bool gone_seen;                 /* client_gone was handled */
	int64_t grace_end;              /* when the work still running is cancelled; -1: not yet */
	bool grace_over;
	bool collecting;                /* requests are being read: INSTANT ones run here (requests.c) */
	hermes_channel_t *gathered[8];  /* the channels holding replies gathered since the last
	                                   flush (held), and how many calls made them */
	int n_gathered, gathered_calls;
	int flush_every;                /* gathered calls flushed at a time (requests.c) */
	int exit_status;                /* -1 while still running */

	/* MCP (reader thread only, but the log level) */
	bool client_roots;              /* the client has the roots capability */
	bool roots_pending;             /* tool calls wait for the answer to roots/list */
	char *roots_request;            /* the id text of the roots/list request in flight */
	void *protocol_state;           /* a protocol's own session state (MCP: subscriptions) */
	void (*protocol_state_free)(void *state); /* frees it with the session (NULL: nothing) */
	unsigned next_request_id;       /* requests the server sends */
	struct parked *parked;          /* tool calls waiting for the answer to roots/list */
	size_t n_parked;
	int64_t roots_deadline;         /* when they stop waiting (monotonic ms); -1: none */
	atomic_int mcp_log_level;       /* notifications/message at or above this MCP level
	                                   (0 debug .. 7 emergency; above 7 until MCP begins) */

	pthread_mutex_t lock;           /* guards what follows */
	request_t *active;              /* queued or running */
	size_t active_count;
	bool shutdown;                  /* no new work (shutdown, signal, exit) */
	bool finishing;                 /* the loop waits for active_count == 0: wake it then */
	pending_id_t *shutdown_replies; /* shutdown requests to answer once the work is done */
	atomic_bool client_gone;
	hermes_budget_t *budget;        /* opts.budget, or own_budget */
	hermes_budget_t own_budget;
	atomic_bool throttled;          /* the loop waits for room: wake it when some is made */
} server_t;

/* Some room was made (a request done, a message freed, replies written): wakes the loop if it
 * waits for it (any thread). */
static inline void session_room(server_t *srv)
{
	if (atomic_load(&srv->throttled))
		srv->wake(srv->wake_ctx);
}

/* ---- method rows (each protocol module has a table of them) -------------------------------- */
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

/* ---- the protocol modules (session.c hands their descriptors to the core) ------------------- */
/* hermes_methods.c: Hermes's own JSON-RPC protocol (hermes serve). */
extern const hermes_protocol_desc_t hermes_protocol_hermes;
/* mcp.c: the Model Context Protocol (hermes mcp). */
extern const hermes_protocol_desc_t hermes_protocol_mcp;
/* mcp.c: the log hook: warnings and errors as notifications/message on the default channel. */
void hermes_mcp_log(void *ctx, hermes_log_level_t level, const char *message);

/* ---- dispatch.c: one message, a broken frame, a call handed to another protocol ------------- */
void hermes_dispatch_message(server_t *srv, hermes_channel_t *ch, char *body, size_t len);
void hermes_dispatch_frame_error(hermes_channel_t *ch, int code, const char *message);
/* Hands c to the row of the same method in the table of protocol to (an initialize that says
 * which protocol the client speaks). */
void hermes_dispatch_handoff(server_t *srv, call_t *c, hermes_protocol_t to);

/* ---- requests.c: verb calls run on the pool ------------------------------------------------ */
/* Hands a verb call to the pool: params are its arguments (verb NULL: params is an envelope,
 * answered the protocol's way by answer; progress_token: raw JSON text (copied), or NULL. While
 * srv->collecting (the reader thread, between read_begin and read_end), an INSTANT call runs
 * right here instead, while the replies waiting leave room: its reply is gathered for
 * hermes_requests_flush. */
void hermes_requests_queue(server_t *srv, call_t *c, const struct hermes_verb_desc *verb,
                           const hermes_json_t *params, const hermes_verb_answer_t *answer,
                           const char *progress_token, size_t progress_token_len);
/* After a read from the client: writes out the replies of the INSTANT calls it ran (no hand-off
 * to a worker and back, for one request or many). */
void hermes_requests_flush(server_t *srv);
/* How many gathered replies are written at a time (srv->flush_every), for this many processors. */
int hermes_requests_flush_every(int processors);

/* ---- inflight.c: the in-flight list, its count, and what happens when it empties ------------ */
/* Puts req on the list (and counts it in its batch). */
void hermes_inflight_add(server_t *srv, request_t *req);
/* The end of a pooled request: its reply r is placed (sent, or filed into its batch) first,
 * then req leaves the list and is freed; if nothing is left in flight, pending shutdown replies
 * go out after it and a finishing loop is woken. So every reply to a request received before
 * shutdown is sent before the shutdown reply. Takes r. */
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
/* The same for the requests answering on ch (its client went away). */
size_t hermes_inflight_cancel_channel(server_t *srv, hermes_channel_t *ch, unsigned how);
/* Answers pending shutdown requests if nothing is in flight (and wakes a finishing loop); or,
 * with nothing in flight, answers shutdown id on ch at once. id NULL: only the pending ones.
 * Takes id. */
void hermes_inflight_shutdown(server_t *srv, hermes_channel_t *ch, char *id);
/* Builds the -32800 reply (with the verb's result as data.result when there is one). */
void hermes_reply_cancelled(hermes_reply_t *r, const char *id, const char *result);

/* ---- replies.c: where replies go, and their shapes ---------------------------------------- */
/* Sends r on ch (nothing if r is empty). Takes r. */
void hermes_channel_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags);
/* A reference on ch for a reply sent later (see hermes_channel_ops_t.hold), and its release. */
void hermes_channel_hold(hermes_channel_t *ch);
void hermes_channel_release(hermes_channel_t *ch);
/* Whether the client on ch may call desc (see hermes_channel_ops_t.allows); why as there. */
bool hermes_channel_allows(hermes_channel_t *ch, const struct hermes_verb_desc *desc, char *why,
                           size_t n);
/* Whether ch's client is gone for good (see hermes_channel_ops_t.gone). */
bool hermes_channel_gone(hermes_channel_t *ch);
/* A batch of n elements answering on ch (held), one reply pending (the reader's); NULL if out
 * of memory. */
batch_t *hermes_batch_new(hermes_channel_t *ch, size_t n);
/* Files r into slot of its batch; returns the batch if that completed it (then send it with
 * hermes_batch_send). Takes r. */
batch_t *hermes_batch_place(batch_t *batch, size_t slot, hermes_reply_t *r);
/* Sends a complete batch's replies as one array (nothing if all were notifications) on its
 * channel; frees it. */
void hermes_batch_send(batch_t *b, unsigned flags);
/* Places r: straight out on ch, or into its batch (sent when complete). Takes r. */
void hermes_reply_place(hermes_channel_t *ch, batch_t *batch, size_t slot, hermes_reply_t *r);
/* The replies a handler settles its call with. A notification is never answered: for one these
 * only settle its batch slot (and log an error). */
void hermes_reply_result(call_t *c, char *json);       /* takes json (NULL: OOM) */
void hermes_reply_error(call_t *c, int code, const char *message, const char *data);
void hermes_reply_nothing(call_t *c);
/* -32602 with data {"errorCode": errcode, "field": field}. */
void hermes_reply_invalid_params(call_t *c, const char *field, const char *errcode,
                                 const char *fmt, ...) HERMES_PRINTF(4, 5);
/* -32602 from a decoding error of the executor. */
void hermes_rpc_invalid_params(hermes_reply_t *r, const char *id, const hermes_error_t *err);
/* Sends a notification (params: JSON text) on ch, from any thread. */
void hermes_notify(hermes_channel_t *ch, const char *method, const char *params, size_t len);
/* The same, params built in a buffer, which it frees (nothing is sent if building it failed, or
 * without a channel). */
void hermes_notify_buf(hermes_channel_t *ch, const char *method, hermes_buf_t *params);

/* ---- workspace.c: the session's workspace ------------------------------------------------- */
/* Makes sure there is an executor (--root, else the current directory). 0, or -1 with why. */
int hermes_server_workspace(server_t *srv, char *why, size_t why_len);
/* The path of a file: URI (file:///x or file://localhost/x, percent-decoded), as hosts send
 * workspace roots; text that is not a file: URI is a path already, unless file_only (NULL then).
 * NULL also for another host's URI, if memory runs out, or if it encodes a NUL (*bad set).
 * malloc'd. */
char *hermes_uri_path(const char *s, bool file_only, bool *bad);

#endif
