/* server/dispatch.c: what each message means: strict JSON validation, batches, requests versus
 * notifications, and the routing of methods; the lifecycle methods shutdown and exit. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/executor.h"
#include "core/json.h"
#include "core/utf8.h"
#include "server/json_text.h"
#include "server/jsonrpc.h"
#include "server/log.h"
#include "server/state.h"

static void do_shutdown(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	hermes_log(HERMES_LOG_INFO, "shutdown: finishing the work in flight");
	pthread_mutex_lock(&srv->lock);
	srv->shutdown = true;
	bool now = srv->active_count == 0;
	pending_id_t *p = NULL;
	if (!now && m->id && batch == NULL && (p = malloc(sizeof *p)) != NULL) {
		p->id = m->id;
		m->id = NULL;
		p->next = srv->shutdown_replies;
		srv->shutdown_replies = p;
	}
	pthread_mutex_unlock(&srv->lock);
	if (m->id == NULL && p == NULL) {
		/* A shutdown notification (some hosts send one): finish the work, then exit. */
		srv->stop_reading = true;
		if (srv->exit_status < 0)
			srv->exit_status = 0;
		hermes_reply_nothing(srv, batch, slot);
		return;
	}
	if (p == NULL) /* nothing in flight (or in a batch: its own reply waits for the batch) */
		hermes_reply_result(srv, batch, slot, m->id, strdup("null"));
}

static void do_exit(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	pthread_mutex_lock(&srv->lock);
	bool clean = srv->shutdown;
	srv->shutdown = true;
	pthread_mutex_unlock(&srv->lock);
	hermes_log(HERMES_LOG_INFO, "exit%s", clean ? "" : " without shutdown: cancelling the work in flight");
	if (!clean)
		hermes_dispatch_cancel_all(srv);
	srv->stop_reading = true;
	if (srv->exit_status < 0)
		srv->exit_status = clean ? 0 : 1;
	if (m->id)
		hermes_reply_result(srv, batch, slot, m->id, strdup("null"));
	else
		hermes_reply_nothing(srv, batch, slot);
}

/* One request object (alone or in a batch): text[0..len) is valid JSON. */
static void handle_object(server_t *srv, const char *text, size_t len, batch_t *batch, size_t slot)
{
	hermes_rpc_message_t m;
	hermes_rpc_kind_t kind = hermes_rpc_parse(text, len, &m);
	if (kind == HERMES_RPC_RESPONSE) {
		hermes_log(HERMES_LOG_DEBUG, "a response (id %s) ignored: hermes serve sends no requests", m.id);
		hermes_reply_nothing(srv, batch, slot);
		goto out;
	}
	if (kind == HERMES_RPC_INVALID) {
		hermes_log(HERMES_LOG_DEBUG, "invalid request: %s", m.why);
		hermes_reply_error(srv, batch, slot, m.id, m.code, m.why, NULL);
		goto out;
	}
	const char *method = m.method;
	if (m.id)
		hermes_log(HERMES_LOG_DEBUG, "request %s (id %s)", method, m.id);
	else
		hermes_log(HERMES_LOG_DEBUG, "notification %s", method);

	if (strcmp(method, "exit") == 0) {
		do_exit(srv, &m, batch, slot);
		goto out;
	}
	if (strcmp(method, "$/cancelRequest") == 0) {
		hermes_method_cancel_request(srv, &m, batch, slot);
		goto out;
	}
	pthread_mutex_lock(&srv->lock);
	bool shutting_down = srv->shutdown;
	pthread_mutex_unlock(&srv->lock);
	if (shutting_down) {
		if (m.id)
			hermes_reply_error(srv, batch, slot, m.id, HERMES_RPC_INVALID_REQUEST,
			                   "the server is shutting down and takes no new requests", NULL);
		else
			hermes_reply_nothing(srv, batch, slot);
		goto out;
	}
	if (strcmp(method, "initialize") == 0) {
		hermes_method_initialize(srv, &m, batch, slot);
		goto out;
	}
	if (strcmp(method, "initialized") == 0) {
		if (m.id)
			hermes_reply_result(srv, batch, slot, m.id, strdup("null"));
		else
			hermes_reply_nothing(srv, batch, slot);
		goto out;
	}
	if (strcmp(method, "shutdown") == 0) {
		do_shutdown(srv, &m, batch, slot);
		goto out;
	}

	bool execute = strcmp(method, "hermes/execute") == 0;
	bool verbs = strcmp(method, "hermes/verbs") == 0;
	bool schema = strcmp(method, "hermes/schema") == 0;
	const hermes_verb_desc_t *desc = NULL;
	if (!execute && !verbs && !schema && (desc = hermes_verb_desc_find(method)) == NULL) {
		if (m.id) {
			char message[512];
			snprintf(message, sizeof message, "method not found: '%.400s'", method);
			hermes_reply_error(srv, batch, slot, m.id, HERMES_RPC_METHOD_NOT_FOUND, message, NULL);
		} else {
			/* unknown notifications ($/setTrace, ...) are ignored, as LSP asks */
			hermes_log(HERMES_LOG_DEBUG, "notification '%s' ignored", method);
			hermes_reply_nothing(srv, batch, slot);
		}
		goto out;
	}
	char why[1024];
	if (hermes_server_ensure_executor(srv, why, sizeof why) != 0) {
		hermes_reply_request_error(srv, batch, slot, m.id, HERMES_RPC_INTERNAL_ERROR, why, NULL);
		goto out;
	}
	if (verbs)
		hermes_method_verbs(srv, &m, batch, slot);
	else if (schema)
		hermes_method_schema(srv, &m, batch, slot);
	else if (execute)
		hermes_requests_queue(srv, &m, NULL, batch, slot);
	else if ((desc = hermes_executor_find(srv->ex, method)) == NULL) {
		char message[512];
		snprintf(message, sizeof message, "method not found: verb '%.400s' is not available", method);
		hermes_reply_request_error(srv, batch, slot, m.id, HERMES_RPC_METHOD_NOT_FOUND, message, NULL);
	} else
		hermes_requests_queue(srv, &m, desc, batch, slot);
out:
	hermes_rpc_message_clear(&m);
}

void hermes_dispatch_frame_error(server_t *srv, int code, const char *message)
{
	hermes_log(HERMES_LOG_WARN, "%s", message);
	hermes_reply_error(srv, NULL, 0, NULL, code, message, NULL);
}

void hermes_dispatch_message(server_t *srv, char *body, size_t len)
{
	size_t end = 0;
	hermes_error_t err;
	hermes_json_doc_t *tree = NULL;
	int rc = hermes_json_parse(body, len, HERMES_RPC_MAX_DEPTH, &tree, &end, &err);
	hermes_json_doc_free(tree);
	if (rc != 0 || hermes_json_skip_ws(body, len, end) != len) {
		char message[sizeof err.message + 64], data[64];
		if (rc == 0) {
			int line, column;
			hermes_text_position(body, end, &line, &column);
			snprintf(message, sizeof message, "parse error: unexpected text after the JSON value "
			         "at line %d, column %d", line, column);
			snprintf(data, sizeof data, "{\"line\":%d,\"column\":%d}", line, column);
		} else {
			snprintf(message, sizeof message, "parse error: %s", err.message);
			snprintf(data, sizeof data, "{\"line\":%d,\"column\":%d}", err.line, err.column);
		}
		hermes_log(HERMES_LOG_DEBUG, "%s", message);
		hermes_reply_error(srv, NULL, 0, NULL, HERMES_RPC_PARSE_ERROR, message, data);
		free(body);
		return;
	}
	const char *p = body + hermes_json_skip_ws(body, len, 0);
	if (*p == '{') {
		handle_object(srv, body, len, NULL, 0);
	} else if (*p == '[') {
		/* A batch: count the elements, then dispatch each; the reply goes out when the last
		 * element is answered. */
		const char *e = body + len;
		size_t n = 0;
		const char *q = hermes_jt_skip_ws(p + 1, e);
		while (q < e && *q != ']') {
			n++;
			q = hermes_jt_skip_ws(hermes_jt_skip_value(q, e), e);
			if (q < e && *q == ',')
				q = hermes_jt_skip_ws(q + 1, e);
		}
		if (n == 0) {
			hermes_reply_error(srv, NULL, 0, NULL, HERMES_RPC_INVALID_REQUEST, "empty batch: a batch must hold at least one request", NULL);
			free(body);
			return;
		}
		batch_t *b = calloc(1, sizeof *b);
		if (b)
			b->bodies = calloc(n, sizeof *b->bodies), b->lens = calloc(n, sizeof *b->lens);
		if (b == NULL || b->bodies == NULL || b->lens == NULL) {
			if (b)
				free(b->bodies), free(b->lens);
			free(b);
			hermes_reply_error(srv, NULL, 0, NULL, HERMES_RPC_INTERNAL_ERROR, "out of memory for a batch", NULL);
			free(body);
			return;
		}
		b->n = n;
		b->pending = 1; /* held while dispatching */
		q = hermes_jt_skip_ws(p + 1, e);
		for (size_t i = 0; i < n; i++) {
			const char *v = q;
			const char *ve = hermes_jt_skip_value(q, e);
			if (*v == '{')
				handle_object(srv, v, (size_t)(ve - v), b, i);
			else
				hermes_reply_error(srv, b, i, NULL, HERMES_RPC_INVALID_REQUEST,
				                   "a batch element must be a request object", NULL);
			q = hermes_jt_skip_ws(ve, e);
			if (q < e && *q == ',')
				q = hermes_jt_skip_ws(q + 1, e);
		}
		pthread_mutex_lock(&srv->lock);
		bool done = --b->pending == 0;
		pthread_mutex_unlock(&srv->lock);
		if (done)
			hermes_batch_send(srv, b);
	} else {
		hermes_reply_error(srv, NULL, 0, NULL, HERMES_RPC_INVALID_REQUEST,
		                   "a message must be a request object (or a batch: an array of them)", NULL);
	}
	free(body);
}
