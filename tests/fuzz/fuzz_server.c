/* tests/fuzz/fuzz_server.c: a whole session of hermes serve, as a client would have it. The input
 * is written to the server's standard input (then closed) while its replies are read from its
 * standard output; the server runs for real (framing, the JSON-RPC and MCP method tables,
 * initialize, batches, cancellation, shutdown and exit, the worker pool, the verbs on a scratch
 * workspace), with proc.* turned off so that nothing outside the workspace is run. The first
 * byte picks the protocol (auto, hermes or MCP) and the framing.
 * Nothing may crash, hang or leak; the server ends with status 0 or 1; everything it writes is
 * well-framed JSON-RPC 2.0 (each message a JSON object or a batch array of them, with
 * "jsonrpc": "2.0"). */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "fuzz/fuzz.h"
#include "session/server.h"

#define MAX_MESSAGE (1 << 20)

static const char *root; /* the workspace (fuzz_workdir) */

typedef struct feed {
	int fd;
	const uint8_t *data;
	size_t size;
} feed_t;

static void *write_input(void *arg)
{
	feed_t *f = arg;
	size_t off = 0;
	while (off < f->size) {
		ssize_t w = write(f->fd, f->data + off, f->size - off);
		if (w <= 0)
			break; /* the server stopped reading (exit): the rest is never read */
		off += (size_t)w;
	}
	close(f->fd);
	return NULL;
}

typedef struct drain {
	int fd;
	hermes_buf_t out;
} drain_t;

static void *read_output(void *arg)
{
	drain_t *d = arg;
	char chunk[65536];
	ssize_t r;
	while ((r = read(d->fd, chunk, sizeof chunk)) > 0)
		hermes_buf_append(&d->out, chunk, (size_t)r);
	FUZZ_ASSERT(!d->out.failed);
	close(d->fd);
	return NULL;
}

static void check_message(const char *text, size_t len)
{
	hermes_json_doc_t *doc = NULL;
	size_t end;
	FUZZ_ASSERT(hermes_json_parse(text, len, 512, &doc, &end, NULL) == 0);
	while (end < len && strchr(" \t\r\n", text[end]))
		end++;
	FUZZ_ASSERT(end == len); /* one message, nothing after it */
	const hermes_json_t *v = hermes_json_root(doc);
	if (v->type == HERMES_JSON_ARRAY) {
		FUZZ_ASSERT(v->child != NULL); /* an empty batch is answered by one error, not [] */
		v = v->child;
	}
	for (; v; v = v->next) {
		FUZZ_ASSERT(v->type == HERMES_JSON_OBJECT);
		const hermes_json_t *j = hermes_json_member(v, "jsonrpc");
		FUZZ_ASSERT(j && j->type == HERMES_JSON_STRING && strcmp(j->str, "2.0") == 0);
		if (hermes_json_root(doc)->type != HERMES_JSON_ARRAY)
			break;
	}
	hermes_json_doc_free(doc);
}

/* Everything the server wrote: Content-Length framed or one message per line. */
static void check_output(const char *p, size_t n)
{
	while (n > 0) {
		if (n >= 15 && memcmp(p, "Content-Length:", 15) == 0) {
			const char *hdr_end = memmem(p, n, "\r\n\r\n", 4);
			FUZZ_ASSERT(hdr_end != NULL);
			size_t body = strtoul(p + 15, NULL, 10);
			size_t head = (size_t)(hdr_end - p) + 4;
			FUZZ_ASSERT(body <= n - head);
			check_message(p + head, body);
			p += head + body;
			n -= head + body;
		} else {
			const char *nl = memchr(p, '\n', n);
			FUZZ_ASSERT(nl != NULL); /* a line-framed message always ends with its newline */
			check_message(p, (size_t)(nl - p));
			n -= (size_t)(nl - p) + 1;
			p = nl + 1;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned runs;
	if (size == 0)
		return 0;
	if (!root) {
		root = fuzz_workdir("server");
		signal(SIGPIPE, SIG_IGN); /* input left unread when the session ends (exit) */
	}
	if (++runs % 64 == 0) /* what the sessions wrote: start again from an empty workspace */
		fuzz_workdir_empty();

	int in[2], out[2];
	FUZZ_ASSERT(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0);
	hermes_server_options_t opts;
	memset(&opts, 0, sizeof opts);
	opts.config.root = root;
	opts.config.deny = "proc.*";
	opts.root_given = true;
	opts.protocol = (hermes_protocol_t)(data[0] % 3);
	opts.framing = (hermes_framing_t)(data[0] / 3 % 3);
	opts.max_message_bytes = MAX_MESSAGE;
	opts.jobs = 2;
	opts.grace_seconds = 1;
	opts.log_level = HERMES_LOG_ERROR;
	opts.in_fd = in[0];
	opts.out_fd = out[1];

	feed_t f = {in[1], data + 1, size - 1};
	drain_t d = {out[0], HERMES_BUF_INIT};
	pthread_t writer, reader;
	FUZZ_ASSERT(pthread_create(&writer, NULL, write_input, &f) == 0);
	FUZZ_ASSERT(pthread_create(&reader, NULL, read_output, &d) == 0);
	int status = hermes_server_run(&opts);
	close(in[0]);  /* the server works on duplicates: these are ours */
	close(out[1]); /* the reader sees the end once the server's copy is closed too */
	pthread_join(writer, NULL);
	pthread_join(reader, NULL);
	FUZZ_ASSERT(status == 0 || status == 1);
	if (getenv("FUZZ_SERVER_SHOW")) /* to see what a corpus file does */
		fprintf(stderr, "status %d\n%.*s\n", status, (int)d.out.len, d.out.data ? d.out.data : "");
	check_output(d.out.data ? d.out.data : "", d.out.len);
	hermes_buf_free(&d.out);
	return 0;
}
