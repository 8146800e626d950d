/* core/decode.c: what the JSON and YAML decoders share: strict scalar conversion, defaults, and
 * the wording of every decoding error (so both formats report the same thing). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/decode.h"
#include "core/verb.h"

const char *hermes_field_type_name(const hermes_field_desc_t *f, char *buf, size_t size)
{
	switch (f->kind) {
	case HERMES_KIND_STRING: return "String";
	case HERMES_KIND_INT32: return "Int32";
	case HERMES_KIND_INT64: return "Int64";
	case HERMES_KIND_BOOL: return "Boolean";
	case HERMES_KIND_STRING_LIST: return "String[]";
	case HERMES_KIND_OBJECT_LIST:
		snprintf(buf, size, "%s[]", f->element->name);
		return buf;
	}
	return "?";
}

static void set_field(hermes_error_t *err, const char *prefix, const char *path)
{
	snprintf(err->field, sizeof err->field, "%s%s", prefix, path);
}

void hermes_decode_err_unknown_field(hermes_error_t *err, const hermes_type_desc_t *desc,
                                     const char *verb, const char *prefix, const char *key)
{
	hermes_buf_t expected = HERMES_BUF_INIT;
	for (size_t i = 0; i < desc->field_count; i++) {
		if (i)
			hermes_buf_puts(&expected, ", ");
		hermes_buf_puts(&expected, desc->fields[i].name);
	}
	char *list = hermes_buf_finish(&expected);
	hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS,
	                 "unknown argument '%s' for %s (expected: %s)", key, verb,
	                 desc->field_count ? (list ? list : "?") : "no arguments");
	free(list);
	if (err)
		set_field(err, prefix, key);
}

void hermes_decode_err_missing(hermes_error_t *err, const hermes_field_desc_t *f, const char *verb,
                               const char *prefix)
{
	char tbuf[96];
	hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS,
	                 "missing required argument '%s' for %s (%s: %s)", f->name, verb,
	                 hermes_field_type_name(f, tbuf, sizeof tbuf), f->description);
	if (err)
		set_field(err, prefix, f->name);
}

const char *hermes_field_range_text(const hermes_field_desc_t *f, char *buf, size_t size)
{
	if (f->kind != HERMES_KIND_INT32 && f->kind != HERMES_KIND_INT64)
		return NULL;
	int64_t tmin = f->kind == HERMES_KIND_INT32 ? INT32_MIN : INT64_MIN;
	int64_t tmax = f->kind == HERMES_KIND_INT32 ? INT32_MAX : INT64_MAX;
	if (f->min <= tmin && f->max >= tmax)
		return NULL;
	if (f->max >= tmax)
		snprintf(buf, size, "%lld or more", (long long)f->min);
	else if (f->min <= tmin)
		snprintf(buf, size, "at most %lld", (long long)f->max);
	else
		snprintf(buf, size, "%lld to %lld", (long long)f->min, (long long)f->max);
	return buf;
}

void hermes_decode_err_range(hermes_error_t *err, const hermes_field_desc_t *f, const char *path,
                             const char *got)
{
	char range[96];
	if (hermes_field_range_text(f, range, sizeof range))
		hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS, "%s: %s is out of range: it must be %s",
		                 path, got, range);
	else
		hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS, "%s: %s is out of range for %s", path,
		                 got, f->kind == HERMES_KIND_INT32 ? "Int32" : "Int64");
}

void hermes_decode_err_type(hermes_error_t *err, const hermes_field_desc_t *f, const char *path,
                            const char *got)
{
	char tbuf[96];
	(void)f;
	hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS, "%s: expected %s, got %s", path,
	                 hermes_field_type_name(f, tbuf, sizeof tbuf), got);
}

/* Edit distance between a and b, case-insensitively (short strings only). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 99;
	size_t row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (n < 3)
		return false;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return false;
}

void hermes_decode_err_unknown_verb(hermes_error_t *err, const char *verb)
{
	hermes_buf_t close = HERMES_BUF_INIT;
	const char *dot = strchr(verb, '.');
	int found = 0;
	for (size_t i = 0; i < hermes_verb_desc_count; i++) {
		const char *name = hermes_verb_descs[i].name;
		const char *ndot = strchr(name, '.');
		bool near = distance(verb, name) <= 3 || contains_ci(name, verb) ||
		            (dot && ndot && strcasecmp(dot, ndot) == 0) ||
		            (!dot && ndot && distance(verb, ndot + 1) <= 2);
		if (near && found < 4) {
			hermes_buf_puts(&close, found ? ", " : "");
			hermes_buf_puts(&close, name);
			found++;
		}
	}
	char *list = hermes_buf_finish(&close);
	if (found && list)
		hermes_error_set(err, HERMES_E_UNKNOWN_VERB, "unknown verb '%s' (did you mean: %s?)",
		                 verb, list);
	else
		hermes_error_set(err, HERMES_E_UNKNOWN_VERB,
		                 "unknown verb '%s' (run 'hermes verbs' for the list)", verb);
	free(list);
	if (err)
		snprintf(err->field, sizeof err->field, "verb");
}

int hermes_parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	const char *p = s;
	bool neg = false;
	if (*p == '-') {
		neg = true;
		p++;
	}
	if (*p < '0' || *p > '9')
		return -1;
	if (*p == '0' && p[1] != '\0')
		return -1; /* no leading zeros: 0123 is not octal, and not 123 either */
	uint64_t v = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -2;
		int64_t r = (v == (uint64_t)INT64_MAX + 1) ? INT64_MIN : -(int64_t)v;
		if (r < min || r > max)
			return -2;
		*out = r;
	} else {
		if (v > (uint64_t)INT64_MAX || (int64_t)v > max || (int64_t)v < min)
			return -2;
		*out = (int64_t)v;
	}
	return 0;
}

void hermes_field_set_int(void *obj, const hermes_field_desc_t *f, int64_t v)
{
	if (f->kind == HERMES_KIND_INT32)
		*(int32_t *)((char *)obj + f->offset) = (int32_t)v;
	else
		*(int64_t *)((char *)obj + f->offset) = v;
	if (f->has_offset != HERMES_NO_OFFSET)
		*(bool *)((char *)obj + f->has_offset) = true;
}

void hermes_field_set_bool(void *obj, const hermes_field_desc_t *f, bool v)
{
	*(bool *)((char *)obj + f->offset) = v;
	if (f->has_offset != HERMES_NO_OFFSET)
		*(bool *)((char *)obj + f->has_offset) = true;
}

void hermes_apply_defaults(const hermes_type_desc_t *desc, void *obj, const bool *seen)
{
	for (size_t i = 0; i < desc->field_count; i++) {
		const hermes_field_desc_t *f = &desc->fields[i];
		if (seen[i] || f->presence != HERMES_PRESENCE_DEFAULT)
			continue;
		switch (f->kind) {
		case HERMES_KIND_BOOL:
			*(bool *)((char *)obj + f->offset) = f->default_int != 0;
			break;
		case HERMES_KIND_INT32:
		case HERMES_KIND_INT64:
			hermes_field_set_int(obj, f, f->default_int);
			break;
		case HERMES_KIND_STRING:
			/* The generator accepts string defaults; strdup failure leaves NULL (= absent). */
			*(char **)((char *)obj + f->offset) = f->default_string ? strdup(f->default_string) : NULL;
			break;
		default:
			break;
		}
	}
}
