/* tests/check_fdio.c: the write and read loops of core/fdio.h on pipes: whole writes through a
 * slow reader, the deadline of a timed write to a reader that takes nothing, a reader gone, and a
 * bounded whole read. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/fdio.h"
#include "check_run.h"

#define BIG (1024 * 1024) /* far more than a pipe holds (64 KiB by default) */

typedef struct {
	int fd;
	size_t got;
	bool same;
} drain_t;

/* Reads fd to its end in small bites, a little at a time, checking the pattern. */
static void *drain(void *arg)
{
	drain_t *d = arg;
	char buf[4096];
	ssize_t n;
	d->same = true;
	while ((n = read(d->fd, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			d->same &= buf[i] == (char)((d->got + (size_t)i) % 251);
		d->got += (size_t)n;
		if (d->got % (64 * 1024) < sizeof buf) {
			struct timespec ms = {0, 1000000};
			nanosleep(&ms, NULL);
		}
	}
	return NULL;
}

static char *pattern(void)
{
	char *b = malloc(BIG);
	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < BIG; i++)
		b[i] = (char)(i % 251);
	return b;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

START_TEST(timed_write_whole)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
	char *b = pattern();
	drain_t d = {p[0], 0, false};
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, drain, &d), 0);
	size_t written = 7;
	ck_assert_int_eq(hermes_write_all_timed(p[1], b, BIG, 5000, &written), 0);
	ck_assert_uint_eq(written, BIG);
	close(p[1]);
	pthread_join(t, NULL);
	ck_assert_uint_eq(d.got, BIG);
	ck_assert(d.same);
	close(p[0]);
	free(b);
}
END_TEST

START_TEST(timed_write_deadline)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
	char *b = pattern();
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t written = 0;
	/* nobody reads: what fits in the pipe goes, then the wait for room ends the write */
	ck_assert_int_eq(hermes_write_all_timed(p[1], b, BIG, 100, &written), -ETIMEDOUT);
	double ms = ms_since(&t0);
	ck_assert(written > 0 && written < BIG);
	ck_assert_msg(ms >= 90 && ms < 3000, "the write gave up after %.0f ms (deadline 100)", ms);
	/* what went is exactly what the pipe holds */
	char *back = malloc(BIG);
	ssize_t n = read(p[0], back, BIG);
	ck_assert_int_eq(n, (ssize_t)written);
	ck_assert_int_eq(memcmp(back, b, written), 0);
	close(p[0]);
	close(p[1]);
	free(back);
	free(b);
}
END_TEST

START_TEST(timed_write_reader_gone)
{
	signal(SIGPIPE, SIG_IGN);
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
	close(p[0]);
	size_t written = 3;
	ck_assert_int_eq(hermes_write_all_timed(p[1], "abc", 3, 1000, &written), -EPIPE);
	ck_assert_uint_eq(written, 0);
	ck_assert_int_eq(hermes_write_all_timed(p[1], "", 0, 1000, &written), 0);
	ck_assert_uint_eq(written, 0);
	close(p[1]);
	ck_assert_int_eq(hermes_write_all_timed(p[1], "abc", 3, 1000, &written), -EBADF);
}
END_TEST

START_TEST(write_and_read_whole)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_eq(hermes_write_all(p[1], "hello, pipe", 11), 0);
	close(p[1]);
	hermes_buf_t out = HERMES_BUF_INIT;
	ck_assert_int_eq(hermes_read_all(p[0], 5, &out), -EFBIG);
	ck_assert_uint_eq(out.len, 6); /* at most limit + 1 bytes read */
	hermes_buf_free(&out);
	close(p[0]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fdio");
	TCase *tc = tcase_create("writes");
	tcase_add_test(tc, timed_write_whole);
	tcase_add_test(tc, timed_write_deadline);
	tcase_add_test(tc, timed_write_reader_gone);
	tcase_add_test(tc, write_and_read_whole);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
