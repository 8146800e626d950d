/* session/session.c: the session API (session.h): a session made and ended, the events its
 * transport feeds it (messages, the end of input, stop requests, a lost client), the bounds that
 * make the transport stop reading, and the winding down: shutdown, the grace, the end. */
#include <config.h>

#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/processors.h"
#include "rpc/log.h"
#include "rpc/state.h"

/* LONG verbs (proc.run, fs.search, ...) running at once, each in its own thread; more wait. */
#define HERMES_SERVER_MAX_LONG 64

static void budget_init(hermes_budget_t *b)
{
	atomic_init(&b->held, 0);
	atomic_init(&b->queued, 0);
	atomic_init(&b->inflight, 0);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->room, NULL);
	b->results = 0;
	atomic_init(&b->waiters, 0);
}

static void budget_destroy(hermes_budget_t *b)
{
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->room);
}

/* Wakes the work waiting for room in the budget (requests.c: result_room). */
static void budget_room(hermes_budget_t *b)
{
	if (atomic_load(&b->waiters)) {
		pthread_mutex_lock(&b->lock);
		pthread_cond_broadcast(&b->room);
		pthread_mutex_unlock(&b->lock);
	}
}

hermes_budget_t *hermes_budget_new(void)
{
	hermes_budget_t *b = malloc(sizeof *b);
	if (b)
		budget_init(b);
	return b;
}

void hermes_budget_free(hermes_budget_t *b)
{
	if (b == NULL)
		return;
	budget_destroy(b);
	free(b);
}

void hermes_budget_hold_replies(hermes_budget_t *b, size_t bytes)
{
	atomic_fetch_add(&b->queued, bytes);
}

void hermes_budget_release_replies(hermes_budget_t *b, size_t bytes)
{
	if (bytes == 0)
		return;
	atomic_fetch_sub(&b->queued, bytes);
	budget_room(b);
}

hermes_session_t *hermes_session_new(const hermes_session_options_t *opts,
                                     hermes_channel_t *channel, void (*wake)(void *ctx),
                                     void *ctx)
{
	server_t *srv = calloc(1, sizeof *srv);
	if (srv == NULL) {
		hermes_log(HERMES_LOG_ERROR, "out of memory starting the session");
		return NULL;
	}
	srv->opts = *opts;
	srv->channel = channel;
	srv->wake = wake;
	srv->wake_ctx = ctx;
	/* AUTO reads Hermes's table until an initialize says otherwise */
	srv->protocols[HERMES_PROTOCOL_AUTO] = &hermes_protocol_hermes;
	srv->protocols[HERMES_PROTOCOL_HERMES] = &hermes_protocol_hermes;
	srv->protocols[HERMES_PROTOCOL_MCP] = &hermes_protocol_mcp;
	srv->protocol = opts->protocol;
	atomic_init(&srv->mcp_log_level, 99);
	srv->exit_status = -1;
	srv->grace_end = -1;
	pthread_mutex_init(&srv->lock, NULL);
	budget_init(&srv->own_budget);
	srv->budget = opts->budget ? opts->budget : &srv->own_budget;
	atomic_init(&srv->client_gone, false);
	atomic_init(&srv->throttled, false);
#ifdef M_MMAP_THRESHOLD
	/* Big blocks (a file's content, its reply) straight from mmap and back to the system when
	 * freed: glibc would otherwise raise the threshold after the first such free and keep every
	 * worker thread's big blocks in its arena, and the server's memory would not come down. */
	mallopt(M_MMAP_THRESHOLD, 8 << 20);
#endif
#ifdef M_ARENA_MAX
	/* The workers share two arenas (the main one and one more) instead of one each (glibc makes
	 * up to 8 per processor): an arena keeps the pages its thread's peak touched, so every arena
	 * more is another peak the budget does not see (with transparent huge pages, in 2 MiB
	 * pieces). Two cover two processors; the instant lane allocates in the main one. */
	mallopt(M_ARENA_MAX, 2);
#endif
	/* (A higher M_TRIM_THRESHOLD made a 10k-entry listDir 20% faster, but let each worker's
	 * arena keep megabytes: 13 to 17 MiB over 2M requests instead of a flat 4.5 MiB.) */
	int processors = hermes_processor_count();
	int jobs = opts->jobs > 0 ? opts->jobs : processors;
	srv->flush_every = hermes_requests_flush_every(processors);
	srv->pool = hermes_pool_new(jobs, HERMES_SERVER_MAX_LONG);
	if (srv->pool == NULL) {
		hermes_log(HERMES_LOG_ERROR, "cannot start the worker threads");
		pthread_mutex_destroy(&srv->lock);
		budget_destroy(&srv->own_budget);
		free(srv);
		return NULL;
	}
	srv->roots_deadline = -1;
	srv->ex = opts->executor;
	if (!opts->no_log_hook)
		hermes_log_set_hook(hermes_mcp_log, srv);
	hermes_log(HERMES_LOG_INFO, "session: %d worker(s)", jobs);
	return srv;
}

void hermes_session_end(hermes_session_t *srv)
{
	if (srv->ended)
		return;
	srv->ended = true;
	hermes_pool_free(srv->pool);
	srv->pool = NULL;
	hermes_inflight_shutdown(srv, srv->channel, NULL); /* shutdown replies still owed, if any */
	if (!srv->opts.no_log_hook)
		hermes_log_set_hook(NULL, NULL);
}

void hermes_session_free(hermes_session_t *srv)
{
	if (srv == NULL)
		return;
	hermes_session_end(srv);
	if (srv->ex != srv->opts.executor)
		hermes_executor_free(srv->ex);
	while (srv->retired) {
		retired_t *next = srv->retired->next;
		if (srv->retired->ex != srv->opts.executor)
			hermes_executor_free(srv->retired->ex);
		free(srv->retired);
		srv->retired = next;
	}
	if (srv->protocol_state_free)
		srv->protocol_state_free(srv->protocol_state);
	free(srv->roots_request);
	free(srv->workspace_error);
	pthread_mutex_destroy(&srv->lock);
	budget_destroy(&srv->own_budget);
	free(srv);
}

void hermes_session_message(hermes_session_t *srv, hermes_channel_t *ch, char *body, size_t len)
{
	hermes_dispatch_message(srv, ch, body, len);
}

void hermes_session_frame_error(hermes_session_t *srv, hermes_channel_t *ch, int code,
                                const char *message)
{
	(void)srv;
	hermes_dispatch_frame_error(ch, code, message);
}

void hermes_session_read_begin(hermes_session_t *srv)
{
	srv->collecting = true;
}

void hermes_session_read_end(hermes_session_t *srv)
{
	srv->collecting = false;
	hermes_requests_flush(srv);
}

/* No new work from now on (the exit status is set if it is not yet). */
static void stop_taking_work(server_t *srv, int status)
{
	pthread_mutex_lock(&srv->lock);
	srv->shutdown = true;
	pthread_mutex_unlock(&srv->lock);
	if (srv->exit_status < 0)
		srv->exit_status = status;
}

static void cancel_all(server_t *srv, unsigned how)
{
	size_t n = hermes_inflight_cancel(srv, NULL, 0, how);
	if (n)
		hermes_log(HERMES_LOG_INFO, "cancelled %zu request(s)", n);
}

/* MCP answers nothing that was cancelled; Hermes answers -32800. */
static unsigned silent(server_t *srv)
{
	return srv->protocol == HERMES_PROTOCOL_MCP ? HERMES_CANCEL_SILENT : 0;
}

void hermes_session_eof(hermes_session_t *srv)
{
	if (srv->protocol == HERMES_PROTOCOL_MCP) {
		/* MCP: the session is over; what may run for long is stopped (unanswered), quick
		 * calls still finish and answer */
		hermes_log(HERMES_LOG_INFO, "end of input: cancelling the long calls in flight");
		stop_taking_work(srv, 0);
		cancel_all(srv, HERMES_CANCEL_SILENT | HERMES_CANCEL_LONG_ONLY);
	} else {
		hermes_log(HERMES_LOG_INFO, "end of input: finishing the work in flight (grace %d s)",
		           srv->opts.grace_seconds);
	}
	srv->eof = true;
	if (srv->exit_status < 0)
		srv->exit_status = 0;
}

void hermes_session_wind_down(hermes_session_t *srv)
{
	stop_taking_work(srv, 0);
	srv->graceful = true;
}

void hermes_session_cancel_channel(hermes_session_t *srv, hermes_channel_t *ch)
{
	size_t n = hermes_inflight_cancel_channel(srv, ch, HERMES_CANCEL_SILENT);
	if (n)
		hermes_log(HERMES_LOG_INFO, "cancelled %zu request(s) whose client went away", n);
}

void hermes_session_cancel_all(hermes_session_t *srv)
{
	cancel_all(srv, silent(srv));
	srv->stop_reading = true;
}

void hermes_session_client_gone(hermes_session_t *srv)
{
	if (srv->gone_seen)
		return;
	srv->gone_seen = true;
	atomic_store(&srv->client_gone, true);
	hermes_log(HERMES_LOG_INFO, "the client is gone: cancelling the work in flight");
	stop_taking_work(srv, 1);
	cancel_all(srv, silent(srv));
	srv->stop_reading = true;
}

bool hermes_session_open(hermes_session_t *srv)
{
	return !srv->eof && !srv->stop_reading;
}

/* Bytes queued on the default channel. */
static size_t queued(server_t *srv)
{
	hermes_channel_t *ch = srv->channel;
	return ch->ops->queued ? ch->ops->queued(ch) : 0;
}

/* Is the client holding too much of the session, or the clients of the budget too much of it (see
 * session.h)? Once they are, half of each bound must be free again before reading resumes, so that
 * the loop does not wake for every reply. */
static bool over_bounds(server_t *srv, bool waiting)
{
	unsigned shift = waiting ? 1 : 0;
	/* The replies the transport holds past its default channel (HTTP: one request's on each
	 * connection) do not stop the reading: a client that does not read its reply would stop
	 * every other client's (a connection carries one request at a time, and a request whose
	 * result is big waits for room in the budget before it builds it: requests.c). */
	return atomic_load(&srv->budget->inflight) >= (HERMES_SERVER_MAX_INFLIGHT >> shift) ||
	       atomic_load(&srv->budget->held) >= (HERMES_SERVER_MAX_HELD_BYTES >> shift) ||
	       queued(srv) >= (HERMES_SERVER_MAX_QUEUED_BYTES >> shift);
}

/* Not while the client holds too much. The flag is published before the second look, so a
 * thread making room after the first look sees it and wakes the loop. */
static bool room_to_read(server_t *srv)
{
	bool waiting = atomic_load(&srv->throttled);
	if (!over_bounds(srv, waiting)) {
		if (waiting)
			hermes_log(HERMES_LOG_DEBUG, "room again: reading requests");
		atomic_store(&srv->throttled, false);
		return true;
	}
	if (!waiting) {
		hermes_log(HERMES_LOG_DEBUG, "the client holds too much: input paused (%zu requests in "
		           "flight, %zu bytes of messages, %zu of replies not read)",
		           (size_t)atomic_load(&srv->budget->inflight),
		           (size_t)atomic_load(&srv->budget->held), queued(srv));
		atomic_store(&srv->throttled, true);
		if (!over_bounds(srv, true)) { /* made room meanwhile, maybe without seeing the flag */
			atomic_store(&srv->throttled, false);
			return true;
		}
	}
	return false;
}

bool hermes_session_may_read(hermes_session_t *srv)
{
	return hermes_session_open(srv) && room_to_read(srv);
}

void hermes_session_room(hermes_session_t *srv)
{
	session_room(srv);
	budget_room(srv->budget); /* results may wait for the replies to be read */
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Once the session winds down (shutdown, a signal, the end of input), the work still running gets
 * the grace period; then it is cancelled with no time left, so that a program that would run for
 * minutes does not hold the server: it is gone within a second of the grace. Returns how long
 * the loop may sleep (-1: until something happens). */
static int grace(server_t *srv, bool winding, bool idle)
{
	if (!winding || srv->grace_over)
		return -1;
	int64_t now = now_ms();
	if (srv->grace_end < 0)
		srv->grace_end = now + (int64_t)srv->opts.grace_seconds * 1000;
	if (idle)
		return -1;
	if (now < srv->grace_end)
		return srv->grace_end - now > INT_MAX ? INT_MAX : (int)(srv->grace_end - now);
	srv->grace_over = true;
	size_t n = hermes_inflight_cancel(srv, NULL, 0, HERMES_CANCEL_URGENT | silent(srv));
	if (n)
		hermes_log(HERMES_LOG_WARN, "grace period of %d s over: cancelled %zu request(s) still "
		           "running", srv->opts.grace_seconds, n);
	return -1;
}

bool hermes_session_finished(hermes_session_t *srv, int *timeout_ms)
{
	pthread_mutex_lock(&srv->lock);
	bool ending = srv->eof || srv->stop_reading || srv->graceful;
	bool winding = ending || srv->shutdown;
	if (ending)
		srv->finishing = true;
	bool idle = srv->active_count == 0;
	pthread_mutex_unlock(&srv->lock);
	*timeout_ms = grace(srv, winding, idle);
	const hermes_protocol_desc_t *p = srv->protocols[srv->protocol];
	if (p->tick)
		p->tick(srv, timeout_ms);
	return ending && idle;
}

int hermes_session_exit_status(hermes_session_t *srv)
{
	return srv->exit_status < 0 ? 0 : srv->exit_status;
}

hermes_protocol_t hermes_session_protocol(hermes_session_t *srv)
{
	return srv->protocol;
}
