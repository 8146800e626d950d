/* transport/http/http_stream.c: the standalone GET stream of a 2025-era session (see
 * http_server.h): the session's default channel, where what belongs to no request goes (MCP's
 * notifications/resources/updated of resources/subscribe). With a GET stream open, each message
 * is queued on it (dropped past STREAM_QUEUED_MAX unsent bytes: a client that does not read its
 * stream is closed at the idle timeout anyway); without one, the first STREAM_HELD_MAX messages
 * (STREAM_HELD_BYTES) wait for the next GET, later ones are dropped, logged. A session has one
 * stream: a second GET takes over and the first ends (each message goes out on one stream only,
 * as the transport asks). The stream ends with its session (DELETE) and when the server stops. */
#include <config.h>

#include <stdlib.h>

#include "rpc/log.h"
#include "transport/http/http_server.h"

static void standalone_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	standalone_t *o = (standalone_t *)ch;
	queued_t *m = hermes_http_message(r, flags | HERMES_SEND_NOTIFICATION);
	if (m == NULL)
		return;
	size_t len = m->len;
	pthread_mutex_lock(&o->lock);
	if (o->q && hermes_http_req_queued(o->q) + len <= STREAM_QUEUED_MAX) {
		hermes_http_req_queue(o->q, m); /* takes q's lock: ours is taken first, always */
		m = NULL;
	} else if (o->q == NULL && o->n_held < STREAM_HELD_MAX &&
	           o->held_bytes + len <= STREAM_HELD_BYTES) {
		*o->held_tail = m;
		o->held_tail = &m->next;
		o->n_held++;
		o->held_bytes += len;
		hermes_budget_hold_replies(o->hs->budget, len);
		m = NULL;
	} else {
		o->dropped++;
	}
	bool streaming = o->q != NULL;
	size_t dropped = o->dropped;
	pthread_mutex_unlock(&o->lock);
	if (m) {
		/* said for the first and then every 100th: a stalled client must not flood the log */
		if (dropped % 100 == 1)
			hermes_log(HERMES_LOG_WARN, "http: a notification of a 2025 session dropped (%zu so "
			           "far): %s", dropped, streaming ? "its GET stream is not read" :
			           "it has no GET stream open and holds the most it may");
		free(m->body);
		free(m);
	}
}

/* The session's messages outlive every request: nothing to hold; no backpressure on reading
 * (the bounds above apply instead). */
const hermes_channel_ops_t hermes_http_standalone_ops = {.send = standalone_send};

void hermes_http_stream_attach(legacy_t *l, hreq_t *q)
{
	standalone_t *o = &l->out;
	queued_t *open = calloc(1, sizeof *open);
	if (open) { /* a first comment: the response's headers go out now, not with the first event */
		open->comment = open->note = true;
		hermes_http_req_queue(q, open);
	}
	hermes_http_req_hold(q);
	pthread_mutex_lock(&o->lock);
	hreq_t *old = o->q;
	o->q = q;
	queued_t *held = o->held;
	size_t held_bytes = o->held_bytes;
	o->held = NULL;
	o->held_tail = &o->held;
	o->n_held = o->held_bytes = 0;
	/* moved under the lock, so that what is sent meanwhile comes after them */
	for (queued_t *m = held, *next; m; m = next) {
		next = m->next;
		m->next = NULL;
		hermes_http_req_queue(q, m);
	}
	pthread_mutex_unlock(&o->lock);
	hermes_budget_release_replies(o->hs->budget, held_bytes); /* counted again on q */
	if (old) {
		hermes_log(HERMES_LOG_INFO, "http: session %s opened a GET stream: its previous one ends",
		           l->id);
		hermes_http_req_end(old);
		hermes_http_req_unref(old);
	}
}

void hermes_http_stream_detach(legacy_t *l, hreq_t *q)
{
	standalone_t *o = &l->out;
	pthread_mutex_lock(&o->lock);
	bool ours = o->q == q;
	if (ours)
		o->q = NULL;
	pthread_mutex_unlock(&o->lock);
	if (ours)
		hermes_http_req_unref(q);
}

void hermes_http_stream_end(legacy_t *l)
{
	standalone_t *o = &l->out;
	pthread_mutex_lock(&o->lock);
	hreq_t *q = o->q;
	o->q = NULL;
	pthread_mutex_unlock(&o->lock);
	if (q) {
		hermes_http_req_end(q);
		hermes_http_req_unref(q);
	}
}

void hermes_http_streams_end_all(http_server_t *hs)
{
	hermes_http_for_each_legacy(hs, hermes_http_stream_end);
}
