/* core/encode.c: descriptor-driven JSON writer for results (compact or indented). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <hermes/hermes.h>

#include "core/buf.h"
#include "core/encode.h"

typedef struct writer {
	hermes_buf_t buf;
	bool pretty;
	int depth;
	bool first; /* no member written yet at this level */
} writer_t;

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

static void string_or_null(writer_t *w, const char *s)
{
	if (s)
		hermes_buf_json_string(&w->buf, s, strlen(s));
	else
		hermes_buf_puts(&w->buf, "null");
}

static void object(writer_t *w, const hermes_type_desc_t *desc, const void *obj, bool fields);

static void field(writer_t *w, const hermes_field_desc_t *f, const char *base)
{
	key(w, f->name);
	bool present = f->has_offset == HERMES_NO_OFFSET || *(const bool *)(base + f->has_offset);
	if (!present) {
		hermes_buf_puts(&w->buf, "null");
		return;
	}
	switch (f->kind) {
	case HERMES_KIND_STRING:
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
	writer_t w = { HERMES_BUF_INIT, (flags & HERMES_JSON_PRETTY) != 0, 0, true };
	const hermes_result_common_t *c = result;
	object(&w, desc, result, c->succeeded || c->keep_fields);
	return hermes_buf_finish(&w.buf);
}

char *hermes_encode_failure(hermes_errcode_t code, const char *message, unsigned flags)
{
	writer_t w = { HERMES_BUF_INIT, (flags & HERMES_JSON_PRETTY) != 0, 0, true };
	open_(&w, '{');
	common(&w, false, code, message);
	close_(&w, '}');
	return hermes_buf_finish(&w.buf);
}
