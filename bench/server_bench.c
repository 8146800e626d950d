/* bench/server_bench.c: drives `hermes serve` through a pipe with many requests in flight and
 * reports requests per second and the server's memory (VmRSS along the way, VmHWM at the end).
 *
 *   server_bench HERMES ROOT FRAMING METHOD PARAMS_JSON COUNT IN_FLIGHT [JOBS]
 *
 * Every reply is matched to its id; a reply that is an error, or a result with
 * "succeeded":false, counts as a failure (and makes the exit status 1). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long status_kib(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long v = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, field, strlen(field)) == 0)
			v = atol(line + strlen(field));
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 8) {
		fprintf(stderr, "usage: %s HERMES ROOT FRAMING METHOD PARAMS_JSON COUNT IN_FLIGHT [JOBS]\n", argv[0]);
		return 2;
	}
	const char *hermes = argv[1], *root = argv[2], *framing = argv[3], *method = argv[4];
	const char *params = argv[5];
	long count = atol(argv[6]), inflight_max = atol(argv[7]);
	const char *jobs = argc > 8 ? argv[8] : NULL;
	bool ndjson = strcmp(framing, "ndjson") == 0;

	int to_srv[2], from_srv[2];
	if (pipe2(to_srv, O_CLOEXEC) || pipe2(from_srv, O_CLOEXEC))
		return perror("pipe"), 2;
	signal(SIGPIPE, SIG_IGN);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(to_srv[0], 0);
		dup2(from_srv[1], 1);
		char fr[64];
		snprintf(fr, sizeof fr, "--framing=%s", framing);
		if (jobs)
			execl(hermes, hermes, "serve", "--root", root, fr, "--jobs", jobs, (char *)NULL);
		else
			execl(hermes, hermes, "serve", "--root", root, fr, (char *)NULL);
		_exit(127);
	}
	close(to_srv[0]);
	close(from_srv[1]);
	int wfd = to_srv[1], rfd = from_srv[0];
	fcntl(wfd, F_SETFL, O_NONBLOCK);
	fcntl(rfd, F_SETFL, O_NONBLOCK);

	char *seen = calloc((size_t)count, 1);
	size_t rcap = 1 << 20, rlen = 0;
	char *rbuf = malloc(rcap);
	char wbuf[65536];
	size_t wlen = 0, woff = 0;
	long sent = 0, received = 0, failures = 0, inflight = 0;
	long rss_marks[4] = {-1, -1, -1, -1};
	double t0 = now();

	while (received < count) {
		/* refill the write buffer while below the in-flight limit */
		while (woff == wlen && sent < count && inflight < inflight_max) {
			wlen = woff = 0;
			while (sent < count && inflight < inflight_max && wlen < sizeof wbuf - 4096) {
				char body[2048];
				int n = snprintf(body, sizeof body,
				                 "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\",\"params\":%s}",
				                 sent, method, params);
				if (ndjson)
					wlen += (size_t)sprintf(wbuf + wlen, "%s\n", body);
				else
					wlen += (size_t)sprintf(wbuf + wlen, "Content-Length: %d\r\n\r\n%s", n, body);
				sent++;
				inflight++;
			}
		}
		struct pollfd p[2] = {{rfd, POLLIN, 0}, {wfd, POLLOUT, 0}};
		int np = woff < wlen ? 2 : 1;
		if (poll(p, (nfds_t)np, 30000) <= 0) {
			fprintf(stderr, "server_bench: stalled (sent %ld, received %ld)\n", sent, received);
			kill(pid, SIGKILL);
			return 1;
		}
		if (np == 2 && (p[1].revents & POLLOUT)) {
			ssize_t w = write(wfd, wbuf + woff, wlen - woff);
			if (w > 0)
				woff += (size_t)w;
		}
		if (p[0].revents & (POLLIN | POLLHUP)) {
			if (rcap - rlen < 65536) {
				rcap *= 2;
				rbuf = realloc(rbuf, rcap);
			}
			ssize_t r = read(rfd, rbuf + rlen, rcap - rlen - 1);
			if (r == 0) {
				fprintf(stderr, "server_bench: the server closed its output (received %ld)\n", received);
				return 1;
			}
			if (r > 0)
				rlen += (size_t)r;
			rbuf[rlen] = '\0';
			size_t pos = 0;
			for (;;) {
				char *body;
				size_t blen;
				if (ndjson) {
					char *nl = memchr(rbuf + pos, '\n', rlen - pos);
					if (!nl)
						break;
					body = rbuf + pos;
					blen = (size_t)(nl - body);
					pos += blen + 1;
				} else {
					char *hdr = rbuf + pos;
					char *end = memmem(hdr, rlen - pos, "\r\n\r\n", 4);
					if (!end)
						break;
					blen = (size_t)atol(hdr + 16);
					if ((size_t)(end + 4 - rbuf) + blen > rlen)
						break;
					body = end + 4;
					pos = (size_t)(body - rbuf) + blen;
				}
				char *id = memmem(body, blen, "\"id\":", 5);
				long n = id ? atol(id + 5) : -1;
				if (n < 0 || n >= count || seen[n]) {
					fprintf(stderr, "server_bench: unexpected reply %.200s\n", body);
					return 1;
				}
				seen[n] = 1;
				if (memmem(body, blen, "\"error\":", 8) || memmem(body, blen, "\"succeeded\":false", 17)) {
					if (failures++ == 0)
						fprintf(stderr, "server_bench: failed: %.*s\n", (int)(blen < 300 ? blen : 300), body);
				}
				received++;
				inflight--;
				for (int q = 0; q < 4; q++)
					if (rss_marks[q] < 0 && received >= (q + 1) * count / 4 - 1)
						rss_marks[q] = status_kib(pid, "VmRSS:");
			}
			memmove(rbuf, rbuf + pos, rlen - pos);
			rlen -= pos;
		}
	}
	double secs = now() - t0;
	long hwm = status_kib(pid, "VmHWM:");
	close(wfd);
	int st = 0;
	waitpid(pid, &st, 0);
	printf("%-14s %-14s %9ld requests  %5ld in flight  %8.3f s  %9.0f req/s  "
	       "server RSS at 25/50/75/100%%: %ld/%ld/%ld/%ld KiB  peak %ld KiB  failures %ld  exit %d\n",
	       method, framing, count, inflight_max, secs, (double)count / secs, rss_marks[0], rss_marks[1],
	       rss_marks[2], rss_marks[3], hwm, failures, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	free(seen);
	free(rbuf);
	return failures || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}
