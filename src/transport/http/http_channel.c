/* transport/http/http_channel.c: a request's channel (see http_server.h): the session's way back
 * to one POST. What the session sends is queued whole and counted in the server's budget; the
 * request's thread waits for it, watching the socket (a client that hangs up cancels the request)
 * and the server's stop. */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rpc/log.h"
#include "transport/http/http_server.h"

void hermes_http_req_unref(hreq_t *q)
{
	pthread_mutex_lock(&q->lock);
	int left = --q->refs;
	pthread_mutex_unlock(&q->lock);
	if (left > 0)
		return;
	hermes_budget_release_replies(q->hs->budget, q->charged);
	for (queued_t *m = q->head, *next; m; m = next) {
		next = m->next;
		free(m->body);
		free(m);
	}
	if (q->cur) {
		free(q->cur->body);
		free(q->cur);
	}
	hermes_buf_free(&q->body);
	free(q->id_text);
	free(q->raw_uri);
	hermes_rights_clear(&q->oauth_rights);
	if (q->efd >= 0)
		close(q->efd);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->room);
	free(q);
}

queued_t *hermes_http_message(hermes_reply_t *r, unsigned flags)
{
	size_t len = hermes_reply_length(r);
	char *body = malloc(len + 1);
	queued_t *m = malloc(sizeof *m);
	if (body && m) {
		size_t o = 0;
		for (int i = 0; i < 2; i++)
			if (r->part[i]) {
				memcpy(body + o, r->part[i], r->len[i]);
				o += r->len[i];
			}
		if (r->tail) {
			memcpy(body + o, r->tail, strlen(r->tail));
			o += strlen(r->tail);
		}
		body[o] = '\0';
	}
	hermes_reply_clear(r);
	if (body == NULL || m == NULL) {
		free(body);
		free(m);
		hermes_log(HERMES_LOG_ERROR, "http: out of memory queueing a reply");
		return NULL;
	}
	m->body = body;
	m->len = len;
	m->note = flags & HERMES_SEND_NOTIFICATION;
	m->comment = false;
	m->next = NULL;
	return m;
}

void hermes_http_req_queue(hreq_t *q, queued_t *m)
{
	size_t len = m->len;
	pthread_mutex_lock(&q->lock);
	if (q->gone || q->final_queued) {
		pthread_mutex_unlock(&q->lock);
		free(m->body);
		free(m);
		return;
	}
	*q->tail = m;
	q->tail = &m->next;
	q->queued += len;
	q->charged += len;
	hermes_budget_hold_replies(q->hs->budget, len);
	if (!m->note)
		q->final_queued = true;
	int efd = q->efd; /* -1: nobody waits yet, and the waiter looks at the queue first */
	pthread_mutex_unlock(&q->lock);
	uint64_t one = 1;
	if (efd >= 0 && write(efd, &one, sizeof one) < 0) {
		/* an eventfd write fails only if the counter overflows: it is readable anyway */
	}
}

static void req_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	queued_t *m = hermes_http_message(r, flags);
	if (m)
		hermes_http_req_queue((hreq_t *)ch, m);
}

size_t hermes_http_req_queued(hreq_t *q)
{
	pthread_mutex_lock(&q->lock);
	size_t n = q->queued;
	pthread_mutex_unlock(&q->lock);
	return n;
}

static size_t req_queued(hermes_channel_t *ch)
{
	return hermes_http_req_queued((hreq_t *)ch);
}

void hermes_http_req_end(hreq_t *q)
{
	pthread_mutex_lock(&q->lock);
	q->ended = true;
	q->final_queued = true;
	int efd = q->efd;
	pthread_mutex_unlock(&q->lock);
	uint64_t one = 1;
	if (efd >= 0 && write(efd, &one, sizeof one) < 0) {
		/* an eventfd write fails only if the counter overflows: it is readable anyway */
	}
}

static bool req_gone(hermes_channel_t *ch)
{
	hreq_t *q = (hreq_t *)ch;
	pthread_mutex_lock(&q->lock);
	bool gone = q->gone;
	pthread_mutex_unlock(&q->lock);
	return gone;
}

static bool req_wait_room(hermes_channel_t *ch, size_t max, int timeout_ms)
{
	hreq_t *q = (hreq_t *)ch;
	struct timespec until = hermes_http_deadline_in(timeout_ms);
	pthread_mutex_lock(&q->lock);
	bool ok = true;
	while (q->queued >= max && !q->gone)
		if (pthread_cond_timedwait(&q->room, &q->lock, &until) == ETIMEDOUT) {
			ok = q->queued < max || q->gone;
			break;
		}
	pthread_mutex_unlock(&q->lock);
	return ok;
}

static void req_hold(hermes_channel_t *ch)
{
	hermes_http_req_hold((hreq_t *)ch);
}

void hermes_http_req_hold(hreq_t *q)
{
	pthread_mutex_lock(&q->lock);
	q->refs++;
	pthread_mutex_unlock(&q->lock);
}

static void req_release(hermes_channel_t *ch)
{
	hermes_http_req_unref((hreq_t *)ch);
}

/* The request's credential decides (http_auth.c set q->rights). */
static bool req_allows(hermes_channel_t *ch, const hermes_verb_desc_t *desc, char *why, size_t n)
{
	const hreq_t *q = (const hreq_t *)ch;
	if (hermes_rights_allow(q->rights, desc))
		return true;
	if (q->rights == &q->oauth_rights)
		snprintf(why, n, "%s needs the scope %s, which this access token does not have", desc->name,
		         hermes_rights_scope_needed(desc));
	else
		snprintf(why, n, "%s is not allowed with this bearer token (its line in the token file "
		         "says%s%s%s%s%s)", desc->name, q->rights->read_only ? " read-only" : "",
		         q->rights->allow ? " allow=" : "", q->rights->allow ? q->rights->allow : "",
		         q->rights->deny ? " deny=" : "", q->rights->deny ? q->rights->deny : "");
	return false;
}

static const hermes_channel_ops_t req_ops = {req_send, NULL, req_queued, req_wait_room, req_hold,
                                             req_release, NULL, req_allows, req_gone};

hreq_t *hermes_http_req_new(http_server_t *hs, conn_t *k)
{
	hreq_t *q = calloc(1, sizeof *q);
	if (q == NULL)
		return NULL;
	q->ch.ops = &req_ops;
	q->hs = hs;
	q->conn = k;
	q->refs = 1;
	q->efd = -1;
	q->tail = &q->head;
	atomic_init(&q->taken_at, 0);
	atomic_init(&q->streaming, false);
	atomic_init(&q->idle, false);
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->room, NULL);
	return q;
}

/* The next queued message, or NULL. */
queued_t *hermes_http_req_pop(hreq_t *q)
{
	pthread_mutex_lock(&q->lock);
	queued_t *m = q->head;
	if (m) {
		q->head = m->next;
		if (q->head == NULL)
			q->tail = &q->head;
		q->queued -= m->len;
		pthread_cond_broadcast(&q->room);
	}
	pthread_mutex_unlock(&q->lock);
	return m;
}

/* The client closed its end: what the request started is stopped, and nothing more is queued. */
void hermes_http_req_gone(hreq_t *q, hermes_session_t *s)
{
	pthread_mutex_lock(&q->lock);
	bool was = q->gone;
	q->gone = true;
	pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->lock);
	if (!was) {
		hermes_log(HERMES_LOG_INFO, "http: the client closed the stream of request %s: cancelled",
		           q->id_text ? q->id_text : "(notification)");
		hermes_session_cancel_channel(s, &q->ch);
	}
}

/* Waits until a message is queued (or the stream ended): 1; 0 if the client hung up (then the
 * request is cancelled); -1 if the server stops; 2 if timeout_ms (>= 0) passed first. */
int hermes_http_req_wait(hreq_t *q, hermes_session_t *s, int timeout_ms)
{
	int64_t until = timeout_ms >= 0 ? hermes_http_ms() + timeout_ms : -1;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		bool ready = q->head != NULL || q->ended;
		if (!ready && q->efd < 0)
			q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		int efd = q->efd;
		pthread_mutex_unlock(&q->lock);
		if (ready)
			return 1;
		if (efd < 0)
			return -1; /* out of descriptors */
		struct pollfd p[3] = {{q->efd, POLLIN, 0}, {q->conn ? q->conn->fd : -1, POLLRDHUP, 0},
		                      {q->hs->stop_efd, POLLIN, 0}};
		int wait_ms = -1;
		if (until >= 0) {
			int64_t left = until - hermes_http_ms();
			if (left <= 0)
				return 2;
			wait_ms = left > INT32_MAX ? INT32_MAX : (int)left;
		}
		int ready_n = poll(p, 3, wait_ms);
		if (ready_n < 0 && errno != EINTR)
			return -1;
		if (ready_n <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			uint64_t n;
			if (read(q->efd, &n, sizeof n) < 0) {
				/* nothing to read after all: look at the queue again */
			}
			continue;
		}
		if (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
			hermes_http_req_gone(q, s);
			return 0;
		}
		if (p[2].revents & POLLIN) {
			pthread_mutex_lock(&q->lock);
			ready = q->head != NULL || q->ended;
			pthread_mutex_unlock(&q->lock);
			if (ready)
				continue;
			return -1;
		}
	}
}
