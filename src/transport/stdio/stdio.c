/* transport/stdio/stdio.c: the stdio transport of `hermes serve` and `hermes mcp`
 * (hermes_server_run): the protocol descriptors, signals, and the reader loop that frames stdin
 * into messages for the session (session.h), whose replies come back through the one channel, to
 * the writer thread (output.c). A self-pipe wakes the loop for signals, a broken output, room made
 * and "all work done". */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/stdio/framing.h"
#include "rpc/log.h"
#include "transport/stdio/output.h"
#include "session/session.h"

/* The transport's state; its channel is the session's only one. */
typedef struct stdio_transport {
	hermes_channel_t channel;        /* first: the channel callbacks get back to the transport */
	const hermes_server_options_t *opts;
	hermes_framer_t framer;
	hermes_output_t *out;
	hermes_session_t *session;
	int wake[2];                     /* self-pipe: signals, output trouble, room, work all done */
	atomic_bool output_broken;
	int signals_handled;
	char *buf;                       /* the last read from stdin; READ_SIZE bytes */
	size_t pend_off, pend_len;       /* what of it is still to be framed (the session had no
	                                    room for more after a message) */
} stdio_t;

enum { READ_SIZE = 65536 };

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

/* The session's wake hook, and the writer's (any thread; async-signal-safe). */
static void wake_loop(void *ctx)
{
	stdio_t *t = ctx;
	ssize_t w = write(t->wake[1], "w", 1);
	(void)w; /* EAGAIN: the pipe is full of wake-ups already */
}

static void on_output_written(void *ctx)
{
	stdio_t *t = ctx;
	if (t->session)
		hermes_session_room(t->session);
}

static void on_output_broken(void *ctx)
{
	stdio_t *t = ctx;
	atomic_store(&t->output_broken, true);
	wake_loop(t);
}

/* ---- the channel: replies framed as the input was, through the writer ---------------------- */

static void channel_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	stdio_t *t = (stdio_t *)ch;
	unsigned how = (flags & HERMES_SEND_ALONE ? HERMES_OUTPUT_WRITE_THROUGH : 0) |
	               (flags & HERMES_SEND_GATHER ? HERMES_OUTPUT_GATHER : 0);
	hermes_output_send(t->out, t->framer.mode, r, how);
}

static void channel_flush(hermes_channel_t *ch)
{
	hermes_output_flush_here(((stdio_t *)ch)->out);
}

static size_t channel_queued(hermes_channel_t *ch)
{
	return hermes_output_queued(((stdio_t *)ch)->out);
}

static bool channel_wait_room(hermes_channel_t *ch, size_t max, int timeout_ms)
{
	return hermes_output_wait_room(((stdio_t *)ch)->out, max, timeout_ms);
}

static const char *channel_framing(hermes_channel_t *ch)
{
	return ((stdio_t *)ch)->framer.mode == HERMES_FRAMING_NDJSON ? "ndjson" : "content-length";
}

static const hermes_channel_ops_t channel_ops = {
	.send = channel_send,
	.flush = channel_flush,
	.queued = channel_queued,
	.wait_room = channel_wait_room,
	.framing = channel_framing,
};

/* ---- the framer's sink: messages to the session ------------------------------------------- */

static void feed_message(void *ctx, char *body, size_t len)
{
	stdio_t *t = ctx;
	hermes_session_message(t->session, &t->channel, body, len);
	/* the bounds are looked at after every message: a read holds up to a thousand small ones */
	if (!hermes_session_may_read(t->session))
		hermes_framer_pause(&t->framer);
}

static void feed_error(void *ctx, int code, const char *message)
{
	stdio_t *t = ctx;
	hermes_session_frame_error(t->session, &t->channel, code, message);
}

/* The protocol descriptors move out of the way (close-on-exec, above 2): fd 0 becomes /dev/null
 * and fd 1 a copy of stderr, so nothing a library or child prints can corrupt the protocol, and
 * no child can inherit it. 0, or -1 (logged). */
static int take_protocol_fds(stdio_t *t, int *in, int *out)
{
	const hermes_server_options_t *opts = t->opts;
	*in = fcntl(opts->in_fd, F_DUPFD_CLOEXEC, 3);
	*out = *in < 0 ? -1 : fcntl(opts->out_fd, F_DUPFD_CLOEXEC, 3);
	if (*in < 0 || *out < 0 || pipe2(t->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
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
static void give_back_protocol_fds(stdio_t *t, int in, int out, bool flushed)
{
	if (t->opts->in_fd == STDIN_FILENO)
		dup2(in, STDIN_FILENO);
	close(in);
	if (flushed) {
		if (t->opts->out_fd == STDOUT_FILENO)
			dup2(out, STDOUT_FILENO);
		close(out);
	}
}

typedef struct saved_signals {
	struct sigaction term, intr, pipe;
} saved_signals_t;

static void install_signals(stdio_t *t, saved_signals_t *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART; /* a worker's system call is not cut short; poll() still wakes */
	signals_seen = 0;
	signal_wake_fd = t->wake[1];
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

/* A first SIGTERM/SIGINT finishes the work in flight; a second cancels it. */
static void handle_signals(stdio_t *t)
{
	int seen = signals_seen;
	if (seen <= t->signals_handled)
		return;
	if (t->signals_handled == 0) {
		hermes_log(HERMES_LOG_INFO, "signal received: finishing the work in flight (grace %d s), "
		           "then exiting (a second signal cancels it)", t->opts->grace_seconds);
		hermes_session_wind_down(t->session);
	}
	if (seen >= 2)
		hermes_session_cancel_all(t->session);
	t->signals_handled = seen;
}

/* Frames what is left of the last read, or reads what stdin has and frames it, until the
 * session has no room for more; at the end of input, finishes the last message. */
static void read_input(stdio_t *t, int in, const hermes_frame_sink_t *sink)
{
	if (t->pend_len == 0) {
		ssize_t r = t->buf ? read(in, t->buf, READ_SIZE) : -1;
		if (r < 0 && t->buf && (errno == EINTR || errno == EAGAIN))
			return;
		if (r <= 0) {
			if (r < 0)
				hermes_log(HERMES_LOG_ERROR, "reading stdin: %s",
				           t->buf ? strerror(errno) : "no memory for a buffer");
			hermes_framer_eof(&t->framer, sink);
			hermes_session_eof(t->session);
			return;
		}
		t->pend_off = 0;
		t->pend_len = (size_t)r;
	}
	hermes_session_read_begin(t->session);
	size_t used = hermes_framer_feed(&t->framer, t->buf + t->pend_off, t->pend_len, sink);
	t->pend_off += used;
	t->pend_len -= used;
	hermes_session_read_end(t->session);
}

/* The reader loop: stdin, the self-pipe, signals, until the session is over. */
static void serve(stdio_t *t, int in)
{
	hermes_session_t *s = t->session;
	hermes_frame_sink_t sink = {feed_message, feed_error, t};
	t->buf = malloc(READ_SIZE);
	int timeout;
	while (!hermes_session_finished(s, &timeout)) {
		bool reading = hermes_session_may_read(s);
		bool pending = reading && t->pend_len > 0; /* framed without waiting for stdin */
		struct pollfd p[2] = {{t->wake[0], POLLIN, 0}, {in, POLLIN, 0}};
		if (poll(p, reading && !pending ? 2 : 1, pending ? 0 : timeout) < 0) {
			if (errno == EINTR)
				continue;
			hermes_log(HERMES_LOG_ERROR, "poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents & POLLIN) {
			char drain[64];
			while (read(t->wake[0], drain, sizeof drain) > 0)
				;
		}
		handle_signals(t);
		if (atomic_load(&t->output_broken)) /* the client closed its end of our output */
			hermes_session_client_gone(s);
		if (reading && hermes_session_open(s) &&
		    (pending || (p[1].revents & (POLLIN | POLLHUP | POLLERR))))
			read_input(t, in, &sink);
	}
	free(t->buf);
	t->buf = NULL;
}

int hermes_server_run(const hermes_server_options_t *opts)
{
	stdio_t t;
	memset(&t, 0, sizeof t);
	t.channel.ops = &channel_ops;
	t.opts = opts;
	t.wake[0] = t.wake[1] = -1;
	atomic_init(&t.output_broken, false);
	hermes_log_set_level(opts->log_level);

	int in, out;
	if (take_protocol_fds(&t, &in, &out) != 0)
		return 1;
	hermes_framer_init(&t.framer, opts->framing, opts->max_message_bytes);
	hermes_session_options_t so = {
		.config = opts->config,
		.root_given = opts->root_given,
		.protocol = opts->protocol,
		.jobs = opts->jobs,
		.grace_seconds = opts->grace_seconds,
	};
	t.out = hermes_output_start(out, on_output_broken, on_output_written, &t);
	if (t.out == NULL)
		hermes_log(HERMES_LOG_ERROR, "cannot start the writer thread");
	else
		t.session = hermes_session_new(&so, &t.channel, wake_loop, &t);
	if (t.session == NULL) {
		if (t.out)
			hermes_output_finish(t.out, 1);
		close(t.wake[0]);
		close(t.wake[1]);
		close(in);
		close(out);
		return 1;
	}
	saved_signals_t old;
	install_signals(&t, &old);
	hermes_log(HERMES_LOG_INFO, "serving JSON-RPC on stdin/stdout, framing %s",
	           opts->framing == HERMES_FRAMING_NDJSON ? "ndjson"
	           : opts->framing == HERMES_FRAMING_CONTENT_LENGTH ? "content-length" : "auto");

	serve(&t, in);

	hermes_framer_clear(&t.framer);
	hermes_session_end(t.session); /* sends the shutdown replies still owed */
	/* the writer calls the session back (room made) until it is finished */
	bool flushed = hermes_output_finish(t.out, 30);
	int status = hermes_session_exit_status(t.session);
	hermes_session_free(t.session);
	restore_signals(&old);
	close(t.wake[0]);
	close(t.wake[1]);
	give_back_protocol_fds(&t, in, out, flushed);
	hermes_log(HERMES_LOG_INFO, "exiting with status %d", status);
	return status;
}
