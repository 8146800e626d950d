/* server/requests.c: verb calls (a verb's name as the method, or hermes/execute with an envelope):
 * queued on the worker pool, run there on the message's own tree, answered (-32602 for arguments
 * that do not decode, -32800 once cancelled); and $/cancelRequest, which finds them. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/executor.h"
#include "server/jsonrpc.h"
#include "server/log.h"
#include "server/state.h"

/* MCP progress: notifications/progress for the request's progressToken. */
static void send_progress(void *ctx, double progress, double total, const char *message)
{
	request_t *req = ctx;
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"progressToken\":");
	hermes_buf_puts(&b, req->progress_token);
	hermes_buf_printf(&b, ",\"progress\":%.15g", progress);
	if (total > 0)
		hermes_buf_printf(&b, ",\"total\":%.15g", total);
	hermes_buf_puts(&b, ",\"message\":");
	hermes_buf_json_string(&b, message, strlen(message));
	hermes_buf_puts(&b, "}");
	size_t len = b.len;
	char *params = hermes_buf_finish(&b);
	if (params)
		hermes_mcp_notify(req->srv, "notifications/progress", params, len);
	free(params);
}

/* A worker runs this for every pooled request. */
static void run_request(hermes_pool_job_t *job)
{
	request_t *req = (request_t *)job;
	server_t *srv = req->srv;
	hermes_reply_t r;

	/* Only a LONG verb watches a cancellation token (and a call that wants progress reports);
	 * the others run to the end anyway, so they are spared the descriptor it costs. */
	hermes_cancel_t *token = NULL;
	if ((req->job.blocking || req->progress_token) && (token = hermes_cancel_new()) == NULL)
		hermes_log(HERMES_LOG_WARN, "no cancellation token for a request (out of descriptors?)");
	if (token && req->progress_token)
		hermes_cancel_set_progress(token, send_progress, req);
	pthread_mutex_lock(&srv->lock);
	req->started = true;
	bool cancelled = req->cancel_requested;
	req->token = cancelled ? NULL : token;
	pthread_mutex_unlock(&srv->lock);
	if (cancelled) {
		/* cancelled between leaving the queue and starting: it never runs */
		hermes_cancel_free(token);
		hermes_reply_cancelled(&r, req->id, NULL);
		hermes_inflight_done(srv, req, &r);
		return;
	}
	/* Backpressure: no new reply while the client leaves too many unread (see state.h). */
	while (!hermes_output_wait_room(srv->out, HERMES_SERVER_MAX_QUEUED_BYTES, 100)) {
		pthread_mutex_lock(&srv->lock);
		bool stop = req->cancel_requested;
		pthread_mutex_unlock(&srv->lock);
		if (stop || atomic_load(&srv->output_broken))
			break;
	}

	char *result = NULL;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	hermes_outcome_t outcome = hermes_execute_json(req->ex, req->verb, req->params, req->msg->body,
	                                               0, token, &result, &err);
	if (token) {
		pthread_mutex_lock(&srv->lock);
		req->token = NULL;
		cancelled = req->cancel_requested;
		pthread_mutex_unlock(&srv->lock);
		hermes_cancel_free(token);
	}

	if (req->id == NULL) {
		free(result);
		memset(&r, 0, sizeof r);
	} else if (req->mcp) {
		hermes_mcp_tool_result(&r, req->id, outcome, result, &err);
	} else if (result == NULL) {
		hermes_rpc_error(&r, req->id, HERMES_RPC_INTERNAL_ERROR, "out of memory running the verb", NULL);
	} else if (outcome == HERMES_OUTCOME_INVALID) {
		free(result);
		hermes_rpc_invalid_params(&r, req->id, &err);
	} else if (cancelled && outcome == HERMES_OUTCOME_FAILED && err.code == HERMES_E_CANCELLED) {
		hermes_reply_cancelled(&r, req->id, result);
		free(result);
	} else {
		hermes_rpc_result(&r, req->id, result, strlen(result));
	}
	hermes_inflight_done(srv, req, &r);
}

static void submit(server_t *srv, request_t *req)
{
	if (hermes_pool_submit(srv->pool, &req->job) != 0) {
		hermes_reply_t r;
		hermes_rpc_error(&r, req->id, HERMES_RPC_INTERNAL_ERROR, "cannot start a worker thread", NULL);
		hermes_inflight_done(srv, req, &r);
	}
}

void hermes_requests_queue(server_t *srv, call_t *c, const hermes_verb_desc_t *verb,
                           const hermes_json_t *params, bool mcp, const char *progress_token,
                           size_t progress_token_len)
{
	if (!mcp && params && params->type != HERMES_JSON_OBJECT) {
		hermes_reply_invalid_params(srv, c, "params", verb ? "InvalidArguments" : "InvalidEnvelope",
		                            verb ? "params of %s must be an object of named arguments"
		                            : "params of %s must be an envelope object {\"verb\": ..., \"arguments\": {...}}",
		                            verb ? verb->name : "hermes/execute");
		return;
	}
	if (!mcp && verb == NULL && params == NULL) {
		hermes_reply_invalid_params(srv, c, "params", "InvalidEnvelope",
		                            "hermes/execute needs params: an envelope {\"verb\": ..., \"arguments\": {...}}");
		return;
	}
	request_t *req = calloc(1, sizeof *req);
	if (req == NULL) {
		hermes_reply_error(srv, c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	const hermes_verb_desc_t *runs = verb;
	if (runs == NULL) { /* the envelope's verb decides the lane; a bad one fails on a worker */
		const hermes_json_t *v = hermes_json_member(params, "verb");
		runs = hermes_json_is_c_string(v) ? hermes_executor_find(srv->ex, v->str) : NULL;
	}
	if (progress_token && (req->progress_token = malloc(progress_token_len + 1)) == NULL) {
		free(req);
		hermes_reply_error(srv, c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	if (progress_token) {
		memcpy(req->progress_token, progress_token, progress_token_len);
		req->progress_token[progress_token_len] = '\0';
	}
	req->srv = srv;
	req->ex = srv->ex;
	req->mcp = mcp;
	req->job.run = run_request;
	/* a LONG verb (proc.run, fs.search...) must not hold up a worker that quick requests need */
	req->job.blocking = runs && (runs->traits & HERMES_TRAIT_LONG);
	bool instant = runs && (runs->traits & HERMES_TRAIT_INSTANT);
	req->msg = hermes_message_ref(c->msg);
	req->params = params;
	req->verb = verb ? verb->name : NULL;
	req->id = c->m.id;
	req->id_key = c->m.id_key;
	req->id_key_len = c->m.id_key_len;
	req->batch = c->batch;
	req->slot = c->slot;
	c->m.id = c->m.id_key = NULL; /* the request owns them now */

	hermes_inflight_add(srv, req);
	if (srv->collecting && instant) {
		req->deferred_next = NULL;
		*srv->deferred_tail = req;
		srv->deferred_tail = &req->deferred_next;
		return;
	}
	submit(srv, req);
}

/* Replies of a batch written at a time: the client reads the first ones while the next are made
 * (fs.exists at 64 in flight: 1 to 16 made no difference past the noise; all at the end was 30%
 * slower, the client and the server taking turns). */
#define FLUSH_EVERY 8

void hermes_requests_flush(server_t *srv)
{
	request_t *list = srv->deferred;
	srv->deferred = NULL;
	srv->deferred_tail = &srv->deferred;
	if (!list)
		return;
	/* INSTANT calls run right here, a few system calls each: handing each to a worker and its
	 * reply on to the writer cost more than the call (at 64 in flight, a quarter of the server's
	 * time went to waking threads). Their replies are gathered and written from here in one
	 * writev() when the output has room (else by the writer); the reply of the only request in
	 * flight is written as it is made (hermes_inflight_done). Only while the replies waiting
	 * leave room: the reader must not wait for the client (it would not see a signal
	 * meanwhile), so past that the calls go to the pool. */
	hermes_output_gather = true;
	int gathered = 0;
	while (list) {
		request_t *next = list->deferred_next;
		if (hermes_output_queued(srv->out) < HERMES_SERVER_MAX_QUEUED_BYTES / 2) {
			run_request(&list->job);
			if (++gathered == FLUSH_EVERY) {
				hermes_output_flush_here(srv->out);
				gathered = 0;
			}
		} else {
			submit(srv, list);
		}
		list = next;
	}
	hermes_output_gather = false;
	hermes_output_flush_here(srv->out);
}

void hermes_method_execute(server_t *srv, call_t *c)
{
	hermes_requests_queue(srv, c, NULL, c->m.params, false, NULL, 0);
}

void hermes_method_verb(server_t *srv, call_t *c)
{
	hermes_requests_queue(srv, c, c->verb, c->m.params, false, NULL, 0);
}

void hermes_method_cancel_request(server_t *srv, call_t *c)
{
	const hermes_json_t *p = c->m.params;
	const hermes_json_t *id = p && p->type == HERMES_JSON_OBJECT ? hermes_json_member(p, "id") : NULL;
	size_t key_len = 0;
	char *key = hermes_rpc_id_key(id, &key_len);
	if (key == NULL) {
		hermes_reply_invalid_params(srv, c, "id", "InvalidArguments",
		                            "$/cancelRequest needs params {\"id\": <the id of the request to cancel>}");
		return;
	}
	size_t n = hermes_inflight_cancel(srv, key, key_len, 0);
	size_t shown = id->end - id->start;
	hermes_log(HERMES_LOG_DEBUG, "$/cancelRequest %.*s: %zu request(s) in flight",
	           (int)(shown > 64 ? 64 : shown), c->msg->body + id->start, n);
	free(key);
	hermes_reply_result(srv, c, strdup("null"));
}
