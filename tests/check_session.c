/* tests/check_session.c: a session of hermes serve driven through its API (session/session.h) with
 * no transport at all: messages handed in as text, replies collected from in-memory channels. A
 * verb call, a batch, a cancel, shutdown and exit, MCP, and replies and a request's progress
 * going back to the channel the request came on (what an HTTP transport with many connections
 * relies on). */
#include <config.h>

#include <check.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/processors.h"
#include "rpc/state.h"
#include "session/session.h"
#include "check_run.h"

/* ---- an in-memory channel -------------------------------------------------------------------- */

#define MAX_MSGS 160

typedef struct mem {
	hermes_channel_t ch;     /* first: the callbacks get the struct back */
	char *msgs[MAX_MSGS];    /* the bodies sent, in order */
	unsigned flags[MAX_MSGS];/* and the HERMES_SEND_* flags of each */
	int n;
	int flushes;
	atomic_int holds;        /* hold() minus release(): 0 once nothing will be sent later */
} mem_t;

/* One lock and condition for every channel and the wake hook: the test waits on them. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int wakes;

static void mem_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	mem_t *m = (mem_t *)ch;
	size_t len = hermes_reply_length(r);
	char *body = malloc(len + 1), *p = body;
	ck_assert_ptr_nonnull(body);
	for (int i = 0; i < 2; i++) {
		memcpy(p, r->part[i] ? r->part[i] : "", r->len[i]);
		p += r->len[i];
	}
	strcpy(p, r->tail ? r->tail : "");
	hermes_reply_clear(r);
	pthread_mutex_lock(&lock);
	ck_assert_int_lt(m->n, MAX_MSGS);
	m->flags[m->n] = flags;
	m->msgs[m->n++] = body;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

static void mem_flush(hermes_channel_t *ch)
{
	pthread_mutex_lock(&lock);
	((mem_t *)ch)->flushes++;
	pthread_mutex_unlock(&lock);
}

static void mem_hold(hermes_channel_t *ch)
{
	atomic_fetch_add(&((mem_t *)ch)->holds, 1);
}

static void mem_release(hermes_channel_t *ch)
{
	ck_assert_int_gt(atomic_fetch_sub(&((mem_t *)ch)->holds, 1), 0);
}

static const hermes_channel_ops_t mem_ops = {
	.send = mem_send, .flush = mem_flush, .hold = mem_hold, .release = mem_release,
};

static void mem_init(mem_t *m)
{
	memset(m, 0, sizeof *m);
	m->ch.ops = &mem_ops;
	atomic_init(&m->holds, 0);
}

static void mem_clear(mem_t *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->msgs[i]);
	m->n = 0;
}

static void on_wake(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&lock);
	wakes++;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

/* ---- the fixture: a session on a fresh workspace ------------------------------------------- */

static char root[4096];
static mem_t chan_a, chan_b; /* chan_a is the default channel */
static hermes_session_t *session;

static void start(hermes_protocol_t protocol)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof root, "%s/hermes-session.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(root));
	mem_init(&chan_a);
	mem_init(&chan_b);
	hermes_session_options_t opts = {.config = {.root = root}, .root_given = true,
	                                 .protocol = protocol, .jobs = 2, .grace_seconds = 1};
	session = hermes_session_new(&opts, &chan_a.ch, on_wake, NULL);
	ck_assert_ptr_nonnull(session);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void stop(void)
{
	hermes_session_free(session);
	session = NULL;
	/* every hold a request or batch took was given back */
	ck_assert_int_eq(atomic_load(&chan_a.holds), 0);
	ck_assert_int_eq(atomic_load(&chan_b.holds), 0);
	mem_clear(&chan_a);
	mem_clear(&chan_b);
	nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Hands text in on ch, as one read of the transport. */
static void feed(mem_t *ch, const char *text)
{
	hermes_session_read_begin(session);
	hermes_session_message(session, &ch->ch, strdup(text), strlen(text));
	hermes_session_read_end(session);
}

/* Waits (10 s at most) until ch has had n messages; returns the n-th (1-based), parsed. */
static cJSON *nth(mem_t *ch, int n)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&lock);
	while (ch->n < n)
		if (pthread_cond_timedwait(&changed, &lock, &until) == ETIMEDOUT)
			break;
	ck_assert_msg(ch->n >= n, "message %d never came (%d so far)", n, ch->n);
	cJSON *v = cJSON_Parse(ch->msgs[n - 1]);
	ck_assert_msg(v != NULL, "not JSON: %s", ch->msgs[n - 1]);
	pthread_mutex_unlock(&lock);
	return v;
}

/* The reply (or batch element) with this id, checked to be JSON-RPC 2.0. */
static int id_of(const cJSON *reply)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(reply, "jsonrpc");
	ck_assert(cJSON_IsString(j) && strcmp(j->valuestring, "2.0") == 0);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(reply, "id");
	return cJSON_IsNumber(id) ? id->valueint : -1;
}

static int error_code(const cJSON *reply)
{
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(reply, "error"), "code");
	return cJSON_IsNumber(code) ? code->valueint : 0;
}

static const cJSON *result(const cJSON *reply)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(reply, "result");
	ck_assert_msg(r != NULL, "no result in %s", cJSON_PrintUnformatted(reply));
	return r;
}

/* Runs the session to its end as a transport's loop would: until finished, sleeping until woken
 * or for the timeout it asks for. */
static void run_to_end(void)
{
	int timeout;
	time_t give_up = time(NULL) + 20;
	while (!hermes_session_finished(session, &timeout)) {
		ck_assert(time(NULL) < give_up);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (timeout < 0 || timeout > 100 ? 100 : timeout) * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_mutex_lock(&lock);
		pthread_cond_timedwait(&changed, &lock, &until);
		pthread_mutex_unlock(&lock);
	}
}

static void initialize(void)
{
	feed(&chan_a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
	cJSON *r = nth(&chan_a, 1);
	ck_assert_int_eq(id_of(r), 1);
	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(result(r), "capabilities");
	ck_assert_ptr_nonnull(caps);
	/* the channel reports no framing: the capability is left out */
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(caps, "framing"));
	cJSON_Delete(r);
	ck_assert_int_eq(hermes_session_protocol(session), HERMES_PROTOCOL_HERMES);
}

static void write_file(const char *name, const char *content)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", root, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(content, f);
	fclose(f);
}

/* ---- the tests ----------------------------------------------------------------------------- */

START_TEST(verb_call_answers_on_its_channel)
{
	start(HERMES_PROTOCOL_AUTO);
	initialize();
	write_file("a.txt", "hello\n");
	feed(&chan_b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"fs.readFile\",\"params\":{\"path\":\"a.txt\"}}");
	feed(&chan_a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"hermes/execute\",\"params\":"
	              "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"a.txt\"}}}");
	cJSON *rb = nth(&chan_b, 1), *ra = nth(&chan_a, 2);
	ck_assert_int_eq(id_of(rb), 2);
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(result(rb), "content");
	ck_assert(cJSON_IsString(content));
	ck_assert_str_eq(content->valuestring, "hello\n");
	ck_assert_int_eq(id_of(ra), 3);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result(ra), "exists")));
	cJSON_Delete(rb);
	cJSON_Delete(ra);
	/* arguments that do not decode: -32602, on the channel of the request */
	feed(&chan_b, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"fs.readFile\",\"params\":{\"path\":7}}");
	rb = nth(&chan_b, 2);
	ck_assert_int_eq(id_of(rb), 4);
	ck_assert_int_eq(error_code(rb), -32602);
	cJSON_Delete(rb);
	pthread_mutex_lock(&lock);
	ck_assert_int_eq(chan_a.n, 2);
	ck_assert_int_eq(chan_b.n, 2);
	pthread_mutex_unlock(&lock);
	stop();
}
END_TEST

START_TEST(batch_is_one_reply)
{
	start(HERMES_PROTOCOL_HERMES);
	initialize();
	feed(&chan_b, "[{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"fs.exists\",\"params\":{\"path\":\"x\"}},"
	              "{\"jsonrpc\":\"2.0\",\"method\":\"fs.exists\",\"params\":{\"path\":\"y\"}},"
	              "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"no/such\"},"
	              "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"hermes/verbs\"}]");
	cJSON *b = nth(&chan_b, 1);
	ck_assert(cJSON_IsArray(b));
	ck_assert_int_eq(cJSON_GetArraySize(b), 3); /* the notification has no reply */
	ck_assert_int_eq(id_of(cJSON_GetArrayItem(b, 0)), 10);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(result(cJSON_GetArrayItem(b, 0)), "exists")));
	ck_assert_int_eq(id_of(cJSON_GetArrayItem(b, 1)), 11);
	ck_assert_int_eq(error_code(cJSON_GetArrayItem(b, 1)), -32601);
	ck_assert_int_eq(id_of(cJSON_GetArrayItem(b, 2)), 12);
	cJSON_Delete(b);
	/* a frame the transport could not read: -32700 with id null, on its channel */
	hermes_session_frame_error(session, &chan_b.ch, -32700, "malformed message header: test");
	b = nth(&chan_b, 2);
	ck_assert_int_eq(id_of(b), -1);
	ck_assert_int_eq(error_code(b), -32700);
	cJSON_Delete(b);
	pthread_mutex_lock(&lock);
	ck_assert_int_eq(chan_a.n, 1); /* only the initialize reply */
	pthread_mutex_unlock(&lock);
	stop();
}
END_TEST

START_TEST(instant_calls_of_a_read_are_gathered)
{
	start(HERMES_PROTOCOL_HERMES);
	initialize();
	hermes_session_read_begin(session);
	for (int i = 0; i < 3; i++) {
		char text[128];
		snprintf(text, sizeof text,
		         "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"fs.exists\",\"params\":{\"path\":\"a\"}}", 20 + i);
		hermes_session_message(session, &chan_b.ch, strdup(text), strlen(text));
	}
	/* run at once, in order, on the reader (no worker: nothing to wait for), their replies
	 * gathered: sent for the transport to hold, not flushed until the read ends */
	pthread_mutex_lock(&lock);
	ck_assert_int_eq(chan_b.n, 3);
	ck_assert_int_eq(chan_b.flushes, 0);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(chan_b.flags[i] & (HERMES_SEND_GATHER | HERMES_SEND_ALONE),
		                  HERMES_SEND_GATHER);
	pthread_mutex_unlock(&lock);
	hermes_session_read_end(session);
	for (int i = 0; i < 3; i++) {
		cJSON *r = nth(&chan_b, i + 1);
		ck_assert_int_eq(id_of(r), 20 + i);
		cJSON_Delete(r);
	}
	pthread_mutex_lock(&lock);
	ck_assert_int_eq(chan_b.flushes, 1);
	pthread_mutex_unlock(&lock);
	stop();
}
END_TEST

/* A read of many instant calls sends their replies a few at a time while it runs (the client
 * takes the first in while the next are made), all of them once, in order. */
START_TEST(instant_replies_of_a_long_read_go_out_as_they_come)
{
	/* 8 at a time with a processor for the client, 64 with one: each early write would wake it
	 * to run in the server's place */
	ck_assert_int_eq(hermes_requests_flush_every(1), 64);
	ck_assert_int_eq(hermes_requests_flush_every(2), 8);
	int every = hermes_requests_flush_every(hermes_processor_count());
	int calls = 2 * every + 3;
	start(HERMES_PROTOCOL_HERMES);
	initialize();
	hermes_session_read_begin(session);
	for (int i = 0; i < calls; i++) {
		char text[128];
		snprintf(text, sizeof text,
		         "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"fs.exists\",\"params\":{\"path\":\"a\"}}", 100 + i);
		hermes_session_message(session, &chan_b.ch, strdup(text), strlen(text));
		pthread_mutex_lock(&lock);
		ck_assert_int_eq(chan_b.flushes, (i + 1) / every);
		pthread_mutex_unlock(&lock);
	}
	hermes_session_read_end(session);
	for (int i = 0; i < calls; i++) {
		cJSON *r = nth(&chan_b, i + 1);
		ck_assert_int_eq(id_of(r), 100 + i);
		cJSON_Delete(r);
	}
	pthread_mutex_lock(&lock);
	ck_assert_int_eq(chan_b.n, calls);
	ck_assert_int_eq(chan_b.flushes, 3);
	pthread_mutex_unlock(&lock);
	stop();
}
END_TEST

START_TEST(cancel_a_running_program)
{
	start(HERMES_PROTOCOL_HERMES);
	initialize();
	feed(&chan_b, "{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"proc.run\",\"params\":"
	              "{\"executable\":\"sleep\",\"arguments\":[\"30\"]}}");
	time_t t0 = time(NULL);
	feed(&chan_a, "{\"jsonrpc\":\"2.0\",\"id\":31,\"method\":\"$/cancelRequest\",\"params\":{\"id\":30}}");
	cJSON *ack = nth(&chan_a, 2);
	ck_assert_int_eq(id_of(ack), 31);
	ck_assert(cJSON_IsNull(result(ack)));
	cJSON_Delete(ack);
	cJSON *r = nth(&chan_b, 1); /* the cancelled request answers on its own channel */
	ck_assert_int_eq(id_of(r), 30);
	ck_assert_int_eq(error_code(r), -32800);
	ck_assert_int_lt(time(NULL) - t0, 10);
	cJSON_Delete(r);
	stop();
}
END_TEST

START_TEST(shutdown_waits_for_the_work_then_exit_ends)
{
	start(HERMES_PROTOCOL_HERMES);
	initialize();
	ck_assert(hermes_session_open(session));
	/* a run that takes a moment, then shutdown: its reply comes first */
	feed(&chan_b, "{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"proc.run\",\"params\":"
	              "{\"executable\":\"sleep\",\"arguments\":[\"0.3\"]}}");
	feed(&chan_a, "{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"shutdown\"}");
	cJSON *run = nth(&chan_b, 1), *sd = nth(&chan_a, 2);
	ck_assert_int_eq(id_of(run), 40);
	ck_assert_ptr_nonnull(result(run));
	ck_assert_int_eq(id_of(sd), 41);
	ck_assert(cJSON_IsNull(result(sd)));
	cJSON_Delete(run);
	cJSON_Delete(sd);
	/* after shutdown: no new work */
	feed(&chan_a, "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"hermes/verbs\"}");
	cJSON *late = nth(&chan_a, 3);
	ck_assert_int_eq(error_code(late), -32600);
	cJSON_Delete(late);
	int timeout;
	ck_assert(!hermes_session_finished(session, &timeout)); /* input still open */
	feed(&chan_a, "{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":\"exit\"}");
	ck_assert(!hermes_session_open(session));
	run_to_end();
	ck_assert_int_eq(hermes_session_exit_status(session), 0);
	stop();
}
END_TEST

START_TEST(end_of_input_finishes)
{
	start(HERMES_PROTOCOL_HERMES);
	initialize();
	feed(&chan_a, "{\"jsonrpc\":\"2.0\",\"id\":50,\"method\":\"proc.run\",\"params\":"
	              "{\"executable\":\"sleep\",\"arguments\":[\"0.2\"]}}");
	hermes_session_eof(session);
	ck_assert(!hermes_session_open(session));
	ck_assert(!hermes_session_may_read(session));
	run_to_end();
	cJSON *r = nth(&chan_a, 2); /* Hermes: the work in flight finished and answered */
	ck_assert_int_eq(id_of(r), 50);
	ck_assert_ptr_nonnull(result(r));
	cJSON_Delete(r);
	ck_assert_int_eq(hermes_session_exit_status(session), 0);
	stop();
}
END_TEST

START_TEST(mcp_tools_call)
{
	start(HERMES_PROTOCOL_AUTO);
	/* AUTO: an initialize with protocolVersion makes the session speak MCP */
	feed(&chan_a, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
	              "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}");
	cJSON *r = nth(&chan_a, 1);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(result(r), "protocolVersion")->valuestring,
	                 "2025-06-18");
	cJSON_Delete(r);
	ck_assert_int_eq(hermes_session_protocol(session), HERMES_PROTOCOL_MCP);
	/* a notification: nothing is sent on its channel, and nothing holds it (an HTTP transport
	 * may end the response as soon as the message is handed in) */
	feed(&chan_b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	pthread_mutex_lock(&lock);
	ck_assert_int_eq(chan_b.n, 0);
	pthread_mutex_unlock(&lock);
	ck_assert_int_eq(atomic_load(&chan_b.holds), 0);
	write_file("m.txt", "mcp\n");
	feed(&chan_b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
	              "{\"name\":\"fs_readFile\",\"arguments\":{\"path\":\"m.txt\"}}}");
	r = nth(&chan_b, 1);
	ck_assert_int_eq(id_of(r), 2);
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(result(r), "structuredContent");
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(sc, "content")->valuestring, "mcp\n");
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(result(r), "isError")));
	cJSON_Delete(r);
	/* Hermes's own methods are not MCP's */
	feed(&chan_b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"hermes/verbs\"}");
	r = nth(&chan_b, 2);
	ck_assert_int_eq(error_code(r), -32601);
	cJSON_Delete(r);
	/* a warning goes to the client as a log notification, on the default channel, marked as no
	 * reply; the error itself answers on the channel of the broken frame */
	hermes_session_frame_error(session, &chan_b.ch, -32700, "malformed message header: test");
	r = nth(&chan_b, 3);
	ck_assert_int_eq(error_code(r), -32700);
	cJSON_Delete(r);
	r = nth(&chan_a, 2);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(r, "method")->valuestring, "notifications/message");
	cJSON_Delete(r);
	pthread_mutex_lock(&lock);
	ck_assert_uint_eq(chan_a.flags[1] & HERMES_SEND_NOTIFICATION, HERMES_SEND_NOTIFICATION);
	ck_assert_uint_eq(chan_b.flags[2] & HERMES_SEND_NOTIFICATION, 0);
	pthread_mutex_unlock(&lock);
	/* progress of a call goes to the channel of the call, ahead of its reply */
	feed(&chan_b, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
	              "{\"name\":\"proc_run\",\"arguments\":{\"executable\":\"sleep\",\"arguments\":[\"0.5\"]},"
	              "\"_meta\":{\"progressToken\":\"p-1\"}}}");
	int progress = 0;
	for (int i = 4;; i++) {
		r = nth(&chan_b, i);
		const cJSON *method = cJSON_GetObjectItemCaseSensitive(r, "method");
		if (method == NULL) {
			ck_assert_int_eq(id_of(r), 5);
			ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(result(r), "isError")));
			cJSON_Delete(r);
			break;
		}
		ck_assert_str_eq(method->valuestring, "notifications/progress");
		ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
			r, "params"), "progressToken")->valuestring, "p-1");
		pthread_mutex_lock(&lock);
		ck_assert_uint_eq(chan_b.flags[i - 1] & HERMES_SEND_NOTIFICATION, HERMES_SEND_NOTIFICATION);
		pthread_mutex_unlock(&lock);
		progress++;
		cJSON_Delete(r);
	}
	ck_assert_int_ge(progress, 1);
	pthread_mutex_lock(&lock);
	ck_assert_int_eq(chan_a.n, 2); /* none of it on the default channel */
	pthread_mutex_unlock(&lock);
	hermes_session_eof(session);
	run_to_end();
	stop();
}
END_TEST

START_TEST(a_lost_client_ends_the_session)
{
	start(HERMES_PROTOCOL_HERMES);
	initialize();
	feed(&chan_a, "{\"jsonrpc\":\"2.0\",\"id\":60,\"method\":\"proc.run\",\"params\":"
	              "{\"executable\":\"sleep\",\"arguments\":[\"30\"]}}");
	time_t t0 = time(NULL);
	hermes_session_client_gone(session);
	ck_assert(!hermes_session_open(session));
	run_to_end();
	ck_assert_int_lt(time(NULL) - t0, 10);
	ck_assert_int_eq(hermes_session_exit_status(session), 1);
	stop();
}
END_TEST

/* ---- a channel whose client reads nothing until told to, counting what it is sent ----------- */

typedef struct stalled {
	hermes_channel_t ch;
	atomic_bool reading;     /* the client reads: no replies wait for it */
	atomic_int sent, holds;
} stalled_t;

static void stalled_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	(void)flags;
	hermes_reply_clear(r);
	atomic_fetch_add(&((stalled_t *)ch)->sent, 1);
}

static size_t stalled_queued(hermes_channel_t *ch)
{
	return atomic_load(&((stalled_t *)ch)->reading) ? 0 : HERMES_SERVER_MAX_QUEUED_BYTES;
}

static bool stalled_wait_room(hermes_channel_t *ch, size_t max, int timeout_ms)
{
	(void)max;
	for (int waited = 0; waited < timeout_ms; waited += 5) {
		if (atomic_load(&((stalled_t *)ch)->reading))
			return true;
		nanosleep(&(struct timespec){0, 5000000}, NULL);
	}
	return atomic_load(&((stalled_t *)ch)->reading);
}

static void stalled_hold(hermes_channel_t *ch)
{
	atomic_fetch_add(&((stalled_t *)ch)->holds, 1);
}

static void stalled_release(hermes_channel_t *ch)
{
	atomic_fetch_sub(&((stalled_t *)ch)->holds, 1);
}

static const hermes_channel_ops_t stalled_ops = {
	.send = stalled_send, .queued = stalled_queued, .wait_room = stalled_wait_room,
	.hold = stalled_hold, .release = stalled_release,
};

/* Two sessions sharing a budget, as the HTTP transport's do: the requests in flight are bounded
 * for the process, not per session (each session could hold 1,024 of them before). */
START_TEST(requests_in_flight_are_bounded_per_process)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof root, "%s/hermes-session.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(root));
	mem_init(&chan_a);
	mem_init(&chan_b);
	stalled_t st = {.ch.ops = &stalled_ops};
	atomic_init(&st.reading, false);
	atomic_init(&st.sent, 0);
	atomic_init(&st.holds, 0);
	hermes_budget_t *budget = hermes_budget_new();
	ck_assert_ptr_nonnull(budget);
	hermes_session_options_t opts = {.config = {.root = root}, .root_given = true,
	                                 .protocol = HERMES_PROTOCOL_HERMES, .jobs = 2,
	                                 .grace_seconds = 1, .no_log_hook = true, .budget = budget};
	hermes_session_t *s[2] = {hermes_session_new(&opts, &chan_a.ch, on_wake, NULL),
	                          hermes_session_new(&opts, &chan_b.ch, on_wake, NULL)};
	ck_assert(s[0] && s[1]);
	/* requests that a worker does not start while their client reads nothing: they stay in
	 * flight, half in each session */
	int n = (int)HERMES_SERVER_MAX_INFLIGHT;
	for (int i = 0; i < n; i++) {
		char msg[160];
		int len = snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":"
		                   "\"fs.lineCount\",\"params\":{\"path\":\"x\"}}", i);
		ck_assert(hermes_session_may_read(s[i % 2]));
		hermes_session_message(s[i % 2], &st.ch, strdup(msg), (size_t)len);
	}
	ck_assert_msg(!hermes_session_may_read(s[0]) && !hermes_session_may_read(s[1]),
	              "%d requests in flight in two sessions, and they still read", n);
	atomic_store(&st.reading, true); /* the client reads: everything is answered */
	time_t give_up = time(NULL) + 20;
	while (atomic_load(&st.sent) < n && time(NULL) < give_up)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	ck_assert_int_eq(atomic_load(&st.sent), n);
	ck_assert(hermes_session_may_read(s[0]) && hermes_session_may_read(s[1]));
	hermes_session_free(s[0]);
	hermes_session_free(s[1]);
	hermes_budget_free(budget);
	ck_assert_int_eq(atomic_load(&st.holds), 0);
	nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

static Suite *session_suite(void)
{
	Suite *s = suite_create("session");
	TCase *tc = tcase_create("session");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, verb_call_answers_on_its_channel);
	tcase_add_test(tc, batch_is_one_reply);
	tcase_add_test(tc, instant_calls_of_a_read_are_gathered);
	tcase_add_test(tc, instant_replies_of_a_long_read_go_out_as_they_come);
	tcase_add_test(tc, cancel_a_running_program);
	tcase_add_test(tc, shutdown_waits_for_the_work_then_exit_ends);
	tcase_add_test(tc, end_of_input_finishes);
	tcase_add_test(tc, mcp_tools_call);
	tcase_add_test(tc, a_lost_client_ends_the_session);
	tcase_add_test(tc, requests_in_flight_are_bounded_per_process);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int failed = check_run(session_suite());
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
