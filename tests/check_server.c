/* tests/check_server.c: unit tests of the pieces of hermes serve that need no process: the framer
 * (both framings, every split point, broken and oversized frames, end of input), JSON-RPC message
 * classification and id matching, the raw JSON walker, and the worker pool. */
#include <config.h>

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/stdio/framing.h"
#include "core/json.h"
#include "rpc/jsonrpc.h"
#include "rpc/pool.h"
#include "check_run.h"

/* ---- a sink that records what the framer hands on ---------------------------------------- */

typedef struct {
	char *items[64]; /* "M:<body>" or "E<code>:<message>" */
	int n;
} record_t;

static void rec_message(void *ctx, char *body, size_t len)
{
	record_t *r = ctx;
	ck_assert_int_lt(r->n, 64);
	ck_assert_uint_eq(strlen(body), len); /* NUL-terminated at len */
	r->items[r->n] = malloc(len + 3);
	sprintf(r->items[r->n++], "M:%s", body);
	free(body);
}

static void rec_error(void *ctx, int code, const char *message)
{
	record_t *r = ctx;
	ck_assert_int_lt(r->n, 64);
	r->items[r->n] = malloc(strlen(message) + 16);
	sprintf(r->items[r->n++], "E%d:%s", code, message);
}

static void rec_clear(record_t *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->items[i]);
	r->n = 0;
}

/* Feeds text in pieces of `step` bytes (0: all at once), then EOF. */
static void run(record_t *r, hermes_framing_t mode, int64_t max, const char *text, size_t len,
                size_t step, hermes_framer_t *out)
{
	hermes_framer_t f;
	hermes_frame_sink_t sink = {rec_message, rec_error, r};
	hermes_framer_init(&f, mode, max);
	if (step == 0)
		step = len ? len : 1;
	for (size_t i = 0; i < len; i += step)
		hermes_framer_feed(&f, text + i, len - i < step ? len - i : step, &sink);
	hermes_framer_eof(&f, &sink);
	if (out)
		*out = f;
	hermes_framer_clear(&f);
}

#define MSG "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}"

START_TEST(content_length_every_split)
{
	const char *text = "Content-Length: 37\r\nContent-Type: application/json\r\n\r\n" MSG
	                   "content-length:37\r\n\r\n" MSG;
	for (size_t step = 0; step <= strlen(text); step++) {
		record_t r = {0};
		hermes_framer_t f;
		run(&r, HERMES_FRAMING_AUTO, 0, text, strlen(text), step, &f);
		ck_assert_int_eq(f.mode, HERMES_FRAMING_CONTENT_LENGTH);
		ck_assert_int_eq(r.n, 2);
		ck_assert_str_eq(r.items[0], "M:" MSG);
		ck_assert_str_eq(r.items[1], "M:" MSG);
		rec_clear(&r);
	}
}
END_TEST

START_TEST(ndjson_every_split)
{
	const char *text = "\r\n" MSG "\r\n\n   \n" MSG "\n  " MSG; /* last line unterminated */
	for (size_t step = 0; step <= strlen(text); step++) {
		record_t r = {0};
		hermes_framer_t f;
		run(&r, HERMES_FRAMING_AUTO, 0, text, strlen(text), step, &f);
		ck_assert_int_eq(f.mode, HERMES_FRAMING_NDJSON);
		ck_assert_int_eq(r.n, 3);
		for (int i = 0; i < 3; i++)
			ck_assert_str_eq(r.items[i], "M:" MSG);
		rec_clear(&r);
	}
}
END_TEST

/* A sink that pauses the framer after every message, as the reader does when the session has
 * no room for more. */
typedef struct {
	record_t r;
	hermes_framer_t *f;
} pausing_t;

static void pause_message(void *ctx, char *body, size_t len)
{
	pausing_t *p = ctx;
	rec_message(&p->r, body, len);
	hermes_framer_pause(p->f);
}

static void pause_error(void *ctx, int code, const char *message)
{
	rec_error(&((pausing_t *)ctx)->r, code, message);
}

START_TEST(feed_stops_after_a_paused_message)
{
	const char *texts[] = {
		MSG "\n\n" MSG "\n" MSG "\n",
		"Content-Length: 37\r\n\r\n" MSG "Content-Length: 37\r\n\r\n" MSG
		"Content-Length: 0\r\n\r\nContent-Length: 37\r\n\r\n" MSG,
	};
	for (int i = 0; i < 2; i++) {
		hermes_framer_t f;
		pausing_t p = {.f = &f};
		hermes_frame_sink_t sink = {pause_message, pause_error, &p};
		hermes_framer_init(&f, HERMES_FRAMING_AUTO, 0);
		const char *t = texts[i];
		size_t len = strlen(t), at = 0;
		int feeds = 0;
		while (at < len) {
			int before = p.r.n;
			size_t used = hermes_framer_feed(&f, t + at, len - at, &sink);
			ck_assert_uint_gt(used, 0);
			ck_assert_uint_le(used, len - at);
			/* one message a feed at most, and a feed that stopped short stopped at one */
			ck_assert_int_le(p.r.n - before, 1);
			if (at + used < len)
				ck_assert_int_eq(p.r.n - before, 1);
			at += used;
			feeds++;
		}
		hermes_framer_eof(&f, &sink);
		hermes_framer_clear(&f);
		int want = i == 0 ? 3 : 4;
		ck_assert_int_eq(p.r.n, want);
		ck_assert_int_ge(feeds, want);
		for (int k = 0; k < want; k++)
			ck_assert_str_eq(p.r.items[k], i == 1 && k == 2 ? "M:" : "M:" MSG);
		rec_clear(&p.r);
	}
}
END_TEST

START_TEST(broken_header_resyncs)
{
	const char *cases[] = {
		"Content-Length: x\r\n\r\n" MSG "Content-Length: 37\r\n\r\n" MSG,
		"Nonsense\r\n\r\n" MSG "\r\nContent-Length: 37\r\n\r\n" MSG,
		"Content-Type: a\r\n\r\n" MSG "Content-Length: 37\r\n\r\n" MSG,
		/* a body one byte short runs into the next header on the same line */
		"Content-Length: 36\r\n\r\n" MSG "Content-Length: 37\r\n\r\n" MSG,
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		for (size_t step = 0; step < 8; step++) {
			record_t r = {0};
			run(&r, HERMES_FRAMING_CONTENT_LENGTH, 0, cases[c], strlen(cases[c]), step, NULL);
			/* the broken frame is reported (the short body as a message that will not parse,
			 * then the header it ran into), and the next message comes through whole */
			ck_assert_msg(r.n == (c == 3 ? 3 : 2), "case %zu step %zu: %d items", c, step, r.n);
			for (int i = 0; i < r.n - 1; i++)
				ck_assert_msg(strncmp(r.items[i], "E-32700:", 8) == 0 ||
				              (c == 3 && i == 0 && strncmp(r.items[i], "M:", 2) == 0), "%s", r.items[i]);
			ck_assert_str_eq(r.items[r.n - 1], "M:" MSG);
			rec_clear(&r);
		}
	}
}
END_TEST

START_TEST(oversized_is_skipped)
{
	/* the body is never buffered: only the limit's worth of memory is ever asked for */
	record_t r = {0};
	const char *text = "Content-Length: 100\r\n\r\n" MSG MSG "abcdefghijklmnopqrstuvwxyz"
	                   "Content-Length: 37\r\n\r\n" MSG;
	hermes_framer_t f;
	run(&r, HERMES_FRAMING_AUTO, 50, text, strlen(text), 7, &f);
	ck_assert_int_eq(r.n, 2);
	ck_assert_msg(strncmp(r.items[0], "E-32600:message of 100 bytes", 28) == 0, "%s", r.items[0]);
	ck_assert_str_eq(r.items[1], "M:" MSG);
	rec_clear(&r);

	const char *lines = MSG MSG "\n" MSG "\n";
	run(&r, HERMES_FRAMING_NDJSON, 50, lines, strlen(lines), 5, NULL);
	ck_assert_int_eq(r.n, 2);
	ck_assert_msg(strncmp(r.items[0], "E-32600:", 8) == 0, "%s", r.items[0]);
	ck_assert_str_eq(r.items[1], "M:" MSG);
	rec_clear(&r);
}
END_TEST

START_TEST(eof_mid_message)
{
	record_t r = {0};
	const char *text = "Content-Length: 37\r\n\r\n" MSG;
	for (size_t k = 0; k < strlen(text); k++) {
		run(&r, HERMES_FRAMING_AUTO, 0, text, k, 0, NULL);
		if (k == 0) {
			ck_assert_int_eq(r.n, 0);
		} else {
			ck_assert_msg(r.n == 1 && strncmp(r.items[0], "E-32700:end of input", 20) == 0,
			              "cut at %zu: %d %s", k, r.n, r.n ? r.items[0] : "");
		}
		rec_clear(&r);
	}
	run(&r, HERMES_FRAMING_AUTO, 0, "\r\n\r\n", 4, 0, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(zero_length_body)
{
	record_t r = {0};
	run(&r, HERMES_FRAMING_AUTO, 0, "Content-Length: 0\r\n\r\n", 21, 0, NULL);
	ck_assert_int_eq(r.n, 1);
	ck_assert_str_eq(r.items[0], "M:");
	rec_clear(&r);
}
END_TEST

START_TEST(frame_headers)
{
	char h[64];
	ck_assert_uint_eq(hermes_frame_header(HERMES_FRAMING_CONTENT_LENGTH, 52, h), 22);
	ck_assert_str_eq(h, "Content-Length: 52\r\n\r\n");
	ck_assert_uint_eq(hermes_frame_header(HERMES_FRAMING_NDJSON, 52, h), 0);
	ck_assert_str_eq(hermes_frame_trailer(HERMES_FRAMING_NDJSON), "\n");
	ck_assert_str_eq(hermes_frame_trailer(HERMES_FRAMING_CONTENT_LENGTH), "");
}
END_TEST

/* ---- JSON-RPC ------------------------------------------------------------------------------ */

/* The message of the last parse() (the classified message points into its tree). */
static hermes_json_doc_t *parsed;

static hermes_rpc_kind_t parse(const char *text, hermes_rpc_message_t *m)
{
	hermes_json_doc_free(parsed);
	parsed = NULL;
	ck_assert_int_eq(hermes_json_parse(text, strlen(text), HERMES_RPC_MAX_DEPTH, &parsed, NULL, NULL), 0);
	return hermes_rpc_parse(hermes_json_root(parsed), text, m);
}

/* The id key of a JSON text (a number or a string). */
static char *key_of(const char *text, size_t *len)
{
	hermes_json_doc_t *doc = NULL;
	ck_assert_int_eq(hermes_json_parse(text, strlen(text), 8, &doc, NULL, NULL), 0);
	char *k = hermes_rpc_id_key(hermes_json_root(doc), len);
	hermes_json_doc_free(doc);
	return k;
}

START_TEST(rpc_classification)
{
	hermes_rpc_message_t m;
	ck_assert_int_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":1.50,\"method\":\"a\",\"params\":{\"x\":1}}", &m),
	                 HERMES_RPC_REQUEST);
	ck_assert_str_eq(m.id, "1.50");
	ck_assert_str_eq(m.id_key, "n15e-1");
	ck_assert_str_eq(m.method, "a");
	ck_assert_ptr_nonnull(m.params);
	ck_assert_int_eq(m.params->type, HERMES_JSON_OBJECT);
	ck_assert_ptr_nonnull(hermes_json_member(m.params, "x"));
	hermes_rpc_message_clear(&m);

	ck_assert_int_eq(parse("{\"method\":\"a\",\"jsonrpc\":\"2.0\",\"params\":null}", &m), HERMES_RPC_NOTIFICATION);
	ck_assert_ptr_null(m.id);
	ck_assert_ptr_null(m.params);
	hermes_rpc_message_clear(&m);

	ck_assert_int_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":1}", &m), HERMES_RPC_RESPONSE);
	hermes_rpc_message_clear(&m);

	/* an id null is a request answered with id null */
	ck_assert_int_eq(parse("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"a\"}", &m), HERMES_RPC_REQUEST);
	ck_assert_str_eq(m.id, "null");
	ck_assert_ptr_null(m.id_key);
	hermes_rpc_message_clear(&m);

	struct { const char *text; const char *id; } bad[] = {
		{"{\"id\":1,\"method\":\"a\"}", "1"},
		{"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":3}", "2"},
		{"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"a\",\"params\":1}", "3"},
		{"{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"a\"}", NULL},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"a\"}", NULL},
		{"{\"jsonrpc\":\"2.0\",\"\\u0069d\":1,\"id\":2,\"method\":\"a\"}", NULL}, /* escaped dup */
		{"{\"jsonrpc\":\"2.0\",\"id\":4}", "4"},
		{"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"fs.exists\\u0000x\"}", "5"}, /* NUL in method */
		{"{\"jsonrpc\":\"2.0\\u0000\",\"id\":6,\"method\":\"a\"}", "6"},
		{"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"a\",\"method\":\"b\"}", "7"},
		{"[1]", NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(parse(bad[i].text, &m) == HERMES_RPC_INVALID, "%s", bad[i].text);
		ck_assert_int_eq(m.code, HERMES_RPC_INVALID_REQUEST);
		if (bad[i].id)
			ck_assert_str_eq(m.id, bad[i].id);
		else
			ck_assert_ptr_null(m.id);
		hermes_rpc_message_clear(&m);
	}
	hermes_json_doc_free(parsed);
	parsed = NULL;
}
END_TEST

START_TEST(rpc_id_keys)
{
	struct { const char *a, *b; int same; } cases[] = {
		{"1", "1.0", 1}, {"1", "1e0", 1}, {"10", "1e1", 1}, {"-0", "0", 1}, {"0.000", "0e7", 1},
		{"10", "100e-1", 1}, {"-1.5", "-15E-1", 1}, {"1", "-1", 0}, {"1.5", "15", 0},
		{"\"a\"", "\"\\u0061\"", 1}, {"1", "\"1\"", 0}, {"12345678901234567890", "12345678901234567891", 0},
		{"123456789012345678901234567890", "1.23456789012345678901234567890e29", 1},
		{"1e400", "10e399", 1}, {"1e400", "1e401", 0},
		{"1e9999999999999999999", "1e9999999999999999998", 0}, /* keyed by text */
		{"\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\"", 1},
		{"\"a\\u0000b\"", "\"a\\u0000c\"", 0}, {"\"a\\u0000b\"", "\"a\"", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t la, lb;
		char *a = key_of(cases[i].a, &la);
		char *b = key_of(cases[i].b, &lb);
		ck_assert_msg((la == lb && memcmp(a, b, la) == 0) == cases[i].same, "%s vs %s: %.*s %.*s",
		              cases[i].a, cases[i].b, (int)la, a, (int)lb, b);
		free(a);
		free(b);
	}
	size_t l;
	ck_assert_ptr_null(key_of("true", &l));
	ck_assert_ptr_null(key_of("[1]", &l));
}
END_TEST

START_TEST(rpc_reply_bodies)
{
	hermes_reply_t r;
	hermes_rpc_error(&r, "\"x\"", -32602, "bad \"arg\"\n\xff", "{\"field\":\"a\"}");
	ck_assert_str_eq(r.part[0], "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-32602,"
	                 "\"message\":\"bad \\\"arg\\\"\\n\xef\xbf\xbd\",\"data\":{\"field\":\"a\"}}}");
	hermes_reply_clear(&r);
	hermes_rpc_result(&r, "7", strdup("{\"a\":1}"), 7);
	ck_assert_str_eq(r.part[0], "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":");
	ck_assert_str_eq(r.part[1], "{\"a\":1}");
	ck_assert_str_eq(r.tail, "}");
	ck_assert_uint_eq(hermes_reply_length(&r), strlen(r.part[0]) + 8);
	hermes_reply_clear(&r);
}
END_TEST


/* ---- the pool ------------------------------------------------------------------------------ */

typedef struct {
	hermes_pool_job_t job;
	atomic_int *counter;
	int sleep_ms;
} test_job_t;

static void count_job(hermes_pool_job_t *job)
{
	test_job_t *t = (test_job_t *)job;
	if (t->sleep_ms)
		usleep((useconds_t)t->sleep_ms * 1000);
	atomic_fetch_add(t->counter, 1);
}

START_TEST(pool_runs_everything)
{
	atomic_int counter = 0;
	static test_job_t jobs[2000];
	hermes_pool_t *pool = hermes_pool_new(3, 5);
	for (int i = 0; i < 2000; i++) {
		jobs[i] = (test_job_t){{NULL, NULL, count_job, false}, &counter, 0};
		ck_assert_int_eq(hermes_pool_submit(pool, &jobs[i].job), 0);
	}
	hermes_pool_free(pool); /* runs what is queued, then joins */
	ck_assert_int_eq(atomic_load(&counter), 2000);
}
END_TEST

START_TEST(pool_blocking_jobs_do_not_hold_up_others)
{
	atomic_int slow = 0, quick = 0;
	test_job_t s[4], q[10];
	hermes_pool_t *pool = hermes_pool_new(1, 3); /* one blocking job waits for a thread */
	for (int i = 0; i < 4; i++) {
		s[i] = (test_job_t){{NULL, NULL, count_job, true}, &slow, 500};
		hermes_pool_submit(pool, &s[i].job);
	}
	for (int i = 0; i < 10; i++) {
		q[i] = (test_job_t){{NULL, NULL, count_job, false}, &quick, 0};
		hermes_pool_submit(pool, &q[i].job);
	}
	usleep(200 * 1000);
	ck_assert_int_eq(atomic_load(&quick), 10); /* the slow ones are still sleeping */
	ck_assert_int_eq(atomic_load(&slow), 0);
	ck_assert_uint_le(hermes_pool_threads(pool), 4); /* 3 blocking (+ 1 ordinary, maybe retired) */
	usleep(500 * 1000);
	ck_assert_int_eq(atomic_load(&slow), 3);
	/* a flood of blocking jobs does not take the ordinary lane's thread */
	for (int i = 0; i < 10; i++) {
		q[i] = (test_job_t){{NULL, NULL, count_job, false}, &quick, 0};
		hermes_pool_submit(pool, &q[i].job);
	}
	usleep(100 * 1000);
	ck_assert_int_eq(atomic_load(&quick), 20);
	hermes_pool_free(pool);
	ck_assert_int_eq(atomic_load(&slow), 4);
}
END_TEST

START_TEST(pool_remove_queued)
{
	atomic_int counter = 0;
	test_job_t busy = {{NULL, NULL, count_job, false}, &counter, 300};
	test_job_t queued[3];
	hermes_pool_t *pool = hermes_pool_new(1, 1);
	hermes_pool_submit(pool, &busy.job);
	usleep(50 * 1000);
	for (int i = 0; i < 3; i++) {
		queued[i] = (test_job_t){{NULL, NULL, count_job, false}, &counter, 0};
		hermes_pool_submit(pool, &queued[i].job);
	}
	ck_assert(!hermes_pool_remove(pool, &busy.job)); /* running */
	ck_assert(hermes_pool_remove(pool, &queued[1].job));
	ck_assert(!hermes_pool_remove(pool, &queued[1].job)); /* already removed */
	ck_assert(hermes_pool_remove(pool, &queued[2].job)); /* the tail */
	ck_assert(hermes_pool_remove(pool, &queued[0].job)); /* the head */
	hermes_pool_free(pool);
	ck_assert_int_eq(atomic_load(&counter), 1);
}
END_TEST

static Suite *server_suite(void)
{
	Suite *s = suite_create("server");
	TCase *t = tcase_create("framing");
	tcase_add_test(t, content_length_every_split);
	tcase_add_test(t, ndjson_every_split);
	tcase_add_test(t, feed_stops_after_a_paused_message);
	tcase_add_test(t, broken_header_resyncs);
	tcase_add_test(t, oversized_is_skipped);
	tcase_add_test(t, eof_mid_message);
	tcase_add_test(t, zero_length_body);
	tcase_add_test(t, frame_headers);
	suite_add_tcase(s, t);
	t = tcase_create("jsonrpc");
	tcase_add_test(t, rpc_classification);
	tcase_add_test(t, rpc_id_keys);
	tcase_add_test(t, rpc_reply_bodies);
	suite_add_tcase(s, t);
	t = tcase_create("pool");
	tcase_add_test(t, pool_runs_everything);
	tcase_add_test(t, pool_blocking_jobs_do_not_hold_up_others);
	tcase_add_test(t, pool_remove_queued);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	int failed = check_run(server_suite());
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
