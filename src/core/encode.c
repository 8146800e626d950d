/* core/encode.c: descriptor-driven JSON writer for results (compact or indented). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <hermes/hermes.h>

#include "core/buf.h"
#include "core/encode.h"
#include "core/utf8.h"

typedef struct writer {
	hermes_buf_t buf;
	bool pretty;
	int depth;
	bool first; /* no member written yet at this level */
	hermes_result_sink_t sink; /* NULL: the whole text is built in buf */
	void *sink_ctx;
	bool sink_failed;          /* the sink refused a piece: nothing more is sent */
	const hermes_string_stream_t *stream; /* a field whose string comes from a source, or NULL */
} writer_t;

/* With a sink, the text leaves buf in pieces of about this size: small enough to stay in the
 * cache, big enough that the sink's writes are few. */
#define PIECE ((size_t)256 << 10)
/* A long string is escaped this many bytes at a time (at most 6 times as many out). */
#define SLICE ((size_t)64 << 10)

/* Hands what buf holds to the sink once there is a piece of it (or at the end, if all). */
static void spill(writer_t *w, bool all)
{
	if (!w->sink || w->buf.failed || w->buf.len == 0 || (!all && w->buf.len < PIECE))
		return;
	if (!w->sink_failed && !w->sink(w->sink_ctx, w->buf.data, w->buf.len))
		w->sink_failed = true;
	w->buf.len = 0;
}

static void newline(writer_t *w)
{
	if (!w->pretty)
		return;
	hermes_buf_putc(&w->buf, '\n');
	for (int i = 0; i < w->depth; i++)
		hermes_buf_append(&w->buf, "  ", 2);
}

static void open_(writer_t *w, char c)
{
	hermes_buf_putc(&w->buf, c);
	w->depth++;
	w->first = true;
}

static void close_(writer_t *w, char c)
{
	w->depth--;
	if (!w->first)
		newline(w);
	hermes_buf_putc(&w->buf, c);
	w->first = false;
}

static void item(writer_t *w)
{
	if (!w->first)
		hermes_buf_putc(&w->buf, ',');
	w->first = false;
	newline(w);
}

/* A member's name: one of the table's field names, identifiers that need no escaping (the
 * generator accepts nothing else), so written as they are: the escaper cost a listing as much
 * for its two keys per entry as for the entry's name. */
static void key(writer_t *w, const char *k)
{
	item(w);
	hermes_buf_putc(&w->buf, '"');
	hermes_buf_puts(&w->buf, k);
	hermes_buf_append(&w->buf, w->pretty ? "\": " : "\":", w->pretty ? 3 : 2);
}

/* A string in slices, each spilled before the next: a file's content is never copied whole, and
 * its length is found a slice at a time (strnlen), just before the escaper reads the same bytes
 * (a strlen of 50 MB first was a pass through memory of its own). No valid sequence spans a
 * slice's end, so the escaper sees every one whole. */
static void long_string(writer_t *w, const char *s)
{
	hermes_buf_putc(&w->buf, '"');
	for (;;) {
		size_t cut = strnlen(s, SLICE + 1);
		if (cut > SLICE) {
			cut = hermes_utf8_safe_cut(s, SLICE); /* s[SLICE] is not the NUL */
		} else if (cut == 0) {
			break;
		}
		hermes_buf_json_chars(&w->buf, s, cut);
		spill(w, false);
		s += cut;
	}
	hermes_buf_putc(&w->buf, '"');
}

/* A string taken from its source piece by piece, each escaped and spilled before the next is
 * asked for. A piece longer than a slice is escaped a slice at a time (the pieces' buffer has
 * room for one slice escaped); a source's pieces escaped already go to the sink as they are.
 * Stops early if the sink refused a piece or the source failed. */
static void sourced_string(writer_t *w, const hermes_string_source_t *src)
{
	const char *s;
	size_t n;
	hermes_buf_putc(&w->buf, '"');
	while (!w->sink_failed && src->next(src->ctx, &s, &n) > 0) {
		if (src->escaped && w->sink) { /* handed on as they are, after what came before */
			if (w->buf.failed)
				break;
			spill(w, true);
			if (n > 0 && !w->sink_failed && !w->sink(w->sink_ctx, s, n))
				w->sink_failed = true;
			continue;
		}
		if (src->escaped) {
			hermes_buf_append(&w->buf, s, n);
			continue;
		}
		while (n > 0) {
			size_t cut = n > SLICE ? hermes_utf8_safe_cut(s, SLICE) : n;
			hermes_buf_json_chars(&w->buf, s, cut);
			spill(w, false);
			s += cut;
			n -= cut;
		}
	}
	hermes_buf_putc(&w->buf, '"');
}

static void string_or_null(writer_t *w, const char *s)
{
	if (!s) {
		hermes_buf_puts(&w->buf, "null");
		return;
	}
	size_t n = strnlen(s, SLICE + 1);
	if (w->sink && n > SLICE)
		long_string(w, s);
	else
		hermes_buf_json_string(&w->buf, s, n > SLICE ? n + strlen(s + n) : n);
}

static void object(writer_t *w, const hermes_type_desc_t *desc, const void *obj, bool fields);

static void field(writer_t *w, const hermes_field_desc_t *f, const char *base)
{
	spill(w, false);
	key(w, f->name);
	bool present = f->has_offset == HERMES_NO_OFFSET || *(const bool *)(base + f->has_offset);
	if (!present) {
		hermes_buf_puts(&w->buf, "null");
		return;
	}
	switch (f->kind) {
	case HERMES_KIND_STRING:
		if (w->stream && w->stream->field == (char *const *)(const void *)(base + f->offset))
			sourced_string(w, &w->stream->source);
		else
			string_or_null(w, *(char *const *)(base + f->offset));
		break;
	case HERMES_KIND_INT32:
		hermes_buf_printf(&w->buf, "%" PRId32, *(const int32_t *)(base + f->offset));
		break;
	case HERMES_KIND_INT64:
		hermes_buf_printf(&w->buf, "%" PRId64, *(const int64_t *)(base + f->offset));
		break;
	case HERMES_KIND_BOOL:
		if (*(const bool *)(base + f->offset))
			hermes_buf_append(&w->buf, "true", 4);
		else
			hermes_buf_append(&w->buf, "false", 5);
		break;
	case HERMES_KIND_STRING_LIST:
	case HERMES_KIND_OBJECT_LIST: {
		const char *items = *(char *const *)(base + f->offset);
		size_t n = *(const size_t *)(base + f->count_offset);
		open_(w, '[');
		for (size_t i = 0; items && i < n; i++) {
			spill(w, false);
			item(w);
			if (f->kind == HERMES_KIND_STRING_LIST)
				string_or_null(w, ((char *const *)items)[i]);
			else
				object(w, f->element, items + i * f->element->size, true);
		}
		close_(w, ']');
		break;
	}
	}
}

static void common(writer_t *w, bool succeeded, hermes_errcode_t code, const char *message)
{
	const char *name = succeeded ? NULL : hermes_errcode_name(code);
	if (!succeeded && !name)
		name = "Internal";
	if (!succeeded && !message)
		message = code > 0 && code < HERMES_E__COUNT ? hermes_errcode_descriptions[code]
		                                              : "unknown failure";
	key(w, "succeeded");
	hermes_buf_puts(&w->buf, succeeded ? "true" : "false");
	key(w, "errorMessage");
	string_or_null(w, succeeded ? NULL : message);
	key(w, "errorCode");
	string_or_null(w, name);
}

static void object(writer_t *w, const hermes_type_desc_t *desc, const void *obj, bool fields)
{
	open_(w, '{');
	if (fields)
		for (size_t i = 0; i < desc->field_count; i++)
			field(w, &desc->fields[i], obj);
	if (desc->is_result) {
		const hermes_result_common_t *c = obj;
		common(w, c->succeeded, c->error_code, c->error_message);
	}
	close_(w, '}');
}

char *hermes_encode_result(const hermes_type_desc_t *desc, const void *result, unsigned flags)
{
	writer_t w = { HERMES_BUF_INIT, (flags & HERMES_JSON_PRETTY) != 0, 0, true, NULL, NULL, false,
	               NULL };
	const hermes_result_common_t *c = result;
	object(&w, desc, result, c->succeeded || c->keep_fields);
	return hermes_buf_finish(&w.buf);
}

char *hermes_encode_failure(hermes_errcode_t code, const char *message, unsigned flags)
{
	writer_t w = { HERMES_BUF_INIT, (flags & HERMES_JSON_PRETTY) != 0, 0, true, NULL, NULL, false,
	               NULL };
	open_(&w, '{');
	common(&w, false, code, message);
	close_(&w, '}');
	return hermes_buf_finish(&w.buf);
}

int hermes_encode_result_to(const hermes_type_desc_t *desc, const void *result, unsigned flags,
                            const hermes_string_stream_t *stream, hermes_result_sink_t sink,
                            void *ctx)
{
	writer_t w = { HERMES_BUF_INIT, (flags & HERMES_JSON_PRETTY) != 0, 0, true, sink, ctx, false,
	               stream && stream->field ? stream : NULL };
	/* The pieces' buffer is taken whole before anything is sent, so that running out of memory
	 * later (it does not grow past it) cannot leave half a result written. */
	if (!hermes_buf_reserve(&w.buf, PIECE + SLICE * 6 + 4096))
		return -1;
	const hermes_result_common_t *c = result;
	object(&w, desc, result, c->succeeded || c->keep_fields);
	int rc = w.buf.failed ? -1 : 0;
	spill(&w, true);
	hermes_buf_free(&w.buf);
	return rc == 0 && w.sink_failed ? -2 : rc;
}
