/* transport/http/http_sessions.c: the sessions behind the endpoint (see http_server.h): the one
 * 2026-07-28 session every stateless request shares, and the table of 2025-era sessions, one per
 * client from its initialize (named by Mcp-Session-Id, at most MAX_LEGACY_SESSIONS, the idlest
 * ended to make room, ended after LEGACY_IDLE_SECONDS unused); a message handed to a session
 * when it has room. */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rpc/log.h"
#include "transport/http/http_server.h"

void hermes_http_session_wake(void *ctx)
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
bool hermes_http_feed(http_server_t *hs, hermes_session_t *s, pthread_mutex_t *feed_lock,
                 hermes_channel_t *ch, char *body, size_t len)
{
	struct timespec start;
	hermes_http_now(&start);
	pthread_mutex_lock(feed_lock);
	while (!hermes_session_may_read(s)) {
		if (!hermes_session_open(s) || hermes_http_since(&start) > hs->timeout) {
			pthread_mutex_unlock(feed_lock);
			free(body);
			return false;
		}
		struct timespec until = hermes_http_deadline_in(100);
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

static void hermes_http_legacy_free(legacy_t *l)
{
	hermes_session_cancel_all(l->s);
	hermes_session_free(l->s);
	/* nothing is sent any more; no GET stream is open (one holds the session) */
	for (queued_t *m = l->out.held, *next; m; m = next) {
		next = m->next;
		free(m->body);
		free(m);
	}
	hermes_budget_release_replies(l->out.hs->budget, l->out.held_bytes);
	pthread_mutex_destroy(&l->out.lock);
	pthread_mutex_destroy(&l->feed);
	free(l);
}

void hermes_http_legacy_unref(http_server_t *hs, legacy_t *l)
{
	pthread_mutex_lock(&hs->lock);
	bool last = --l->users == 0;
	pthread_mutex_unlock(&hs->lock);
	if (last)
		hermes_http_legacy_free(l);
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
void hermes_http_legacy_drop(http_server_t *hs, legacy_t *l)
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
legacy_t *hermes_http_legacy_find(http_server_t *hs, const char *id)
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
legacy_t *hermes_http_legacy_new(http_server_t *hs, const hermes_channel_ops_t *out_ops, char *why,
                                 size_t n)
{
	legacy_t *l = calloc(1, sizeof *l), *evict = NULL;
	unsigned char rnd[16];
	if (l == NULL || getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		free(l);
		snprintf(why, n, "cannot start a session (out of memory or randomness)");
		return NULL;
	}
	/* named like every handle, so that a balancer routes the session to this instance */
	int at = snprintf(l->id, sizeof l->id, "%s.",
	                  hs->opts->config.instance ? hs->opts->config.instance : "hermes");
	for (int i = 0; i < 16; i++)
		snprintf(l->id + at + 2 * i, 3, "%02x", rnd[i]);
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
		hermes_http_legacy_unref(hs, evict);
	}
	if (full) {
		free(l);
		snprintf(why, n, "too many 2025-era sessions (%d) are busy; end one (DELETE) or retry",
		         MAX_LEGACY_SESSIONS);
		return NULL;
	}
	l->out.ch.ops = out_ops;
	l->out.hs = hs;
	l->out.held_tail = &l->out.held;
	pthread_mutex_init(&l->out.lock, NULL);
	if ((l->s = hermes_session_new(&hs->sopts, &l->out.ch, hermes_http_session_wake, hs)) == NULL) {
		pthread_mutex_destroy(&l->out.lock);
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

void hermes_http_reap_sessions(http_server_t *hs)
{
	pthread_mutex_lock(&hs->lock);
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
		hermes_http_legacy_unref(hs, idle);
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
void hermes_http_for_each_session(http_server_t *hs, void (*fn)(hermes_session_t *))
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
		hermes_http_legacy_unref(hs, ls[i]);
	}
}

void hermes_http_for_each_legacy(http_server_t *hs, void (*fn)(legacy_t *))
{
	legacy_t *ls[MAX_LEGACY_SESSIONS];
	size_t n = legacy_snapshot(hs, ls);
	for (size_t i = 0; i < n; i++) {
		fn(ls[i]);
		hermes_http_legacy_unref(hs, ls[i]);
	}
}

/* One session's tick, unless a thread feeds it (it may wait for room for long: the next tick
 * comes soon). */
static void tick(hermes_session_t *s, pthread_mutex_t *feed, int *timeout_ms)
{
	if (pthread_mutex_trylock(feed) != 0)
		return;
	int t = -1;
	hermes_session_finished(s, &t); /* not finishing: it only runs the protocol's tick */
	pthread_mutex_unlock(feed);
	if (t >= 0 && (*timeout_ms < 0 || t < *timeout_ms))
		*timeout_ms = t;
}

void hermes_http_tick_sessions(http_server_t *hs, int *timeout_ms)
{
	legacy_t *ls[MAX_LEGACY_SESSIONS];
	tick(hs->modern, &hs->modern_feed, timeout_ms);
	size_t n = legacy_snapshot(hs, ls);
	for (size_t i = 0; i < n; i++) {
		tick(ls[i]->s, &ls[i]->feed, timeout_ms);
		hermes_http_legacy_unref(hs, ls[i]);
	}
}

bool hermes_http_all_finished(http_server_t *hs, int *timeout_ms)
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
		hermes_http_legacy_unref(hs, ls[i]);
	}
	*timeout_ms = t;
	return done;
}

void hermes_http_sessions_free(http_server_t *hs)
{
	while (hs->legacies) {
		legacy_t *l = hs->legacies;
		hs->legacies = l->next;
		if (--l->users == 0)
			hermes_http_legacy_free(l);
	}
}
