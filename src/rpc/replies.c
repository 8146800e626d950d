/* rpc/replies.c: where replies go: to the channel of their request, or into their batch until
 * the batch is complete (then to the batch's channel); and the shapes of the replies the method
 * handlers send. Knows no session: a call carries its channel. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "rpc/state.h"

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

void hermes_channel_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	if (hermes_reply_empty(r))
		return;
	ch->ops->send(ch, r, flags);
}

void hermes_channel_hold(hermes_channel_t *ch)
{
	if (ch->ops->hold)
		ch->ops->hold(ch);
}

bool hermes_channel_allows(hermes_channel_t *ch, const struct hermes_verb_desc *desc, char *why,
                           size_t n)
{
	return !ch || !ch->ops->allows || ch->ops->allows(ch, desc, why, n);
}

bool hermes_channel_gone(hermes_channel_t *ch)
{
	return ch && ch->ops->gone && ch->ops->gone(ch);
}

void hermes_channel_release(hermes_channel_t *ch)
{
	if (ch->ops->release)
		ch->ops->release(ch);
}

void hermes_notify(hermes_channel_t *ch, const char *method, const char *params, size_t len)
{
	hermes_reply_t r;
	/* a notification lost to lack of memory is not worth failing anything for */
	hermes_rpc_notification(&r, method, params, len);
	hermes_channel_send(ch, &r, HERMES_SEND_NOTIFICATION);
}

void hermes_notify_buf(hermes_channel_t *ch, const char *method, hermes_buf_t *params)
{
	if (ch && !params->failed && params->data)
		hermes_notify(ch, method, params->data, params->len);
	hermes_buf_free(params);
}

batch_t *hermes_batch_new(hermes_channel_t *ch, size_t n)
{
	batch_t *b = calloc(1, sizeof *b);
	if (b)
		b->bodies = calloc(n, sizeof *b->bodies), b->lens = calloc(n, sizeof *b->lens);
	if (b == NULL || b->bodies == NULL || b->lens == NULL) {
		if (b)
			free(b->bodies), free(b->lens);
		free(b);
		return NULL;
	}
	b->n = n;
	atomic_init(&b->pending, 1);
	b->ch = ch;
	hermes_channel_hold(ch);
	return b;
}

void hermes_batch_send(batch_t *b, unsigned flags)
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
		hermes_channel_send(b->ch, &r, flags);
	} else {
		free(body);
	}
	hermes_channel_release(b->ch);
	free(b->bodies);
	free(b->lens);
	free(b);
}

/* The slot's body is written by the one thread answering it, and read by the thread that takes
 * the last pending count: the atomic decrement orders the two. */
batch_t *hermes_batch_place(batch_t *batch, size_t slot, hermes_reply_t *r)
{
	if (!hermes_reply_empty(r))
		batch->bodies[slot] = flatten(r, &batch->lens[slot]);
	return atomic_fetch_sub(&batch->pending, 1) == 1 ? batch : NULL;
}

void hermes_reply_place(hermes_channel_t *ch, batch_t *batch, size_t slot, hermes_reply_t *r)
{
	if (batch == NULL) {
		hermes_channel_send(ch, r, 0);
		return;
	}
	atomic_fetch_add(&batch->pending, 1); /* hermes_batch_place takes one off */
	batch_t *done = hermes_batch_place(batch, slot, r);
	if (done)
		hermes_batch_send(done, 0);
}

void hermes_reply_nothing(call_t *c)
{
	hermes_reply_t r = {{NULL, NULL}, {0, 0}, NULL};
	if (c->batch)
		hermes_reply_place(c->ch, c->batch, c->slot, &r);
}

/* An error about a request; a notification is never answered, so for one it is only logged. */
void hermes_reply_error(call_t *c, int code, const char *message, const char *data)
{
	if (c->m.id == NULL) {
		hermes_log(HERMES_LOG_WARN, "notification %s failed: %s", c->m.method ? c->m.method : "",
		           message);
		hermes_reply_nothing(c);
		return;
	}
	hermes_reply_t r;
	hermes_rpc_error(&r, c->m.id, code, message, data);
	hermes_reply_place(c->ch, c->batch, c->slot, &r);
}

void hermes_reply_result(call_t *c, char *json)
{
	if (c->m.id == NULL) {
		free(json);
		hermes_reply_nothing(c);
		return;
	}
	hermes_reply_t r;
	if (json == NULL)
		hermes_rpc_error(&r, c->m.id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		hermes_rpc_result(&r, c->m.id, json, strlen(json));
	hermes_reply_place(c->ch, c->batch, c->slot, &r);
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

void hermes_reply_invalid_params(call_t *c, const char *field, const char *errcode,
                                 const char *fmt, ...)
{
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	char *data = error_data(errcode, field);
	hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, message, data);
	free(data);
}

void hermes_rpc_invalid_params(hermes_reply_t *r, const char *id, const hermes_error_t *err)
{
	const char *name = hermes_errcode_name(err->code);
	char *data = error_data(name ? name : "InvalidArguments", err->field);
	hermes_rpc_error(r, id, HERMES_RPC_INVALID_PARAMS, err->message[0] ? err->message : "invalid params", data);
	free(data);
}
