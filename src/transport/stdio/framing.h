/* transport/stdio/framing.h: cutting the input byte stream into messages (Content-Length headers or
 * one JSON text per line) and framing replies the same way. Pure: no I/O, so it is unit-tested
 * alone. */
#ifndef HERMES_SERVER_FRAMING_H
#define HERMES_SERVER_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/server.h"

/* What the reader hands on. For a message, body is malloc'd, NUL-terminated, len bytes long and
 * owned by the callee from then on. For an error, body is NULL and message says what was wrong
 * (a JSON-RPC code of -32700 for a broken frame, -32600 for a frame over the size limit). */
typedef struct hermes_frame_sink {
	void (*message)(void *ctx, char *body, size_t len);
	void (*error)(void *ctx, int code, const char *message);
	void *ctx;
} hermes_frame_sink_t;

typedef struct hermes_framer {
	hermes_framing_t mode;   /* AUTO until the first non-blank byte decides */
	int64_t max;             /* largest message body accepted */
	int state;
	/* Content-Length headers of the message being read */
	char header[8192];       /* the current header line */
	size_t header_len;
	size_t header_total;     /* bytes of the whole header block so far */
	int header_lines;        /* complete header lines seen */
	int64_t content_length;  /* -1 until seen */
	size_t resync_match;     /* bytes of "content-length:" matched while resynchronising */
	/* the body (or NDJSON line) being read */
	char *body;
	size_t body_len, body_cap;
	uint64_t skip;           /* bytes still to discard of an oversized body */
	uint64_t messages;       /* statistics: messages handed on */
	bool paused;             /* the sink asked for no more messages (hermes_framer_pause) */
} hermes_framer_t;

void hermes_framer_init(hermes_framer_t *f, hermes_framing_t mode, int64_t max_message_bytes);
/* Frees any partial message. */
void hermes_framer_clear(hermes_framer_t *f);
/* Consumes the len bytes, calling the sink for every complete message or broken frame, until all
 * are consumed or the sink paused the framer (hermes_framer_pause): returns the bytes consumed,
 * the caller feeds the rest later. */
size_t hermes_framer_feed(hermes_framer_t *f, const char *buf, size_t len,
                          const hermes_frame_sink_t *sink);
/* Called by the sink: hermes_framer_feed returns after the message just handed on (the reader
 * has no room for more: its bounds are looked at after every message, not every read). */
static inline void hermes_framer_pause(hermes_framer_t *f)
{
	f->paused = true;
}
/* End of input: a message cut short is reported (an unterminated last NDJSON line is a message). */
void hermes_framer_eof(hermes_framer_t *f, const hermes_frame_sink_t *sink);

/* The header to put before a body of len bytes in mode (AUTO is treated as Content-Length):
 * written to out (at least 40 bytes), returns its length; 0 for NDJSON, which needs none. */
size_t hermes_frame_header(hermes_framing_t mode, size_t len, char *out);
/* The trailer after a body: "\n" for NDJSON, "" otherwise. */
const char *hermes_frame_trailer(hermes_framing_t mode);

#endif
