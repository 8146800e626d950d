/* transport/stdio/framing.c: the input side of the transport. A small state machine that never
 * buffers more than one message (and not even that for an oversized one), reports broken frames,
 * and finds its way back to the next "Content-Length:" header after one. */
#include <config.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/stdio/framing.h"

enum {
	ST_DETECT,    /* auto: waiting for the first non-blank byte */
	ST_HEADER,    /* reading Content-Length header lines */
	ST_BODY,      /* reading content_length bytes into body */
	ST_SKIP,      /* discarding an oversized body */
	ST_RESYNC,    /* after a broken header: looking for "Content-Length:" */
	ST_LINE,      /* NDJSON: reading a line into body */
	ST_LINE_SKIP  /* NDJSON: discarding the rest of an oversized line */
};

static const char resync_pattern[] = "content-length:";
#define RESYNC_LEN (sizeof resync_pattern - 1)

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

void hermes_framer_init(hermes_framer_t *f, hermes_framing_t mode, int64_t max_message_bytes)
{
	memset(f, 0, sizeof *f);
	f->mode = mode;
	f->max = max_message_bytes > 0 ? max_message_bytes : HERMES_SERVER_DEFAULT_MAX_MESSAGE_BYTES;
	f->content_length = -1;
	f->state = mode == HERMES_FRAMING_AUTO ? ST_DETECT
	         : mode == HERMES_FRAMING_NDJSON ? ST_LINE : ST_HEADER;
}

static void drop_body(hermes_framer_t *f)
{
	free(f->body);
	f->body = NULL;
	f->body_len = f->body_cap = 0;
}

void hermes_framer_clear(hermes_framer_t *f)
{
	drop_body(f);
}

static void start_header(hermes_framer_t *f)
{
	f->state = ST_HEADER;
	f->header_len = 0;
	f->header_total = 0;
	f->header_lines = 0;
	f->content_length = -1;
}

static void broken_header(hermes_framer_t *f, const hermes_frame_sink_t *sink, const char *why)
{
	char msg[256];
	snprintf(msg, sizeof msg, "malformed message header: %s", why);
	sink->error(sink->ctx, -32700, msg);
	f->state = ST_RESYNC;
	f->resync_match = 0;
	/* header_len is kept: the broken line may itself hold the next header (see retry_in_line) */
}

static void oversized(hermes_framer_t *f, const hermes_frame_sink_t *sink, int64_t size)
{
	char msg[256];
	if (size >= 0)
		snprintf(msg, sizeof msg, "message of %lld bytes is larger than the limit of %lld bytes "
		         "(--max-message-bytes); it was skipped", (long long)size, (long long)f->max);
	else
		snprintf(msg, sizeof msg, "message is larger than the limit of %lld bytes "
		         "(--max-message-bytes); it was skipped", (long long)f->max);
	sink->error(sink->ctx, -32600, msg);
}

/* Hands body[0..len) on; the framer forgets it. */
static void deliver(hermes_framer_t *f, const hermes_frame_sink_t *sink)
{
	char *body = f->body;
	size_t len = f->body_len;
	f->body = NULL;
	f->body_len = f->body_cap = 0;
	body[len] = '\0';
	f->messages++;
	sink->message(sink->ctx, body, len);
}

static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* One complete header line (without its line ending). Returns false if it was broken (reported). */
static bool header_line(hermes_framer_t *f, const hermes_frame_sink_t *sink)
{
	char *line = f->header;
	size_t len = f->header_len;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len == 0) {
		if (f->header_lines == 0) {
			f->header_total = 0; /* a blank line between messages */
			return true;
		}
		if (f->content_length < 0) {
			broken_header(f, sink, "no Content-Length header");
			return false;
		}
		if (f->content_length > f->max) {
			oversized(f, sink, f->content_length);
			f->skip = (uint64_t)f->content_length;
			f->state = ST_SKIP;
			return true;
		}
		f->body = malloc((size_t)f->content_length + 1);
		if (f->body == NULL) {
			sink->error(sink->ctx, -32603, "out of memory reading a message; it was skipped");
			f->skip = (uint64_t)f->content_length;
			f->state = ST_SKIP;
			return true;
		}
		f->body_len = 0;
		f->body_cap = (size_t)f->content_length;
		f->state = ST_BODY;
		if (f->content_length == 0) {
			deliver(f, sink);
			start_header(f);
		}
		return true;
	}
	size_t colon = 0;
	while (colon < len && line[colon] != ':')
		colon++;
	if (colon == len) {
		broken_header(f, sink, "a header line without ':'");
		return false;
	}
	if (colon == 0) {
		broken_header(f, sink, "a header line with an empty name");
		return false;
	}
	for (size_t i = 0; i < colon; i++) {
		if (!is_tchar((unsigned char)line[i])) {
			broken_header(f, sink, "a header name with a character that is not allowed");
			return false;
		}
	}
	size_t v = colon + 1, ve = len;
	while (v < ve && (line[v] == ' ' || line[v] == '\t'))
		v++;
	while (ve > v && (line[ve - 1] == ' ' || line[ve - 1] == '\t'))
		ve--;
	for (size_t i = v; i < ve; i++) {
		unsigned char c = (unsigned char)line[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			broken_header(f, sink, "a header value with a control character");
			return false;
		}
	}
	f->header_lines++;
	if (colon == 14 && strncasecmp(line, "Content-Length", 14) == 0) {
		if (v == ve || ve - v > 18) {
			broken_header(f, sink, "Content-Length is not a decimal number of bytes");
			return false;
		}
		int64_t n = 0;
		for (size_t i = v; i < ve; i++) {
			if (line[i] < '0' || line[i] > '9') {
				broken_header(f, sink, "Content-Length is not a decimal number of bytes");
				return false;
			}
			n = n * 10 + (line[i] - '0');
		}
		if (f->content_length >= 0 && f->content_length != n) {
			broken_header(f, sink, "two different Content-Length headers");
			return false;
		}
		f->content_length = n;
	}
	/* Content-Type and any other header: accepted and ignored. */
	return true;
}

/* A header line was broken: if the next message's "Content-Length:" starts later in that very
 * line (a body one byte too long runs into the next header), start over from there. */
static void retry_in_line(hermes_framer_t *f, const hermes_frame_sink_t *sink)
{
	for (;;) {
		size_t len = f->header_len, q = 1;
		while (q + RESYNC_LEN <= len && strncasecmp(f->header + q, resync_pattern, RESYNC_LEN) != 0)
			q++;
		if (q + RESYNC_LEN > len) {
			f->header_len = 0;
			return;
		}
		memmove(f->header, f->header + q, len - q);
		start_header(f);
		f->header_len = f->header_total = len - q;
		if (header_line(f, sink)) {
			f->header_len = 0;
			return;
		}
	}
}

size_t hermes_framer_feed(hermes_framer_t *f, const char *buf, size_t len,
                          const hermes_frame_sink_t *sink)
{
	const char *p = buf, *end = buf + len;
	f->paused = false;
	while (p < end && !f->paused) {
		switch (f->state) {
		case ST_DETECT:
			while (p < end && is_blank(*p))
				p++;
			if (p == end)
				break;
			/* A header starts with a letter ("Content-Length:"); anything else is JSON. */
			if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) {
				f->mode = HERMES_FRAMING_CONTENT_LENGTH;
				start_header(f);
			} else {
				f->mode = HERMES_FRAMING_NDJSON;
				f->state = ST_LINE;
			}
			break;
		case ST_HEADER:
			while (p < end && f->state == ST_HEADER && !f->paused) {
				char c = *p++;
				if (f->header_lines == 0 && f->header_len == 0 && (c == ' ' || c == '\t'))
					continue; /* blanks between messages */
				if (c == '\n') {
					if (header_line(f, sink))
						f->header_len = 0;
					else if (f->state == ST_RESYNC)
						retry_in_line(f, sink);
					continue;
				}
				if (++f->header_total > sizeof f->header - 1) {
					broken_header(f, sink, "the header is longer than 8 KiB");
					break;
				}
				f->header[f->header_len++] = c;
			}
			break;
		case ST_BODY: {
			size_t want = f->body_cap - f->body_len;
			size_t n = (size_t)(end - p) < want ? (size_t)(end - p) : want;
			memcpy(f->body + f->body_len, p, n);
			f->body_len += n;
			p += n;
			if (f->body_len == f->body_cap) {
				deliver(f, sink);
				start_header(f);
			}
			break;
		}
		case ST_SKIP: {
			uint64_t n = (uint64_t)(end - p) < f->skip ? (uint64_t)(end - p) : f->skip;
			p += n;
			f->skip -= n;
			if (f->skip == 0)
				start_header(f);
			break;
		}
		case ST_RESYNC:
			while (p < end) {
				char c = *p++;
				if (c >= 'A' && c <= 'Z')
					c = (char)(c - 'A' + 'a');
				if (c == resync_pattern[f->resync_match]) {
					if (++f->resync_match == RESYNC_LEN) {
						start_header(f);
						memcpy(f->header, "Content-Length:", RESYNC_LEN);
						f->header_len = f->header_total = RESYNC_LEN;
						break;
					}
				} else {
					/* 'c' occurs only at the start of the pattern, so no other restart point */
					f->resync_match = c == resync_pattern[0] ? 1 : 0;
				}
			}
			break;
		case ST_LINE: {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = (size_t)((nl ? nl : end) - p);
			if ((uint64_t)f->body_len + n > (uint64_t)f->max) {
				drop_body(f);
				oversized(f, sink, -1);
				f->state = ST_LINE_SKIP;
				break;
			}
			if (nl && f->body_len == 0) {
				/* the whole line is in this read (nearly always): a block of its size */
				const char *s = p, *e = nl;
				p = nl + 1;
				while (s < e && is_blank(*s))
					s++;
				while (e > s && is_blank(e[-1]))
					e--;
				if (s == e)
					break;
				char *body = malloc((size_t)(e - s) + 1);
				if (body == NULL) {
					sink->error(sink->ctx, -32603, "out of memory reading a message; it was skipped");
					break;
				}
				memcpy(body, s, (size_t)(e - s));
				drop_body(f);
				f->body = body;
				f->body_len = (size_t)(e - s);
				f->body_cap = f->body_len + 1;
				deliver(f, sink);
				break;
			}
			if (f->body_len + n + 1 > f->body_cap) {
				size_t cap = f->body_cap ? f->body_cap : 256;
				while (cap < f->body_len + n + 1)
					cap *= 2;
				char *nb = realloc(f->body, cap);
				if (nb == NULL) {
					drop_body(f);
					sink->error(sink->ctx, -32603, "out of memory reading a message; it was skipped");
					f->state = ST_LINE_SKIP;
					break;
				}
				f->body = nb;
				f->body_cap = cap;
			}
			memcpy(f->body + f->body_len, p, n);
			f->body_len += n;
			p += n;
			if (nl) {
				p++;
				size_t s = 0, e = f->body_len;
				while (s < e && is_blank(f->body[s]))
					s++;
				while (e > s && is_blank(f->body[e - 1]))
					e--;
				if (s == e) {
					f->body_len = 0; /* blank line: keep the buffer */
				} else {
					if (s > 0)
						memmove(f->body, f->body + s, e - s);
					f->body_len = e - s;
					deliver(f, sink);
				}
			}
			break;
		}
		case ST_LINE_SKIP: {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			if (nl) {
				p = nl + 1;
				f->state = ST_LINE;
			} else {
				p = end;
			}
			break;
		}
		}
	}
	return (size_t)(p - buf);
}

void hermes_framer_eof(hermes_framer_t *f, const hermes_frame_sink_t *sink)
{
	char msg[256];
	switch (f->state) {
	case ST_HEADER:
		if (f->header_lines > 0 || (f->header_len > 0 && !(f->header_len == 1 && f->header[0] == '\r')))
			sink->error(sink->ctx, -32700, "end of input inside a message header");
		break;
	case ST_BODY:
		snprintf(msg, sizeof msg, "end of input after %zu of the %zu bytes of a message",
		         f->body_len, f->body_cap);
		sink->error(sink->ctx, -32700, msg);
		drop_body(f);
		break;
	case ST_LINE:
		if (f->body_len > 0)
			hermes_framer_feed(f, "\n", 1, sink);
		break;
	default:
		break;
	}
	drop_body(f);
}

size_t hermes_frame_header(hermes_framing_t mode, size_t len, char *out)
{
	if (mode == HERMES_FRAMING_NDJSON)
		return 0;
	return (size_t)sprintf(out, "Content-Length: %zu\r\n\r\n", len);
}

const char *hermes_frame_trailer(hermes_framing_t mode)
{
	return mode == HERMES_FRAMING_NDJSON ? "\n" : "";
}
