/* transport/http/http_listen.c: the listening socket and the connections (see http_server.h):
 * binding HOST:PORT or unix:PATH or taking systemd's socket (a token required off loopback), accepting while fewer than
 * --max-connections are open (libmicrohttpd serves what it is handed), the table of open
 * connections, and shutting a connection whose request takes longer than --http-timeout. */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "rpc/log.h"
#include "transport/http/http_check.h"
#include "transport/http/http_server.h"

/* Binds and listens on spec; prints where. 0, or 2 with why said. */
int hermes_http_listen_on(http_server_t *hs, const char *spec, char *url, size_t url_len)
{
	if (strcmp(spec, "systemd") == 0)
		return hermes_http_listen_systemd(hs, url, url_len);
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
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
			/* a socket left by an earlier server is replaced; one a server answers on is not */
			int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			int r = probe >= 0 ? connect(probe, (struct sockaddr *)&sun, sizeof sun) : -1;
			int e = errno;
			if (probe >= 0)
				close(probe);
			if (r == 0 || e == EAGAIN || e == EINPROGRESS) { /* EAGAIN: its queue is full */
				fprintf(stderr, "hermes mcp: cannot listen on %s: the socket is in use (a server "
				        "answers on it)\n", spec);
				return 2;
			}
			if (e != ECONNREFUSED) {
				fprintf(stderr, "hermes mcp: cannot listen on %s: cannot tell whether the socket "
				        "there is in use: %s\n", spec, strerror(e));
				return 2;
			}
			unlink(path);
		}
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0 || listen(fd, 128) != 0 ||
		    lstat(path, &st) != 0) {
			fprintf(stderr, "hermes mcp: cannot listen on %s: %s\n", spec, strerror(errno));
			if (fd >= 0)
				close(fd);
			return 2;
		}
		hs->listen_fd = fd;
		hs->unix_path = strdup(path);
		hs->unix_dev = st.st_dev;
		hs->unix_ino = st.st_ino;
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
	if (!hermes_http_loopback(ai->ai_addr) && !hs->tokens && !hs->oauth) {
		fprintf(stderr, "hermes mcp: --listen '%s' is not a loopback address: give bearer tokens "
		        "with --auth-token-file or --oauth-issuer (or listen on 127.0.0.1 or a Unix socket behind a proxy)\n",
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

void hermes_http_notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode code)
{
	http_server_t *hs = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		conn_t *k = calloc(1, sizeof *k);
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (k == NULL)
			return;
		k->fd = ci ? ci->connect_fd : -1;
		/* its first request is arriving from now on: its line, headers and body must all be
		 * in within the timeout (libmicrohttpd's own timeout only bounds the silences) */
		hermes_http_now(&k->reading_since);
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
void *hermes_http_accept_loop(void *arg)
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
		hs->n_conns++; /* counted hermes_http_now, released by notify_connection's close */
		pthread_mutex_unlock(&hs->lock);
		if (MHD_add_connection(hs->daemon, fd, (struct sockaddr *)&ss, sl) != MHD_YES) {
			/* libmicrohttpd closed it and notified nothing */
			pthread_mutex_lock(&hs->lock);
			hs->n_conns--;
			pthread_mutex_unlock(&hs->lock);
		}
	}
}

/* Shuts the connections whose request has been arriving longer than the timeout, its request
 * line included (a slow client must not hold a slot), and those of SSE streams whose client took
 * nothing of what it was given for as long (it must not hold the budget: see http_sse.c). */
void hermes_http_reap_connections(http_server_t *hs)
{
	int64_t t_ms = hermes_http_ms();
	pthread_mutex_lock(&hs->lock);
	for (conn_t *k = hs->conns; k; k = k->next) {
		if (k->reading_since.tv_sec && hermes_http_since(&k->reading_since) > hs->timeout &&
		    k->fd >= 0) {
			hermes_log(HERMES_LOG_INFO, "http: %s took over %d s to arrive: connection closed",
			           k->req ? "a request" : "no whole request line", hs->timeout);
			shutdown(k->fd, SHUT_RDWR);
			k->reading_since.tv_sec = 0;
		}
		hreq_t *q = k->req; /* alive while it is the connection's (completed() takes it off) */
		if (q && k->fd >= 0 && atomic_load(&q->streaming) && !atomic_load(&q->idle) &&
		    t_ms - atomic_load(&q->taken_at) > (int64_t)hs->timeout * 1000) {
			hermes_log(HERMES_LOG_INFO, "http: the client of request %s read nothing of its "
			           "stream for %d s: connection closed", q->id_text ? q->id_text : "?",
			           hs->timeout);
			atomic_store(&q->streaming, false);
			shutdown(k->fd, SHUT_RDWR);
		}
	}
	pthread_mutex_unlock(&hs->lock);
}

/* No new connections: the acceptor ends, and the listening socket is closed (clients see the
 * server gone); the connections open go on. */
void hermes_http_stop_accepting(http_server_t *hs)
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
