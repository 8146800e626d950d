/* server/replies.c: where replies go: straight to the writer, or into their batch until the batch
 * is complete; and the shapes of the replies the dispatch code sends. */
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

void hermes_dispatch_send(server_t *srv, hermes_reply_t *r)
{
	hermes_output_send(srv->out, srv->framer.mode, r);
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
		hermes_dispatch_send(srv, &r);
	} else {
		free(body);
	}
	free(b->bodies);
	free(b->lens);
	free(b);
}

/* Puts a reply where it belongs: into its batch, or straight out. Takes r. Returns a batch that
 * is now complete (the caller sends it after unlocking), or NULL. Server lock held. */
batch_t *hermes_batch_place_locked(server_t *srv, batch_t *batch, size_t slot, hermes_reply_t *r)
{
	if (batch == NULL) {
		hermes_dispatch_send(srv, r);
		return NULL;
	}
	if (r->part[0] || r->part[1] || r->tail)
		batch->bodies[slot] = flatten(r, &batch->lens[slot]);
	return --batch->pending == 0 ? batch : NULL;
}

/* A reply made by the reader for an element or message that never reached the pool. */
void hermes_reply_place(server_t *srv, batch_t *batch, size_t slot, hermes_reply_t *r)
{
	if (batch == NULL) {
		hermes_dispatch_send(srv, r);
		return;
	}
	pthread_mutex_lock(&srv->lock);
	batch->pending++; /* hermes_batch_place_locked takes one off */
	batch_t *done = hermes_batch_place_locked(srv, batch, slot, r);
	pthread_mutex_unlock(&srv->lock);
	if (done)
		hermes_batch_send(srv, done);
}

void hermes_reply_error(server_t *srv, batch_t *batch, size_t slot, const char *id, int code,
                        const char *message, const char *data)
{
	hermes_reply_t r;
	hermes_rpc_error(&r, id, code, message, data);
	hermes_reply_place(srv, batch, slot, &r);
}

/* A notification in a batch still owns a slot: mark it answered with nothing. */
void hermes_reply_nothing(server_t *srv, batch_t *batch, size_t slot)
{
	hermes_reply_t r = {{NULL, NULL}, {0, 0}, NULL};
	if (batch)
		hermes_reply_place(srv, batch, slot, &r);
}

/* An error about a request; a notification is never answered, so for one it is only logged. */
void hermes_reply_request_error(server_t *srv, batch_t *batch, size_t slot, const char *id,
                                int code, const char *message, const char *data)
{
	if (id) {
		hermes_reply_error(srv, batch, slot, id, code, message, data);
	} else {
		hermes_log(HERMES_LOG_WARN, "notification failed: %s", message);
		hermes_reply_nothing(srv, batch, slot);
	}
}

void hermes_reply_result(server_t *srv, batch_t *batch, size_t slot, const char *id, char *json)
{
	if (id == NULL) {
		free(json);
		hermes_reply_nothing(srv, batch, slot);
		return;
	}
	hermes_reply_t r;
	if (json == NULL)
		hermes_rpc_error(&r, id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		hermes_rpc_result(&r, id, json, strlen(json));
	hermes_reply_place(srv, batch, slot, &r);
}

void hermes_reply_invalid_params(server_t *srv, batch_t *batch, size_t slot, const char *id,
                                 const char *field, const char *errcode, const char *fmt, ...)
{
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"errorCode\":");
	hermes_buf_json_string(&b, errcode, strlen(errcode));
	hermes_buf_puts(&b, ",\"field\":");
	hermes_buf_json_string(&b, field, strlen(field));
	hermes_buf_puts(&b, "}");
	char *data = hermes_buf_finish(&b);
	hermes_reply_request_error(srv, batch, slot, id, HERMES_RPC_INVALID_PARAMS, message, data);
	free(data);
}

/* Answers waiting shutdown requests once nothing is in flight, and wakes a finishing loop. */
void hermes_dispatch_check_idle(server_t *srv)
{
	pending_id_t *ids = NULL;
	bool wake = false;
	pthread_mutex_lock(&srv->lock);
	if (srv->active_count == 0) {
		ids = srv->shutdown_replies;
		srv->shutdown_replies = NULL;
		wake = srv->finishing;
	}
	pthread_mutex_unlock(&srv->lock);
	while (ids) {
		pending_id_t *next = ids->next;
		hermes_reply_t r;
		hermes_rpc_result(&r, ids->id, strdup("null"), 4);
		hermes_dispatch_send(srv, &r);
		free(ids->id);
		free(ids);
		ids = next;
	}
	if (wake)
		hermes_server_wake(srv);
}
