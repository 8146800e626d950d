/* core/decode_json.c: JSON arguments (a tree from core/json.c) → the verb's argument struct,
 * strictly: case-sensitive keys, no duplicates, no unknown keys, exact types, integers written as
 * integers and in range, no NUL byte in any string. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/decode.h"
#include "core/json.h"
#include "core/utf8.h"
#include "core/verb.h"

#define MAX_FIELDS 64

/* Where a decoding error points: the value that was wrong, when the text is known. */
typedef struct ctx {
	const char *verb;
	const char *prefix;  /* "arguments." or "" before field names in err->field */
	const char *text;    /* the JSON text the tree was read from, or NULL */
	hermes_error_t *err;
} ctx_t;

static void locate(const ctx_t *c, const hermes_json_t *v)
{
	if (c->err && c->text && v)
		hermes_text_position(c->text, v->start, &c->err->line, &c->err->column);
}

static void set_field(const ctx_t *c, const char *path)
{
	if (c->err)
		snprintf(c->err->field, sizeof c->err->field, "%s%s", c->prefix, path);
}

/* How a JSON value is described in "expected X, got Y". */
static void describe(const hermes_json_t *v, char *buf, size_t size)
{
	switch (v->type) {
	case HERMES_JSON_STRING:
		if (v->len > 40)
			snprintf(buf, size, "string \"%.37s...\"", v->str);
		else
			snprintf(buf, size, "string \"%s\"", v->str);
		break;
	case HERMES_JSON_NUMBER:
		snprintf(buf, size, v->len > 40 ? "number %.37s..." : "number %s", v->str);
		break;
	case HERMES_JSON_TRUE: snprintf(buf, size, "boolean true"); break;
	case HERMES_JSON_FALSE: snprintf(buf, size, "boolean false"); break;
	case HERMES_JSON_NULL: snprintf(buf, size, "null"); break;
	case HERMES_JSON_ARRAY: snprintf(buf, size, "array"); break;
	case HERMES_JSON_OBJECT: snprintf(buf, size, "object"); break;
	}
}

static int type_error(const ctx_t *c, const hermes_field_desc_t *f, const char *path,
                      const hermes_json_t *v)
{
	char got[96];
	describe(v, got, sizeof got);
	hermes_decode_err_type(c->err, f, path, got);
	set_field(c, path);
	locate(c, v);
	return -1;
}

/* A string argument must be usable as a C string: a NUL byte would silently cut it short
 * ("a.txt\u0000.bak" would name a.txt). */
static int check_no_nul(const ctx_t *c, const char *path, const hermes_json_t *v)
{
	const char *nul = memchr(v->str, '\0', v->len);
	if (nul == NULL)
		return 0;
	hermes_error_set(c->err, HERMES_E_INVALID_ARGUMENTS,
	                 "%s: a NUL character (\\u0000) is not allowed in strings (at character %zu)",
	                 path, (size_t)(nul - v->str) + 1);
	set_field(c, path);
	locate(c, v);
	return -1;
}

static int decode_object(const ctx_t *c, const hermes_type_desc_t *desc, const hermes_json_t *json,
                         void *obj, const char *path);

static int decode_int(const ctx_t *c, const hermes_field_desc_t *f, const hermes_json_t *v,
                      void *obj, const char *path)
{
	int64_t value;
	int rc = hermes_json_integer(v, f->min, f->max, &value);
	if (rc == -1) /* not a number, or not written as an integer (1.0, 1e3) */
		return type_error(c, f, path, v);
	if (rc == -2) {
		char got[96];
		describe(v, got, sizeof got);
		hermes_decode_err_range(c->err, f, path, got + 7);
		set_field(c, path);
		locate(c, v);
		return -1;
	}
	hermes_field_set_int(obj, f, value);
	return 0;
}

static char *dup_string(const hermes_json_t *v)
{
	char *s = malloc(v->len + 1);
	if (s)
		memcpy(s, v->str, v->len + 1);
	return s;
}

static int decode_list(const ctx_t *c, const hermes_field_desc_t *f, const hermes_json_t *v,
                       void *obj, const char *path)
{
	char *base = obj;
	if (v->type != HERMES_JSON_ARRAY)
		return type_error(c, f, path, v);
	size_t n = v->count;
	size_t esize = f->kind == HERMES_KIND_STRING_LIST ? sizeof(char *) : f->element->size;
	char *items = calloc(n ? n : 1, esize);
	if (!items)
		goto oom;
	/* Owned by obj from here on, so a failure below is cleaned up by the caller. */
	*(char **)(base + f->offset) = items;
	size_t i = 0;
	for (const hermes_json_t *e = v->child; e; e = e->next, i++) {
		char epath[300];
		snprintf(epath, sizeof epath, "%s[%zu]", path, i);
		if (f->kind == HERMES_KIND_STRING_LIST) {
			if (e->type != HERMES_JSON_STRING) {
				char got[96];
				describe(e, got, sizeof got);
				hermes_error_set(c->err, HERMES_E_INVALID_ARGUMENTS,
				                 "%s: expected String, got %s", epath, got);
				set_field(c, epath);
				locate(c, e);
				return -1;
			}
			if (check_no_nul(c, epath, e))
				return -1;
			if (!(((char **)items)[i] = dup_string(e)))
				goto oom;
		} else {
			*(size_t *)(base + f->count_offset) = i + 1;
			if (decode_object(c, f->element, e, items + i * esize, epath))
				return -1;
		}
		*(size_t *)(base + f->count_offset) = i + 1;
	}
	return 0;
oom:
	hermes_error_set(c->err, HERMES_E_INTERNAL, "out of memory while decoding '%s'", path);
	return -1;
}

static int decode_field(const ctx_t *c, const hermes_field_desc_t *f, const hermes_json_t *v,
                        void *obj, const char *path)
{
	switch (f->kind) {
	case HERMES_KIND_STRING: {
		if (v->type != HERMES_JSON_STRING)
			return type_error(c, f, path, v);
		if (check_no_nul(c, path, v))
			return -1;
		char *s = dup_string(v);
		if (!s) {
			hermes_error_set(c->err, HERMES_E_INTERNAL, "out of memory while decoding '%s'", path);
			return -1;
		}
		*(char **)((char *)obj + f->offset) = s;
		return 0;
	}
	case HERMES_KIND_INT32:
	case HERMES_KIND_INT64:
		return decode_int(c, f, v, obj, path);
	case HERMES_KIND_BOOL:
		if (v->type != HERMES_JSON_TRUE && v->type != HERMES_JSON_FALSE)
			return type_error(c, f, path, v);
		hermes_field_set_bool(obj, f, v->type == HERMES_JSON_TRUE);
		return 0;
	case HERMES_KIND_STRING_LIST:
	case HERMES_KIND_OBJECT_LIST:
		return decode_list(c, f, v, obj, path);
	}
	return 0;
}

/* The field of desc named exactly key, or NULL. */
static const hermes_field_desc_t *find_field(const hermes_type_desc_t *desc, const hermes_json_t *m)
{
	for (size_t i = 0; i < desc->field_count; i++) {
		const char *name = desc->fields[i].name;
		if (strlen(name) == m->key_len && memcmp(name, m->key, m->key_len) == 0)
			return &desc->fields[i];
	}
	return NULL;
}

/* a then b into out (of size bytes), cut to fit: the paths messages name, built for every member
 * decoded, so without the cost of a printf (which was 6% of a server answering fs.exists). */
static void join(char *out, size_t size, const char *a, const char *b)
{
	size_t na = strnlen(a, size - 1);
	memcpy(out, a, na);
	size_t nb = strnlen(b, size - 1 - na);
	memcpy(out + na, b, nb);
	out[na + nb] = '\0';
}

static int decode_object(const ctx_t *c, const hermes_type_desc_t *desc, const hermes_json_t *json,
                         void *obj, const char *path)
{
	bool seen[MAX_FIELDS] = { false };
	char pre[300]; /* path of this object's members, for messages: "" or "entries[2]." */
	join(pre, sizeof pre, path, *path ? "." : "");

	if (json && json->type != HERMES_JSON_NULL) {
		if (json->type != HERMES_JSON_OBJECT) {
			char got[96];
			describe(json, got, sizeof got);
			const char *where = *path ? path : (*c->prefix ? "arguments" : "params");
			hermes_error_set(c->err, HERMES_E_INVALID_ARGUMENTS, "%s: expected an object, got %s",
			                 where, got);
			if (c->err)
				snprintf(c->err->field, sizeof c->err->field, "%s", *path ? path : where);
			locate(c, json);
			return -1;
		}
		if (json->first_repeat) {
			const hermes_json_t *dup = json->first_repeat;
			hermes_error_set(c->err, HERMES_E_INVALID_ARGUMENTS, "duplicate key '%s' in %s",
			                 dup->key, *path ? path : "arguments");
			if (c->err)
				snprintf(c->err->field, sizeof c->err->field, "%s%s%s", c->prefix, pre, dup->key);
			locate(c, dup);
			return -1;
		}
		for (const hermes_json_t *m = json->child; m; m = m->next) {
			const hermes_field_desc_t *f = find_field(desc, m);
			char fpath[300];
			join(fpath, sizeof fpath, pre, m->key);
			if (f == NULL) {
				hermes_decode_err_unknown_field(c->err, desc, c->verb, c->prefix, fpath);
				locate(c, m);
				return -1;
			}
			if (m->type == HERMES_JSON_NULL && f->presence != HERMES_PRESENCE_REQUIRED)
				continue; /* null means absent for optional fields */
			seen[f - desc->fields] = true;
			if (decode_field(c, f, m, obj, fpath))
				return -1;
		}
	}
	for (size_t i = 0; i < desc->field_count; i++) {
		if (!seen[i] && desc->fields[i].presence == HERMES_PRESENCE_REQUIRED) {
			char full[300];
			snprintf(full, sizeof full, "%s%s", c->prefix, pre);
			hermes_decode_err_missing(c->err, &desc->fields[i], c->verb, full);
			locate(c, json);
			return -1;
		}
	}
	hermes_apply_defaults(desc, obj, seen);
	return 0;
}

void *hermes_decode_json_args(const hermes_type_desc_t *desc, const hermes_json_t *json,
                              const char *text, const char *verb, const char *prefix,
                              hermes_error_t *err)
{
	ctx_t c = { verb, prefix, text, err };
	void *obj = hermes_struct_new(desc);
	if (!obj) {
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory while decoding arguments");
		return NULL;
	}
	if (desc->field_count > MAX_FIELDS || decode_object(&c, desc, json, obj, "")) {
		hermes_struct_free(desc, obj);
		return NULL;
	}
	return obj;
}
