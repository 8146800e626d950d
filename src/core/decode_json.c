/* core/decode_json.c: JSON arguments (a cJSON tree, already validated by json_scan) → the
 * verb's argument struct, strictly: case-sensitive keys, no duplicates, no unknown keys, exact
 * types, integral numbers in range. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/decode.h"
#include "core/verb.h"

#define MAX_FIELDS 64

/* How a JSON value is described in "expected X, got Y". */
static void describe(const cJSON *v, char *buf, size_t size)
{
	if (cJSON_IsString(v)) {
		const char *s = v->valuestring;
		size_t n = strlen(s);
		if (n > 40)
			snprintf(buf, size, "string \"%.37s...\"", s);
		else
			snprintf(buf, size, "string \"%s\"", s);
	} else if (cJSON_IsNumber(v)) {
		char num[40];
		snprintf(num, sizeof num, "%.15g", v->valuedouble);
		if (strtod(num, NULL) != v->valuedouble)
			snprintf(num, sizeof num, "%.17g", v->valuedouble);
		snprintf(buf, size, "number %s", num);
	} else if (cJSON_IsBool(v)) {
		snprintf(buf, size, "boolean %s", cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsNull(v)) {
		snprintf(buf, size, "null");
	} else if (cJSON_IsArray(v)) {
		snprintf(buf, size, "array");
	} else {
		snprintf(buf, size, "object");
	}
}

static void type_error(hermes_error_t *err, const hermes_field_desc_t *f, const char *prefix,
                       const char *path, const cJSON *v)
{
	char got[96];
	describe(v, got, sizeof got);
	hermes_decode_err_type(err, f, path, got);
	if (err)
		snprintf(err->field, sizeof err->field, "%s%s", prefix, path);
}

/* The first key that appears twice among an object's members, or NULL. */
static const char *duplicate_key(const cJSON *obj)
{
	for (const cJSON *a = obj->child; a; a = a->next)
		for (const cJSON *b = a->next; b; b = b->next)
			if (strcmp(a->string, b->string) == 0)
				return a->string;
	return NULL;
}

static int decode_object(const hermes_type_desc_t *desc, const cJSON *json, void *obj,
                         const char *verb, const char *prefix, const char *path,
                         hermes_error_t *err);

static int decode_int(const hermes_field_desc_t *f, const cJSON *v, void *obj, const char *prefix,
                      const char *path, hermes_error_t *err)
{
	if (!cJSON_IsNumber(v)) {
		type_error(err, f, prefix, path, v);
		return -1;
	}
	double d = v->valuedouble;
	int64_t min = f->kind == HERMES_KIND_INT32 ? INT32_MIN : INT64_MIN;
	int64_t max = f->kind == HERMES_KIND_INT32 ? INT32_MAX : INT64_MAX;
	if (!isfinite(d) || d != trunc(d)) {
		type_error(err, f, prefix, path, v);
		return -1;
	}
	/* Beyond 2^53 a double no longer holds every integer: refuse rather than round. */
	if (d < (double)min || d > (double)max || fabs(d) > 9007199254740992.0) {
		char got[96];
		describe(v, got, sizeof got);
		hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS, "%s: %s is out of range for %s", path,
		                 got + 7, f->kind == HERMES_KIND_INT32 ? "Int32" : "Int64");
		if (err)
			snprintf(err->field, sizeof err->field, "%s%s", prefix, path);
		return -1;
	}
	hermes_field_set_int(obj, f, (int64_t)d);
	return 0;
}

static int decode_field(const hermes_field_desc_t *f, const cJSON *v, void *obj, const char *verb,
                        const char *prefix, const char *path, hermes_error_t *err)
{
	char *base = obj;
	switch (f->kind) {
	case HERMES_KIND_STRING: {
		if (!cJSON_IsString(v)) {
			type_error(err, f, prefix, path, v);
			return -1;
		}
		char *s = strdup(v->valuestring);
		if (!s)
			goto oom;
		*(char **)(base + f->offset) = s;
		return 0;
	}
	case HERMES_KIND_INT32:
	case HERMES_KIND_INT64:
		return decode_int(f, v, obj, prefix, path, err);
	case HERMES_KIND_BOOL:
		if (!cJSON_IsBool(v)) {
			type_error(err, f, prefix, path, v);
			return -1;
		}
		hermes_field_set_bool(obj, f, cJSON_IsTrue(v));
		return 0;
	case HERMES_KIND_STRING_LIST:
	case HERMES_KIND_OBJECT_LIST: {
		if (!cJSON_IsArray(v)) {
			type_error(err, f, prefix, path, v);
			return -1;
		}
		size_t n = (size_t)cJSON_GetArraySize(v);
		size_t esize = f->kind == HERMES_KIND_STRING_LIST ? sizeof(char *) : f->element->size;
		char *items = calloc(n ? n : 1, esize);
		if (!items)
			goto oom;
		/* Owned by obj from here on, so a failure below is cleaned up by the caller. */
		*(char **)(base + f->offset) = items;
		size_t i = 0;
		for (const cJSON *e = v->child; e; e = e->next, i++) {
			char epath[300];
			snprintf(epath, sizeof epath, "%s[%zu]", path, i);
			if (f->kind == HERMES_KIND_STRING_LIST) {
				if (!cJSON_IsString(e)) {
					char got[96];
					describe(e, got, sizeof got);
					hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS,
					                 "%s: expected String, got %s", epath, got);
					if (err)
						snprintf(err->field, sizeof err->field, "%s%s", prefix, epath);
					return -1;
				}
				if (!(((char **)items)[i] = strdup(e->valuestring)))
					goto oom;
			} else {
				*(size_t *)(base + f->count_offset) = i + 1;
				if (decode_object(f->element, e, items + i * esize, verb, prefix, epath, err))
					return -1;
			}
			*(size_t *)(base + f->count_offset) = i + 1;
		}
		return 0;
	}
	}
	return 0;
oom:
	hermes_error_set(err, HERMES_E_INTERNAL, "out of memory while decoding '%s'", path);
	return -1;
}

static int decode_object(const hermes_type_desc_t *desc, const cJSON *json, void *obj,
                         const char *verb, const char *prefix, const char *path,
                         hermes_error_t *err)
{
	bool seen[MAX_FIELDS] = { false };
	char pre[300]; /* path of this object's members, for messages: "" or "entries[2]." */
	snprintf(pre, sizeof pre, "%s%s", path, *path ? "." : "");

	if (json && !cJSON_IsNull(json)) {
		if (!cJSON_IsObject(json)) {
			char got[96];
			describe(json, got, sizeof got);
			const char *where = *path ? path : (*prefix ? "arguments" : "params");
			hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS, "%s: expected an object, got %s",
			                 where, got);
			if (err)
				snprintf(err->field, sizeof err->field, "%s", *path ? path : where);
			return -1;
		}
		const char *dup = duplicate_key(json);
		if (dup) {
			hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS, "duplicate key '%s' in %s", dup,
			                 *path ? path : "arguments");
			if (err)
				snprintf(err->field, sizeof err->field, "%s%s%s", prefix, pre, dup);
			return -1;
		}
		for (const cJSON *m = json->child; m; m = m->next) {
			size_t i;
			for (i = 0; i < desc->field_count; i++)
				if (strcmp(desc->fields[i].name, m->string) == 0)
					break;
			char fpath[300];
			snprintf(fpath, sizeof fpath, "%s%s", pre, m->string);
			if (i == desc->field_count) {
				hermes_decode_err_unknown_field(err, desc, verb, prefix, fpath);
				return -1;
			}
			const hermes_field_desc_t *f = &desc->fields[i];
			if (cJSON_IsNull(m) && f->presence != HERMES_PRESENCE_REQUIRED)
				continue; /* null means absent for optional fields */
			seen[i] = true;
			if (decode_field(f, m, obj, verb, prefix, fpath, err))
				return -1;
		}
	}
	for (size_t i = 0; i < desc->field_count; i++) {
		if (!seen[i] && desc->fields[i].presence == HERMES_PRESENCE_REQUIRED) {
			char full[300];
			snprintf(full, sizeof full, "%s%s", prefix, pre);
			hermes_decode_err_missing(err, &desc->fields[i], verb, full);
			return -1;
		}
	}
	hermes_apply_defaults(desc, obj, seen);
	return 0;
}

void *hermes_decode_json_args(const hermes_type_desc_t *desc, const cJSON *json, const char *verb,
                              const char *prefix, hermes_error_t *err)
{
	void *obj = hermes_struct_new(desc);
	if (!obj) {
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory while decoding arguments");
		return NULL;
	}
	if (desc->field_count > MAX_FIELDS || decode_object(desc, json, obj, verb, prefix, "", err)) {
		hermes_struct_free(desc, obj);
		return NULL;
	}
	return obj;
}
