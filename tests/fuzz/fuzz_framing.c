/* tests/fuzz/fuzz_framing.c: the bytes a client sends to hermes serve, cut into messages by the
 * framer (Content-Length headers or lines, in two pieces at a place the input chooses), each
 * message read by the bounded JSON reader and classified as a JSON-RPC request, notification,
 * response or invalid message, batch elements included. Nothing may crash, hang or leak, a
 * message is never longer than the limit, and a classified request has what it needs. Half the
 * inputs are fed as the server's reader feeds them when it has no room for more: the sink pauses
 * the framer after every message, and the rest of the read is fed again until it is consumed. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "fuzz/fuzz.h"
#include "transport/stdio/framing.h"
#include "rpc/jsonrpc.h"

#define MAX_MESSAGE 65536

static void classify(const hermes_json_t *obj, const char *text)
{
	hermes_rpc_message_t m;
	hermes_rpc_kind_t kind = hermes_rpc_parse(obj, text, &m);
	if (kind == HERMES_RPC_REQUEST || kind == HERMES_RPC_NOTIFICATION) {
		FUZZ_ASSERT(m.method != NULL && strlen(m.method) < MAX_MESSAGE);
		FUZZ_ASSERT((kind == HERMES_RPC_REQUEST) == (m.id != NULL));
	}
	if (kind == HERMES_RPC_INVALID)
		FUZZ_ASSERT(m.why[0] != '\0' && m.code < 0);
	if (m.id && strcmp(m.id, "null") != 0)
		FUZZ_ASSERT(m.id_key != NULL && m.id_key_len > 0);
	hermes_rpc_message_clear(&m);
}

static hermes_framer_t *pausing; /* set: the sink pauses this framer after every message */
static int delivered;

static void on_message(void *ctx, char *body, size_t len)
{
	(void)ctx;
	delivered++;
	if (pausing)
		hermes_framer_pause(pausing);
	FUZZ_ASSERT(len <= MAX_MESSAGE && body[len] == '\0');
	hermes_json_doc_t *doc = NULL;
	size_t end;
	if (hermes_json_parse_bounded(body, len, 512, 4096, &doc, &end, NULL) == 0) {
		const hermes_json_t *root = hermes_json_root(doc);
		if (root->type == HERMES_JSON_ARRAY) {
			for (const hermes_json_t *e = root->child; e; e = e->next)
				classify(e, body);
		} else {
			classify(root, body);
		}
		hermes_json_doc_free(doc);
	}
	free(body);
}

static void on_error(void *ctx, int code, const char *message)
{
	(void)ctx;
	FUZZ_ASSERT((code == -32700 || code == -32600) && message[0] != '\0');
}

/* Feeds all of text, again after every pause: a feed that stopped short stopped after a message
 * (one), and every feed consumes something. */
static void feed(hermes_framer_t *f, const char *text, size_t n, const hermes_frame_sink_t *sink)
{
	while (n > 0) {
		int before = delivered;
		size_t used = hermes_framer_feed(f, text, n, sink);
		FUZZ_ASSERT(used > 0 && used <= n);
		FUZZ_ASSERT(used == n || (pausing && delivered == before + 1));
		text += used;
		n -= used;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	/* the first byte: the framing asked for, and where the input is cut in two reads */
	hermes_framing_t mode = (hermes_framing_t)(data[0] % 3);
	size_t cut = size > 1 ? (size_t)data[0] * (size - 1) / 255 : 0;
	const char *text = (const char *)data + 1;
	size -= 1;
	if (cut > size)
		cut = size;
	hermes_framer_t f;
	hermes_framer_init(&f, mode, MAX_MESSAGE);
	hermes_frame_sink_t sink = {on_message, on_error, NULL};
	pausing = size % 2 ? &f : NULL;
	feed(&f, text, cut, &sink);
	feed(&f, text + cut, size - cut, &sink);
	hermes_framer_eof(&f, &sink);
	pausing = NULL;
	hermes_framer_clear(&f);
	return 0;
}
