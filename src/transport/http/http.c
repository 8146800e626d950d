/* transport/http/http.c: Streamable HTTP for `hermes mcp --listen` (see http.h): the listening socket,
 * libmicrohttpd's callbacks, the checks every POST passes (Origin, token, headers, size), and a
 * channel per request through which the session's replies come back as JSON or an SSE stream.
 *
 * Requests of the 2026-07-28 revision (stateless) all go to one shared session; each 2025-era
 * client gets a session of its own from initialize, named by the Mcp-Session-Id header.
 * libmicrohttpd runs a thread per connection, so a request may wait for its reply in its own
 * thread, watching the socket: a client that closes it cancels the request. */
#include <config.h>

#include <arpa/inet.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "transport/http/http.h"
#include "transport/http/http_check.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "protocol/mcp/mcp_meta.h"
#include "transport/http/mhd_lib.h"
#include "session/session.h"

#define ENDPOINT "/mcp"
#define MAX_LEGACY_SESSIONS 32          /* 2025-era clients at once; the idlest is ended past it */
#define LEGACY_IDLE_SECONDS (30 * 60)   /* a 2025 session unused this long is ended */
#define MAX_HEADER_BYTES (64 * 1024)    /* a request's line and headers */
#define MAX_TOKEN_BYTES 4096

typedef struct http_server http_server_t;

/* A connection, for the reaper: how long its current request has been arriving. */
typedef struct conn {
	struct conn *prev, *next;
	int fd;
	struct timespec reading_since;  /* zero while no request is being received */
	struct hreq *req;               /* the request being received or answered */
} conn_t;

/* A 2025-era client's session (Mcp-Session-Id). */
typedef struct legacy {
	struct legacy *next;
	char id[33];
	hermes_session_t *s;
	pthread_mutex_t feed;           /* one thread at a time feeds a session */
	int users;                      /* the list's reference and each request using it */
	time_t last_used;
	bool ended;
} legacy_t;

typedef struct queued {
	struct queued *next;
	char *body;
	size_t len;
	bool note;                      /* a notification (HERMES_SEND_NOTIFICATION), not the reply */
} queued_t;

/* One POST: its body as it arrives, then the channel its session answers on. */
typedef struct hreq {
	hermes_channel_t ch;            /* the session's way back: replies and notifications */
	http_server_t *hs;
	conn_t *conn;
	pthread_mutex_t lock;
	pthread_cond_t room;
	int refs;                       /* libmicrohttpd's, the SSE response's, the session's holds */
	int efd;                        /* eventfd: a message was queued; made (under lock) only once
	                                   the request's thread has to wait: -1 until then, so a reply
	                                   made on that thread (INSTANT verbs) costs no descriptor */
	queued_t *head, **tail;
	size_t queued;
	size_t charged;                 /* bytes sent to it and held in the server's budget: until
	                                   streamed (SSE), or until the request is freed (its JSON
	                                   response with it) */
	bool final_queued;              /* the reply to the request is in the queue */
	bool gone;                      /* the client left: what is sent is dropped */
	bool headers_seen, too_large, answered;
	hermes_buf_t body;
	char *id_text;                  /* the request's id as sent, for the reply's prefix */
	legacy_t *legacy;               /* the 2025 session it belongs to, or NULL */
	bool initialize;                /* a 2025 initialize: the reply names its new session */
	/* the SSE stream being written */
	char *cur;
	size_t cur_len, cur_off;
	bool stream_done;
} hreq_t;

struct http_server {
	const hermes_server_options_t *opts;
	const hermes_http_options_t *http;
	hermes_session_options_t sopts;
	hermes_budget_t *budget;        /* the memory of every session (sopts.budget) */
	char *token;
	size_t token_len;
	size_t max_body;
	int timeout;
	struct MHD_Daemon *daemon;
	int listen_fd;
	char *unix_path;
	int stop_efd;                   /* readable once the server stops: wakes every waiting request */
	int wake_pipe[2];               /* signals and sessions wake the main loop */
	hermes_channel_t drop;          /* the default channel: nothing is asked of HTTP clients */
	hermes_session_t *modern;       /* the shared session of 2026-07-28 requests */
	pthread_mutex_t modern_feed;
	pthread_mutex_t lock;           /* guards what follows */
	pthread_cond_t room;            /* a session made room */
	conn_t *conns;
	legacy_t *legacies;
	size_t n_legacies;
	bool stopping;
	size_t n_conns;                 /* connections open (libmicrohttpd's) */
	pthread_cond_t conn_room;       /* one closed */
	unsigned max_conns;
	pthread_t acceptor;             /* accepts while there is room (accept_loop) */
	bool acceptor_started;
	int accept_stop;                /* eventfd: stop accepting */
};

static volatile sig_atomic_t signals_seen;
static int signal_pipe = -1;

static void on_signal(int sig)
{
	(void)sig;
	signals_seen++;
	int saved = errno;
	if (signal_pipe >= 0 && write(signal_pipe, "s", 1) < 0) {
		/* the loop looks at signals_seen anyway */
	}
	errno = saved;
}

/* The CLOCK_REALTIME time ms from now, for pthread_cond_timedwait. */
static struct timespec deadline_in(int ms)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static void now(struct timespec *t)
{
	clock_gettime(CLOCK_MONOTONIC, t);
}

static double since(const struct timespec *t)
{
	struct timespec n;
	now(&n);
	return (double)(n.tv_sec - t->tv_sec) + (double)(n.tv_nsec - t->tv_nsec) / 1e9;
}

/* ---- the drop channel: where messages that belong to no request go (nothing is asked of an
 * HTTP client outside a request: no roots/list, no stray logs) --------------------------------- */

static void drop_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	(void)ch, (void)flags;
	hermes_log(HERMES_LOG_DEBUG, "http: a message for no request dropped (%zu bytes)",
	           hermes_reply_length(r));
	hermes_reply_clear(r);
}

static const hermes_channel_ops_t drop_ops = {drop_send, NULL, NULL, NULL, NULL, NULL, NULL};

/* ---- a request's channel ----------------------------------------------------------------- */

static void req_unref(hreq_t *q)
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
	free(q->cur);
	hermes_buf_free(&q->body);
	free(q->id_text);
	if (q->efd >= 0)
		close(q->efd);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->room);
	free(q);
}

static void legacy_unref(http_server_t *hs, legacy_t *l);

static void req_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	hreq_t *q = (hreq_t *)ch;
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
		return;
	}
	m->body = body;
	m->len = len;
	m->note = flags & HERMES_SEND_NOTIFICATION;
	m->next = NULL;
	pthread_mutex_lock(&q->lock);
	if (q->gone || q->final_queued) {
		pthread_mutex_unlock(&q->lock);
		free(body);
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

static size_t req_queued(hermes_channel_t *ch)
{
	hreq_t *q = (hreq_t *)ch;
	pthread_mutex_lock(&q->lock);
	size_t n = q->queued;
	pthread_mutex_unlock(&q->lock);
	return n;
}

static bool req_wait_room(hermes_channel_t *ch, size_t max, int timeout_ms)
{
	hreq_t *q = (hreq_t *)ch;
	struct timespec until = deadline_in(timeout_ms);
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
	hreq_t *q = (hreq_t *)ch;
	pthread_mutex_lock(&q->lock);
	q->refs++;
	pthread_mutex_unlock(&q->lock);
}

static void req_release(hermes_channel_t *ch)
{
	req_unref((hreq_t *)ch);
}

static const hermes_channel_ops_t req_ops = {req_send, NULL, req_queued, req_wait_room, req_hold,
                                             req_release, NULL};

/* The next queued message, or NULL. */
static queued_t *req_pop(hreq_t *q)
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
static void req_gone(hreq_t *q, hermes_session_t *s)
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

/* Waits until a message is queued: 1; 0 if the client hung up (then the request is cancelled);
 * -1 if the server stops. */
static int req_wait(hreq_t *q, hermes_session_t *s)
{
	for (;;) {
		pthread_mutex_lock(&q->lock);
		bool ready = q->head != NULL;
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
		if (poll(p, 3, -1) < 0 && errno != EINTR)
			return -1;
		if (p[0].revents & POLLIN) {
			uint64_t n;
			if (read(q->efd, &n, sizeof n) < 0) {
				/* nothing to read after all: look at the queue again */
			}
			continue;
		}
		if (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
			req_gone(q, s);
			return 0;
		}
		if (p[2].revents & POLLIN) {
			pthread_mutex_lock(&q->lock);
			ready = q->head != NULL;
			pthread_mutex_unlock(&q->lock);
			if (ready)
				continue;
			return -1;
		}
	}
}

/* ---- responses ---------------------------------------------------------------------------- */

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type,
                               char *body, size_t len, const char *const *headers)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(body);
		return MHD_NO;
	}
	if (type)
		MHD_add_response_header(r, "Content-Type", type);
	for (size_t i = 0; headers && headers[i]; i += 2)
		MHD_add_response_header(r, headers[i], headers[i + 1]);
	enum MHD_Result ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

/* A JSON-RPC error as the whole response (id: raw JSON text, or NULL for none). */
static enum MHD_Result respond_error(struct MHD_Connection *c, unsigned status, const char *id,
                                     int code, const char *message, const char *data,
                                     const char *const *headers)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"jsonrpc\":\"2.0\",");
	if (id)
		hermes_buf_printf(&b, "\"id\":%s,", id);
	hermes_buf_printf(&b, "\"error\":{\"code\":%d,\"message\":", code);
	hermes_buf_json_string(&b, message, strlen(message));
	if (data)
		hermes_buf_printf(&b, ",\"data\":%s", data);
	hermes_buf_puts(&b, "}}");
	size_t len = b.len;
	char *body = hermes_buf_finish(&b);
	if (body == NULL)
		return MHD_NO;
	hermes_log(HERMES_LOG_INFO, "http: %u: %s", status, message);
	return respond(c, status, "application/json", body, len, headers);
}

static enum MHD_Result respond_empty(struct MHD_Connection *c, unsigned status,
                                     const char *const *headers)
{
	return respond(c, status, NULL, NULL, 0, headers);
}

/* The JSON-RPC error code of a reply to the request whose id is id_text; 0 for a result. */
static int reply_code(const hreq_t *q, const char *body, size_t len)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":",
	                  q->id_text ? q->id_text : "null");
	size_t n = b.len;
	char *prefix = hermes_buf_finish(&b);
	int code = 0;
	if (prefix && len > n && memcmp(body, prefix, n) == 0)
		code = (int)strtol(body + n, NULL, 10);
	else if (prefix == NULL || len < 12 || memcmp(body, "{\"jsonrpc\":\"2.0\",\"id\":", 22) != 0 ||
	         strstr(body, "\"error\":{\"code\":") == NULL)
		code = 0;
	else /* an error with another id (a batch's, null): read its code where it is */
		code = (int)strtol(strstr(body, "\"error\":{\"code\":") + 16, NULL, 10);
	free(prefix);
	return code;
}

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
		queued_t *m = req_pop(q);
		if (m == NULL) {
			if (req_wait(q, s) <= 0)
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
	req_unref(cls);
}

/* The first message of the request's answer is queued: the reply alone becomes a JSON
 * response; notifications first make it an SSE stream. */
static void legacy_drop(http_server_t *hs, legacy_t *l);

static enum MHD_Result answer(hreq_t *q, struct MHD_Connection *c)
{
	char sid[64];
	const char *extra[5] = {NULL};
	if (q->initialize && q->legacy) {
		snprintf(sid, sizeof sid, "%s", q->legacy->id);
		extra[0] = "Mcp-Session-Id";
		extra[1] = sid;
	}
	pthread_mutex_lock(&q->lock);
	queued_t *m = q->head;
	bool alone = m && !m->note;
	pthread_mutex_unlock(&q->lock);
	if (alone) {
		m = req_pop(q);
		int code = reply_code(q, m->body, m->len);
		if (code && q->initialize && q->legacy) { /* a refused initialize begins no session */
			legacy_drop(q->hs, q->legacy);
			extra[0] = NULL;
		}
		char *body = m->body;
		size_t len = m->len;
		free(m);
		/* the reply goes out now: a client that does not read it gets the idle timeout, so that
		 * it does not hold the server's budget for replies (see PROTOCOL.md, Memory) */
		MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)q->hs->timeout);
		return respond(c, (unsigned)hermes_http_status_for(code), "application/json", body, len,
		               extra);
	}
	struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024,
	                                                           sse_read, q, sse_free);
	if (r == NULL)
		return MHD_NO;
	req_hold(&q->ch);
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	MHD_add_response_header(r, "X-Accel-Buffering", "no");
	if (extra[0])
		MHD_add_response_header(r, extra[0], extra[1]);
	enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ok;
}

/* ---- sessions ----------------------------------------------------------------------------- */

static void session_wake(void *ctx)
{
	http_server_t *hs = ctx;
	pthread_mutex_lock(&hs->lock);
	pthread_cond_broadcast(&hs->room);
	pthread_mutex_unlock(&hs->lock);
	if (write(hs->wake_pipe[1], "w", 1) < 0) {
		/* a full pipe wakes the loop already */
	}
}

/* Hands a message to a session: when it has room (else 503 after the timeout). body taken. */
static bool feed(http_server_t *hs, hermes_session_t *s, pthread_mutex_t *feed_lock,
                 hermes_channel_t *ch, char *body, size_t len)
{
	struct timespec start;
	now(&start);
	pthread_mutex_lock(feed_lock);
	while (!hermes_session_may_read(s)) {
		if (!hermes_session_open(s) || since(&start) > hs->timeout) {
			pthread_mutex_unlock(feed_lock);
			free(body);
			return false;
		}
		struct timespec until = deadline_in(100);
		pthread_mutex_lock(&hs->lock);
		pthread_cond_timedwait(&hs->room, &hs->lock, &until);
		pthread_mutex_unlock(&hs->lock);
	}
	hermes_session_read_begin(s);
	hermes_session_message(s, ch, body, len);
	hermes_session_read_end(s);
	pthread_mutex_unlock(feed_lock);
	return true;
}

static void legacy_free(legacy_t *l)
{
	hermes_session_cancel_all(l->s);
	hermes_session_free(l->s);
	pthread_mutex_destroy(&l->feed);
	free(l);
}

static void legacy_unref(http_server_t *hs, legacy_t *l)
{
	pthread_mutex_lock(&hs->lock);
	bool last = --l->users == 0;
	pthread_mutex_unlock(&hs->lock);
	if (last)
		legacy_free(l);
}

/* Takes l off the list (hs->lock held); its last user frees it. */
static void legacy_end_locked(http_server_t *hs, legacy_t *l)
{
	for (legacy_t **p = &hs->legacies; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			hs->n_legacies--;
			l->ended = true;
			return;
		}
}

/* Ends l (no more requests find it); the references held go on until released. */
static void legacy_drop(http_server_t *hs, legacy_t *l)
{
	pthread_mutex_lock(&hs->lock);
	bool listed = !l->ended;
	if (listed) {
		legacy_end_locked(hs, l);
		l->users--; /* the list's reference; the caller still holds one */
	}
	pthread_mutex_unlock(&hs->lock);
	if (listed)
		hermes_log(HERMES_LOG_INFO, "http: session %s ended", l->id);
}

/* The session named id, with a reference for the caller; NULL if there is none. */
static legacy_t *legacy_find(http_server_t *hs, const char *id)
{
	pthread_mutex_lock(&hs->lock);
	legacy_t *l = hs->legacies;
	while (l && strcmp(l->id, id) != 0)
		l = l->next;
	if (l) {
		l->users++;
		l->last_used = time(NULL);
	}
	pthread_mutex_unlock(&hs->lock);
	return l;
}

/* A new 2025 session for an initialize, with a reference for the caller; NULL (why said) if
 * there is no room or memory. */
static legacy_t *legacy_new(http_server_t *hs, char *why, size_t n)
{
	legacy_t *l = calloc(1, sizeof *l), *evict = NULL;
	unsigned char rnd[16];
	if (l == NULL || getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		free(l);
		snprintf(why, n, "cannot start a session (out of memory or randomness)");
		return NULL;
	}
	for (int i = 0; i < 16; i++)
		snprintf(l->id + 2 * i, 3, "%02x", rnd[i]);
	pthread_mutex_lock(&hs->lock);
	if (hs->n_legacies >= MAX_LEGACY_SESSIONS) { /* end the idlest one no request is using */
		for (legacy_t *o = hs->legacies; o; o = o->next)
			if (o->users == 1 && (evict == NULL || o->last_used < evict->last_used))
				evict = o;
		if (evict)
			legacy_end_locked(hs, evict);
	}
	bool full = hs->n_legacies >= MAX_LEGACY_SESSIONS;
	pthread_mutex_unlock(&hs->lock);
	if (evict) {
		hermes_log(HERMES_LOG_INFO, "http: session %s ended to make room", evict->id);
		legacy_unref(hs, evict);
	}
	if (full) {
		free(l);
		snprintf(why, n, "too many 2025-era sessions (%d) are busy; end one (DELETE) or retry",
		         MAX_LEGACY_SESSIONS);
		return NULL;
	}
	if ((l->s = hermes_session_new(&hs->sopts, &hs->drop, session_wake, hs)) == NULL) {
		free(l);
		snprintf(why, n, "cannot start a session (threads or memory)");
		return NULL;
	}
	pthread_mutex_init(&l->feed, NULL);
	l->users = 2;
	l->last_used = time(NULL);
	pthread_mutex_lock(&hs->lock);
	l->next = hs->legacies;
	hs->legacies = l;
	hs->n_legacies++;
	pthread_mutex_unlock(&hs->lock);
	hermes_log(HERMES_LOG_INFO, "http: session %s begins", l->id);
	return l;
}

/* ---- libmicrohttpd's callbacks ------------------------------------------------------------ */

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)uri;
	http_server_t *hs = cls;
	hreq_t *q = calloc(1, sizeof *q);
	if (q == NULL)
		return NULL;
	q->ch.ops = &req_ops;
	q->hs = hs;
	q->refs = 1;
	q->efd = -1;
	q->tail = &q->head;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->room, NULL);
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn_t *k = ci ? ci->socket_context : NULL;
	if (k) {
		pthread_mutex_lock(&hs->lock);
		k->req = q;
		now(&k->reading_since);
		pthread_mutex_unlock(&hs->lock);
		q->conn = k;
	}
	return q;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
	http_server_t *hs = cls;
	hreq_t *q = *con_cls;
	if (q == NULL)
		return;
	/* idle again: the keep-alive timeout applies */
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)hs->timeout);
	*con_cls = NULL;
	if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && q->answered && !q->stream_done)
		req_gone(q, q->legacy ? q->legacy->s : hs->modern);
	pthread_mutex_lock(&hs->lock);
	if (q->conn && q->conn->req == q) {
		q->conn->req = NULL;
		q->conn->reading_since.tv_sec = 0;
		q->conn->reading_since.tv_nsec = 0;
	}
	pthread_mutex_unlock(&hs->lock);
	pthread_mutex_lock(&q->lock);
	q->conn = NULL;
	pthread_mutex_unlock(&q->lock);
	if (q->legacy)
		legacy_unref(hs, q->legacy);
	q->legacy = NULL;
	req_unref(q);
}

static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode code)
{
	http_server_t *hs = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		conn_t *k = calloc(1, sizeof *k);
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (k == NULL)
			return;
		k->fd = ci ? ci->connect_fd : -1;
		pthread_mutex_lock(&hs->lock);
		k->next = hs->conns;
		if (hs->conns)
			hs->conns->prev = k;
		hs->conns = k;
		pthread_mutex_unlock(&hs->lock);
		*socket_context = k;
	} else {
		conn_t *k = *socket_context;
		pthread_mutex_lock(&hs->lock);
		if (k) {
			if (k->prev)
				k->prev->next = k->next;
			else
				hs->conns = k->next;
			if (k->next)
				k->next->prev = k->prev;
		}
		hs->n_conns--;
		pthread_cond_broadcast(&hs->conn_room);
		pthread_mutex_unlock(&hs->lock);
		free(k);
		*socket_context = NULL;
	}
}

/* Accepts connections while fewer than --max-connections are open, and hands them to
 * libmicrohttpd; at the limit it stops accepting, so the next clients wait in the listen queue
 * (backpressure) instead of being refused. */
static void *accept_loop(void *arg)
{
	http_server_t *hs = arg;
	for (;;) {
		pthread_mutex_lock(&hs->lock);
		while (hs->n_conns >= hs->max_conns && !hs->stopping)
			pthread_cond_wait(&hs->conn_room, &hs->lock);
		bool stop = hs->stopping;
		pthread_mutex_unlock(&hs->lock);
		if (stop)
			return NULL;
		struct pollfd p[2] = {{hs->listen_fd, POLLIN, 0}, {hs->accept_stop, POLLIN, 0}};
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return NULL;
		if (p[1].revents & POLLIN)
			return NULL;
		if (!(p[0].revents & POLLIN))
			continue;
		struct sockaddr_storage ss;
		socklen_t sl = sizeof ss;
		int fd = accept4(hs->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED || errno == EINTR))
			continue;
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS)
				poll(NULL, 0, 100); /* out of descriptors: let some close */
			continue;
		}
		pthread_mutex_lock(&hs->lock);
		hs->n_conns++; /* counted now, released by notify_connection's close */
		pthread_mutex_unlock(&hs->lock);
		if (MHD_add_connection(hs->daemon, fd, (struct sockaddr *)&ss, sl) != MHD_YES) {
			/* libmicrohttpd closed it and notified nothing */
			pthread_mutex_lock(&hs->lock);
			hs->n_conns--;
			pthread_mutex_unlock(&hs->lock);
		}
	}
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char line[512];
	vsnprintf(line, sizeof line, fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	hermes_log(HERMES_LOG_DEBUG, "libmicrohttpd: %s", line);
}

static const char *header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* The checks made once the headers are in: a response queued (MHD_YES/NO) if the request is
 * refused, -1 if it may go on. */
static int check_headers(http_server_t *hs, hreq_t *q, struct MHD_Connection *c, const char *url,
                         const char *method)
{
	char why[512];
	if (strcmp(url, ENDPOINT) != 0) {
		snprintf(why, sizeof why, "no MCP endpoint at %.200s (it is " ENDPOINT ")", url);
		return respond_error(c, MHD_HTTP_NOT_FOUND, NULL, HERMES_RPC_INVALID_REQUEST, why, NULL, NULL);
	}
	const char *origin = header(c, "Origin");
	if (!hermes_http_origin_allowed(origin, (const char *const *)hs->http->allow_origins,
	                                hs->http->n_allow_origins)) {
		snprintf(why, sizeof why, "Origin '%.200s' is not allowed (only loopback origins, and those "
		         "given with --allow-origin)", origin);
		return respond_error(c, MHD_HTTP_FORBIDDEN, NULL, HERMES_RPC_INVALID_REQUEST, why, NULL, NULL);
	}
	if (hs->token) {
		const char *auth = header(c, "Authorization");
		if (!hermes_http_bearer_ok(auth, hs->token, hs->token_len)) {
			const char *h[] = {"WWW-Authenticate",
			                   auth ? "Bearer realm=\"hermes\", error=\"invalid_token\""
			                        : "Bearer realm=\"hermes\"", NULL};
			return respond_error(c, MHD_HTTP_UNAUTHORIZED, NULL, HERMES_RPC_INVALID_REQUEST,
			                     auth ? "the bearer token is not the right one"
			                          : "this server needs Authorization: Bearer <token> (the "
			                            "content of its --auth-token-file)", NULL, h);
		}
	}
	if (strcmp(method, "DELETE") == 0) {
		const char *sid = header(c, "Mcp-Session-Id");
		legacy_t *l = sid ? legacy_find(hs, sid) : NULL;
		if (l == NULL) {
			const char *h[] = {"Allow", "POST", NULL};
			if (sid)
				return respond_error(c, MHD_HTTP_NOT_FOUND, NULL, HERMES_RPC_INVALID_REQUEST,
				                     "no such session (it ended or expired)", NULL, NULL);
			return respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, HERMES_RPC_INVALID_REQUEST,
			                     "DELETE ends a 2025-era session named by Mcp-Session-Id; the "
			                     "2026-07-28 revision has no sessions", NULL, h);
		}
		legacy_drop(hs, l);
		legacy_unref(hs, l);
		return respond_empty(c, MHD_HTTP_NO_CONTENT, NULL);
	}
	if (strcmp(method, "POST") != 0) {
		const char *h[] = {"Allow", header(c, "Mcp-Session-Id") ? "POST, DELETE" : "POST", NULL};
		snprintf(why, sizeof why, "%.20s is not served: every message is a POST (and there is no "
		         "stream to GET)", method);
		return respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, HERMES_RPC_INVALID_REQUEST, why,
		                     NULL, h);
	}
	const char *type = header(c, "Content-Type");
	if (type == NULL || strncasecmp(type, "application/json", 16) != 0 ||
	    (type[16] != '\0' && type[16] != ';' && type[16] != ' ')) {
		snprintf(why, sizeof why, "Content-Type must be application/json, not '%.100s'",
		         type ? type : "(none)");
		return respond_error(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL, HERMES_RPC_INVALID_REQUEST,
		                     why, NULL, NULL);
	}
	const char *accept = header(c, "Accept");
	if (accept && !strstr(accept, "application/json") && !strstr(accept, "text/event-stream") &&
	    !strstr(accept, "*/*")) {
		snprintf(why, sizeof why, "Accept must list application/json and text/event-stream, not "
		         "'%.100s'", accept);
		return respond_error(c, MHD_HTTP_NOT_ACCEPTABLE, NULL, HERMES_RPC_INVALID_REQUEST, why, NULL,
		                     NULL);
	}
	const char *cl = header(c, "Content-Length");
	if (cl && strtoull(cl, NULL, 10) > hs->max_body) {
		q->too_large = true;
		snprintf(why, sizeof why, "the message (%.30s bytes) is over the limit of %zu bytes "
		         "(--max-message-bytes)", cl, hs->max_body);
		return respond_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, HERMES_RPC_INVALID_REQUEST, why,
		                     NULL, NULL);
	}
	return -1;
}

/* The whole body is in: routes it to its session and answers. */
static enum MHD_Result handle_body(http_server_t *hs, hreq_t *q, struct MHD_Connection *c)
{
	char why[640];
	size_t len = q->body.len;
	char *text = hermes_buf_finish(&q->body);
	if (text == NULL)
		return MHD_NO;
	hermes_json_doc_t *doc = NULL;
	hermes_error_t err;
	size_t end = 0;
	if (hermes_json_parse_bounded(text, len, HERMES_RPC_MAX_DEPTH, HERMES_SERVER_MAX_VALUES, &doc,
	                              &end, &err) != 0 ||
	    hermes_json_skip_ws(text, len, end) != len) {
		if (doc)
			snprintf(why, sizeof why, "Parse error: text after the message at byte %zu", end);
		else
			snprintf(why, sizeof why, "Parse error: %s", err.message);
		hermes_json_doc_free(doc);
		free(text);
		return respond_error(c, MHD_HTTP_BAD_REQUEST, NULL,
		                     doc || err.code != HERMES_E_TOO_LARGE ? HERMES_RPC_PARSE_ERROR
		                                                           : HERMES_RPC_INVALID_REQUEST,
		                     why, NULL, NULL);
	}
	const hermes_json_t *msg = hermes_json_root(doc);
	if (msg->type != HERMES_JSON_OBJECT) {
		bool batch = msg->type == HERMES_JSON_ARRAY;
		hermes_json_doc_free(doc);
		free(text);
		return respond_error(c, MHD_HTTP_BAD_REQUEST, NULL, HERMES_RPC_INVALID_REQUEST,
		                     batch ? "a POST carries one JSON-RPC message, not a batch"
		                           : "a POST carries one JSON-RPC message (an object)", NULL, NULL);
	}
	const hermes_json_t *method = hermes_json_member(msg, "method");
	const hermes_json_t *id = hermes_json_member(msg, "id");
	const hermes_json_t *params = hermes_json_member(msg, "params");
	if (id && (id->type == HERMES_JSON_STRING || id->type == HERMES_JSON_NUMBER))
		q->id_text = strndup(text + id->start, id->end - id->start);
	bool request = id != NULL && method != NULL;
	const char *m = hermes_json_is_c_string(method) ? method->str : NULL;
	hermes_mcp_meta_t meta;
	char *data = NULL;
	int code = hermes_mcp_meta_read(params, &meta, why, sizeof why, &data);
	free(data); /* the session says it again, with the request's id */
	hermes_session_t *s = hs->modern;
	pthread_mutex_t *feed_lock = &hs->modern_feed;
	const char *sid = header(c, "Mcp-Session-Id");
	enum MHD_Result ret;
	if (meta.modern && m) {
		hermes_http_mirror_t h = {header(c, "MCP-Protocol-Version"), header(c, "Mcp-Method"),
		                          header(c, "Mcp-Name")};
		if (code == 0 && hermes_http_mirror_check(&h, meta.version, m, params, !request, why,
		                                          sizeof why) != 0) {
			ret = respond_error(c, MHD_HTTP_BAD_REQUEST, q->id_text, HERMES_RPC_HEADER_MISMATCH,
			                    why, NULL, NULL);
			goto done;
		}
		if (!request && strcmp(m, "notifications/cancelled") == 0) {
			/* over HTTP a request is cancelled by closing its stream; ids are not unique
			 * across the clients sharing the session */
			ret = respond_empty(c, MHD_HTTP_ACCEPTED, NULL);
			goto done;
		}
	} else if (m && strcmp(m, "initialize") == 0 && request) {
		if ((q->legacy = legacy_new(hs, why, sizeof why)) == NULL) {
			ret = respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, q->id_text,
			                    HERMES_RPC_INTERNAL_ERROR, why, NULL, NULL);
			goto done;
		}
		q->initialize = true;
	} else if (sid) {
		if ((q->legacy = legacy_find(hs, sid)) == NULL) {
			ret = respond_error(c, MHD_HTTP_NOT_FOUND, q->id_text, HERMES_RPC_INVALID_REQUEST,
			                    "no such session (it ended or expired): initialize again", NULL,
			                    NULL);
			goto done;
		}
		const char *pv = header(c, "MCP-Protocol-Version");
		bool known = pv == NULL;
		for (size_t i = 1; !known && i < hermes_mcp_version_count; i++)
			known = strcmp(pv, hermes_mcp_versions[i]) == 0;
		if (!known) {
			snprintf(why, sizeof why, "MCP-Protocol-Version '%.40s' is not a 2025 revision Hermes "
			         "speaks (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)", pv);
			ret = respond_error(c, MHD_HTTP_BAD_REQUEST, q->id_text, HERMES_RPC_INVALID_REQUEST,
			                    why, NULL, NULL);
			goto done;
		}
	} else if (m) {
		snprintf(why, sizeof why, "%.100s needs params._meta[\"" HERMES_MCP_META_VERSION "\"] ("
		         HERMES_MCP_MODERN_VERSION ") or, in a 2025 revision, the Mcp-Session-Id header "
		         "that initialize gave", m);
		ret = respond_error(c, MHD_HTTP_BAD_REQUEST, q->id_text, HERMES_RPC_INVALID_PARAMS, why,
		                    NULL, NULL);
		goto done;
	} else {
		/* a response from the client: nothing here asked it anything */
		ret = respond_empty(c, MHD_HTTP_ACCEPTED, NULL);
		goto done;
	}
	if (q->legacy) {
		s = q->legacy->s;
		feed_lock = &q->legacy->feed;
	}
	hermes_json_doc_free(doc);
	doc = NULL;
	static const char *const retry[] = {"Retry-After", "1", NULL};
	if (!request) {
		if (!feed(hs, s, feed_lock, &hs->drop, text, len))
			return respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, HERMES_RPC_INTERNAL_ERROR,
			                     "the server is busy or stopping", NULL, retry);
		return respond_empty(c, MHD_HTTP_ACCEPTED, NULL);
	}
	if (!feed(hs, s, feed_lock, &q->ch, text, len))
		return respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, q->id_text, HERMES_RPC_INTERNAL_ERROR,
		                     "the server is busy or stopping", NULL, retry);
	q->answered = true;
	int w = req_wait(q, s);
	if (w <= 0)
		return MHD_NO; /* the client left (its request is cancelled), or the server stops */
	return answer(q, c);
done:
	hermes_json_doc_free(doc);
	free(text);
	return ret;
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *c, const char *url,
                                      const char *method, const char *version,
                                      const char *upload, size_t *upload_size, void **con_cls)
{
	(void)version;
	http_server_t *hs = cls;
	hreq_t *q = *con_cls;
	if (q == NULL)
		return MHD_NO;
	if (!q->headers_seen) {
		q->headers_seen = true;
		int r = check_headers(hs, q, c, url, method);
		return r < 0 ? MHD_YES : (enum MHD_Result)r;
	}
	if (*upload_size) {
		if (!q->too_large && q->body.len + *upload_size > hs->max_body) {
			q->too_large = true;
			hermes_buf_free(&q->body);
		}
		if (!q->too_large)
			hermes_buf_append(&q->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&hs->lock);
	if (q->conn) {
		q->conn->reading_since.tv_sec = 0;
		q->conn->reading_since.tv_nsec = 0;
	}
	pthread_mutex_unlock(&hs->lock);
	/* a tool may run for long, its stream stay quiet: no idle timeout until it is answered */
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
	if (q->too_large) {
		char why[160];
		snprintf(why, sizeof why, "the message is over the limit of %zu bytes (--max-message-bytes)",
		         hs->max_body);
		return respond_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, HERMES_RPC_INVALID_REQUEST, why,
		                     NULL, NULL);
	}
	return handle_body(hs, q, c);
}

/* ---- setting up --------------------------------------------------------------------------- */

static int read_token(http_server_t *hs, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "hermes mcp: cannot read the token file %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_mode & 077) {
		fprintf(stderr, "hermes mcp: the token file %s can be read by others (chmod 600 it)\n",
		        path);
		close(fd);
		return -1;
	}
	char buf[MAX_TOKEN_BYTES + 2];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0 || n > MAX_TOKEN_BYTES) {
		fprintf(stderr, "hermes mcp: the token file %s %s\n", path,
		        n < 0 ? "cannot be read" : "is longer than 4096 bytes");
		return -1;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	if (n == 0) {
		fprintf(stderr, "hermes mcp: the token file %s is empty\n", path);
		return -1;
	}
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] <= 0x20 || (unsigned char)buf[i] >= 0x7f) {
			fprintf(stderr, "hermes mcp: the token in %s holds a space or a character that is not "
			        "printable ASCII\n", path);
			return -1;
		}
	hs->token = strdup(buf);
	hs->token_len = (size_t)n;
	explicit_bzero(buf, sizeof buf);
	return hs->token ? 0 : -1;
}

static bool loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a))
			return a->s6_addr[12] == 127;
		return IN6_IS_ADDR_LOOPBACK(a);
	}
	return false;
}

/* Binds and listens on spec; prints where. 0, or 2 with why said. */
static int listen_on(http_server_t *hs, const char *spec, char *url, size_t url_len)
{
	if (strncmp(spec, "unix:", 5) == 0) {
		const char *path = spec + 5;
		struct sockaddr_un sun = {.sun_family = AF_UNIX};
		if (*path == '\0' || strlen(path) >= sizeof sun.sun_path) {
			fprintf(stderr, "hermes mcp: invalid --listen '%s' (a Unix socket path of 1 to %zu "
			        "bytes)\n", spec, sizeof sun.sun_path - 1);
			return 2;
		}
		strcpy(sun.sun_path, path);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			unlink(path); /* a socket left by an earlier server */
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0 || listen(fd, 128) != 0) {
			fprintf(stderr, "hermes mcp: cannot listen on %s: %s\n", spec, strerror(errno));
			if (fd >= 0)
				close(fd);
			return 2;
		}
		hs->listen_fd = fd;
		hs->unix_path = strdup(path);
		snprintf(url, url_len, "http://localhost" ENDPOINT " on unix:%s", path);
		return 0;
	}
	char host[256];
	const char *colon = strrchr(spec, ':');
	const char *h = spec;
	size_t hl = colon ? (size_t)(colon - spec) : 0;
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']')
		h++, hl -= 2;
	if (colon == NULL || hl == 0 || hl >= sizeof host || colon[1] == '\0') {
		fprintf(stderr, "hermes mcp: invalid --listen '%s' (expected HOST:PORT, [IPV6]:PORT or "
		        "unix:PATH, e.g. 127.0.0.1:8931)\n", spec);
		return 2;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV | AI_PASSIVE};
	struct addrinfo *ai = NULL;
	int e = getaddrinfo(host, colon + 1, &hints, &ai);
	if (e != 0) {
		fprintf(stderr, "hermes mcp: invalid --listen '%s': %s\n", spec, gai_strerror(e));
		return 2;
	}
	if (!loopback(ai->ai_addr) && hs->token == NULL) {
		fprintf(stderr, "hermes mcp: --listen '%s' is not a loopback address: give a bearer token "
		        "with --auth-token-file (or listen on 127.0.0.1 or a Unix socket behind a proxy)\n",
		        spec);
		freeaddrinfo(ai);
		return 2;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 128) != 0) {
		fprintf(stderr, "hermes mcp: cannot listen on %s: %s\n", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return 2;
	}
	freeaddrinfo(ai);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char num[INET6_ADDRSTRLEN], port[16];
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	getnameinfo((struct sockaddr *)&ss, sl, num, sizeof num, port, sizeof port,
	            NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(url, url_len, ss.ss_family == AF_INET6 ? "http://[%s]:%s" ENDPOINT : "http://%s:%s" ENDPOINT,
	         num, port);
	hs->listen_fd = fd;
	return 0;
}

/* Shuts the connections whose request has been arriving longer than the timeout (a slow client
 * must not hold a slot), and ends 2025 sessions left idle. */
static void reap(http_server_t *hs)
{
	pthread_mutex_lock(&hs->lock);
	for (conn_t *k = hs->conns; k; k = k->next)
		if (k->reading_since.tv_sec && since(&k->reading_since) > hs->timeout && k->fd >= 0) {
			hermes_log(HERMES_LOG_INFO, "http: a request took over %d s to arrive: connection closed",
			           hs->timeout);
			shutdown(k->fd, SHUT_RDWR);
			k->reading_since.tv_sec = 0;
		}
	legacy_t *idle = NULL;
	time_t t = time(NULL);
	for (legacy_t *l = hs->legacies; l; l = l->next)
		if (l->users == 1 && t - l->last_used > LEGACY_IDLE_SECONDS) {
			idle = l;
			break;
		}
	if (idle)
		legacy_end_locked(hs, idle);
	pthread_mutex_unlock(&hs->lock);
	if (idle) {
		hermes_log(HERMES_LOG_INFO, "http: session %s ended after %d s unused", idle->id,
		           LEGACY_IDLE_SECONDS);
		legacy_unref(hs, idle);
	}
}

/* The 2025 sessions, each with a reference (taken under hs->lock, which is never held while a
 * feed lock is taken: feeding takes them the other way round). Returns how many. */
static size_t legacy_snapshot(http_server_t *hs, legacy_t **out)
{
	size_t n = 0;
	pthread_mutex_lock(&hs->lock);
	for (legacy_t *l = hs->legacies; l && n < MAX_LEGACY_SESSIONS; l = l->next) {
		l->users++;
		out[n++] = l;
	}
	pthread_mutex_unlock(&hs->lock);
	return n;
}

/* Calls fn on every session, each under its feed lock (a session is fed by one thread at a
 * time). */
static void for_each_session(http_server_t *hs, void (*fn)(hermes_session_t *))
{
	legacy_t *ls[MAX_LEGACY_SESSIONS];
	pthread_mutex_lock(&hs->modern_feed);
	fn(hs->modern);
	pthread_mutex_unlock(&hs->modern_feed);
	size_t n = legacy_snapshot(hs, ls);
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&ls[i]->feed);
		fn(ls[i]->s);
		pthread_mutex_unlock(&ls[i]->feed);
		legacy_unref(hs, ls[i]);
	}
}

static bool all_finished(http_server_t *hs, int *timeout_ms)
{
	legacy_t *ls[MAX_LEGACY_SESSIONS];
	int t = -1;
	pthread_mutex_lock(&hs->modern_feed);
	bool done = hermes_session_finished(hs->modern, &t);
	pthread_mutex_unlock(&hs->modern_feed);
	size_t n = legacy_snapshot(hs, ls);
	for (size_t i = 0; i < n; i++) {
		int lt = -1;
		pthread_mutex_lock(&ls[i]->feed);
		done &= hermes_session_finished(ls[i]->s, &lt);
		pthread_mutex_unlock(&ls[i]->feed);
		if (lt >= 0 && (t < 0 || lt < t))
			t = lt;
		legacy_unref(hs, ls[i]);
	}
	*timeout_ms = t;
	return done;
}

/* No new connections: the acceptor ends, and the listening socket is closed (clients see the
 * server gone); the connections open go on. */
static void stop_accepting(http_server_t *hs)
{
	pthread_mutex_lock(&hs->lock);
	hs->stopping = true;
	pthread_cond_broadcast(&hs->conn_room);
	pthread_mutex_unlock(&hs->lock);
	if (hs->acceptor_started) {
		uint64_t one = 1;
		if (write(hs->accept_stop, &one, sizeof one) < 0) {
			/* cannot fail on a fresh eventfd */
		}
		pthread_join(hs->acceptor, NULL);
		hs->acceptor_started = false;
	}
	if (hs->listen_fd >= 0) {
		close(hs->listen_fd);
		hs->listen_fd = -1;
	}
}

int hermes_http_run(const hermes_server_options_t *opts, const hermes_http_options_t *http)
{
	http_server_t *hs = calloc(1, sizeof *hs);
	char err[400], url[PATH_MAX + 64], cwd[PATH_MAX];
	int status = 1;
	if (hs == NULL)
		return 1;
	hs->opts = opts;
	hs->http = http;
	hs->listen_fd = -1;
	hs->stop_efd = -1;
	hs->accept_stop = -1;
	hs->wake_pipe[0] = hs->wake_pipe[1] = -1;
	hs->timeout = http->timeout_seconds > 0 ? http->timeout_seconds : 30;
	hs->max_body = opts->max_message_bytes > 0 ? (size_t)opts->max_message_bytes : 4u << 20;
	hs->drop.ops = &drop_ops;
	pthread_mutex_init(&hs->lock, NULL);
	pthread_mutex_init(&hs->modern_feed, NULL);
	pthread_cond_init(&hs->room, NULL);
	pthread_cond_init(&hs->conn_room, NULL);
	hermes_log_set_level(opts->log_level);
	if (http->auth_token_file && read_token(hs, http->auth_token_file) != 0) {
		status = 2;
		goto out;
	}
	if (!hermes_mhd_lib_load(err, sizeof err)) {
		fprintf(stderr, "hermes mcp: --listen needs libmicrohttpd: %s\n", err);
		goto out;
	}
	if ((status = listen_on(hs, http->listen, url, sizeof url)) != 0)
		goto out;
	status = 1;
	/* Every session works in --root or the current directory: an HTTP client is asked nothing
	 * outside a request, so not roots/list either. */
	hs->sopts.config = opts->config;
	hs->sopts.root_given = true;
	if (hs->sopts.config.root == NULL) {
		if (getcwd(cwd, sizeof cwd) == NULL) {
			fprintf(stderr, "hermes mcp: cannot tell the current directory: %s\n", strerror(errno));
			goto out;
		}
		hs->sopts.config.root = cwd;
	}
	hs->sopts.protocol = HERMES_PROTOCOL_MCP;
	hs->sopts.jobs = opts->jobs;
	hs->sopts.grace_seconds = opts->grace_seconds;
	hs->sopts.no_log_hook = true;
	/* one workspace for every session: the programs started (proc.start) are the server's,
	 * whichever client or era asks */
	if ((hs->budget = hermes_budget_new()) == NULL) {
		fprintf(stderr, "hermes mcp: out of memory\n");
		goto out;
	}
	hs->sopts.budget = hs->budget;
	hermes_error_t err_ex;
	if (hermes_executor_new(&hs->sopts.config, &hs->sopts.executor, &err_ex) != 0) {
		fprintf(stderr, "hermes mcp: cannot open the workspace: %s\n", err_ex.message);
		status = 2;
		goto out;
	}
	if (pipe2(hs->wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0 ||
	    (hs->stop_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    (hs->accept_stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		fprintf(stderr, "hermes mcp: %s\n", strerror(errno));
		goto out;
	}
	if ((hs->modern = hermes_session_new(&hs->sopts, &hs->drop, session_wake, hs)) == NULL)
		goto out;
	hs->max_conns = http->max_connections > 0 ? (unsigned)http->max_connections : 64;
	/* accept_loop accepts (and stops at the limit); libmicrohttpd serves what it is handed */
	hs->daemon = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
		MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, 0, NULL, NULL,
		access_handler, hs,
		MHD_OPTION_CONNECTION_LIMIT, hs->max_conns + 1,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)hs->timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MAX_HEADER_BYTES,
		MHD_OPTION_URI_LOG_CALLBACK, uri_log, hs,
		MHD_OPTION_NOTIFY_COMPLETED, completed, hs,
		MHD_OPTION_NOTIFY_CONNECTION, notify_connection, hs,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, hs,
		MHD_OPTION_END);
	if (hs->daemon == NULL) {
		fprintf(stderr, "hermes mcp: libmicrohttpd could not start serving %s\n", http->listen);
		goto out;
	}
	if (pthread_create(&hs->acceptor, NULL, accept_loop, hs) != 0) {
		fprintf(stderr, "hermes mcp: cannot start the thread that accepts connections\n");
		goto out;
	}
	hs->acceptor_started = true;
	signal_pipe = hs->wake_pipe[1];
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "hermes mcp: listening on %s (%s)\n", url,
	        hs->token ? "bearer token required" : "no token");
	fflush(stderr);

	int handled = 0;
	bool stopping = false;
	for (;;) {
		int timeout_ms = 250;
		if (stopping) {
			int t;
			if (all_finished(hs, &t))
				break;
			if (t >= 0 && t < timeout_ms)
				timeout_ms = t;
		}
		struct pollfd p = {hs->wake_pipe[0], POLLIN, 0};
		if (poll(&p, 1, timeout_ms) > 0) {
			char buf[64];
			while (read(hs->wake_pipe[0], buf, sizeof buf) > 0) {
			}
		}
		while (handled < signals_seen) {
			handled++;
			if (handled == 1) {
				hermes_log(HERMES_LOG_INFO, "http: stopping: no new requests; the work in flight "
				           "gets the grace");
				stopping = true;
				stop_accepting(hs);
				for_each_session(hs, hermes_session_wind_down);
			} else {
				for_each_session(hs, hermes_session_cancel_all);
			}
		}
		reap(hs);
	}
	status = 0;
out:
	if (hs->stop_efd >= 0) {
		uint64_t one = 1;
		if (write(hs->stop_efd, &one, sizeof one) < 0) {
			/* cannot fail on a fresh eventfd */
		}
	}
	stop_accepting(hs);
	if (hs->daemon)
		MHD_stop_daemon(hs->daemon);
	signal_pipe = -1;
	while (hs->legacies) {
		legacy_t *l = hs->legacies;
		hs->legacies = l->next;
		if (--l->users == 0)
			legacy_free(l);
	}
	hermes_session_free(hs->modern);
	hermes_budget_free(hs->budget);
	hermes_executor_free(hs->sopts.executor);
	if (hs->listen_fd >= 0)
		close(hs->listen_fd);
	if (hs->unix_path) {
		unlink(hs->unix_path);
		free(hs->unix_path);
	}
	for (int i = 0; i < 2; i++)
		if (hs->wake_pipe[i] >= 0)
			close(hs->wake_pipe[i]);
	if (hs->stop_efd >= 0)
		close(hs->stop_efd);
	if (hs->accept_stop >= 0)
		close(hs->accept_stop);
	pthread_cond_destroy(&hs->conn_room);
	if (hs->token) {
		explicit_bzero(hs->token, hs->token_len);
		free(hs->token);
	}
	pthread_mutex_destroy(&hs->lock);
	pthread_mutex_destroy(&hs->modern_feed);
	pthread_cond_destroy(&hs->room);
	free(hs);
	return status;
}
