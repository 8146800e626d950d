/* transport/http/http_sse.c: an answer streamed as server-sent events (see http_server.h): when
 * notifications (progress, logs) come before a request's reply, each queued message becomes an
 * event as the client reads, and leaves the budget once written; the reply ends the stream. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "transport/http/http_server.h"

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	hreq_t *q = cls;
	hermes_session_t *s = q->legacy ? q->legacy->s : q->hs->modern;
	while (q->cur == NULL || q->cur_off == q->cur_len) {
		free(q->cur);
		q->cur = NULL;
		if (q->stream_done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		queued_t *m = hermes_http_req_pop(q);
		if (m == NULL) {
			if (hermes_http_req_wait(q, s) <= 0)
				return MHD_CONTENT_READER_END_WITH_ERROR;
			continue;
		}
		hermes_buf_t b = HERMES_BUF_INIT;
		hermes_buf_puts(&b, "event: message\ndata: ");
		hermes_buf_append(&b, m->body, m->len);
		hermes_buf_puts(&b, "\n\n");
		if (!m->note)
			q->stream_done = true;
		/* streamed: no longer held in the budget (a long stream of progress must not fill it) */
		pthread_mutex_lock(&q->lock);
		q->charged -= m->len;
		pthread_mutex_unlock(&q->lock);
		hermes_budget_release_replies(q->hs->budget, m->len);
		free(m->body);
		free(m);
		q->cur_len = b.len;
		q->cur_off = 0;
		if ((q->cur = hermes_buf_finish(&b)) == NULL)
			return MHD_CONTENT_READER_END_WITH_ERROR;
	}
	size_t n = q->cur_len - q->cur_off < max ? q->cur_len - q->cur_off : max;
	memcpy(buf, q->cur + q->cur_off, n);
	q->cur_off += n;
	return (ssize_t)n;
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
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	MHD_add_response_header(r, "X-Accel-Buffering", "no");
	if (extra && extra[0])
		MHD_add_response_header(r, extra[0], extra[1]);
	enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ok;
}
