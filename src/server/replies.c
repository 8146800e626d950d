/* server/replies.c: where replies go: straight to the writer, or into their batch until the batch
 * is complete; and the shapes of the replies the method handlers send. Calls nothing but the
 * writer (output.c). */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "server/jsonrpc.h"
#include "server/log.h"
#include "server/state.h"

/* The whole body of a reply as one string (for batches). */
static char *flatten(hermes_reply_t *r, size_t *len)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	for (int i = 0; i < 2; i++)
		hermes_buf_append(&b, r->part[i] ? r->part[i] : "", r->len[i]);
	if (r->tail)
		hermes_buf_puts(&b, r->tail);
	*len = b.len;
	hermes_reply_clear(r);
	return hermes_buf_finish(&b);
}

/* Sends the collected replies of a finished batch (nothing if it held only notifications). */
void hermes_batch_send(server_t *srv, batch_t *b)
{
	hermes_buf_t out = HERMES_BUF_INIT;
	bool any = false;
	for (size_t i = 0; i < b->n; i++) {
		if (b->bodies[i] == NULL)
			continue;
		hermes_buf_puts(&out, any ? "," : "[");
		hermes_buf_append(&out, b->bodies[i], b->lens[i]);
		free(b->bodies[i]);
		any = true;
	}
	hermes_buf_puts(&out, "]");
	size_t len = out.len;
	char *body = hermes_buf_finish(&out);
	if (any) {
		hermes_reply_t r = {{body, NULL}, {len, 0}, NULL};
		if (body == NULL)
			hermes_rpc_error(&r, NULL, HERMES_RPC_INTERNAL_ERROR, "out of memory building a batch reply", NULL);
		hermes_output_send(srv->out, srv->framer.mode, &r);
	} else {
		free(body);
	}
	free(b->bodies);
	free(b->lens);
	free(b);
}

batch_t *hermes_batch_place_locked(batch_t *batch, size_t slot, hermes_reply_t *r)
{
	if (r->part[0] || r->part[1] || r->tail)
		batch->bodies[slot] = flatten(r, &batch->lens[slot]);
	return --batch->pending == 0 ? batch : NULL;
}

void hermes_reply_place(server_t *srv, batch_t *batch, size_t slot, hermes_reply_t *r)
{
	if (batch == NULL) {
		if (r->part[0] || r->part[1] || r->tail)
			hermes_output_send(srv->out, srv->framer.mode, r);
		return;
	}
	pthread_mutex_lock(&srv->lock);
	batch->pending++; /* hermes_batch_place_locked takes one off */
	batch_t *done = hermes_batch_place_locked(batch, slot, r);
	pthread_mutex_unlock(&srv->lock);
	if (done)
		hermes_batch_send(srv, done);
}

void hermes_reply_nothing(server_t *srv, call_t *c)
{
	hermes_reply_t r = {{NULL, NULL}, {0, 0}, NULL};
	if (c->batch)
		hermes_reply_place(srv, c->batch, c->slot, &r);
}

/* An error about a request; a notification is never answered, so for one it is only logged. */
void hermes_reply_error(server_t *srv, call_t *c, int code, const char *message, const char *data)
{
	if (c->m.id == NULL) {
		hermes_log(HERMES_LOG_WARN, "notification %s failed: %s", c->m.method ? c->m.method : "",
		           message);
		hermes_reply_nothing(srv, c);
		return;
	}
	hermes_reply_t r;
	hermes_rpc_error(&r, c->m.id, code, message, data);
	hermes_reply_place(srv, c->batch, c->slot, &r);
}

void hermes_reply_result(server_t *srv, call_t *c, char *json)
{
	if (c->m.id == NULL) {
		free(json);
		hermes_reply_nothing(srv, c);
		return;
	}
	hermes_reply_t r;
	if (json == NULL)
		hermes_rpc_error(&r, c->m.id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		hermes_rpc_result(&r, c->m.id, json, strlen(json));
	hermes_reply_place(srv, c->batch, c->slot, &r);
}

static char *error_data(const char *errcode, const char *field)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"errorCode\":");
	hermes_buf_json_string(&b, errcode, strlen(errcode));
	if (field && field[0]) {
		hermes_buf_puts(&b, ",\"field\":");
		hermes_buf_json_string(&b, field, strlen(field));
	}
	hermes_buf_puts(&b, "}");
	return hermes_buf_finish(&b);
}

void hermes_reply_invalid_params(server_t *srv, call_t *c, const char *field, const char *errcode,
                                 const char *fmt, ...)
{
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	char *data = error_data(errcode, field);
	hermes_reply_error(srv, c, HERMES_RPC_INVALID_PARAMS, message, data);
	free(data);
}

void hermes_rpc_invalid_params(hermes_reply_t *r, const char *id, const hermes_error_t *err)
{
	const char *name = hermes_errcode_name(err->code);
	char *data = error_data(name ? name : "InvalidArguments", err->field);
	hermes_rpc_error(r, id, HERMES_RPC_INVALID_PARAMS, err->message[0] ? err->message : "invalid params", data);
	free(data);
}
