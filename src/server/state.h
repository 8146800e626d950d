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

typedef struct batch batch_t;

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

/* dispatch.c */
/* One framed message (body owned by the callee). */
void hermes_dispatch_message(server_t *srv, char *body, size_t len);
/* A broken or oversized frame: answered with id null. */
void hermes_dispatch_frame_error(server_t *srv, int code, const char *message);
/* Cancels every queued and running request (queued ones are answered -32800). */
void hermes_dispatch_cancel_all(server_t *srv);
/* Answers pending shutdown requests if no work is left, and wakes the loop if it is finishing. */
void hermes_dispatch_check_idle(server_t *srv);
/* Sends a reply (from any thread), framed like the input. */
void hermes_dispatch_send(server_t *srv, hermes_reply_t *r);

/* server.c */
void hermes_server_wake(server_t *srv);

#endif
