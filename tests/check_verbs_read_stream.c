/* tests/check_verbs_read_stream.c: fs.readFile where the result is written out as it is encoded
 * (hermes exec's sink), which streams a big file from the file: checked whole in a first pass,
 * then read again as it is written, each chunk compared with the first pass's. The JSON must be
 * byte for byte the JSON built whole; a file that is not text fails with none of its content
 * written; a change during either pass is caught (a retry, or a failed result, never the content
 * of one version with another's version). The suite runs twice: with read(2), and with the file
 * mapped, as hermes exec does once it has installed the SIGBUS guard (fs/mapguard.h), where a file
 * cut short while mapped must fail the call (or be read again), never kill the process. */
#include <config.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/executor.h"
#include "fs/mapguard.h"
#include "verbs_testlib.h"

#define CHUNK ((size_t)128 << 10) /* what fs_read_file.c reads at a time */
#define MIB ((size_t)1 << 20)

/* ---- helpers -------------------------------------------------------------------------------- */

/* Text of n bytes whose 17-byte period holds a 4-, 3- and 2-byte sequence and escapes: across the
 * file's 128 KiB chunk boundaries, sequences and escapes fall at every offset. */
static char *make_text(size_t n)
{
	static const char period[] = "ab\xf0\x9f\x98\x80" "cd\n\"\xc3\xa9\xe2\x82\xac\t\\";
	size_t p = sizeof period - 1;
	ck_assert_uint_eq(p, 17); /* prime: no power of two is a multiple of it */
	char *t = malloc(n + 1);
	ck_assert_ptr_nonnull(t);
	for (size_t k = 0; k < n; k++)
		t[k] = period[k % p];
	/* the end cuts the period anywhere: its last part is 'z's */
	for (size_t k = n - n % p; k < n; k++)
		t[k] = 'z';
	t[n] = '\0';
	return t;
}

/* A workspace path as the host-side helpers take it (relative to the test's base). */
static const char *ws_rel(const char *rel)
{
	static __thread char path[256];
	snprintf(path, sizeof path, "ws/%s", rel);
	return path;
}

typedef struct sink {
	hermes_buf_t out;
	size_t pieces;
	void (*on_piece)(struct sink *s); /* after each piece is taken, if set */
	const char *rel;                  /* the file the test changes */
} sink_t;

static bool take(void *ctx, const char *data, size_t len)
{
	sink_t *s = ctx;
	hermes_buf_append(&s->out, data, len);
	s->pieces++;
	if (s->on_piece)
		s->on_piece(s);
	return true;
}

static char *envelope(const char *rel)
{
	static char text[512];
	snprintf(text, sizeof text, "{\"verb\":\"fs.readFile\",\"arguments\":{\"path\":\"%s\"}}", rel);
	return text;
}

/* The result of fs.readFile of rel through a sink (as hermes exec writes it), malloc'd. */
static char *streamed(const char *rel, sink_t *s, hermes_cancel_t *cancel, unsigned flags,
                      hermes_outcome_t *outcome)
{
	const char *env = envelope(rel);
	int sent = 99;
	hermes_error_t err;
	hermes_outcome_t o = hermes_execute_to(vt.ex, env, strlen(env), flags, cancel, take, s, &sent,
	                                       &err);
	ck_assert_int_eq(sent, 0);
	if (outcome)
		*outcome = o;
	hermes_buf_t *b = &s->out;
	hermes_buf_append(b, "", 0);
	char *text = b->data;
	b->data = NULL;
	b->len = b->cap = 0;
	return text;
}

/* The same result built whole (hermes_execute: what hermes serve and the console get). */
static char *whole(const char *rel, unsigned flags)
{
	const char *env = envelope(rel);
	char *json = NULL;
	hermes_execute(vt.ex, env, strlen(env), flags, NULL, &json, NULL);
	ck_assert_ptr_nonnull(json);
	return json;
}

/* Streamed and whole, with and without --pretty: the same bytes. Returns the compact one. */
static char *check_same(const char *rel)
{
	char *json = NULL;
	for (unsigned flags = 0; flags <= HERMES_JSON_PRETTY; flags += HERMES_JSON_PRETTY) {
		sink_t s = { HERMES_BUF_INIT, 0, NULL, NULL };
		char *a = streamed(rel, &s, NULL, flags, NULL), *b = whole(rel, flags);
		ck_assert_uint_eq(strlen(a), strlen(b));
		ck_assert_msg(strcmp(a, b) == 0, "%s: the streamed JSON differs from the whole", rel);
		free(a);
		if (flags)
			free(b);
		else
			json = b;
	}
	return json;
}

/* streamed() with fn told the call's progress (it changes the file at some report); *calls
 * counts the reports. */
static char *streamed_changing(const char *rel, hermes_progress_fn fn, int *calls,
                               hermes_outcome_t *outcome)
{
	hermes_cancel_t *cancel = hermes_cancel_new();
	*calls = 0;
	hermes_cancel_set_progress(cancel, fn, calls);
	sink_t s = { HERMES_BUF_INIT, 0, NULL, NULL };
	char *text = streamed(rel, &s, cancel, 0, outcome);
	hermes_cancel_free(cancel);
	return text;
}

static char *version_of(const char *rel)
{
	return strdup(vt_str(vt_call("fs.stat", vt_args("path", rel, NULL)), "version"));
}

/* ---- the same JSON -------------------------------------------------------------------------- */

/* Sizes around the threshold (1 MiB) and the chunks: one chunk past it, a whole number of chunks,
 * a chunk and a byte, many chunks and an odd tail. */
START_TEST(streamed_equals_whole)
{
	const size_t sizes[] = { MIB, MIB + 1, 16 * CHUNK, 16 * CHUNK + 1, 3 * MIB + 777,
	                         4 * MIB, 5 * MIB + 777, /* from 4 MiB: a first pass in two parts */
	                         38 * CHUNK + 5, 48 * CHUNK + 9 }; /* their split inside a sequence */
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char *t = make_text(sizes[i]);
		vt_put("ws/big.txt", t);
		char *json = check_same("big.txt");
		cJSON *r = cJSON_Parse(json);
		ck_assert_ptr_nonnull(r);
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "succeeded")));
		ck_assert_str_eq(cJSON_GetObjectItem(r, "content")->valuestring, t);
		char *v = version_of("big.txt");
		ck_assert_str_eq(cJSON_GetObjectItem(r, "version")->valuestring, v);
		free(v);
		cJSON_Delete(r);
		free(json);
		free(t);
	}
}
END_TEST

/* ---- not text: nothing of the content written ----------------------------------------------- */

/* A byte that is not text at the very end, at a chunk's first or last byte, a sequence cut by the
 * file's end, a sequence that straddles a chunk boundary and is a surrogate or overlong, a NUL:
 * NotText with the same message (offset and line) as the whole read, and no content. In a file
 * under 4 MiB (a first pass in one part) and over it (two parts, split at the chunk boundary
 * nearest the middle: there too, every kind of cut). */
typedef struct bad_case {
	size_t at;
	const char *bytes;
	size_t len;
	size_t first_bad; /* where the first byte that is not text is (at, unless said) */
} bad_case_t;

/* Makes room for len bytes at t[at] (of n): 'x's before, 'y's after, no sequence of the text
 * cut by them. */
static void clear_around(char *t, size_t n, size_t at, size_t len)
{
	size_t j = at - 4;
	memset(t + j, 'x', 4);
	while (((unsigned char)t[j - 1] & 0xC0) == 0x80)
		t[--j] = 'x';
	if ((unsigned char)t[j - 1] >= 0xC0)
		t[j - 1] = 'x';
	for (size_t k = at + len; k < n && k < at + len + 4; k++)
		t[k] = 'y';
	for (size_t k = at + len + 4; k < n && ((unsigned char)t[k] & 0xC0) == 0x80; k++)
		t[k] = 'y';
}

static void check_not_text(size_t n, const bad_case_t *c)
{
	char *t = make_text(n);
	clear_around(t, n, c->at, c->len);
	memcpy(t + c->at, c->bytes, c->len);
	vt_put_bytes("ws/bad.txt", t, n);
	sink_t s = { HERMES_BUF_INIT, 0, NULL, NULL };
	hermes_outcome_t o;
	char *a = streamed("bad.txt", &s, NULL, 0, &o);
	char *b = whole("bad.txt", 0);
	ck_assert_int_eq(o, HERMES_OUTCOME_FAILED);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_null(strstr(a, "\"content\""));
	ck_assert_ptr_nonnull(strstr(a, "\"errorCode\":\"NotText\""));
	char want[64];
	snprintf(want, sizeof want, "at byte %zu of the content", c->first_bad ? c->first_bad : c->at);
	ck_assert_msg(strstr(a, want), "%s: %s", want, a);
	free(a);
	free(b);
	free(t);
}

START_TEST(not_text_writes_no_content)
{
	const size_t sizes[] = { 3 * MIB + 5, 5 * MIB + 5 };
	for (size_t z = 0; z < 2; z++) {
		size_t n = sizes[z];
		const bad_case_t bad[] = {
			{ n - 1, "\xff", 1, 0 }, { n - 1, "\xe2", 1, 0 }, { n - 2, "\xf0\x9f", 2, 0 },
			{ 5 * CHUNK, "\x80", 1, 0 }, { 5 * CHUNK - 1, "\xc3", 1, 0 },
			{ 7 * CHUNK - 1, "\xed\xa0\x80", 3, 0 }, { 9 * CHUNK - 2, "\xe0\x80\xaf", 3, 0 },
			{ 11 * CHUNK - 3, "\xf4\x90\x80\x80", 4, 0 }, { 2 * MIB + 3, "\0", 1, 0 },
			{ n - 3 * CHUNK + 7, "\0", 1, 0 },
		};
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
			check_not_text(n, &bad[i]);
	}
	/* where the two parts meet (5 MiB + 5: 40 whole chunks, the second part from the 20th) */
	const size_t n = 5 * MIB + 5, mid = 20 * CHUNK;
	const bad_case_t edge[] = {
		{ mid, "\x80", 1, 0 },                    /* a continuation byte with no lead */
		{ mid, "\x80\x80\x80\x80", 4, 0 },        /* four of them */
		{ mid - 1, "\xc3", 1, 0 },                /* a lead with no continuation */
		{ mid - 1, "\xe2\x82", 2, 0 },            /* a sequence cut short across */
		{ mid - 2, "\xed\xa0\x80", 3, 0 },        /* a surrogate across */
		{ mid - 1, "\xe0\x80\xaf", 3, 0 },        /* an overlong across */
		{ mid - 3, "\xf0\x9f\x98\x80\x80", 5, mid + 1 }, /* valid across, then a stray one */
		{ mid - 1, "\0", 1, 0 }, { mid, "\0", 1, 0 },
		{ mid - 1, "\xf0\x9f\x98\x80\xff", 5, mid + 3 }, /* valid across, then bad */
	};
	for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
		check_not_text(n, &edge[i]);
	/* and valid sequences across it, of every length and cut: the same JSON as whole */
	static const char *const across[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };
	for (size_t i = 0; i < 3; i++) {
		for (size_t cut = 1; cut < strlen(across[i]); cut++) {
			char *t = make_text(n);
			clear_around(t, n, mid - cut, strlen(across[i]));
			memcpy(t + mid - cut, across[i], strlen(across[i]));
			vt_put_bytes("ws/across.txt", t, n);
			char *json = check_same("across.txt");
			ck_assert_msg(strstr(json, "\"succeeded\":true"), "%.300s", json);
			free(json);
			free(t);
		}
	}
}
END_TEST

/* Past the read limit: TooLarge before anything is read, as the whole read says it. */
START_TEST(too_large)
{
	hermes_config_t c = { 0 };
	c.max_read_bytes = 2 * MIB;
	vt_reopen(&c);
	char *t = make_text(2 * MIB + 1);
	vt_put("ws/big.txt", t);
	sink_t s = { HERMES_BUF_INIT, 0, NULL, NULL };
	char *a = streamed("big.txt", &s, NULL, 0, NULL), *b = whole("big.txt", 0);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strstr(a, "\"errorCode\":\"TooLarge\""));
	free(a);
	free(b);
	free(t);
}
END_TEST

/* ---- changes during the second pass (as the result is written) ------------------------------ */

static char *original;

/* After the first piece: the file's bytes 2 MiB on (not written yet) change, same size. */
static void change_ahead(sink_t *s)
{
	if (s->pieces != 1)
		return;
	int fd = open(vt_path(ws_rel(s->rel)), O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "CHANGED", 7, 2 * MIB), 7);
	close(fd);
}

/* After the first piece: the file is cut short. */
static void cut_short(sink_t *s)
{
	if (s->pieces == 1)
		ck_assert_int_eq(truncate(vt_path(ws_rel(s->rel)), (off_t)(MIB + MIB / 2)), 0);
}

/* After the first piece: its first bytes (written already) change. */
static void change_behind(sink_t *s)
{
	if (s->pieces != 1)
		return;
	int fd = open(vt_path(ws_rel(s->rel)), O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "CHANGED", 7, 0), 7);
	close(fd);
}

/* A chunk not written yet changed, or the file was cut short: the result is valid JSON that
 * fails with Conflict, its content what was written (a prefix of the file as it was checked), its
 * version null: never part of one version under another's version. */
START_TEST(change_ahead_fails)
{
	void (*changes[])(sink_t *) = { change_ahead, cut_short };
	for (size_t i = 0; i < 2; i++) {
		original = make_text(3 * MIB);
		vt_put("ws/big.txt", original);
		sink_t s = { HERMES_BUF_INIT, 0, changes[i], "big.txt" };
		hermes_outcome_t o;
		char *a = streamed("big.txt", &s, NULL, 0, &o);
		ck_assert_int_eq(o, HERMES_OUTCOME_FAILED);
		cJSON *r = cJSON_Parse(a);
		ck_assert_msg(r != NULL, "not JSON: %.200s", a);
		ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(r, "succeeded")));
		ck_assert_str_eq(cJSON_GetObjectItem(r, "errorCode")->valuestring, "Conflict");
		ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItem(r, "errorMessage")->valuestring,
		                             "changed while it was written out"));
		ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "version")));
		const char *content = cJSON_GetObjectItem(r, "content")->valuestring;
		ck_assert_uint_le(strlen(content), 2 * MIB);
		ck_assert_uint_gt(strlen(content), 0);
		char says[64]; /* the message says how much content holds */
		snprintf(says, sizeof says, "its first %zu of %zu bytes", strlen(content), 3 * MIB);
		ck_assert_msg(strstr(cJSON_GetObjectItem(r, "errorMessage")->valuestring, says), "%s",
		              cJSON_GetObjectItem(r, "errorMessage")->valuestring);
		ck_assert(strncmp(content, original, strlen(content)) == 0);
		cJSON_Delete(r);
		free(a);
		free(original);
	}
}
END_TEST

/* Bytes already written changed: what was written is the file as it was checked, whole, under the
 * version it had then. */
START_TEST(change_behind_keeps_checked_version)
{
	original = make_text(3 * MIB);
	vt_put("ws/big.txt", original);
	char *before = whole("big.txt", 0);
	sink_t s = { HERMES_BUF_INIT, 0, change_behind, "big.txt" };
	hermes_outcome_t o;
	char *a = streamed("big.txt", &s, NULL, 0, &o);
	ck_assert_int_eq(o, HERMES_OUTCOME_SUCCEEDED);
	ck_assert_str_eq(a, before);
	free(a);
	free(before);
	free(original);
}
END_TEST

/* ---- changes during the first pass ---------------------------------------------------------- */

static const char *grow_rel;
static size_t grow_by;

/* The first progress report (after the first chunk) appends grow_by bytes to the file. */
static void grow_once(void *ctx, double progress, double total, const char *message)
{
	(void)progress;
	(void)total;
	(void)message;
	int *calls = ctx;
	if ((*calls)++ != 0)
		return;
	char *more = make_text(grow_by);
	int fd = open(vt_path(ws_rel(grow_rel)), O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, more, grow_by), (ssize_t)grow_by);
	close(fd);
	free(more);
}

/* The file grew while it was checked: checked again, and the result is the new file whole with
 * its new version. */
START_TEST(change_in_first_pass_retries)
{
	grow_rel = "big.txt";
	grow_by = 1000;
	char *t = make_text(2 * MIB);
	vt_put("ws/big.txt", t);
	int calls;
	hermes_outcome_t o;
	char *a = streamed_changing("big.txt", grow_once, &calls, &o);
	ck_assert_int_ge(calls, 1);
	ck_assert_int_eq(o, HERMES_OUTCOME_SUCCEEDED);
	char *b = whole("big.txt", 0); /* the file as it is now, read whole */
	ck_assert_str_eq(a, b);
	cJSON *r = cJSON_Parse(a);
	ck_assert_uint_eq(strlen(cJSON_GetObjectItem(r, "content")->valuestring), 2 * MIB + 1000);
	char *v = version_of("big.txt");
	ck_assert_str_eq(cJSON_GetObjectItem(r, "version")->valuestring, v);
	free(v);
	cJSON_Delete(r);
	free(a);
	free(b);
	free(t);
}
END_TEST

/* It grew past the read limit while it was checked: TooLarge, saying it grew. */
START_TEST(growth_past_limit)
{
	hermes_config_t c = { 0 };
	c.max_read_bytes = 2 * MIB;
	vt_reopen(&c);
	grow_rel = "big.txt";
	grow_by = MIB;
	char *t = make_text(MIB + MIB / 2);
	vt_put("ws/big.txt", t);
	int calls;
	char *a = streamed_changing("big.txt", grow_once, &calls, NULL);
	ck_assert_msg(strstr(a, "\"errorCode\":\"TooLarge\"") && strstr(a, "grew past the read limit"),
	              "%s", a);
	ck_assert_ptr_null(strstr(a, "\"content\""));
	free(a);
	free(t);
}
END_TEST

/* A file that never stops changing (appended to without pause) is still read, whole as before
 * (after a few first passes that each saw it change): its content starts with what it held. */
static volatile int writing;

static void *append_on(void *arg)
{
	int fd = open(vt_path(ws_rel((const char *)arg)), O_WRONLY | O_APPEND);
	while (writing) {
		if (write(fd, "appended\n", 9) != 9)
			break;
		usleep(100);
	}
	close(fd);
	return NULL;
}

START_TEST(always_changing_is_read_whole)
{
	original = make_text(2 * MIB);
	vt_put("ws/log.txt", original);
	writing = 1;
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, append_on, (void *)"log.txt"), 0);
	sink_t s = { HERMES_BUF_INIT, 0, NULL, NULL };
	hermes_outcome_t o;
	char *a = streamed("log.txt", &s, NULL, 0, &o);
	writing = 0;
	pthread_join(th, NULL);
	ck_assert_int_eq(o, HERMES_OUTCOME_SUCCEEDED);
	cJSON *r = cJSON_Parse(a);
	const char *content = cJSON_GetObjectItem(r, "content")->valuestring;
	ck_assert(strncmp(content, original, 2 * MIB) == 0);
	cJSON_Delete(r);
	free(a);
	free(original);
}
END_TEST

/* ---- the mapped path (hermes_map_guard_on()) ------------------------------------------------ */

static int mapped_seen = -1;

/* Whether the file s->rel is mapped into this process now (/proc/self/maps names it). */
static void note_mapped(sink_t *s)
{
	if (s->pieces != 1)
		return;
	FILE *f = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(f);
	char line[4096], want[512];
	snprintf(want, sizeof want, "/%s", s->rel);
	mapped_seen = 0;
	while (fgets(line, sizeof line, f))
		if (strstr(line, want))
			mapped_seen = 1;
	fclose(f);
}

/* The file is mapped while it is written out exactly when the guard is on: hermes exec's path is
 * the one the other tests of the mapped run take. */
START_TEST(mapped_only_when_guarded)
{
	char *t = make_text(5 * MIB + 3);
	vt_put("ws/mapped.txt", t);
	sink_t s = { HERMES_BUF_INIT, 0, note_mapped, "mapped.txt" };
	hermes_outcome_t o;
	char *a = streamed("mapped.txt", &s, NULL, 0, &o);
	ck_assert_int_eq(o, HERMES_OUTCOME_SUCCEEDED);
	ck_assert_int_eq(mapped_seen, hermes_map_guard_on() ? 1 : 0);
	free(a);
	free(t);
}
END_TEST

/* Where cut_once cuts: at the end of a period of make_text, so that what is left is text. */
#define CUT_LEN ((MIB + MIB / 4) / 17 * 17)

/* Truncates the file at the first progress report (while the first pass checks it). */
static void cut_once(void *ctx, double progress, double total, const char *message)
{
	(void)progress;
	(void)total;
	(void)message;
	int *calls = ctx;
	if ((*calls)++ == 0)
		ck_assert_int_eq(truncate(vt_path(ws_rel(grow_rel)), (off_t)CUT_LEN), 0);
}

/* Cut short while the first pass checks it (SIGBUS on the mapping there): nothing was written,
 * so it is read again, with read(2), and the result is the file as it is now, whole. Both sizes:
 * one part, and two parts checked at once (a thread touches the mapping too). */
START_TEST(cut_in_first_pass_reads_again)
{
	size_t sizes[] = { 3 * MIB, 9 * MIB };
	for (size_t i = 0; i < 2; i++) {
		grow_rel = "big.txt";
		char *t = make_text(sizes[i]);
		vt_put("ws/big.txt", t);
		int calls;
		hermes_outcome_t o;
		char *a = streamed_changing("big.txt", cut_once, &calls, &o);
		ck_assert_int_ge(calls, 1);
		ck_assert_msg(o == HERMES_OUTCOME_SUCCEEDED, "%zu: %.300s", sizes[i], a);
		char *b = whole("big.txt", 0);
		ck_assert_str_eq(a, b);
		cJSON *r = cJSON_Parse(a);
		ck_assert_uint_eq(strlen(cJSON_GetObjectItem(r, "content")->valuestring), CUT_LEN);
		cJSON_Delete(r);
		free(a);
		free(b);
		free(t);
	}
}
END_TEST

/* The guard takes only SIGBUS on an armed mapping: a SIGBUS on a mapping nobody armed (a real bug)
 * and one sent by kill still end the process as they would without it. */
START_TEST(sigbus_elsewhere_still_kills)
{
	for (int how = 0; how < 2; how++) {
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			if (hermes_map_guard_install() != 0)
				_exit(2);
			if (how == 1)
				raise(SIGBUS);
			FILE *f = tmpfile();
			if (!f || ftruncate(fileno(f), 8192) < 0)
				_exit(2);
			volatile char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fileno(f), 0);
			if (m == MAP_FAILED || ftruncate(fileno(f), 0) < 0)
				_exit(2);
			(void)m[4096]; /* past the end: SIGBUS, unarmed */
			_exit(0);
		}
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		/* killed by it; or, under a sanitizer whose handler was there before, its report's exit
		 * (or its abort, with ASAN_OPTIONS=abort_on_error=1 as .ci/run sets) */
		bool sanitized = false;
#if defined(__SANITIZE_ADDRESS__)
		sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
		sanitized = true;
#endif
#endif
		ck_assert_msg((WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) ||
		              (sanitized && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) ||
		              (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
		               WEXITSTATUS(status) != 2),
		              "how %d: status %#x, not ended by SIGBUS", how, status);
	}
}
END_TEST

static Suite *suite(const char *name)
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("read_file_streamed");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, streamed_equals_whole);
	tcase_add_test(tc, not_text_writes_no_content);
	tcase_add_test(tc, too_large);
	tcase_add_test(tc, change_ahead_fails);
	tcase_add_test(tc, change_behind_keeps_checked_version);
	tcase_add_test(tc, change_in_first_pass_retries);
	tcase_add_test(tc, growth_past_limit);
	tcase_add_test(tc, always_changing_is_read_whole);
	tcase_add_test(tc, mapped_only_when_guarded);
	tcase_add_test(tc, cut_in_first_pass_reads_again);
	tcase_add_test(tc, sigbus_elsewhere_still_kills);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* read(2) first, the library's default; then mapped, as hermes exec reads (the guard cannot
	 * be taken back: the forked tests inherit it) */
	int failed = vt_run(suite("verbs_read_stream_read"));
	if (hermes_map_guard_install() != 0)
		return 1;
	return vt_run(suite("verbs_read_stream_mapped")) | failed;
}
