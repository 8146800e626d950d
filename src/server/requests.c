/* server/requests.c: verb requests: queued on the worker pool, run there, answered (-32602 for
 * arguments that do not decode, -32800 once cancelled); and $/cancelRequest, which finds them. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/executor.h"
#include "server/json_text.h"
#include "server/jsonrpc.h"
#include "server/log.h"
#include "server/state.h"

static void free_request(request_t *req)
{
	cJSON_Delete(req->root);
	free(req->id);
	free(req->id_key);
	free(req);
}

/* The end of a pooled request: off the active list, reply placed, request freed. */
static void complete(request_t *req, hermes_reply_t *r)
{
	server_t *srv = req->srv;
	pthread_mutex_lock(&srv->lock);
	if (req->prev)
		req->prev->next = req->next;
	else
		srv->active = req->next;
	if (req->next)
		req->next->prev = req->prev;
	srv->active_count--;
	bool idle = srv->active_count == 0;
	batch_t *done = NULL;
	if (req->id == NULL)
		hermes_reply_clear(r); /* a notification: its batch slot (if any) settles empty */
	if (req->batch)
		done = hermes_batch_place_locked(srv, req->batch, req->slot, r);
	pthread_mutex_unlock(&srv->lock);
	if (done)
		hermes_batch_send(srv, done);
	else if (req->batch == NULL && req->id)
		hermes_dispatch_send(srv, r); /* outside the lock: it is the hot path */
	free_request(req);
	if (idle)
		hermes_dispatch_check_idle(srv);
}

static void cancelled_reply(hermes_reply_t *r, const char *id, char *result)
{
	if (result) {
		hermes_buf_t b = HERMES_BUF_INIT;
		hermes_buf_puts(&b, "{\"result\":");
		hermes_buf_puts(&b, result);
		hermes_buf_puts(&b, "}");
		char *data = hermes_buf_finish(&b);
		hermes_rpc_error(r, id, HERMES_RPC_CANCELLED, "request cancelled", data);
		free(data);
	} else {
		hermes_rpc_error(r, id, HERMES_RPC_CANCELLED, "request cancelled", NULL);
	}
}

/* Did the verb stop because it was cancelled (errorCode Cancelled)? */
static bool result_is_cancelled(const char *result)
{
	cJSON *j = cJSON_Parse(result);
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(j, "errorCode");
	bool c = cJSON_IsString(code) && strcmp(code->valuestring, "Cancelled") == 0;
	cJSON_Delete(j);
	return c;
}

static void invalid_params_reply(hermes_reply_t *r, const char *id, const hermes_error_t *err)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	const char *name = hermes_errcode_name(err->code);
	hermes_buf_puts(&b, "{\"errorCode\":");
	hermes_buf_json_string(&b, name ? name : "InvalidArguments", strlen(name ? name : "InvalidArguments"));
	if (err->field[0]) {
		hermes_buf_puts(&b, ",\"field\":");
		hermes_buf_json_string(&b, err->field, strlen(err->field));
	}
	hermes_buf_puts(&b, "}");
	char *data = hermes_buf_finish(&b);
	hermes_rpc_error(r, id, HERMES_RPC_INVALID_PARAMS, err->message[0] ? err->message : "invalid params", data);
	free(data);
}

/* A worker runs this for every pooled request. */
static void run_request(hermes_pool_job_t *job)
{
	request_t *req = (request_t *)job;
	server_t *srv = req->srv;
	hermes_reply_t r;

	/* Only a blocking verb (proc.run) watches a cancellation token; the others run to the end
	 * anyway, so they are spared the descriptor it costs. */
	hermes_cancel_t *token = NULL;
	if (req->job.blocking && (token = hermes_cancel_new()) == NULL)
		hermes_log(HERMES_LOG_WARN, "no cancellation token for a request (out of descriptors?)");
	pthread_mutex_lock(&srv->lock);
	req->started = true;
	bool cancelled = req->cancel_requested;
	req->token = cancelled ? NULL : token;
	pthread_mutex_unlock(&srv->lock);
	if (cancelled) {
		/* cancelled between leaving the queue and starting: it never runs */
		hermes_cancel_free(token);
		cancelled_reply(&r, req->id, NULL);
		complete(req, &r);
		return;
	}

	char *result = NULL;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	/* A bridge until the server reads each message once with core/json.c. */
	char *params_text = req->params ? cJSON_PrintUnformatted(req->params) : NULL;
	hermes_json_doc_t *params = NULL;
	if (params_text)
		hermes_json_parse(params_text, strlen(params_text), HERMES_RPC_MAX_DEPTH, &params, NULL,
		                  NULL);
	hermes_outcome_t outcome =
		hermes_execute_json(srv->ex, req->verb, params ? hermes_json_root(params) : NULL,
		                    params_text, 0, token, &result, &err);
	hermes_json_doc_free(params);
	free(params_text);

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
	} else if (result == NULL) {
		hermes_rpc_error(&r, req->id, HERMES_RPC_INTERNAL_ERROR, "out of memory running the verb", NULL);
	} else if (outcome == HERMES_OUTCOME_INVALID) {
		free(result);
		invalid_params_reply(&r, req->id, &err);
	} else if (cancelled && outcome == HERMES_OUTCOME_FAILED && result_is_cancelled(result)) {
		cancelled_reply(&r, req->id, result);
		free(result);
	} else {
		hermes_rpc_result(&r, req->id, result, strlen(result));
	}
	complete(req, &r);
}

/* Cancels the requests matching key (NULL: all). Queued ones are answered -32800 at once and never
 * run; running ones have their token cancelled (proc.run ends its process group). */
static size_t cancel_matching(server_t *srv, const char *key)
{
	request_t *dropped = NULL;
	size_t n = 0;
	pthread_mutex_lock(&srv->lock);
	for (request_t *r = srv->active; r; r = r->next) {
		if (key && (r->id_key == NULL || strcmp(r->id_key, key) != 0))
			continue;
		n++;
		if (!r->started && hermes_pool_remove(srv->pool, &r->job)) {
			r->dropped = dropped;
			dropped = r;
		} else {
			r->cancel_requested = true;
			if (r->token)
				hermes_cancel_request(r->token);
		}
	}
	pthread_mutex_unlock(&srv->lock);
	while (dropped) {
		request_t *next = dropped->dropped;
		hermes_reply_t r;
		cancelled_reply(&r, dropped->id, NULL);
		complete(dropped, &r);
		dropped = next;
	}
	return n;
}

void hermes_dispatch_cancel_all(server_t *srv)
{
	size_t n = cancel_matching(srv, NULL);
	if (n)
		hermes_log(HERMES_LOG_INFO, "cancelled %zu request(s)", n);
}

void hermes_method_cancel_request(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	const char *raw = NULL;
	size_t raw_len = 0;
	char *key = NULL;
	if (m->params_raw && cJSON_IsObject(m->params) &&
	    hermes_jt_member(m->params_raw, m->params_raw_len, "id", &raw, &raw_len) == 1)
		key = hermes_rpc_id_key(raw, raw_len);
	if (key == NULL) {
		hermes_reply_invalid_params(srv, batch, slot, m->id, "id", "InvalidArguments",
		                            "$/cancelRequest needs params {\"id\": <the id of the request to cancel>}");
		return;
	}
	size_t n = cancel_matching(srv, key);
	hermes_log(HERMES_LOG_DEBUG, "$/cancelRequest %.*s: %zu request(s) in flight", (int)raw_len, raw, n);
	free(key);
	if (m->id)
		hermes_reply_result(srv, batch, slot, m->id, strdup("null"));
	else
		hermes_reply_nothing(srv, batch, slot);
}

/* Queues a verb request on the pool. verb NULL: hermes/execute (params is the envelope). */
void hermes_requests_queue(server_t *srv, hermes_rpc_message_t *m, const hermes_verb_desc_t *verb,
                           batch_t *batch, size_t slot)
{
	if (m->params && !cJSON_IsObject(m->params)) {
		hermes_reply_invalid_params(srv, batch, slot, m->id, "params", verb ? "InvalidArguments" : "InvalidEnvelope",
		                            verb ? "params of %s must be an object of named arguments"
		                            : "params of %s must be an envelope object {\"verb\": ..., \"arguments\": {...}}",
		                            verb ? verb->name : "hermes/execute");
		return;
	}
	if (verb == NULL && m->params == NULL) {
		hermes_reply_invalid_params(srv, batch, slot, m->id, "params", "InvalidEnvelope",
		                            "hermes/execute needs params: an envelope {\"verb\": ..., \"arguments\": {...}}");
		return;
	}
	request_t *req = calloc(1, sizeof *req);
	if (req == NULL) {
		hermes_reply_request_error(srv, batch, slot, m->id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	const hermes_verb_desc_t *runs = verb;
	if (runs == NULL) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(m->params, "verb");
		runs = cJSON_IsString(v) ? hermes_executor_find(srv->ex, v->valuestring) : NULL;
	}
	req->srv = srv;
	req->job.run = run_request;
	/* a LONG verb (proc.run, a big copy...) must not hold up a worker that quick requests need */
	req->job.blocking = runs && (runs->traits & HERMES_TRAIT_LONG);
	req->root = m->root;
	req->params = m->params;
	req->verb = verb ? verb->name : NULL;
	req->id = m->id;
	req->id_key = m->id_key;
	req->batch = batch;
	req->slot = slot;
	m->root = NULL;
	m->id = m->id_key = NULL;

	pthread_mutex_lock(&srv->lock);
	req->next = srv->active;
	if (srv->active)
		srv->active->prev = req;
	srv->active = req;
	srv->active_count++;
	if (batch)
		batch->pending++;
	pthread_mutex_unlock(&srv->lock);
	if (hermes_pool_submit(srv->pool, &req->job) != 0) {
		hermes_reply_t r;
		hermes_rpc_error(&r, req->id, HERMES_RPC_INTERNAL_ERROR, "cannot start a worker thread", NULL);
		complete(req, &r);
	}
}
