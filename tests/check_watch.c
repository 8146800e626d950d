/* tests/check_watch.c: the watch mechanism (fs/watch.h, fs/watches.h) without a front door: events
 * and their merging, rename pairing, re-reading from a cursor, overflow when the ring is full,
 * the kernel's queue overflowing (IN_Q_OVERFLOW: reported, and the directories made or moved
 * meanwhile watched after it), a waiting read ended by its stop callback and by close, and the
 * table's handles and bound. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs/watch.h"
#include "fs/watches.h"
#include "fs/workspace.h"
#include "check_run.h"

static char dir[64];
static hermes_ws_t *ws;

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/hermes-check-watch.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	hermes_error_t err;
	ck_assert_int_eq(hermes_ws_open(dir, &ws, &err), 0);
}

static void teardown(void)
{
	hermes_ws_free(ws);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void put(const char *rel, const char *text)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	FILE *f = fopen(p, "a");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static hermes_watch_t *start(int keep)
{
	hermes_watch_opts_t o = {.recursive = true, .respect_ignore = true, .keep = keep};
	hermes_watch_t *w = NULL;
	ck_assert_int_eq(hermes_watch_new(ws, ".", &o, &w), 0);
	return w;
}

START_TEST(events_merged_and_paired)
{
	hermes_watch_t *w = start(100);
	put("a", "1");
	for (int i = 0; i < 20; i++)
		put("a", "more");
	char from[256], to[256];
	snprintf(from, sizeof from, "%s/a", dir);
	snprintf(to, sizeof to, "%s/b", dir);
	ck_assert_int_eq(rename(from, to), 0);
	hermes_watch_batch_t b;
	ck_assert_int_eq(hermes_watch_read(w, 0, 100, 0, NULL, NULL, &b), 0);
	ck_assert_uint_eq(b.count, 2);
	ck_assert_int_eq(b.events[0].kind, HERMES_WATCH_CREATED);
	ck_assert_str_eq(b.events[0].path, "a");
	ck_assert_int_eq(b.events[1].kind, HERMES_WATCH_MOVED);
	ck_assert_str_eq(b.events[1].path, "b");
	ck_assert_str_eq(b.events[1].old_path, "a");
	ck_assert(!b.overflow && !b.more);
	int64_t next = b.next;
	hermes_watch_batch_clear(&b);
	/* Handed out: a later write is an event of its own, and re-reading gives the same two. */
	put("b", "x");
	ck_assert_int_eq(hermes_watch_read(w, 0, 100, 0, NULL, NULL, &b), 0);
	ck_assert_uint_eq(b.count, 3);
	ck_assert_int_eq(b.events[2].kind, HERMES_WATCH_MODIFIED);
	hermes_watch_batch_clear(&b);
	ck_assert_int_eq(hermes_watch_read(w, next + 5, 100, 0, NULL, NULL, &b), -EINVAL);
	hermes_watch_free(w);
}
END_TEST

START_TEST(overflow_when_full)
{
	hermes_watch_t *w = start(16);
	for (int i = 0; i < 40; i++) {
		char n[16];
		snprintf(n, sizeof n, "f%02d", i);
		put(n, "x");
	}
	hermes_watch_batch_t b;
	ck_assert_int_eq(hermes_watch_read(w, 0, 1000, 0, NULL, NULL, &b), 0);
	ck_assert(b.overflow);
	ck_assert_uint_le(b.count, 16);
	ck_assert_str_eq(b.events[b.count - 1].path, "f39");
	hermes_watch_batch_clear(&b);
	/* From where that read stopped: nothing lost since. */
	put("g", "x");
	ck_assert_int_eq(hermes_watch_read(w, -1, 1000, 0, NULL, NULL, &b), 0);
	ck_assert(!b.overflow);
	ck_assert_uint_eq(b.count, 1);
	hermes_watch_batch_clear(&b);
	hermes_watch_free(w);
}
END_TEST

/* fs.inotify.max_queued_events: the kernel's queue per inotify instance. */
static long kernel_queue(void)
{
	long n = 0;
	FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

static bool has_event(const hermes_watch_batch_t *b, const char *path)
{
	for (size_t i = 0; i < b->count; i++)
		if (strcmp(b->events[i].path, path) == 0)
			return true;
	return false;
}

/* More events than the kernel queues while nobody reads (each new file is a create and a
 * close-write; the ring keeps all of them): the read says overflow, so the reader knows to
 * rescan. Directories made and moved while events were being lost are watched after it: changes
 * in them are reported, not silently lost. */
START_TEST(kernel_queue_overflow)
{
	long q = kernel_queue();
	if (q <= 0 || q > 200000) {
		printf("SKIP (part): fs.inotify.max_queued_events is %ld: no overflow made\n", q);
		return;
	}
	char p[256], p2[256];
	snprintf(p, sizeof p, "%s/old", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	hermes_watch_t *w = start((int)q * 3);
	int files = (int)q / 2 + 500;
	for (int i = 0; i < files; i++) {
		char n[32];
		snprintf(n, sizeof n, "f%06d", i);
		put(n, "");
	}
	/* the queue is full now: these are lost from it */
	snprintf(p, sizeof p, "%s/late", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/late/deeper", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/old", dir);
	snprintf(p2, sizeof p2, "%s/late/moved", dir);
	ck_assert_int_eq(rename(p, p2), 0);
	hermes_watch_batch_t b;
	bool overflow = false;
	int64_t cursor = 0;
	size_t seen = 0;
	do {
		ck_assert_int_eq(hermes_watch_read(w, cursor, 100000, 0, NULL, NULL, &b), 0);
		overflow |= b.overflow;
		seen += b.count;
		cursor = b.next;
		bool more = b.more;
		hermes_watch_batch_clear(&b);
		if (!more)
			break;
	} while (1);
	ck_assert_msg(overflow, "%d files made with a kernel queue of %ld: no overflow (%zu events)",
	              files, q, seen);
	ck_assert_uint_lt(seen, (size_t)files); /* what the kernel kept, merged per file */
	/* after the overflow: changes in the directories that came meanwhile are reported */
	put("late/a", "x");
	put("late/deeper/b", "x");
	put("late/moved/c", "x");
	ck_assert_int_eq(hermes_watch_read(w, cursor, 1000, 2000, NULL, NULL, &b), 0);
	hermes_watch_batch_clear(&b);
	usleep(100000);
	ck_assert_int_eq(hermes_watch_read(w, cursor, 1000, 0, NULL, NULL, &b), 0);
	ck_assert(!b.overflow);
	ck_assert_msg(has_event(&b, "late/a"), "late/a not reported");
	ck_assert_msg(has_event(&b, "late/deeper/b"), "late/deeper/b not reported");
	ck_assert_msg(has_event(&b, "late/moved/c"), "late/moved/c not reported (as moved, not old/c)");
	ck_assert(!has_event(&b, "old/c"));
	hermes_watch_batch_clear(&b);
	hermes_watch_free(w);
}
END_TEST

static int stops;
static bool stop_third(void *ctx)
{
	(void)ctx;
	return ++stops >= 3;
}

START_TEST(waiting_read_stops)
{
	hermes_watch_t *w = start(100);
	hermes_watch_batch_t b;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(hermes_watch_read(w, -1, 10, 30000, stop_third, NULL, &b),
	                 HERMES_WS_ECANCELLED);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 2);
	/* No change: the wait ends at its time with none. */
	ck_assert_int_eq(hermes_watch_read(w, -1, 10, 100, NULL, NULL, &b), 0);
	ck_assert_uint_eq(b.count, 0);
	hermes_watch_batch_clear(&b);
	hermes_watch_close(w);
	ck_assert_int_eq(hermes_watch_read(w, -1, 10, 1000, NULL, NULL, &b), -ESHUTDOWN);
	hermes_watch_free(w);
}
END_TEST

START_TEST(ignored_and_new_directories)
{
	put(".gitignore", "skip/\n");
	hermes_watch_t *w = start(1000);
	char p[256];
	snprintf(p, sizeof p, "%s/skip", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	put("skip/x", "x");
	snprintf(p, sizeof p, "%s/keep", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	put("keep/y", "y");
	put(".hidden", "h");
	hermes_watch_batch_t b;
	ck_assert_int_eq(hermes_watch_read(w, 0, 100, 0, NULL, NULL, &b), 0);
	ck_assert_uint_eq(b.count, 2);
	ck_assert_str_eq(b.events[0].path, "keep");
	ck_assert(b.events[0].is_dir);
	ck_assert_str_eq(b.events[1].path, "keep/y");
	hermes_watch_batch_clear(&b);
	hermes_watch_free(w);
	hermes_watch_opts_t o = {.recursive = true, .keep = 10};
	ck_assert_int_eq(hermes_watch_new(ws, "../", &o, &w), HERMES_WS_EOUTSIDE);
	ck_assert_int_eq(hermes_watch_new(ws, ".hidden", &o, &w), -ENOTDIR);
}
END_TEST

START_TEST(table_handles)
{
	hermes_watches_t *t = hermes_watches_new(2, "unit-1");
	char id1[HERMES_WATCH_ID_MAX], id2[HERMES_WATCH_ID_MAX], id3[HERMES_WATCH_ID_MAX];
	hermes_watch_t *w1 = start(10), *w2 = start(10), *w3 = start(10);
	ck_assert_int_eq(hermes_watches_add(t, w1, id1), 0);
	ck_assert_int_eq(hermes_watches_add(t, w2, id2), 0);
	ck_assert_int_eq(hermes_watches_add(t, w3, id3), -EAGAIN);
	ck_assert_str_ne(id1, id2);
	hermes_watch_ref_t *r = hermes_watches_find(t, id1);
	ck_assert_ptr_eq(hermes_watch_ref_get(r), w1);
	ck_assert_int_eq(hermes_watches_remove(t, id1), 0); /* still referenced: stays valid */
	hermes_watch_batch_t b;
	ck_assert_int_eq(hermes_watch_read(w1, -1, 10, 0, NULL, NULL, &b), -ESHUTDOWN);
	hermes_watches_release(t, r);
	ck_assert_ptr_null(hermes_watches_find(t, id1));
	ck_assert_int_eq(hermes_watches_remove(t, id1), -ENOENT);
	ck_assert_int_eq(hermes_watches_add(t, w3, id3), 0);
	hermes_watches_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("watch");
	TCase *tc = tcase_create("watch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, events_merged_and_paired);
	tcase_add_test(tc, overflow_when_full);
	tcase_add_test(tc, kernel_queue_overflow);
	tcase_add_test(tc, waiting_read_stops);
	tcase_add_test(tc, ignored_and_new_directories);
	tcase_add_test(tc, table_handles);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
