/* bench/http_client.c: a small HTTP/1.1 load client for bench/compare's HTTP rows: C keep-alive connections
 * (one thread each) send the same request over and over for a while and count the answers.
 *
 *   http_client HOST PORT CONNECTIONS SECONDS METHOD PATH [BODY [HEADER...]]
 *
 * Prints "requests=N seconds=S rate=R rtt_us=U" (rtt: the mean time of one request on one
 * connection). Every response must be 200 or 202; anything else stops it with status 1. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *host;
static int port;
static double seconds;
static char *request;
static size_t request_len;
static atomic_long done_requests;
static atomic_int failed;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Reads one response (headers and a Content-Length body) from fd, keeping what follows in buf.
 * Returns its status, or -1. */
static int read_response(int fd, char *buf, size_t cap, size_t *have)
{
	for (;;) {
		char *end = *have ? memmem(buf, *have, "\r\n\r\n", 4) : NULL;
		if (end) {
			size_t head = (size_t)(end - buf) + 4;
			int status = atoi(buf + 9);
			long body = 0;
			for (char *p = buf; p < end; p++)
				if ((p == buf || p[-1] == '\n') && strncasecmp(p, "Content-Length:", 15) == 0)
					body = strtol(p + 15, NULL, 10);
			while (*have < head + (size_t)body) {
				if (head + (size_t)body > cap)
					return -1;
				ssize_t r = read(fd, buf + *have, cap - *have);
				if (r <= 0)
					return -1;
				*have += (size_t)r;
			}
			memmove(buf, buf + head + body, *have - head - (size_t)body);
			*have -= head + (size_t)body;
			return status;
		}
		if (*have == cap)
			return -1;
		ssize_t r = read(fd, buf + *have, cap - *have);
		if (r <= 0)
			return -1;
		*have += (size_t)r;
	}
}

static void *worker(void *arg)
{
	(void)arg;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	inet_pton(AF_INET, host, &sa.sin_addr);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		perror("connect");
		atomic_store(&failed, 1);
		return NULL;
	}
	static __thread char buf[1 << 20];
	size_t have = 0;
	double end = now() + seconds;
	long n = 0;
	while (now() < end && !atomic_load(&failed)) {
		if (write(fd, request, request_len) != (ssize_t)request_len) {
			atomic_store(&failed, 1);
			break;
		}
		int status = read_response(fd, buf, sizeof buf, &have);
		if (status != 200 && status != 202) {
			fprintf(stderr, "http_client: status %d\n", status);
			atomic_store(&failed, 1);
			break;
		}
		n++;
	}
	atomic_fetch_add(&done_requests, n);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 7) {
		fprintf(stderr, "usage: http_client HOST PORT CONNECTIONS SECONDS METHOD PATH [BODY [HEADER...]]\n");
		return 2;
	}
	host = argv[1];
	port = atoi(argv[2]);
	int conns = atoi(argv[3]);
	seconds = atof(argv[4]);
	const char *body = argc > 7 ? argv[7] : "";
	size_t cap = 4096 + strlen(body);
	for (int i = 8; i < argc; i++)
		cap += strlen(argv[i]) + 2;
	request = malloc(cap);
	int n = snprintf(request, cap, "%s %s HTTP/1.1\r\nHost: %s\r\n", argv[5], argv[6], host);
	for (int i = 8; i < argc; i++)
		n += snprintf(request + n, cap - (size_t)n, "%s\r\n", argv[i]);
	if (*body)
		n += snprintf(request + n, cap - (size_t)n, "Content-Type: application/json\r\n"
		              "Content-Length: %zu\r\n", strlen(body));
	n += snprintf(request + n, cap - (size_t)n, "\r\n%s", body);
	request_len = (size_t)n;
	pthread_t *t = calloc((size_t)conns, sizeof *t);
	double t0 = now();
	for (int i = 0; i < conns; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < conns; i++)
		pthread_join(t[i], NULL);
	double took = now() - t0;
	long total = atomic_load(&done_requests);
	printf("requests=%ld seconds=%.2f rate=%.0f rtt_us=%.1f\n", total, took, total / took,
	       total ? took * 1e6 * conns / (double)total : 0.0);
	return atomic_load(&failed) ? 1 : 0;
}
