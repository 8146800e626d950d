/* transport/http/http.c: Streamable HTTP for `hermes mcp --listen` (see http.h): setting up (the
 * token, the socket, the sessions' options, libmicrohttpd), the main loop (signals, wake-ups, the
 * reaping of slow connections and idle sessions), and the stop.
 *
 * Requests of the 2026-07-28 revision (stateless) all go to one shared session; each 2025-era
 * client gets a session of its own from initialize, named by the Mcp-Session-Id header.
 * libmicrohttpd runs a thread per connection, so a request may wait for its reply in its own
 * thread, watching the socket: a client that closes it cancels the request. The other files, one
 * job each, are listed in http_server.h. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rpc/log.h"
#include "transport/http/http_server.h"

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

/* ---- the drop channel: where messages that belong to no request go (nothing is asked of an
 * HTTP client outside a request: no roots/list, no stray logs) --------------------------------- */

static void drop_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	(void)ch, (void)flags;
	hermes_log(HERMES_LOG_DEBUG, "http: a message for no request dropped (%zu bytes)",
	           hermes_reply_length(r));
	hermes_reply_clear(r);
}

static const hermes_channel_ops_t drop_ops = {.send = drop_send};

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char line[512];
	vsnprintf(line, sizeof line, fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	hermes_log(HERMES_LOG_DEBUG, "libmicrohttpd: %s", line);
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
	if (hermes_http_read_credentials(hs, http) != 0) {
		status = 2;
		goto out;
	}
	if (!hermes_mhd_lib_load(err, sizeof err)) {
		fprintf(stderr, "hermes mcp: --listen needs libmicrohttpd: %s\n", err);
		goto out;
	}
	if ((status = hermes_http_listen_on(hs, http->listen, url, sizeof url)) != 0)
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
	if ((hs->modern = hermes_session_new(&hs->sopts, &hs->drop, hermes_http_session_wake, hs)) ==
	    NULL)
		goto out;
	hs->max_conns = http->max_connections > 0 ? (unsigned)http->max_connections : 64;
	/* the acceptor accepts (and stops at the limit); libmicrohttpd serves what it is handed */
	hs->daemon = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
		MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, 0, NULL, NULL,
		hermes_http_access_handler, hs,
		MHD_OPTION_CONNECTION_LIMIT, hs->max_conns + 1,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)hs->timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MAX_HEADER_BYTES,
		MHD_OPTION_URI_LOG_CALLBACK, hermes_http_uri_log, hs,
		MHD_OPTION_NOTIFY_COMPLETED, hermes_http_completed, hs,
		MHD_OPTION_NOTIFY_CONNECTION, hermes_http_notify_connection, hs,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, hs,
		MHD_OPTION_END);
	if (hs->daemon == NULL) {
		fprintf(stderr, "hermes mcp: libmicrohttpd could not start serving %s\n", http->listen);
		goto out;
	}
	if (pthread_create(&hs->acceptor, NULL, hermes_http_accept_loop, hs) != 0) {
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
	        hs->oauth ? "OAuth access tokens required" : hs->tokens ? "bearer token required" : "no token");
	fflush(stderr);

	int handled = 0;
	bool stopping = false;
	for (;;) {
		int timeout_ms = 250;
		if (stopping) {
			int t;
			if (hermes_http_all_finished(hs, &t))
				break;
			if (t >= 0 && t < timeout_ms)
				timeout_ms = t;
		} else {
			hermes_http_tick_sessions(hs, &timeout_ms); /* subscriptions */
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
				hermes_http_stop_accepting(hs);
				hermes_http_for_each_session(hs, hermes_session_wind_down);
				hermes_http_streams_end_all(hs); /* a listen ends with the session's tick */
			} else {
				hermes_http_for_each_session(hs, hermes_session_cancel_all);
			}
		}
		hermes_http_reap_connections(hs);
		hermes_http_reap_sessions(hs);
	}
	status = 0;
out:
	if (hs->stop_efd >= 0) {
		uint64_t one = 1;
		if (write(hs->stop_efd, &one, sizeof one) < 0) {
			/* cannot fail on a fresh eventfd */
		}
	}
	hermes_http_stop_accepting(hs);
	if (hs->daemon)
		MHD_stop_daemon(hs->daemon);
	signal_pipe = -1;
	hermes_http_sessions_free(hs);
	hermes_session_free(hs->modern);
	hermes_budget_free(hs->budget);
	hermes_executor_free(hs->sopts.executor);
	if (hs->listen_fd >= 0)
		close(hs->listen_fd);
	if (hs->unix_path) {
		struct stat st;
		if (lstat(hs->unix_path, &st) == 0 && st.st_dev == hs->unix_dev &&
		    st.st_ino == hs->unix_ino)
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
	hermes_http_credentials_free(hs);
	pthread_mutex_destroy(&hs->lock);
	pthread_mutex_destroy(&hs->modern_feed);
	pthread_cond_destroy(&hs->room);
	free(hs);
	return status;
}
