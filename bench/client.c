/* bench/client.c: the load generator of bench/compare. It drives a JSON-RPC server over raw pipes
 * (`hermes serve`, or an MCP server after its initialize handshake) or runs a command afresh many
 * times, and prints medians with its own CPU time, so each figure shows the client kept up.
 *
 *   client serve [OPTION]... -- SERVER_ARGV...     requests through the server's stdin/stdout
 *   client spawn [OPTION]... -- ARGV...            ARGV run COUNT times per run, stdout drained
 *
 * Both modes:  --runs R (timed runs, the median is reported)   --count N (requests or runs of
 *   ARGV per timed run)   --warmup N (untimed, before the first run)   --expect TEXT (every reply,
 *   or the last 64 KiB of every output, must contain TEXT)   --warm FILE (read FILE to the end
 *   before every run, so every side starts on the same hot page cache)   --unlink PATH (removed
 *   before every run and at the end)   --sync (sync(2) before every run: no side pays for the
 *   previous one's write-back)
 * serve only:  --proto hermes|mcp|echo (echo: no handshake, and each request line comes back as
 *   its own reply, as `cat` does: the floor a pipe round trip sets)   --framing ndjson|content-length (how the server was told to frame
 *   its messages; default ndjson, the only one of MCP's stdio)   --request METHOD PARAMS_JSON
 *   (repeatable, sent round robin;
 *   for mcp, METHOD is the tool's name and PARAMS_JSON its arguments)   --inflight K (requests
 *   outstanding at once; 1 = strict request/response, each round trip timed)   --rss-samples M
 *   (the server's VmRSS read M times along each run)   --server-stderr FILE   --perf-control
 *   CTL_FIFO,ACK_FIFO (the server runs under `perf stat -D -1 --control fifo:CTL,ACK`: its
 *   counters are enabled for the timed runs only, not the start, warm-up or exit)
 * spawn only:  --stdin FILE (every run's standard input; /dev/null otherwise)
 *
 * Output: one line of key=value pairs on stdout (print_serve, print_spawn). Exit status 1 if a
 * reply was an error or unexpected, or a command failed; 2 on bad usage or a broken setup. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_REQUESTS 16
#define MAX_RUNS 1000
#define CAPTURE_BYTES 65536

struct request {
	const char *method, *params;
};

struct options {
	bool serve, mcp, echo, clen, sync;
	long runs, count, warmup, inflight, rss_samples;
	const char *expect, *warm, *unlink_path, *server_stderr, *stdin_path, *perf_control;
	struct request req[MAX_REQUESTS];
	int nreq;
	char **argv;
};

static void die(const char *what)
{
	fprintf(stderr, "client: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_secs(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* this process's own CPU time (user + system), to show the client is not what limits a figure */
static double self_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return tv_secs(ru.ru_utime) + tv_secs(ru.ru_stime);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* median of v[0..n) (v is reordered); 0 for n == 0 */
static double median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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

/* the server's CPU time so far (all its threads), from /proc/PID/stat fields utime and stime */
static double proc_cpu(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* after ") " come field 3 (state) onwards; utime and stime are fields 14 and 15 */
	unsigned long long ut = 0, st = 0;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* read FILE to the end and drop the bytes: the page cache holds it afterwards */
static void warm_file(const char *path)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	while (read(fd, buf, sizeof buf) > 0)
		;
	close(fd);
}

/* "enable" or "disable" perf stat's counters, and wait for its "ack" */
static void perf_command(const struct options *o, const char *cmd)
{
	static int ctl = -1, ack = -1;
	if (!o->perf_control)
		return;
	if (ctl < 0) {
		/* O_RDWR: opening a FIFO so never blocks on Linux, whether perf has opened it yet or not */
		char path[4096];
		snprintf(path, sizeof path, "%s", o->perf_control);
		char *comma = strchr(path, ',');
		if (!comma) {
			fprintf(stderr, "client: --perf-control wants CTL_FIFO,ACK_FIFO\n");
			exit(2);
		}
		*comma = '\0';
		if ((ctl = open(path, O_RDWR | O_CLOEXEC)) < 0 || (ack = open(comma + 1, O_RDWR | O_CLOEXEC)) < 0)
			die(path);
	}
	if (write(ctl, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		die("write to perf's control FIFO");
	char buf[64];
	size_t got = 0;
	while (got < 4) {
		ssize_t r = read(ack, buf + got, sizeof buf - got);
		if (r <= 0)
			die("read perf's ack");
		got += (size_t)r;
	}
}

static void prepare_run(const struct options *o)
{
	if (o->unlink_path && unlink(o->unlink_path) != 0 && errno != ENOENT)
		die(o->unlink_path);
	if (o->sync)
		sync();
	if (o->warm)
		warm_file(o->warm);
}

/* ---- serve: a JSON-RPC session over pipes --------------------------------------------------- */

struct session {
	pid_t pid;
	int wfd, rfd;
	bool mcp, echo, clen; /* clen: Content-Length framing, else one message per line */
	char *rbuf;
	size_t rlen, rcap, pos, scan; /* unread bytes are rbuf[pos..rlen); no '\n' in [pos..scan) */
	long next_id;
};

static void start_server(struct session *s, const struct options *o)
{
	int to_srv[2], from_srv[2];
	if (pipe2(to_srv, O_CLOEXEC) || pipe2(from_srv, O_CLOEXEC))
		die("pipe");
	s->pid = fork();
	if (s->pid < 0)
		die("fork");
	if (s->pid == 0) {
		dup2(to_srv[0], 0);
		dup2(from_srv[1], 1);
		if (o->server_stderr) {
			int e = open(o->server_stderr, O_WRONLY | O_CREAT | O_APPEND, 0644);
			if (e >= 0)
				dup2(e, 2);
		}
		execvp(o->argv[0], o->argv);
		fprintf(stderr, "client: cannot run %s: %s\n", o->argv[0], strerror(errno));
		_exit(127);
	}
	close(to_srv[0]);
	close(from_srv[1]);
	s->wfd = to_srv[1];
	s->rfd = from_srv[0];
	s->mcp = o->mcp;
	s->echo = o->echo;
	s->clen = o->clen;
	s->rcap = 1 << 20;
	s->rbuf = xrealloc(NULL, s->rcap);
	s->rlen = s->pos = s->scan = 0;
	s->next_id = 1;
}

static void set_blocking(int fd, bool blocking)
{
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, blocking ? fl & ~O_NONBLOCK : fl | O_NONBLOCK);
}

/* one read(2) into the buffer; false at end of input (the server is gone) */
static bool fill(struct session *s)
{
	if (s->pos > 0 && s->pos == s->rlen)
		s->rlen = s->pos = s->scan = 0;
	if (s->rcap - s->rlen < (1 << 16)) {
		if (s->pos > 0) { /* keep only the partial message */
			memmove(s->rbuf, s->rbuf + s->pos, s->rlen - s->pos);
			s->rlen -= s->pos;
			s->scan -= s->pos;
			s->pos = 0;
		}
		if (s->rcap - s->rlen < (1 << 16)) {
			s->rcap *= 2;
			s->rbuf = xrealloc(s->rbuf, s->rcap);
		}
	}
	ssize_t r = read(s->rfd, s->rbuf + s->rlen, s->rcap - s->rlen);
	if (r == 0)
		return false;
	if (r < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return true;
		die("read from the server");
	}
	s->rlen += (size_t)r;
	return true;
}

/* the next whole message, if the buffer holds one; with NDJSON, each byte is searched for '\n' once */
static bool next_message(struct session *s, char **body, size_t *len)
{
	if (s->clen) {
		char *hdr = s->rbuf + s->pos, *end = memmem(hdr, s->rlen - s->pos, "\r\n\r\n", 4);
		if (!end)
			return false;
		if (strncasecmp(hdr, "Content-Length:", 15) != 0) {
			fprintf(stderr, "client: a reply without Content-Length: %.100s\n", hdr);
			exit(1);
		}
		size_t n = strtoul(hdr + 15, NULL, 10), start = (size_t)(end + 4 - s->rbuf);
		if (s->rlen - start < n)
			return false;
		*body = end + 4;
		*len = n;
		s->pos = start + n;
		return true;
	}
	if (s->scan < s->pos)
		s->scan = s->pos;
	char *nl = memchr(s->rbuf + s->scan, '\n', s->rlen - s->scan);
	if (!nl) {
		s->scan = s->rlen;
		return false;
	}
	*body = s->rbuf + s->pos;
	*len = (size_t)(nl - *body);
	s->pos = s->scan = (size_t)(nl - s->rbuf) + 1;
	return true;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			die("write to the server");
		}
		p += w;
		n -= (size_t)w;
	}
}

/* KEY (e.g. "\"id\":") as an object member in msg[from..to): preceded by '{' or ','. A string value
 * holding the same characters has them escaped (\"id\":), so it never matches. */
static const char *find_key(const char *msg, size_t from, size_t to, const char *key)
{
	size_t kl = strlen(key);
	const char *p = msg + from, *end = msg + to;
	while (p < end && (p = memmem(p, (size_t)(end - p), key, kl)) != NULL) {
		if (p > msg && (p[-1] == '{' || p[-1] == ','))
			return p;
		p++;
	}
	return NULL;
}

/* KEY in the last TAIL bytes, else the first HEAD bytes, else anywhere: replies are long only when
 * a result is long, and the members a client looks for sit at one end (Hermes writes the id first
 * and succeeded last; the MCP SDK writes the id last) */
static const char *find_member(const char *msg, size_t n, const char *key)
{
	size_t tail = n > 256 ? n - 256 : 0, head = n < 128 ? n : 128;
	const char *p = find_key(msg, tail, n, key);
	if (!p)
		p = find_key(msg, 0, head, key);
	if (!p && n > 384)
		p = find_key(msg, head, tail, key);
	return p;
}

/* BODY framed as the session wants it, into buf; returns the length */
static int frame(const struct session *s, char *buf, size_t cap, const char *body, int blen)
{
	int n = s->clen ? snprintf(buf, cap, "Content-Length: %d\r\n\r\n%s", blen, body)
	                : snprintf(buf, cap, "%s\n", body);
	if (n < 0 || (size_t)n >= cap) {
		fprintf(stderr, "client: a request longer than %zu bytes\n", cap);
		exit(2);
	}
	return n;
}

static int format_request(const struct session *s, char *buf, size_t cap, long id, const struct request *r)
{
	char body[4096];
	int n = s->mcp ? snprintf(body, sizeof body,
	                          "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\","
	                          "\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
	                          id, r->method, r->params)
	               : snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\",\"params\":%s}",
	                          id, r->method, r->params);
	if (n < 0 || (size_t)n >= sizeof body) {
		fprintf(stderr, "client: a request longer than %zu bytes\n", sizeof body);
		exit(2);
	}
	return frame(s, buf, cap, body, n);
}

/* wait for the reply to request ID (the handshake, before any load) */
static void await_reply(struct session *s, long id)
{
	set_blocking(s->rfd, true);
	for (;;) {
		char *body;
		size_t len;
		while (next_message(s, &body, &len)) {
			const char *p = find_member(body, len, "\"id\":");
			if (p && atol(p + 5) == id) {
				if (!find_member(body, len, "\"result\":")) {
					fprintf(stderr, "client: handshake failed: %.300s\n", body);
					exit(2);
				}
				return;
			}
		}
		if (!fill(s)) {
			fprintf(stderr, "client: the server closed its output during the handshake\n");
			exit(2);
		}
	}
}

static void handshake(struct session *s)
{
	char body[512], buf[600];
	long id = s->next_id++;
	int n = snprintf(body, sizeof body,
	                 "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"initialize\",\"params\":{"
	                 "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
	                 "\"clientInfo\":{\"name\":\"hermes-bench\",\"version\":\"1\"}}}",
	                 id);
	write_all(s->wfd, buf, (size_t)frame(s, buf, sizeof buf, body, n));
	await_reply(s, id);
	if (s->mcp) {
		static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
		write_all(s->wfd, buf, (size_t)frame(s, buf, sizeof buf, note, (int)sizeof note - 1));
	}
}

struct run_stats {
	long failures;
	double *rtt; /* per request, when in flight == 1 */
	long nrtt;
	long *rss;   /* VmRSS samples */
	long nrss;
};

/* true if the reply is a success (and holds the expected text) */
static bool reply_ok(const struct session *s, const char *body, size_t len, const char *expect)
{
	if (s->echo) /* the request itself, back */
		return !expect || memmem(body, len, expect, strlen(expect)) != NULL;
	if (!find_member(body, len, "\"result\":"))
		return false;
	if (s->mcp ? find_member(body, len, "\"isError\":true") != NULL
	           : find_member(body, len, "\"succeeded\":true") == NULL)
		return false;
	return !expect || memmem(body, len, expect, strlen(expect)) != NULL;
}

static void check_reply(struct session *s, const struct options *o, char *body, size_t len, long base,
                        long count, char *seen, struct run_stats *st)
{
	const char *p = find_member(body, len, "\"id\":");
	if (!p) {
		if (find_member(body, len, "\"method\":")) /* a notification from the server */
			return;
		fprintf(stderr, "client: a reply without an id: %.200s\n", body);
		exit(1);
	}
	long n = atol(p + 5) - base;
	if (n < 0 || n >= count || seen[n]) {
		fprintf(stderr, "client: unexpected reply %.200s\n", body);
		exit(1);
	}
	seen[n] = 1;
	if (!reply_ok(s, body, len, o->expect) && st->failures++ == 0)
		fprintf(stderr, "client: unexpected reply: %.*s\n", (int)(len < 400 ? len : 400), body);
}

/* the K-th of o->rss_samples readings of the server's VmRSS, evenly spread over the run */
static void sample_rss(const struct session *s, const struct options *o, struct run_stats *st,
                       long received, long count, long *k)
{
	while (st->rss && *k < o->rss_samples && received >= (*k + 1) * count / o->rss_samples) {
		st->rss[st->nrss++] = status_kib(s->pid, "VmRSS:");
		++*k;
	}
}

/* COUNT requests, at most o->inflight outstanding, every reply matched to its request */
static void run_requests(struct session *s, const struct options *o, long count, struct run_stats *st)
{
	long base = s->next_id, sent = 0, received = 0, k = 0;
	char *seen = calloc((size_t)count, 1);
	if (!seen)
		die("out of memory");
	char *body;
	size_t len;
	char one[4096];

	if (o->inflight == 1) {
		/* strict request/response on blocking pipes: one write and (usually) one read each */
		set_blocking(s->rfd, true);
		while (received < count) {
			const struct request *r = &o->req[sent % o->nreq];
			int n = format_request(s, one, sizeof one, s->next_id++, r);
			double t0 = now();
			write_all(s->wfd, one, (size_t)n);
			sent++;
			while (!next_message(s, &body, &len))
				if (!fill(s)) {
					fprintf(stderr, "client: the server closed its output\n");
					exit(1);
				}
			if (st->rtt)
				st->rtt[st->nrtt++] = now() - t0;
			check_reply(s, o, body, len, base, count, seen, st);
			received++;
			sample_rss(s, o, st, received, count, &k);
		}
		free(seen);
		return;
	}

	set_blocking(s->rfd, false);
	set_blocking(s->wfd, false);
	static char wbuf[1 << 16];
	size_t wlen = 0, woff = 0;
	while (received < count) {
		if (woff == wlen) {
			wlen = woff = 0;
			while (sent < count && sent - received < o->inflight && wlen < sizeof wbuf - sizeof one) {
				int n = format_request(s, wbuf + wlen, sizeof wbuf - wlen, s->next_id++,
				                       &o->req[sent % o->nreq]);
				wlen += (size_t)n;
				sent++;
			}
		}
		struct pollfd p[2] = {{s->rfd, POLLIN, 0}, {s->wfd, POLLOUT, 0}};
		nfds_t np = woff < wlen ? 2 : 1;
		if (poll(p, np, 60000) <= 0) {
			fprintf(stderr, "client: stalled (sent %ld, received %ld)\n", sent, received);
			exit(1);
		}
		if (np == 2 && (p[1].revents & (POLLOUT | POLLERR))) {
			ssize_t w = write(s->wfd, wbuf + woff, wlen - woff);
			if (w < 0 && errno != EAGAIN && errno != EINTR)
				die("write to the server");
			if (w > 0)
				woff += (size_t)w;
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (!fill(s)) {
				fprintf(stderr, "client: the server closed its output (received %ld)\n", received);
				exit(1);
			}
			while (next_message(s, &body, &len)) {
				check_reply(s, o, body, len, base, count, seen, st);
				received++;
				sample_rss(s, o, st, received, count, &k);
			}
		}
	}
	set_blocking(s->wfd, true);
	free(seen);
}

/* close the server's input and wait for it to leave (SIGTERM after 10 s, SIGKILL after 20 s) */
static int stop_server(struct session *s)
{
	close(s->wfd);
	set_blocking(s->rfd, false);
	double t0 = now();
	int st = 0, sig = 0;
	for (;;) {
		pid_t w = waitpid(s->pid, &st, WNOHANG);
		if (w == s->pid)
			break;
		char junk[65536];
		while (read(s->rfd, junk, sizeof junk) > 0)
			;
		struct pollfd p = {s->rfd, POLLIN, 0};
		poll(&p, 1, 50);
		if (now() - t0 > 10 && sig == 0)
			kill(s->pid, sig = SIGTERM);
		else if (now() - t0 > 20 && sig == SIGTERM)
			kill(s->pid, sig = SIGKILL);
	}
	close(s->rfd);
	free(s->rbuf);
	/* an MCP server that only stops on a signal is not a failure of the benchmark */
	return sig == 0 && WIFEXITED(st) ? WEXITSTATUS(st) : (s->mcp && sig == SIGTERM ? 0 : -1);
}

static void print_list(const char *key, const double *v, long n, double scale)
{
	printf(" %s=", key);
	for (long i = 0; i < n; i++)
		printf("%s%.6g", i ? "," : "", v[i] * scale);
}

static int do_serve(const struct options *o)
{
	struct session s;
	start_server(&s, o);
	if (!o->echo)
		handshake(&s);

	struct run_stats st = {0};
	if (o->warmup > 0) {
		prepare_run(o);
		run_requests(&s, o, o->warmup, &st);
	}
	st.failures = 0;

	double per[MAX_RUNS], rtt_med[MAX_RUNS], wall = 0, client = 0, server = 0;
	if (o->inflight == 1)
		st.rtt = xrealloc(NULL, sizeof *st.rtt * (size_t)o->count);
	if (o->rss_samples > 0)
		st.rss = xrealloc(NULL, sizeof *st.rss * (size_t)o->rss_samples * (size_t)o->runs);
	for (long r = 0; r < o->runs; r++) {
		prepare_run(o);
		st.nrtt = 0;
		perf_command(o, "enable\n");
		double c0 = self_cpu(), s0 = proc_cpu(s.pid), t0 = now();
		run_requests(&s, o, o->count, &st);
		double t = now() - t0;
		perf_command(o, "disable\n");
		client += self_cpu() - c0;
		server += proc_cpu(s.pid) - s0;
		wall += t;
		per[r] = t / (double)o->count;
		rtt_med[r] = median(st.rtt, (size_t)st.nrtt);
	}
	long rss = status_kib(s.pid, "VmRSS:"), hwm = status_kib(s.pid, "VmHWM:");
	long requests = s.next_id - (o->echo ? 1 : 2); /* ids start at 1; the handshake took one */
	int status = stop_server(&s);
	if (o->unlink_path)
		unlink(o->unlink_path);

	double per_copy[MAX_RUNS];
	memcpy(per_copy, per, sizeof per[0] * (size_t)o->runs);
	double per_med = median(per_copy, (size_t)o->runs);
	long rss_min = -1, rss_max = -1;
	for (long i = 0; i < st.nrss; i++) {
		if (rss_min < 0 || st.rss[i] < rss_min)
			rss_min = st.rss[i];
		if (st.rss[i] > rss_max)
			rss_max = st.rss[i];
	}
	printf("mode=serve runs=%ld count=%ld inflight=%ld per_s=%.9g rate=%.6g", o->runs, o->count,
	       o->inflight, per_med, per_med > 0 ? 1 / per_med : 0);
	if (o->inflight == 1)
		printf(" rtt_us=%.6g", median(rtt_med, (size_t)o->runs) * 1e6);
	printf(" wall_s=%.6g client_cpu_s=%.6g client_cpu_pct=%.3g server_cpu_s=%.6g server_cpu_pct=%.3g",
	       wall, client, 100 * client / wall, server, 100 * server / wall);
	printf(" rss_kib=%ld hwm_kib=%ld requests=%ld failures=%ld exit=%d", rss, hwm, requests, st.failures,
	       status);
	if (st.nrss > 0) {
		printf(" rss_min_kib=%ld rss_max_kib=%ld rss_samples=", rss_min, rss_max);
		for (long i = 0; i < st.nrss; i++)
			printf("%s%ld", i ? "," : "", st.rss[i]);
	}
	print_list("runs_s", per, o->runs, (double)o->count);
	printf("\n");
	free(st.rtt);
	free(st.rss);
	return st.failures > 0 || status != 0;
}

/* ---- spawn: a command run afresh, its output drained through a pipe ---------------------------- */

static int do_spawn(const struct options *o)
{
	static char buf[1 << 16];
	char *capture = xrealloc(NULL, CAPTURE_BYTES + 1);
	double per[MAX_RUNS], wall = 0, client = 0, child = 0;
	long maxrss = 0, invocations = 0, failures = 0, bytes = 0;

	for (long r = -1; r < o->runs; r++) {
		long n = r < 0 ? o->warmup : o->count; /* r == -1: the warm-up */
		if (n == 0)
			continue;
		prepare_run(o);
		double c0 = self_cpu(), t0 = now();
		for (long i = 0; i < n; i++) {
			int out[2];
			if (pipe2(out, O_CLOEXEC))
				die("pipe");
			posix_spawn_file_actions_t fa;
			posix_spawn_file_actions_init(&fa);
			posix_spawn_file_actions_addopen(&fa, 0, o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY,
			                                 0);
			posix_spawn_file_actions_adddup2(&fa, out[1], 1);
			pid_t pid;
			int e = posix_spawnp(&pid, o->argv[0], &fa, NULL, o->argv, environ);
			posix_spawn_file_actions_destroy(&fa);
			close(out[1]);
			if (e != 0) {
				errno = e;
				die(o->argv[0]);
			}
			size_t got = 0;
			ssize_t k;
			while ((k = read(out[0], buf, sizeof buf)) != 0) {
				if (k < 0) {
					if (errno == EINTR)
						continue;
					die("read");
				}
				/* keep the last CAPTURE_BYTES: what a command prints last is what --expect names */
				size_t c = (size_t)k < CAPTURE_BYTES ? (size_t)k : CAPTURE_BYTES;
				if (got + c > CAPTURE_BYTES) {
					size_t keep = CAPTURE_BYTES - c;
					memmove(capture, capture + got - keep, keep);
					got = keep;
				}
				memcpy(capture + got, buf + (size_t)k - c, c);
				got += c;
				if (r >= 0 && i == 0)
					bytes += k;
			}
			close(out[0]);
			capture[got] = '\0';
			int status;
			struct rusage ru;
			if (wait4(pid, &status, 0, &ru) != pid)
				die("wait4");
			bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
			          (!o->expect || memmem(capture, got, o->expect, strlen(o->expect)));
			if (!ok && failures++ == 0)
				fprintf(stderr, "client: %s: exit status %d, output: %.300s\n", o->argv[0],
				        WIFEXITED(status) ? WEXITSTATUS(status) : -1, capture);
			if (r >= 0) {
				child += tv_secs(ru.ru_utime) + tv_secs(ru.ru_stime);
				if (ru.ru_maxrss > maxrss)
					maxrss = ru.ru_maxrss;
				invocations++;
			}
		}
		if (r < 0)
			continue;
		double t = now() - t0;
		client += self_cpu() - c0;
		wall += t;
		per[r] = t / (double)n;
	}
	if (o->unlink_path)
		unlink(o->unlink_path);
	double per_copy[MAX_RUNS];
	memcpy(per_copy, per, sizeof per[0] * (size_t)o->runs);
	double per_med = median(per_copy, (size_t)o->runs);
	printf("mode=spawn runs=%ld count=%ld per_s=%.9g rate=%.6g wall_s=%.6g client_cpu_s=%.6g "
	       "client_cpu_pct=%.3g child_cpu_s=%.6g maxrss_kib=%ld output_bytes=%ld failures=%ld",
	       o->runs, o->count, per_med, per_med > 0 ? 1 / per_med : 0, wall, client, 100 * client / wall,
	       child / (double)invocations, maxrss, bytes / o->runs, failures);
	print_list("runs_s", per, o->runs, (double)o->count);
	printf("\n");
	free(capture);
	return failures > 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: client serve|spawn [OPTION]... -- ARGV... (see bench/client.c)\n");
	exit(2);
}

static long number(const char *opt, const char *v, long min)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || *end || end == v || n < min) {
		fprintf(stderr, "client: %s wants an integer >= %ld, not '%s'\n", opt, min, v);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	struct options o = {.runs = 5, .count = 1, .inflight = 1};
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "serve") == 0)
		o.serve = true;
	else if (strcmp(argv[1], "spawn") != 0)
		usage();
	int i = 2;
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--sync") == 0) {
			o.sync = true;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (strcmp(a, "--runs") == 0)
			o.runs = number(a, v, 1);
		else if (strcmp(a, "--count") == 0)
			o.count = number(a, v, 1);
		else if (strcmp(a, "--warmup") == 0)
			o.warmup = number(a, v, 0);
		else if (strcmp(a, "--inflight") == 0)
			o.inflight = number(a, v, 1);
		else if (strcmp(a, "--rss-samples") == 0)
			o.rss_samples = number(a, v, 0);
		else if (strcmp(a, "--expect") == 0)
			o.expect = v;
		else if (strcmp(a, "--warm") == 0)
			o.warm = v;
		else if (strcmp(a, "--unlink") == 0)
			o.unlink_path = v;
		else if (strcmp(a, "--server-stderr") == 0)
			o.server_stderr = v;
		else if (strcmp(a, "--perf-control") == 0)
			o.perf_control = v;
		else if (strcmp(a, "--stdin") == 0)
			o.stdin_path = v;
		else if (strcmp(a, "--proto") == 0) {
			if (strcmp(v, "mcp") != 0 && strcmp(v, "hermes") != 0 && strcmp(v, "echo") != 0)
				usage();
			o.mcp = strcmp(v, "mcp") == 0;
			o.echo = strcmp(v, "echo") == 0;
		} else if (strcmp(a, "--framing") == 0) {
			if (strcmp(v, "ndjson") != 0 && strcmp(v, "content-length") != 0)
				usage();
			o.clen = strcmp(v, "content-length") == 0;
		} else if (strcmp(a, "--request") == 0) {
			if (i + 1 >= argc || o.nreq == MAX_REQUESTS)
				usage();
			o.req[o.nreq].method = v;
			o.req[o.nreq++].params = argv[++i];
		} else
			usage();
	}
	if (i + 1 >= argc || o.runs > MAX_RUNS || (o.serve && o.nreq == 0))
		usage();
	o.argv = argv + i + 1;
	signal(SIGPIPE, SIG_IGN);
	return o.serve ? do_serve(&o) : do_spawn(&o);
}
