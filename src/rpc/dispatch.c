/* rpc/dispatch.c: one message: read once by core/json.c into a tree, split into its batch
 * elements, each classified (request, notification, response, invalid), checked against its row
 * in the method table of the protocol the session speaks, and handed to the row's handler. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/executor.h"
#include "core/json.h"
#include "core/utf8.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "rpc/state.h"

/* The budget counts what the messages hold (its bound on held bytes); the session is told when
 * they go. */
static void message_freed(void *ctx, size_t bytes)
{
	server_t *srv = ctx;
	atomic_fetch_sub(&srv->budget->held, bytes);
	session_room(srv);
}

/* The row for a method name in the table of the protocol the session speaks (the table the
 * protocol picks for this call, if it has several: MCP's eras); a verb's name finds the protocol's
 * verb row (if it has one) and sets *verb. NULL if nothing answers to name. */
static const method_t *find_row(server_t *srv, const call_t *c, const char *name,
                                const hermes_verb_desc_t **verb)
{
	const hermes_protocol_desc_t *p = srv->protocols[srv->protocol];
	const method_t *table = p->table_for ? p->table_for(c) : p->methods;
	*verb = NULL;
	for (const method_t *m = table; m->name; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	if (p->verb_row == NULL)
		return NULL;
	/* The verbs of the executor if there is one yet, else of the table (the same list; the
	 * executor is only opened once the method is known to need it). */
	*verb = srv->ex ? hermes_executor_find(srv->ex, name) : hermes_verb_desc_find(name);
	return *verb ? p->verb_row : NULL;
}

/* A reply to a message that never reached a handler: answered even without an id (id null). */
static void reply_invalid(hermes_channel_t *ch, batch_t *batch, size_t slot, const char *id, int code,
                          const char *message, const char *data)
{
	hermes_reply_t r;
	hermes_rpc_error(&r, id, code, message, data);
	hermes_reply_place(ch, batch, slot, &r);
}

/* The checks of the method's row; true if the call was settled by one of them. */
static bool refused(server_t *srv, call_t *c, const method_t *row)
{
	const char *method = c->m.method;
	char message[512];
	if (row->kind == HERMES_METHOD_NOTIFICATION && c->m.id) {
		snprintf(message, sizeof message, "'%.400s' is a notification: send it without an id", method);
		hermes_reply_error(c, HERMES_RPC_INVALID_REQUEST, message, NULL);
		return true;
	}
	if (row->kind == HERMES_METHOD_REQUEST && c->m.id == NULL) {
		hermes_log(HERMES_LOG_DEBUG, "'%s' sent as a notification ignored: it is a request", method);
		hermes_reply_nothing(c);
		return true;
	}
	if (!row->after_shutdown) {
		pthread_mutex_lock(&srv->lock);
		bool shutting_down = srv->shutdown;
		pthread_mutex_unlock(&srv->lock);
		if (shutting_down) {
			hermes_reply_error(c, HERMES_RPC_INVALID_REQUEST,
			                   "the server is shutting down and takes no new requests", NULL);
			return true;
		}
	}
	if (!row->before_initialize && !srv->initialized) {
		snprintf(message, sizeof message, "'%.400s' before initialize: send initialize first", method);
		hermes_reply_error(c, HERMES_RPC_NOT_INITIALIZED, message, NULL);
		return true;
	}
	if (row->needs_workspace) {
		char why[1024];
		if (hermes_server_workspace(srv, why, sizeof why) != 0) {
			hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, why, NULL);
			return true;
		}
		if (c->verb && (c->verb = hermes_executor_find(srv->ex, method)) == NULL) {
			snprintf(message, sizeof message, "method not found: verb '%.400s' is not available", method);
			hermes_reply_error(c, HERMES_RPC_METHOD_NOT_FOUND, message, NULL);
			return true;
		}
	}
	return false;
}

/* One request object (alone or in a batch). */
static void handle_object(server_t *srv, hermes_channel_t *ch, message_t *msg,
                          const hermes_json_t *obj, batch_t *batch, size_t slot)
{
	call_t c = {.msg = msg, .ch = ch, .batch = batch, .slot = slot};
	hermes_rpc_kind_t kind = hermes_rpc_parse(obj, msg->body, &c.m);
	if (kind == HERMES_RPC_RESPONSE) {
		if (srv->protocols[srv->protocol]->response)
			srv->protocols[srv->protocol]->response(srv, &c, obj);
		else
			hermes_log(HERMES_LOG_DEBUG, "a response (id %s) ignored: hermes serve sends no requests", c.m.id);
		hermes_reply_nothing(&c);
	} else if (kind == HERMES_RPC_INVALID) {
		hermes_log(HERMES_LOG_DEBUG, "invalid request: %s", c.m.why);
		reply_invalid(ch, batch, slot, c.m.id, c.m.code, c.m.why, NULL);
	} else {
		if (c.m.id)
			hermes_log(HERMES_LOG_DEBUG, "request %s (id %s)", c.m.method, c.m.id);
		else
			hermes_log(HERMES_LOG_DEBUG, "notification %s", c.m.method);
		const method_t *row = find_row(srv, &c, c.m.method, &c.verb);
		if (row == NULL) {
			char message[512];
			snprintf(message, sizeof message, "method not found: '%.400s'", c.m.method);
			if (c.m.id == NULL) { /* unknown notifications ($/setTrace, ...) are ignored, as LSP asks */
				hermes_log(HERMES_LOG_DEBUG, "notification '%s' ignored", c.m.method);
				hermes_reply_nothing(&c);
			} else {
				hermes_reply_error(&c, HERMES_RPC_METHOD_NOT_FOUND, message, NULL);
			}
		} else if (!refused(srv, &c, row)) {
			row->handle(srv, &c);
		}
	}
	hermes_rpc_message_clear(&c.m);
}

void hermes_dispatch_handoff(server_t *srv, call_t *c, hermes_protocol_t to)
{
	for (const method_t *m = srv->protocols[to]->methods; m->name; m++) {
		if (strcmp(m->name, c->m.method) == 0) {
			m->handle(srv, c);
			return;
		}
	}
	hermes_reply_error(c, HERMES_RPC_METHOD_NOT_FOUND, "method not found", NULL);
}

void hermes_dispatch_frame_error(hermes_channel_t *ch, int code, const char *message)
{
	hermes_log(HERMES_LOG_WARN, "%s", message);
	reply_invalid(ch, NULL, 0, NULL, code, message, NULL);
}

/* Answers a message that is not JSON: -32700 with the position. */
static void parse_error(hermes_channel_t *ch, const char *body, size_t len, int rc, size_t end,
                        const hermes_error_t *err)
{
	char message[sizeof err->message + 64], data[64];
	if (rc == 0) {
		int line, column;
		hermes_text_position(body, hermes_json_skip_ws(body, len, end), &line, &column);
		snprintf(message, sizeof message, "parse error: unexpected text after the JSON value "
		         "at line %d, column %d", line, column);
		snprintf(data, sizeof data, "{\"line\":%d,\"column\":%d}", line, column);
	} else if (err->code == HERMES_E_INTERNAL) {
		reply_invalid(ch, NULL, 0, NULL, HERMES_RPC_INTERNAL_ERROR, err->message, NULL);
		return;
	} else if (err->code == HERMES_E_TOO_LARGE) { /* valid JSON, maybe, but too much of it */
		hermes_log(HERMES_LOG_WARN, "%s", err->message);
		reply_invalid(ch, NULL, 0, NULL, HERMES_RPC_INVALID_REQUEST, err->message, NULL);
		return;
	} else {
		snprintf(message, sizeof message, "parse error: %s", err->message);
		snprintf(data, sizeof data, "{\"line\":%d,\"column\":%d}", err->line, err->column);
	}
	hermes_log(HERMES_LOG_DEBUG, "%s", message);
	reply_invalid(ch, NULL, 0, NULL, HERMES_RPC_PARSE_ERROR, message, data);
}

/* A batch: every element is dispatched; the reply goes out when the last one is answered. */
static void handle_batch(server_t *srv, hermes_channel_t *ch, message_t *msg,
                         const hermes_json_t *array)
{
	size_t n = array->count;
	if (n == 0) {
		reply_invalid(ch, NULL, 0, NULL, HERMES_RPC_INVALID_REQUEST,
		              "empty batch: a batch must hold at least one request", NULL);
		return;
	}
	batch_t *b = hermes_batch_new(ch, n); /* one reply pending: the reader's, while dispatching */
	if (b == NULL) {
		reply_invalid(ch, NULL, 0, NULL, HERMES_RPC_INTERNAL_ERROR, "out of memory for a batch", NULL);
		return;
	}
	size_t i = 0;
	for (const hermes_json_t *e = array->child; e; e = e->next, i++) {
		if (e->type == HERMES_JSON_OBJECT)
			handle_object(srv, ch, msg, e, b, i);
		else
			reply_invalid(ch, b, i, NULL, HERMES_RPC_INVALID_REQUEST,
			              "a batch element must be a request object", NULL);
	}
	if (atomic_fetch_sub(&b->pending, 1) == 1)
		hermes_batch_send(b, 0);
}

void hermes_dispatch_message(server_t *srv, hermes_channel_t *ch, char *body, size_t len)
{
	size_t end = 0;
	hermes_error_t err;
	hermes_json_doc_t *doc = NULL;
	int rc = hermes_json_parse_bounded(body, len, HERMES_RPC_MAX_DEPTH, HERMES_SERVER_MAX_VALUES,
	                                   &doc, &end, &err);
	if (rc != 0 || hermes_json_skip_ws(body, len, end) != len) {
		parse_error(ch, body, len, rc, end, &err);
		hermes_json_doc_free(doc);
		free(body);
		return;
	}
	/* the reader's reference, for the time of the dispatch */
	message_t *msg = hermes_message_new(body, len, doc, message_freed, srv);
	if (msg == NULL) {
		hermes_json_doc_free(doc);
		free(body);
		reply_invalid(ch, NULL, 0, NULL, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	atomic_fetch_add(&srv->budget->held, msg->bytes);
	const hermes_json_t *root = hermes_json_root(doc);
	if (root->type == HERMES_JSON_OBJECT)
		handle_object(srv, ch, msg, root, NULL, 0);
	else if (root->type == HERMES_JSON_ARRAY)
		handle_batch(srv, ch, msg, root);
	else
		reply_invalid(ch, NULL, 0, NULL, HERMES_RPC_INVALID_REQUEST,
		              "a message must be a request object (or a batch: an array of them)", NULL);
	hermes_message_unref(msg);
}
