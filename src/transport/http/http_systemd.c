/* transport/http/http_systemd.c: `hermes mcp --listen=systemd`, the listening socket handed over
 * by systemd socket activation (sd_listen_fds(3)'s protocol: LISTEN_PID, LISTEN_FDS, fds from 3),
 * checked by hand with fstat and getsockopt so that Hermes needs no libsystemd. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport/http/http_check.h"
#include "transport/http/http_server.h"

#define SD_LISTEN_FDS_START 3

/* A decimal of 1 to INT_MAX with nothing after it: the value, or -1. */
static long parse_count(const char *s)
{
	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	char *end;
	long v = strtol(s, &end, 10);
	return errno == 0 && *end == '\0' && v <= INT_MAX ? v : -1;
}

/* 0 when fd is a listening stream socket, else -1 with why in why. */
static int check_socket(int fd, char *why, size_t why_len)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(why, why_len, "descriptor %d is not open: %s", fd, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(why, why_len, "descriptor %d is not a socket", fd);
		return -1;
	}
	int type = 0, accepting = 0;
	socklen_t l = sizeof type;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) != 0 || type != SOCK_STREAM) {
		snprintf(why, why_len, "descriptor %d is not a stream socket (Accept=no, ListenStream= "
		         "in the .socket unit)", fd);
		return -1;
	}
	l = sizeof accepting;
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &l) != 0 || !accepting) {
		snprintf(why, why_len, "descriptor %d is a connection, not a listening socket (the "
		         ".socket unit must say Accept=no)", fd);
		return -1;
	}
	return 0;
}

int hermes_http_listen_systemd(http_server_t *hs, char *url, size_t url_len)
{
	const char *pid_s = getenv("LISTEN_PID"), *fds_s = getenv("LISTEN_FDS");
	long pid = parse_count(pid_s), n = parse_count(fds_s);
	char why[256];
	if (fds_s == NULL || pid_s == NULL) {
		fprintf(stderr, "hermes mcp: --listen=systemd: no socket was passed (LISTEN_FDS or "
		        "LISTEN_PID is not set: start it from a .socket unit, or with "
		        "systemd-socket-activate)\n");
		return 2;
	}
	if (pid <= 0 || pid != (long)getpid()) {
		fprintf(stderr, "hermes mcp: --listen=systemd: LISTEN_PID is '%s', not this process "
		        "(%ld): the sockets were meant for another\n", pid_s, (long)getpid());
		return 2;
	}
	long most = sysconf(_SC_OPEN_MAX);
	if (n < 1 || (most > 0 && n > most - SD_LISTEN_FDS_START)) {
		fprintf(stderr, "hermes mcp: --listen=systemd: LISTEN_FDS is '%s', not a count of 1 or "
		        "more sockets (at most %ld, the open files limit less 3)\n", fds_s,
		        most > 0 ? most - SD_LISTEN_FDS_START : (long)INT_MAX);
		return 2;
	}
	/* children (proc.run, language servers) must not see them as theirs */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	int fd = -1;
	for (long i = 0; i < n; i++) {
		int f = SD_LISTEN_FDS_START + (int)i;
		int flags = fcntl(f, F_GETFD);
		if (flags >= 0)
			fcntl(f, F_SETFD, flags | FD_CLOEXEC);
		/* the first one's reason is the one said */
		char other[256];
		if (fd < 0 && check_socket(f, i == 0 ? why : other, i == 0 ? sizeof why : sizeof other) == 0)
			fd = f;
	}
	if (fd < 0) {
		if (n > 1)
			snprintf(why + strlen(why), sizeof why - strlen(why),
			         ", nor are the other %ld passed", n - 1);
		fprintf(stderr, "hermes mcp: --listen=systemd: no listening stream socket among the "
		        "%ld passed: %s\n", n, why);
		return 2;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) {
		fprintf(stderr, "hermes mcp: --listen=systemd: descriptor %d: %s\n", fd, strerror(errno));
		return 2;
	}
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	memset(&ss, 0, sizeof ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
		fprintf(stderr, "hermes mcp: --listen=systemd: descriptor %d: %s\n", fd, strerror(errno));
		return 2;
	}
	if (ss.ss_family == AF_UNIX) {
		const struct sockaddr_un *sun = (const struct sockaddr_un *)&ss;
		size_t plen = sl > offsetof(struct sockaddr_un, sun_path)
		                  ? sl - offsetof(struct sockaddr_un, sun_path) : 0;
		if (plen > 0 && sun->sun_path[0] == '\0') /* abstract: shown as @name */
			snprintf(url, url_len, "http://localhost" ENDPOINT " on unix:@%.*s (from systemd)",
			         (int)plen - 1, sun->sun_path + 1);
		else
			snprintf(url, url_len, "http://localhost" ENDPOINT " on unix:%.*s (from systemd)",
			         (int)strnlen(sun->sun_path, plen), sun->sun_path);
		/* systemd owns the path: it is not unlinked at the end (hs->unix_path stays NULL) */
	} else if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6) {
		if (!hermes_http_loopback((struct sockaddr *)&ss) && !hs->tokens && !hs->oauth) {
			fprintf(stderr, "hermes mcp: --listen=systemd: the socket is not on a loopback "
			        "address: give bearer tokens with --auth-token-file or --oauth-issuer\n");
			return 2;
		}
		char num[INET6_ADDRSTRLEN], port[16];
		if (getnameinfo((struct sockaddr *)&ss, sl, num, sizeof num, port, sizeof port,
		                NI_NUMERICHOST | NI_NUMERICSERV) != 0)
			snprintf(num, sizeof num, "?"), snprintf(port, sizeof port, "?");
		snprintf(url, url_len, ss.ss_family == AF_INET6 ? "http://[%s]:%s" ENDPOINT " (from systemd)"
		                                               : "http://%s:%s" ENDPOINT " (from systemd)",
		         num, port);
	} else {
		fprintf(stderr, "hermes mcp: --listen=systemd: descriptor %d is neither a TCP nor a Unix "
		        "socket (address family %d)\n", fd, ss.ss_family);
		return 2;
	}
	hs->listen_fd = fd;
	return 0;
}
