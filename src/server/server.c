/* server/server.c: `hermes serve`: the session's lifecycle and its reader loop. The calling thread
 * reads stdin and dispatches; workers run verbs; one writer thread writes replies. A self-pipe
 * wakes the reader for signals, a broken output and "all work done". */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server/log.h"
#include "server/state.h"

/* LONG verbs (proc.run, fs.search, ...) running at once, each in its own thread; more wait. */
#define HERMES_SERVER_MAX_LONG 64

/* Signal handlers can only reach globals; there is one server per process. */
static volatile sig_atomic_t signals_seen;
static int signal_wake_fd = -1;

static void on_stop_signal(int sig)
{
	(void)sig;
	int saved = errno;
	signals_seen++;
	if (signal_wake_fd >= 0) {
		ssize_t w = write(signal_wake_fd, "s", 1);
		(void)w;
	}
	errno = saved;
}

/* SIGPIPE is caught rather than ignored: a write to a client that went away then fails with
 * EPIPE, and (unlike SIG_IGN) the disposition is reset to default in the programs proc.run runs. */
static void on_sigpipe(int sig)
{
	(void)sig;
}

void hermes_server_wake(server_t *srv)
{
	ssize_t w = write(srv->wake[1], "w", 1);
	(void)w; /* EAGAIN: the pipe is full of wake-ups already */
}

void hermes_server_room(server_t *srv)
{
	if (atomic_load(&srv->throttled))
		hermes_server_wake(srv);
}

static void on_output_written(void *ctx)
{
	hermes_server_room(ctx);
}

static void on_output_broken(void *ctx)
{
	server_t *srv = ctx;
	atomic_store(&srv->output_broken, true);
	hermes_server_wake(srv);
}

static int processor_count(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0) {
		int n = CPU_COUNT(&set);
		if (n > 0)
			return n;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static void feed_message(void *ctx, char *body, size_t len)
{
	hermes_dispatch_message(ctx, body, len);
}

static void feed_error(void *ctx, int code, const char *message)
{
	hermes_dispatch_frame_error(ctx, code, message);
}

/* The protocol descriptors move out of the way (close-on-exec, above 2): fd 0 becomes /dev/null
 * and fd 1 a copy of stderr, so nothing a library or child prints can corrupt the protocol, and
 * no child can inherit it. 0, or -1 (logged). */
static int take_protocol_fds(server_t *srv, int *in, int *out)
{
	const hermes_server_options_t *opts = srv->opts;
	*in = fcntl(opts->in_fd, F_DUPFD_CLOEXEC, 3);
	*out = *in < 0 ? -1 : fcntl(opts->out_fd, F_DUPFD_CLOEXEC, 3);
	if (*in < 0 || *out < 0 || pipe2(srv->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		hermes_log(HERMES_LOG_ERROR, "cannot set up the protocol descriptors: %s", strerror(errno));
		if (*in >= 0)
			close(*in);
		if (*out >= 0)
			close(*out);
		return -1;
	}
	if (opts->in_fd == STDIN_FILENO) {
		int dn = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (dn >= 0) {
			dup2(dn, STDIN_FILENO);
			close(dn);
		}
	}
	if (opts->out_fd == STDOUT_FILENO)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	return 0;
}

/* Puts the protocol descriptors back where they were (out only if the writer let go of it). */
static void give_back_protocol_fds(server_t *srv, int in, int out, bool flushed)
{
	if (srv->opts->in_fd == STDIN_FILENO)
		dup2(in, STDIN_FILENO);
	close(in);
	if (flushed) {
		if (srv->opts->out_fd == STDOUT_FILENO)
			dup2(out, STDOUT_FILENO);
		close(out);
	}
}

typedef struct saved_signals {
	struct sigaction term, intr, pipe;
} saved_signals_t;

static void install_signals(server_t *srv, saved_signals_t *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART; /* a worker's system call is not cut short; poll() still wakes */
	signals_seen = 0;
	signal_wake_fd = srv->wake[1];
	sa.sa_handler = on_stop_signal;
	sigaction(SIGTERM, &sa, &old->term);
	sigaction(SIGINT, &sa, &old->intr);
	sa.sa_handler = on_sigpipe;
	sigaction(SIGPIPE, &sa, &old->pipe);
}

static void restore_signals(const saved_signals_t *old)
{
	sigaction(SIGTERM, &old->term, NULL);
	sigaction(SIGINT, &old->intr, NULL);
	sigaction(SIGPIPE, &old->pipe, NULL);
	signal_wake_fd = -1;
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

/* What the reader loop knows between two wake-ups. */
typedef struct loop {
	bool eof, graceful, broken;
	int signals_handled;
	int64_t grace_end;  /* when the work still running is cancelled; -1: not winding down yet */
	bool grace_over;
} loop_t;

/* A first SIGTERM/SIGINT finishes the work in flight; a second cancels it. */
static void handle_signals(server_t *srv, loop_t *l)
{
	int seen = signals_seen;
	if (seen <= l->signals_handled)
		return;
	if (l->signals_handled == 0) {
		hermes_log(HERMES_LOG_INFO, "signal received: finishing the work in flight (grace %d s), "
		           "then exiting (a second signal cancels it)", srv->opts->grace_seconds);
		stop_taking_work(srv, 0);
		l->graceful = true;
	}
	if (seen >= 2) {
		cancel_all(srv, srv->protocol == HERMES_PROTOCOL_MCP ? HERMES_CANCEL_SILENT : 0);
		srv->stop_reading = true;
	}
	l->signals_handled = seen;
}

/* The client closed its end of our output: cancel everything and stop. */
static void handle_broken_output(server_t *srv, loop_t *l)
{
	if (l->broken || !atomic_load(&srv->output_broken))
		return;
	l->broken = true;
	hermes_log(HERMES_LOG_INFO, "the client is gone: cancelling the work in flight");
	stop_taking_work(srv, 1);
	cancel_all(srv, srv->protocol == HERMES_PROTOCOL_MCP ? HERMES_CANCEL_SILENT : 0);
	srv->stop_reading = true;
}

/* Reads what stdin has and frames it; at its end, finishes the last message. */
static void read_input(server_t *srv, loop_t *l, int in, char *buf, size_t size,
                       const hermes_frame_sink_t *sink)
{
	ssize_t r = buf ? read(in, buf, size) : -1;
	if (r > 0) {
		srv->collecting = true;
		hermes_framer_feed(&srv->framer, buf, (size_t)r, sink);
		srv->collecting = false;
		hermes_requests_flush(srv);
	} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
		if (r < 0)
			hermes_log(HERMES_LOG_ERROR, "reading stdin: %s", strerror(errno));
		hermes_framer_eof(&srv->framer, sink);
		if (srv->protocol == HERMES_PROTOCOL_MCP) {
			/* MCP: the session is over; what may run for long is stopped (unanswered), quick
			 * calls still finish and answer */
			hermes_log(HERMES_LOG_INFO, "end of input: cancelling the long calls in flight");
			stop_taking_work(srv, 0);
			cancel_all(srv, HERMES_CANCEL_SILENT | HERMES_CANCEL_LONG_ONLY);
		} else {
			hermes_log(HERMES_LOG_INFO, "end of input: finishing the work in flight (grace %d s)",
			           srv->opts->grace_seconds);
		}
		l->eof = true;
		if (srv->exit_status < 0)
			srv->exit_status = 0;
	}
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
 * poll() may sleep (-1: until something happens). */
static int grace(server_t *srv, loop_t *l, bool winding, bool idle)
{
	if (!winding || l->grace_over)
		return -1;
	int64_t now = now_ms();
	if (l->grace_end < 0)
		l->grace_end = now + (int64_t)srv->opts->grace_seconds * 1000;
	if (idle)
		return -1;
	if (now < l->grace_end)
		return l->grace_end - now > INT_MAX ? INT_MAX : (int)(l->grace_end - now);
	l->grace_over = true;
	size_t n = hermes_inflight_cancel(srv, NULL, 0, HERMES_CANCEL_URGENT |
	                                  (srv->protocol == HERMES_PROTOCOL_MCP ? HERMES_CANCEL_SILENT : 0));
	if (n)
		hermes_log(HERMES_LOG_WARN, "grace period of %d s over: cancelled %zu request(s) still "
		           "running", srv->opts->grace_seconds, n);
	return -1;
}

/* True once there is nothing to read and nothing in flight; *timeout: how long the loop may
 * wait for something to happen. */
static bool finished(server_t *srv, loop_t *l, int *timeout)
{
	pthread_mutex_lock(&srv->lock);
	bool ending = l->eof || srv->stop_reading || l->graceful;
	bool winding = ending || srv->shutdown;
	if (ending)
		srv->finishing = true;
	bool idle = srv->active_count == 0;
	pthread_mutex_unlock(&srv->lock);
	*timeout = grace(srv, l, winding, idle);
	return ending && idle;
}

/* Is the client holding too much of the server (see state.h)? Once it is, half of each bound must
 * be free again before reading resumes, so that the reader does not wake for every reply. */
static bool over_bounds(server_t *srv, bool waiting)
{
	unsigned shift = waiting ? 1 : 0;
	pthread_mutex_lock(&srv->lock);
	size_t active = srv->active_count;
	pthread_mutex_unlock(&srv->lock);
	return active >= (HERMES_SERVER_MAX_INFLIGHT >> shift) ||
	       atomic_load(&srv->held_bytes) >= (HERMES_SERVER_MAX_HELD_BYTES >> shift) ||
	       hermes_output_queued(srv->out) >= (HERMES_SERVER_MAX_QUEUED_BYTES >> shift);
}

/* Whether to read stdin now: not while the client holds too much. The flag is published before
 * the second look, so a thread making room after the first look sees it and wakes the loop. */
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
		hermes_log(HERMES_LOG_DEBUG, "the client holds too much (requests in flight, or replies "
		           "it has not read): input paused");
		atomic_store(&srv->throttled, true);
		if (!over_bounds(srv, true)) { /* made room meanwhile, maybe without seeing the flag */
			atomic_store(&srv->throttled, false);
			return true;
		}
	}
	return false;
}

/* The reader loop: stdin, the self-pipe, signals, until the session is over. */
static void serve(server_t *srv, int in)
{
	hermes_frame_sink_t sink = {feed_message, feed_error, srv};
	enum { READ_SIZE = 65536 };
	char *buf = malloc(READ_SIZE);
	loop_t l = {.grace_end = -1};
	int timeout;
	while (!finished(srv, &l, &timeout)) {
		bool reading = !l.eof && !srv->stop_reading && room_to_read(srv);
		struct pollfd p[2] = {{srv->wake[0], POLLIN, 0}, {in, POLLIN, 0}};
		if (poll(p, reading ? 2 : 1, timeout) < 0) {
			if (errno == EINTR)
				continue;
			hermes_log(HERMES_LOG_ERROR, "poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents & POLLIN) {
			char drain[64];
			while (read(srv->wake[0], drain, sizeof drain) > 0)
				;
		}
		handle_signals(srv, &l);
		handle_broken_output(srv, &l);
		if (reading && !srv->stop_reading && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			read_input(srv, &l, in, buf, READ_SIZE, &sink);
	}
	free(buf);
}

int hermes_server_run(const hermes_server_options_t *opts)
{
	server_t srv;
	memset(&srv, 0, sizeof srv);
	srv.opts = opts;
	srv.protocol = opts->protocol;
	srv.methods = opts->protocol == HERMES_PROTOCOL_MCP ? hermes_mcp_methods : hermes_methods;
	atomic_init(&srv.mcp_log_level, 99);
	srv.exit_status = -1;
	srv.deferred_tail = &srv.deferred;
	srv.wake[0] = srv.wake[1] = -1;
	hermes_log_set_level(opts->log_level);
#ifdef M_MMAP_THRESHOLD
	/* Big blocks (a file's content, its reply) straight from mmap and back to the system when
	 * freed: glibc would otherwise raise the threshold after the first such free and keep every
	 * worker thread's big blocks in its arena, and the server's memory would not come down. */
	mallopt(M_MMAP_THRESHOLD, 8 << 20);
#endif
	/* (A higher M_TRIM_THRESHOLD made a 10k-entry listDir 20% faster, but let each worker's
	 * arena keep megabytes: 13 to 17 MiB over 2M requests instead of a flat 4.5 MiB.) */


	int in, out;
	if (take_protocol_fds(&srv, &in, &out) != 0)
		return 1;
	pthread_mutex_init(&srv.lock, NULL);
	atomic_init(&srv.output_broken, false);
	atomic_init(&srv.held_bytes, 0);
	atomic_init(&srv.throttled, false);
	hermes_framer_init(&srv.framer, opts->framing, opts->max_message_bytes);
	int jobs = opts->jobs > 0 ? opts->jobs : processor_count();
	srv.pool = hermes_pool_new(jobs, HERMES_SERVER_MAX_LONG);
	srv.out = hermes_output_start(out, on_output_broken, on_output_written, &srv);
	if (srv.pool == NULL || srv.out == NULL) {
		hermes_log(HERMES_LOG_ERROR, "cannot start the worker threads");
		hermes_pool_free(srv.pool);
		if (srv.out)
			hermes_output_finish(srv.out, 1);
		close(srv.wake[0]);
		close(srv.wake[1]);
		close(in);
		close(out);
		pthread_mutex_destroy(&srv.lock);
		return 1;
	}
	saved_signals_t old;
	install_signals(&srv, &old);
	hermes_log_set_hook(hermes_mcp_log, &srv);
	hermes_log(HERMES_LOG_INFO, "serving JSON-RPC on stdin/stdout: %d worker(s), framing %s", jobs,
	           opts->framing == HERMES_FRAMING_NDJSON ? "ndjson"
	           : opts->framing == HERMES_FRAMING_CONTENT_LENGTH ? "content-length" : "auto");

	serve(&srv, in);

	hermes_framer_clear(&srv.framer);
	hermes_pool_free(srv.pool);
	hermes_inflight_shutdown(&srv, NULL); /* shutdown replies still owed, if any */
	hermes_log_set_hook(NULL, NULL);
	bool flushed = hermes_output_finish(srv.out, 30);
	restore_signals(&old);
	close(srv.wake[0]);
	close(srv.wake[1]);
	hermes_executor_free(srv.ex);
	while (srv.retired) {
		retired_t *next = srv.retired->next;
		hermes_executor_free(srv.retired->ex);
		free(srv.retired);
		srv.retired = next;
	}
	free(srv.roots_request);
	free(srv.workspace_error);
	pthread_mutex_destroy(&srv.lock);
	give_back_protocol_fds(&srv, in, out, flushed);
	hermes_log(HERMES_LOG_INFO, "exiting with status %d", srv.exit_status < 0 ? 0 : srv.exit_status);
	return srv.exit_status < 0 ? 0 : srv.exit_status;
}
