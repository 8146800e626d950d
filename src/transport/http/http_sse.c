/* transport/http/http_sse.c: an answer streamed as server-sent events (see http_server.h): when
 * notifications (progress, logs) come before a request's reply, each queued message becomes an
 * event as the client reads, and leaves the budget once handed to libmicrohttpd whole; the reply
 * ends the stream. A client that stops reading gets the idle timeout (the reaper,
 * http_listen.c), as that of a JSON reply does. The long-lived streams (a 2025 session's GET
 * stream, a subscriptions/listen) carry a comment line when quiet for half the timeout (at most
 * KEEPALIVE_MAX_MS), so that proxies and clients keep them open; a GET stream ends when its
 * session does. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "transport/http/http_server.h"

#define SSE_HEAD "event: message\ndata: "
#define SSE_TAIL "\n\n"
#define SSE_FRAMING (sizeof SSE_HEAD - 1 + sizeof SSE_TAIL - 1)
#define SSE_COMMENT ": keepalive"    /* + SSE_TAIL: a comment, which clients skip */
#define KEEPALIVE_MAX_MS 15000

/* The bytes of m as an event, framing included. */
static size_t sse_size(const queued_t *m)
{
	return m->comment ? sizeof SSE_COMMENT - 1 + sizeof SSE_TAIL - 1 : m->len + SSE_FRAMING;
}

/* Copies what fits in buf of the event [SSE_HEAD, body, SSE_TAIL] (a comment: [SSE_COMMENT,
 * SSE_TAIL]) from *off on. */
static size_t sse_copy(const queued_t *m, size_t *off, char *buf, size_t max)
{
	const char *part[3] = {m->comment ? SSE_COMMENT : SSE_HEAD, m->body, SSE_TAIL};
	size_t len[3] = {m->comment ? sizeof SSE_COMMENT - 1 : sizeof SSE_HEAD - 1, m->len,
	                 sizeof SSE_TAIL - 1};
	size_t n = 0, at = 0;
	for (int i = 0; i < 3 && n < max; at += len[i], i++) {
		if (*off >= at + len[i])
			continue;
		size_t from = *off - at, k = len[i] - from < max - n ? len[i] - from : max - n;
		memcpy(buf + n, part[i] + from, k);
		n += k;
		*off += k;
	}
	return n;
}

/* The message being streamed is all handed to libmicrohttpd: it leaves the budget (a comment
 * was never in it: its len is 0). */
static void sse_done_with(hreq_t *q)
{
	queued_t *m = q->cur;
	q->cur = NULL;
	pthread_mutex_lock(&q->lock);
	q->charged -= m->len;
	pthread_mutex_unlock(&q->lock);
	hermes_budget_release_replies(q->hs->budget, m->len);
	free(m->body);
	free(m);
}

/* libmicrohttpd asks for more of the stream (it has sent what it had): the next bytes of the
 * message being streamed, or of the next one once the session sends it. A message counts in the
 * server's budget until all of it is handed over (a JSON reply: until written), so that unread
 * streams cannot hold more than the bound (24 unread answers of a 4 MB file took 221 MiB when a
 * message left the budget as its streaming began; 45 MiB now). */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	hreq_t *q = cls;
	hermes_session_t *s = q->legacy ? q->legacy->s : q->hs->modern;
	int keepalive_ms = q->hs->timeout * 500 < KEEPALIVE_MAX_MS ? q->hs->timeout * 500
	                                                          : KEEPALIVE_MAX_MS;
	while (q->cur == NULL || q->cur_off == sse_size(q->cur)) {
		if (q->cur)
			sse_done_with(q);
		if (q->stream_done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		queued_t *m = hermes_http_req_pop(q);
		if (m == NULL) {
			pthread_mutex_lock(&q->lock);
			bool ended = q->ended;
			pthread_mutex_unlock(&q->lock);
			if (ended)
				return MHD_CONTENT_READER_END_OF_STREAM;
			atomic_store(&q->idle, true); /* the session is slow, not the client: no timeout */
			int w = hermes_http_req_wait(q, s, q->keepalive ? keepalive_ms : -1);
			atomic_store(&q->taken_at, hermes_http_ms());
			atomic_store(&q->idle, false);
			if (w == 2 && (m = calloc(1, sizeof *m)) != NULL) {
				m->comment = m->note = true;
				q->cur = m;
				q->cur_off = 0;
				break;
			}
			if (w <= 0)
				return MHD_CONTENT_READER_END_WITH_ERROR;
			continue;
		}
		if (!m->note)
			q->stream_done = true;
		q->cur = m;
		q->cur_off = 0;
	}
	atomic_store(&q->taken_at, hermes_http_ms());
	return (ssize_t)sse_copy(q->cur, &q->cur_off, buf, max);
}

static void sse_free(void *cls)
{
	hermes_http_req_unref(cls);
}

enum MHD_Result hermes_http_sse_respond(hreq_t *q, struct MHD_Connection *c,
                                        const char *const *extra)
{
	struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024,
	                                                           sse_read, q, sse_free);
	if (r == NULL)
		return MHD_NO;
	hermes_http_req_hold(q);
	atomic_store(&q->taken_at, hermes_http_ms());
	atomic_store(&q->streaming, true);
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	MHD_add_response_header(r, "X-Accel-Buffering", "no");
	if (extra && extra[0])
		MHD_add_response_header(r, extra[0], extra[1]);
	enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ok;
}
