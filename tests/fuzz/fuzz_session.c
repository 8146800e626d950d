/* tests/fuzz/fuzz_session.c: a session driven through its API (session/session.h) with no transport
 * and no threads of its own: the input is framed as hermes serve frames stdin (same corpus and
 * first byte as fuzz_server: protocol and framing), and its messages go in on two channels in
 * turn, as an HTTP transport with two connections would hand them in. Nothing may crash, hang or
 * leak; every message sent on either channel is JSON-RPC 2.0 (an object, or a batch array of
 * them); once the session is over, every hold on a channel has been released. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/json.h"
#include "fuzz/fuzz.h"
#include "transport/stdio/framing.h"
#include "rpc/log.h"
#include "session/session.h"

#define MAX_MESSAGE (1 << 20)
#define READ_SIZE 4096

typedef struct chan {
	hermes_channel_t ch;
	atomic_int holds;
	atomic_size_t sent;
} chan_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t woken = PTHREAD_COND_INITIALIZER;

/* One message body: a JSON object with "jsonrpc": "2.0", or a non-empty array of them. */
static void check_body(const char *text, size_t len)
{
	hermes_json_doc_t *doc = NULL;
	size_t end;
	FUZZ_ASSERT(hermes_json_parse(text, len, 512, &doc, &end, NULL) == 0);
	FUZZ_ASSERT(end == len);
	const hermes_json_t *v = hermes_json_root(doc);
	bool batch = v->type == HERMES_JSON_ARRAY;
	if (batch) {
		FUZZ_ASSERT(v->child != NULL);
		v = v->child;
	}
	for (; v; v = batch ? v->next : NULL) {
		FUZZ_ASSERT(v->type == HERMES_JSON_OBJECT);
		const hermes_json_t *j = hermes_json_member(v, "jsonrpc");
		FUZZ_ASSERT(j && j->type == HERMES_JSON_STRING && strcmp(j->str, "2.0") == 0);
	}
	hermes_json_doc_free(doc);
}

static void chan_send(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags)
{
	(void)flags;
	size_t len = hermes_reply_length(r);
	char *body = malloc(len + 1), *p = body;
	FUZZ_ASSERT(body != NULL);
	for (int i = 0; i < 2; i++) {
		memcpy(p, r->part[i] ? r->part[i] : "", r->len[i]);
		p += r->len[i];
	}
	strcpy(p, r->tail ? r->tail : "");
	hermes_reply_clear(r);
	check_body(body, len);
	free(body);
	atomic_fetch_add(&((chan_t *)ch)->sent, 1);
}

static void chan_hold(hermes_channel_t *ch)
{
	atomic_fetch_add(&((chan_t *)ch)->holds, 1);
}

static void chan_release(hermes_channel_t *ch)
{
	FUZZ_ASSERT(atomic_fetch_sub(&((chan_t *)ch)->holds, 1) > 0);
}

static const hermes_channel_ops_t ops = {.send = chan_send, .hold = chan_hold, .release = chan_release};

static void on_wake(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&lock);
	pthread_cond_broadcast(&woken);
	pthread_mutex_unlock(&lock);
}

/* The framer's sink: messages on the two channels in turn. */
typedef struct feed {
	hermes_session_t *s;
	chan_t *chan[2];
	unsigned n;
} feed_t;

static void on_message(void *ctx, char *body, size_t len)
{
	feed_t *f = ctx;
	hermes_session_message(f->s, &f->chan[f->n++ % 2]->ch, body, len);
}

static void on_error(void *ctx, int code, const char *message)
{
	feed_t *f = ctx;
	hermes_session_frame_error(f->s, &f->chan[f->n++ % 2]->ch, code, message);
}

static const char *root; /* the workspace (fuzz_workdir) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned runs;
	if (size == 0)
		return 0;
	if (!root)
		root = fuzz_workdir("session");
	if (++runs % 64 == 0) /* what the sessions wrote: start again from an empty workspace */
		fuzz_workdir_empty();

	chan_t a = {.ch = {&ops}}, b = {.ch = {&ops}};
	atomic_init(&a.holds, 0);
	atomic_init(&b.holds, 0);
	atomic_init(&a.sent, 0);
	atomic_init(&b.sent, 0);
	hermes_session_options_t opts = {
		.config = {.root = root, .deny = "proc.*"},
		.root_given = true,
		.protocol = (hermes_protocol_t)(data[0] % 3),
		.jobs = 2,
		.grace_seconds = 1,
	};
	hermes_log_set_level(HERMES_LOG_ERROR);
	hermes_session_t *s = hermes_session_new(&opts, &a.ch, on_wake, NULL);
	FUZZ_ASSERT(s != NULL);
	hermes_framer_t framer;
	hermes_framer_init(&framer, (hermes_framing_t)(data[0] / 3 % 3), MAX_MESSAGE);
	feed_t f = {s, {&a, &b}, 0};
	hermes_frame_sink_t sink = {on_message, on_error, &f};

	/* read by read, as a transport would, while the session takes input */
	size_t off = 1;
	while (off < size && hermes_session_open(s)) {
		size_t n = size - off < READ_SIZE ? size - off : READ_SIZE;
		hermes_session_read_begin(s);
		hermes_framer_feed(&framer, (const char *)data + off, n, &sink);
		hermes_session_read_end(s);
		off += n;
	}
	if (hermes_session_open(s)) {
		hermes_framer_eof(&framer, &sink);
		hermes_session_eof(s);
	}
	hermes_framer_clear(&framer);
	int timeout;
	time_t give_up = time(NULL) + 60;
	while (!hermes_session_finished(s, &timeout)) {
		FUZZ_ASSERT(time(NULL) < give_up); /* a hang */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 50 * 1000000L; /* the wake-up may come before the wait: poll too */
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_mutex_lock(&lock);
		pthread_cond_timedwait(&woken, &lock, &until);
		pthread_mutex_unlock(&lock);
	}
	int status = hermes_session_exit_status(s);
	FUZZ_ASSERT(status == 0 || status == 1);
	hermes_session_end(s);
	FUZZ_ASSERT(atomic_load(&a.holds) == 0 && atomic_load(&b.holds) == 0);
	hermes_session_free(s);
	if (getenv("FUZZ_SESSION_SHOW"))
		fprintf(stderr, "status %d, %zu message(s) on a, %zu on b\n", status,
		        atomic_load(&a.sent), atomic_load(&b.sent));
	return 0;
}
