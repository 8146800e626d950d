/* rpc/inflight.c: the work in flight: the list of pooled requests (where $/cancelRequest finds
 * them), its count, and the one place that acts when it empties (owed shutdown replies, waking a
 * finishing reader loop). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "rpc/jsonrpc.h"
#include "core/verb.h"
#include "rpc/log.h"
#include "rpc/state.h"

void hermes_inflight_add(server_t *srv, request_t *req)
{
	pthread_mutex_lock(&srv->lock);
	req->next = srv->active;
	if (srv->active)
		srv->active->prev = req;
	srv->active = req;
	srv->active_count++;
	pthread_mutex_unlock(&srv->lock);
	atomic_fetch_add(&srv->budget->inflight, 1);
	if (req->batch)
		atomic_fetch_add(&req->batch->pending, 1);
}

static void free_request(request_t *req)
{
	hermes_message_unref(req->msg);
	hermes_channel_release(req->ch);
	free(req->id);
	free(req->id_key);
	free(req->progress_token);
	free(req);
}

/* With the lock held: if nothing is in flight, takes the owed shutdown replies and says whether
 * the loop waits to be woken. */
static pending_id_t *take_if_idle_locked(server_t *srv, bool *wake)
{
	*wake = false;
	if (srv->active_count != 0)
		return NULL;
	pending_id_t *ids = srv->shutdown_replies;
	srv->shutdown_replies = NULL;
	*wake = srv->finishing;
	return ids;
}

static void answer_shutdowns(server_t *srv, pending_id_t *ids, bool wake)
{
	while (ids) {
		pending_id_t *next = ids->next;
		hermes_reply_t r;
		hermes_rpc_result(&r, ids->id, strdup("null"), 4);
		hermes_channel_send(ids->ch, &r, 0);
		hermes_channel_release(ids->ch);
		free(ids->id);
		free(ids);
		ids = next;
	}
	if (wake)
		srv->wake(srv->wake_ctx);
}

void hermes_inflight_done(server_t *srv, request_t *req, hermes_reply_t *r)
{
	pthread_mutex_lock(&srv->lock);
	bool silent = req->silent;
	/* (a gathered reply is flushed by the reader anyway, once the calls of its read are run) */
	bool alone = srv->active_count == 1 && !(req->send_flags & HERMES_SEND_GATHER);
	pthread_mutex_unlock(&srv->lock);
	if (req->id == NULL || silent)
		hermes_reply_clear(r); /* no answer: its batch slot (if any) settles empty */
	/* The reply is sent before the request stops counting as in flight: a shutdown that sees
	 * the count reach zero is then answered after it. */
	if (req->batch) {
		batch_t *done = hermes_batch_place(req->batch, req->slot, r);
		if (done)
			hermes_batch_send(done, req->send_flags);
	} else if (req->id && !silent) {
		/* The only request in flight: its worker may write the reply itself when the output is
		 * idle, instead of waking a writer thread for it (one hand-off less: a 100k-line file's
		 * last lines came back in 64 us, 45 of them the pipes' own round trip). With more in
		 * flight the writer gathers replies into one writev(). */
		hermes_channel_send(req->ch, r, req->send_flags | (alone ? HERMES_SEND_ALONE : 0));
	}

	pthread_mutex_lock(&srv->lock);
	if (req->prev)
		req->prev->next = req->next;
	else
		srv->active = req->next;
	if (req->next)
		req->next->prev = req->prev;
	srv->active_count--;
	atomic_fetch_sub(&srv->budget->inflight, 1);
	bool wake;
	pending_id_t *ids = take_if_idle_locked(srv, &wake);
	pthread_mutex_unlock(&srv->lock);
	free_request(req);
	answer_shutdowns(srv, ids, wake);
	session_room(srv);
}

void hermes_inflight_shutdown(server_t *srv, hermes_channel_t *ch, char *id)
{
	pthread_mutex_lock(&srv->lock);
	srv->shutdown = true;
	pending_id_t *p = NULL;
	if (id && srv->active_count != 0 && (p = malloc(sizeof *p)) != NULL) {
		p->id = id;
		p->ch = ch;
		hermes_channel_hold(ch);
		p->next = srv->shutdown_replies;
		srv->shutdown_replies = p;
		id = NULL;
	}
	bool wake;
	pending_id_t *ids = take_if_idle_locked(srv, &wake);
	pthread_mutex_unlock(&srv->lock);
	if (id) { /* nothing in flight (or no memory to wait): answered now */
		hermes_reply_t r;
		hermes_rpc_result(&r, id, strdup("null"), 4);
		hermes_channel_send(ch, &r, 0);
		free(id);
	}
	answer_shutdowns(srv, ids, wake);
}

void hermes_reply_cancelled(hermes_reply_t *r, const char *id, const char *result)
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

/* Cancels the requests whose id key matches (key NULL: any) answering on ch (NULL: any). */
static size_t cancel_matching(server_t *srv, const char *key, size_t key_len, hermes_channel_t *ch,
                              unsigned how)
{
	request_t *dropped = NULL;
	size_t n = 0;
	pthread_mutex_lock(&srv->lock);
	for (request_t *r = srv->active; r; r = r->next) {
		if (key && (r->id_key == NULL || r->id_key_len != key_len ||
		            memcmp(r->id_key, key, key_len) != 0))
			continue;
		if (ch && r->ch != ch)
			continue;
		if ((how & HERMES_CANCEL_LONG_ONLY) && !r->job.blocking)
			continue;
		n++;
		r->silent = r->silent || (how & HERMES_CANCEL_SILENT);
		if (!r->started && hermes_pool_remove(srv->pool, &r->job)) {
			r->dropped = dropped;
			dropped = r;
		} else {
			r->cancel_requested = true;
			if (r->token && (how & HERMES_CANCEL_URGENT))
				hermes_cancel_request_urgent(r->token);
			else if (r->token)
				hermes_cancel_request(r->token);
		}
	}
	pthread_mutex_unlock(&srv->lock);
	while (dropped) {
		request_t *next = dropped->dropped;
		hermes_reply_t r;
		hermes_reply_cancelled(&r, dropped->id, NULL);
		hermes_inflight_done(srv, dropped, &r);
		dropped = next;
	}
	return n;
}

size_t hermes_inflight_cancel(server_t *srv, const char *key, size_t key_len, unsigned how)
{
	return cancel_matching(srv, key, key_len, NULL, how);
}

size_t hermes_inflight_cancel_channel(server_t *srv, hermes_channel_t *ch, unsigned how)
{
	return cancel_matching(srv, NULL, 0, ch, how);
}
