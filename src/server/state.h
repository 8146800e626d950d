/* server/state.h: the state of one `hermes serve` session, shared by the reader loop (server.c)
 * and the message dispatch (dispatch.c). Internal to src/server. */
#ifndef HERMES_SERVER_STATE_H
#define HERMES_SERVER_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <hermes/hermes.h>

#include "server/framing.h"
#include "server/output.h"
#include "server/pool.h"
#include "server/server.h"

/* A batch: its replies are collected and sent together once the last one is in. */
typedef struct batch {
	size_t n;          /* elements */
	size_t pending;    /* replies still to come, plus one held by the reader while dispatching */
	char **bodies;     /* per element: its reply body, NULL for a notification */
	size_t *lens;
} batch_t;

/* A request (or notification) handed to the worker pool. Lives from dispatch until its reply is
 * queued; while it lives it is on the server's active list, where $/cancelRequest finds it. */
typedef struct request {
	hermes_pool_job_t job;          /* first: the pool hands this back to run_request */
	struct request *prev, *next;    /* the active list (server lock) */
	struct request *dropped;        /* a list of requests taken off the queue by a cancel */
	struct server *srv;
	cJSON *root;                    /* the message (owns params) */
	const cJSON *params;            /* the verb's arguments, or the envelope for hermes/execute */
	const char *verb;               /* the verb's name, or NULL for hermes/execute */
	char *id, *id_key;              /* NULL for a notification */
	batch_t *batch;
	size_t slot;                    /* index of the reply in the batch */
	hermes_cancel_t *token;         /* while running (server lock) */
	bool started, cancel_requested; /* server lock */
} request_t;

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
	hermes_executor_t *ex;          /* created by initialize or the first request that needs it */
	char *workspace_error;          /* an initialize that named a root failed: why */
	bool initialized;
	bool stop_reading;              /* exit received */
	int exit_status;                /* -1 while still running */

	pthread_mutex_t lock;           /* guards what follows */
	request_t *active;              /* queued or running */
	size_t active_count;
	bool shutdown;                  /* no new work (shutdown, signal, exit) */
	bool finishing;                 /* the loop waits for active_count == 0: wake it then */
	pending_id_t *shutdown_replies; /* shutdown requests to answer once the work is done */
	atomic_bool output_broken;
} server_t;

struct hermes_rpc_message;
struct hermes_verb_desc;

/* dispatch.c */
/* One framed message (body owned by the callee). */
void hermes_dispatch_message(server_t *srv, char *body, size_t len);
/* A broken or oversized frame: answered with id null. */
void hermes_dispatch_frame_error(server_t *srv, int code, const char *message);

/* replies.c. Every reply for a message goes through these. batch (NULL if none) and slot say where
 * it belongs; id is the request's raw id (NULL: a notification, or unknown for an invalid
 * message). Each call settles its slot exactly once. */
/* Sends a reply (from any thread), framed like the input. Takes r. */
void hermes_dispatch_send(server_t *srv, hermes_reply_t *r);
/* Puts r where it belongs: out, or into its batch (sent when complete). Takes r. */
void hermes_reply_place(server_t *srv, batch_t *batch, size_t slot, hermes_reply_t *r);
/* An error reply, even with id NULL (an invalid message is answered with id null). */
void hermes_reply_error(server_t *srv, batch_t *batch, size_t slot, const char *id, int code,
                        const char *message, const char *data);
/* An error about a request or notification: a notification only logs it. */
void hermes_reply_request_error(server_t *srv, batch_t *batch, size_t slot, const char *id,
                                int code, const char *message, const char *data);
/* -32602 with data {"errorCode": errcode, "field": field}. */
void hermes_reply_invalid_params(server_t *srv, batch_t *batch, size_t slot, const char *id,
                                 const char *field, const char *errcode, const char *fmt, ...)
	HERMES_PRINTF(7, 8);
/* A result (json: malloc'd JSON text, taken; NULL means out of memory); nothing for a
 * notification. */
void hermes_reply_result(server_t *srv, batch_t *batch, size_t slot, const char *id, char *json);
/* No reply (a notification), but the batch slot is settled. */
void hermes_reply_nothing(server_t *srv, batch_t *batch, size_t slot);
/* Files r into its batch; returns the batch if that completed it (send it after unlocking).
 * Server lock held. */
batch_t *hermes_batch_place_locked(server_t *srv, batch_t *batch, size_t slot, hermes_reply_t *r);
/* Sends a complete batch's replies as one array (nothing if all were notifications); frees it. */
void hermes_batch_send(server_t *srv, batch_t *b);
/* Answers pending shutdown requests if no work is left, and wakes the loop if it is finishing. */
void hermes_dispatch_check_idle(server_t *srv);

/* requests.c */
/* Queues a verb request on the pool (verb NULL: hermes/execute, params are the envelope). Takes
 * the message's tree and id. */
void hermes_requests_queue(server_t *srv, struct hermes_rpc_message *m,
                           const struct hermes_verb_desc *verb, batch_t *batch, size_t slot);
/* $/cancelRequest. */
void hermes_method_cancel_request(server_t *srv, struct hermes_rpc_message *m, batch_t *batch,
                                  size_t slot);
/* Cancels every queued and running request (queued ones are answered -32800). */
void hermes_dispatch_cancel_all(server_t *srv);

/* methods.c */
/* Makes sure there is an executor (--root, else the current directory). 0, or -1 with why. */
int hermes_server_ensure_executor(server_t *srv, char *why, size_t why_len);
void hermes_method_initialize(server_t *srv, struct hermes_rpc_message *m, batch_t *batch, size_t slot);
void hermes_method_verbs(server_t *srv, struct hermes_rpc_message *m, batch_t *batch, size_t slot);
void hermes_method_schema(server_t *srv, struct hermes_rpc_message *m, batch_t *batch, size_t slot);

/* server.c */
void hermes_server_wake(server_t *srv);

#endif
