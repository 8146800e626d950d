/* server/server.c: `hermes serve`: the session's lifecycle and its reader loop. The calling thread
 * reads stdin and dispatches; workers run verbs; one writer thread writes replies. A self-pipe
 * wakes the reader for signals, a broken output and "all work done". */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/log.h"
#include "server/state.h"

/* proc.run requests running at once (each waits on a child in its own thread); more wait. */
#define HERMES_SERVER_MAX_PROCS 64

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

int hermes_server_run(const hermes_server_options_t *opts)
{
	server_t srv;
	memset(&srv, 0, sizeof srv);
	srv.opts = opts;
	srv.exit_status = -1;
	srv.wake[0] = srv.wake[1] = -1;
	hermes_log_set_level(opts->log_level);

	/* The protocol descriptors move out of the way (close-on-exec, above 2): fd 0 becomes
	 * /dev/null and fd 1 a copy of stderr, so nothing a library or child prints can corrupt the
	 * protocol, and no child can inherit it. */
	int in = fcntl(opts->in_fd, F_DUPFD_CLOEXEC, 3);
	int out = in < 0 ? -1 : fcntl(opts->out_fd, F_DUPFD_CLOEXEC, 3);
	if (in < 0 || out < 0 || pipe2(srv.wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		hermes_log(HERMES_LOG_ERROR, "cannot set up the protocol descriptors: %s", strerror(errno));
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
		return 1;
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

	pthread_mutex_init(&srv.lock, NULL);
	atomic_init(&srv.output_broken, false);
	hermes_framer_init(&srv.framer, opts->framing, opts->max_message_bytes);
	int jobs = opts->jobs > 0 ? opts->jobs : processor_count();
	srv.pool = hermes_pool_new(jobs, HERMES_SERVER_MAX_PROCS);
	srv.out = hermes_output_start(out, on_output_broken, &srv);
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

	struct sigaction sa, old_term, old_int, old_pipe;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART; /* a worker's system call is not cut short; poll() still wakes */
	signals_seen = 0;
	signal_wake_fd = srv.wake[1];
	sa.sa_handler = on_stop_signal;
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	sa.sa_handler = on_sigpipe;
	sigaction(SIGPIPE, &sa, &old_pipe);

	hermes_log(HERMES_LOG_INFO, "serving JSON-RPC on stdin/stdout: %d worker(s), framing %s", jobs,
	           opts->framing == HERMES_FRAMING_NDJSON ? "ndjson"
	           : opts->framing == HERMES_FRAMING_CONTENT_LENGTH ? "content-length" : "auto");

	hermes_frame_sink_t sink = {feed_message, feed_error, &srv};
	enum { READ_SIZE = 65536 };
	char *buf = malloc(READ_SIZE);
	bool eof = false, graceful = false, broken = false;
	int signals_handled = 0;
	for (;;) {
		bool reading = !eof && !srv.stop_reading;
		if (!reading || graceful) {
			pthread_mutex_lock(&srv.lock);
			srv.finishing = true;
			bool idle = srv.active_count == 0;
			pthread_mutex_unlock(&srv.lock);
			if (idle)
				break;
		}
		struct pollfd p[2] = {{srv.wake[0], POLLIN, 0}, {in, POLLIN, 0}};
		if (poll(p, reading ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			hermes_log(HERMES_LOG_ERROR, "poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents & POLLIN) {
			char drain[64];
			while (read(srv.wake[0], drain, sizeof drain) > 0)
				;
		}
		int seen = signals_seen;
		if (seen > signals_handled) {
			if (signals_handled == 0) {
				hermes_log(HERMES_LOG_INFO, "signal received: finishing the work in flight, then exiting "
				           "(a second signal cancels it)");
				pthread_mutex_lock(&srv.lock);
				srv.shutdown = true;
				pthread_mutex_unlock(&srv.lock);
				graceful = true;
				if (srv.exit_status < 0)
					srv.exit_status = 0;
			}
			if (seen >= 2) {
				hermes_dispatch_cancel_all(&srv);
				srv.stop_reading = true;
			}
			signals_handled = seen;
		}
		if (!broken && atomic_load(&srv.output_broken)) {
			broken = true;
			hermes_log(HERMES_LOG_INFO, "the client is gone: cancelling the work in flight");
			pthread_mutex_lock(&srv.lock);
			srv.shutdown = true;
			pthread_mutex_unlock(&srv.lock);
			hermes_dispatch_cancel_all(&srv);
			srv.stop_reading = true;
			if (srv.exit_status < 0)
				srv.exit_status = 1;
		}
		if (reading && !srv.stop_reading && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t r = buf ? read(in, buf, READ_SIZE) : -1;
			if (r > 0) {
				hermes_framer_feed(&srv.framer, buf, (size_t)r, &sink);
			} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
				if (r < 0)
					hermes_log(HERMES_LOG_ERROR, "reading stdin: %s", strerror(errno));
				hermes_log(HERMES_LOG_INFO, "end of input: finishing the work in flight");
				hermes_framer_eof(&srv.framer, &sink);
				eof = true;
				if (srv.exit_status < 0)
					srv.exit_status = 0;
			}
		}
	}

	free(buf);
	hermes_framer_clear(&srv.framer);
	hermes_pool_free(srv.pool);
	hermes_dispatch_check_idle(&srv); /* shutdown replies still owed, if any */
	bool flushed = hermes_output_finish(srv.out, 30);

	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	signal_wake_fd = -1;
	close(srv.wake[0]);
	close(srv.wake[1]);
	hermes_executor_free(srv.ex);
	free(srv.workspace_error);
	pthread_mutex_destroy(&srv.lock);

	if (opts->in_fd == STDIN_FILENO)
		dup2(in, STDIN_FILENO);
	close(in);
	if (flushed) {
		if (opts->out_fd == STDOUT_FILENO)
			dup2(out, STDOUT_FILENO);
		close(out);
	}
	hermes_log(HERMES_LOG_INFO, "exiting with status %d", srv.exit_status < 0 ? 0 : srv.exit_status);
	return srv.exit_status < 0 ? 0 : srv.exit_status;
}
