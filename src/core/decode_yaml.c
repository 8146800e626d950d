/* core/decode_yaml.c: one YAML document → envelope, through the generated libcyaml schemas.
 *
 * libcyaml loads every scalar as text (see gen/hermes_gen/emit_yaml_schema_c.py); this file then
 * converts the text by the field's type under the rule JSON follows too (hermes-verbs(7)): a
 * quoted scalar is a string; a plain one is what the YAML 1.2 core schema makes of it, and must
 * then be what JSON would need: null (null, ~, nothing) is null (absent if optional, refused if
 * required), true/false are booleans, a decimal integer is an integer, any other number (1.0,
 * 0x10, 1e3, .inf) is a number no field takes, True/TRUE/False are booleans no field takes, and
 * the rest are strings (`content: no` is "no"). Tags (!!str) and aliases are refused. libcyaml's
 * own error messages are captured through its per-call log callback and reworded to match the
 * JSON decoder's. A libyaml pass first locates syntax errors exactly, refuses NUL characters and
 * tags, and notes which argument values were plain scalars. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/decode.h"
#include "core/verb.h"
#include "core/yaml_lib.h"

#define MAX_FIELDS 64

/* What libcyaml said, collected by the log callback. */
typedef struct yaml_log {
	char message[512];     /* the first error message, without "Load: " */
	char path[8][128];     /* backtrace entries, innermost first: field names or "[N]" */
	int depth;
	int line, column;      /* of the innermost backtrace entry */
} yaml_log_t;

static void log_fn(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
	yaml_log_t *log = ctx;
	char line[600];
	if (level < CYAML_LOG_ERROR)
		return;
	vsnprintf(line, sizeof line, fmt, args);
	line[strcspn(line, "\n")] = '\0';
	const char *s = line;
	if (strncmp(s, "Load: ", 6) == 0)
		s += 6;
	if (strcmp(s, "Backtrace:") == 0)
		return;
	int l = 0, c = 0;
	char name[128];
	if (strncmp(s, "  in ", 5) == 0) {
		const char *lp = strstr(s, "(line: ");
		if (lp)
			sscanf(lp, "(line: %d, column: %d)", &l, &c);
		if (log->depth == 0 && l > 0) {
			log->line = l;
			log->column = c;
		}
		if (log->depth < 8) {
			if (sscanf(s, "  in mapping field '%127[^']'", name) == 1)
				snprintf(log->path[log->depth++], sizeof log->path[0], "%s", name);
			else if (sscanf(s, "  in sequence entry '%127[^']'", name) == 1)
				snprintf(log->path[log->depth++], sizeof log->path[0], "[%s]", name);
		}
		return;
	}
	if (!log->message[0])
		snprintf(log->message, sizeof log->message, "%s", s);
}

/* Where each key of the arguments mapping is, so that a value rejected after loading can still
 * be reported with its line. */
typedef struct key_marks {
	struct { char name[64]; int line, column; } keys[MAX_FIELDS];
	int count;
	/* every scalar value under "arguments" that was plain (not quoted), by its path as the
	 * decoder names it ("path", "edits[0].oldText", "include[2]"), sorted after the pass */
	char **plain;
	size_t nplain, capplain;
	bool lost;         /* a plain value whose path was too long to note: all count as plain */
} key_marks_t;

static void marks_free(key_marks_t *m)
{
	for (size_t i = 0; i < m->nplain; i++)
		free(m->plain[i]);
	free(m->plain);
	m->plain = NULL;
	m->nplain = m->capplain = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Was the value at path a plain scalar? */
static bool was_plain(const key_marks_t *m, const char *path)
{
	return m == NULL || m->lost ||
	       (m->nplain && bsearch(&path, m->plain, m->nplain, sizeof *m->plain, cmp_str) != NULL);
}

/* Per nesting level: is it a mapping, is the next scalar a key, the last key seen. */
typedef struct level {
	bool mapping;
	bool want_key;
	bool is_arguments; /* the value of the envelope's "arguments" key */
	char key[64];
	size_t index;      /* a sequence: the item being read */
} level_t;

static void value_done(level_t *levels, int depth)
{
	if (depth > 0 && levels[depth - 1].mapping)
		levels[depth - 1].want_key = true;
	else if (depth > 0)
		levels[depth - 1].index++;
}

/* The decoder's name of the value being read at depth (inside "arguments": levels[1]), or false
 * if it is not inside the arguments. */
static bool value_path(const level_t *levels, int depth, char *buf, size_t size)
{
	if (depth < 2 || !levels[1].is_arguments)
		return false;
	size_t used = 0;
	for (int i = 1; i < depth; i++) {
		int n = levels[i].mapping
		        ? snprintf(buf + used, size - used, "%s%s", i > 1 ? "." : "", levels[i].key)
		        : snprintf(buf + used, size - used, "[%zu]", levels[i].index);
		if (n < 0 || (size_t)n >= size - used)
			return false;
		used += (size_t)n;
	}
	return true;
}

/* The tag written on a node (!!str, !foo), or NULL. */
static const char *node_tag(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT: return (const char *)ev->data.scalar.tag;
	case YAML_MAPPING_START_EVENT: return (const char *)ev->data.mapping_start.tag;
	case YAML_SEQUENCE_START_EVENT: return (const char *)ev->data.sequence_start.tag;
	default: return NULL;
	}
}

/* A libyaml pass before libcyaml: exact syntax error positions, NUL characters (which C strings
 * would silently cut), nesting depth, one document only, and the positions of argument keys. */
static int yaml_precheck(const char *text, size_t len, key_marks_t *marks, hermes_error_t *e)
{
	yaml_parser_t parser;
	yaml_event_t event;
	level_t levels[HERMES_MAX_NESTING + 1];
	int depth = 0, docs = 0, rc = 0;
	marks->count = 0;
	marks->plain = NULL;
	marks->nplain = marks->capplain = 0;
	marks->lost = false;
	if (!yaml_parser_initialize(&parser)) {
		hermes_error_set(e, HERMES_E_INTERNAL, "out of memory while reading YAML");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&parser, &event)) {
			hermes_error_set(e, HERMES_E_INVALID_ENVELOPE, "YAML syntax error: %s%s%s",
			                 parser.problem ? parser.problem : "invalid YAML",
			                 parser.context ? " " : "", parser.context ? parser.context : "");
			if (e) {
				e->line = (int)parser.problem_mark.line + 1;
				e->column = (int)parser.problem_mark.column + 1;
			}
			rc = -1;
			break;
		}
		const char *problem = NULL;
		if (node_tag(&event))
			problem = "YAML tags (such as !!str) are not accepted in an envelope: write the value "
			          "itself, quoted if it must be a string";
		else switch (event.type) {
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				problem = "more than one YAML document (separate envelopes with ---)";
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (depth >= HERMES_MAX_NESTING) {
				problem = "YAML nesting deeper than the limit";
				break;
			}
			levels[depth].mapping = event.type == YAML_MAPPING_START_EVENT;
			levels[depth].want_key = true;
			levels[depth].is_arguments = depth == 1 && levels[0].mapping &&
			                             strcmp(levels[0].key, "arguments") == 0;
			levels[depth].key[0] = '\0';
			levels[depth].index = 0;
			depth++;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			value_done(levels, depth);
			break;
		case YAML_SCALAR_EVENT: {
			const char *v = (const char *)event.data.scalar.value;
			if (memchr(v, '\0', event.data.scalar.length)) {
				problem = "NUL characters are not allowed in values";
				break;
			}
			level_t *top = depth > 0 ? &levels[depth - 1] : NULL;
			if (top && top->mapping && top->want_key) {
				snprintf(top->key, sizeof top->key, "%s", v);
				top->want_key = false;
				if (top->is_arguments && marks->count < MAX_FIELDS) {
					snprintf(marks->keys[marks->count].name, sizeof marks->keys[0].name, "%s", v);
					marks->keys[marks->count].line = (int)event.start_mark.line + 1;
					marks->keys[marks->count].column = (int)event.start_mark.column + 1;
					marks->count++;
				}
			} else {
				char path[512];
				bool noted = event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
				             depth >= 2 && levels[1].is_arguments;
				if (noted && !value_path(levels, depth, path, sizeof path)) {
					marks->lost = true;
				} else if (noted) {
					if (marks->nplain == marks->capplain) {
						size_t cap = marks->capplain ? marks->capplain * 2 : 16;
						char **more = realloc(marks->plain, cap * sizeof *more);
						if (!more) {
							problem = "out of memory while reading YAML";
							break;
						}
						marks->plain = more;
						marks->capplain = cap;
					}
					if (!(marks->plain[marks->nplain] = strdup(path))) {
						problem = "out of memory while reading YAML";
						break;
					}
					marks->nplain++;
				}
				value_done(levels, depth);
			}
			break;
		}
		case YAML_ALIAS_EVENT:
			problem = "YAML aliases (*name) are not allowed in an envelope";
			break;
		default:
			break;
		}
		bool end = event.type == YAML_STREAM_END_EVENT;
		if (problem) {
			hermes_error_set(e, HERMES_E_INVALID_ENVELOPE, "%s", problem);
			if (e) {
				e->line = (int)event.start_mark.line + 1;
				e->column = (int)event.start_mark.column + 1;
			}
			rc = -1;
		}
		yaml_event_delete(&event);
		if (problem || end)
			break;
	}
	yaml_parser_delete(&parser);
	if (rc == 0 && marks->nplain > 1)
		qsort(marks->plain, marks->nplain, sizeof *marks->plain, cmp_str);
	return rc;
}

static const char *event_noun(const char *msg)
{
	if (strstr(msg, "SEQUENCE_START"))
		return "array";
	if (strstr(msg, "MAPPING_START"))
		return "object";
	if (strstr(msg, "SCALAR"))
		return "a scalar";
	return "something else";
}

/* "arguments.path" style path from the backtrace (outermost first), skipping the envelope's own
 * "arguments" entry when the error is inside the arguments. */
static void log_path(const yaml_log_t *log, bool in_args, char *buf, size_t size)
{
	buf[0] = '\0';
	size_t used = 0;
	int start = log->depth - 1 - (in_args ? 1 : 0);
	for (int i = start; i >= 0; i--) {
		const char *p = log->path[i];
		int n = snprintf(buf + used, size - used, "%s%s", (used && p[0] != '[') ? "." : "", p);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
}

/* Turns a libcyaml failure into our error. verb is NULL for the first (verb-finding) pass. */
static void cyaml_failure(cyaml_err_t rc, const yaml_log_t *log, const hermes_verb_desc_t *verb,
                          hermes_error_t *err)
{
	const char *m = log->message;
	bool in_args = log->depth > 0 && strcmp(log->path[log->depth - 1], "arguments") == 0;
	char path[400];
	char key[128];

	if (rc == CYAML_ERR_ALIAS) {
		hermes_error_set(err, HERMES_E_INVALID_ENVELOPE,
		                 "YAML aliases (*name) are not allowed in an envelope");
	} else if (sscanf(m, "Unexpected key: %127[^\n]", key) == 1) {
		if (verb && in_args) {
			hermes_decode_err_unknown_field(err, verb->args, verb->name, "arguments.", key);
		} else {
			hermes_error_set(err, HERMES_E_INVALID_ENVELOPE,
			                 "unknown key '%s' in envelope (expected: verb, arguments)", key);
			if (err)
				snprintf(err->field, sizeof err->field, "%s", key);
		}
	} else if (sscanf(m, "Missing required mapping field: %127[^\n]", key) == 1) {
		const hermes_field_desc_t *f = NULL;
		for (size_t i = 0; verb && i < verb->args->field_count; i++)
			if (strcmp(verb->args->fields[i].name, key) == 0)
				f = &verb->args->fields[i];
		if (f) {
			hermes_decode_err_missing(err, f, verb->name, "arguments.");
		} else {
			hermes_error_set(err, HERMES_E_INVALID_ENVELOPE, "missing \"%s\" in envelope", key);
			if (err)
				snprintf(err->field, sizeof err->field, "%s", key);
		}
	} else if (sscanf(m, "Mapping field already seen: %127[^\n]", key) == 1) {
		hermes_error_set(err, verb ? HERMES_E_INVALID_ARGUMENTS : HERMES_E_INVALID_ENVELOPE,
		                 "duplicate key '%s' in %s", key, in_args && verb ? "arguments" : "envelope");
		if (err)
			snprintf(err->field, sizeof err->field, "%s%s", in_args && verb ? "arguments." : "", key);
	} else if (strncmp(m, "Expecting ", 10) == 0) {
		log_path(log, in_args && verb, path, sizeof path);
		const hermes_field_desc_t *f = NULL;
		for (size_t i = 0; verb && in_args && i < verb->args->field_count; i++)
			if (strncmp(path, verb->args->fields[i].name, strlen(verb->args->fields[i].name)) == 0)
				f = &verb->args->fields[i];
		if (!path[0] && log->depth == 0) {
			hermes_error_set(err, HERMES_E_INVALID_ENVELOPE,
			                 "an envelope must be a mapping with verb and arguments, got %s",
			                 event_noun(m));
		} else if (f && verb) {
			char tbuf[96];
			const char *tname = hermes_field_type_name(f, tbuf, sizeof tbuf);
			if (strchr(path, '['))
				tname = "String";
			hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS, "%s: expected %s, got %s", path,
			                 tname, event_noun(m));
			if (err)
				snprintf(err->field, sizeof err->field, "arguments.%s", path);
		} else if (strcmp(path, "arguments") == 0 || (in_args && !path[0])) {
			hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS, "arguments: expected an object, got %s",
			                 event_noun(m));
			if (err)
				snprintf(err->field, sizeof err->field, "arguments");
		} else {
			hermes_error_set(err, HERMES_E_INVALID_ENVELOPE, "%s: expected %s, got %s", path,
			                 strcmp(path, "verb") == 0 ? "String" : "a different value",
			                 event_noun(m));
			if (err)
				snprintf(err->field, sizeof err->field, "%s", path);
		}
	} else {
		hermes_error_set(err, verb ? HERMES_E_INVALID_ARGUMENTS : HERMES_E_INVALID_ENVELOPE,
		                 "invalid envelope: %s", m[0] ? m : cyaml_strerror(rc));
	}
	if (err && log->line > 0 && err->line == 0) {
		err->line = log->line;
		err->column = log->column;
	}
}

static bool is_null_text(const char *s)
{
	return !*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
	       strcmp(s, "NULL") == 0;
}

/* What the YAML 1.2 core schema makes of a plain scalar. */
typedef enum { CORE_NULL, CORE_BOOL, CORE_NUMBER, CORE_STRING } core_kind_t;

static bool all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

static core_kind_t core_kind(const char *s)
{
	static const char *const bools[] = {"true", "True", "TRUE", "false", "False", "FALSE"};
	static const char *const specials[] = {".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"};
	if (is_null_text(s))
		return CORE_NULL;
	for (size_t i = 0; i < 6; i++)
		if (strcmp(s, bools[i]) == 0)
			return CORE_BOOL;
	const char *t = (*s == '-' || *s == '+') ? s + 1 : s;
	for (size_t i = 0; i < 6; i++)
		if (strcmp(t, specials[i]) == 0 && (i >= 3 ? t == s : true))
			return CORE_NUMBER;
	if ((strncmp(s, "0x", 2) == 0 && all_of(s + 2, "0123456789abcdefABCDEF")) ||
	    (strncmp(s, "0o", 2) == 0 && all_of(s + 2, "01234567")))
		return CORE_NUMBER;
	/* [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
	const char *p = t;
	size_t digits = strspn(p, "0123456789");
	p += digits;
	if (*p == '.') {
		size_t frac = strspn(p + 1, "0123456789");
		if (digits == 0 && frac == 0)
			return CORE_STRING;
		p += 1 + frac;
	} else if (digits == 0) {
		return CORE_STRING;
	}
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		if (*q == '-' || *q == '+')
			q++;
		size_t exp = strspn(q, "0123456789");
		if (exp == 0)
			return CORE_STRING;
		p = q + exp;
	}
	return *p == '\0' ? CORE_NUMBER : CORE_STRING;
}

/* How a YAML scalar reads in "expected X, got Y", the way its JSON spelling would. */
static void describe_scalar(const char *s, char *buf, size_t size)
{
	core_kind_t k = core_kind(s);
	if (k == CORE_NULL) {
		snprintf(buf, size, "null");
	} else if (k == CORE_BOOL) {
		snprintf(buf, size, "boolean %s", s);
	} else if (k == CORE_NUMBER) {
		snprintf(buf, size, "number %s", s);
	} else if (strlen(s) > 40) {
		snprintf(buf, size, "string \"%.37s...\"", s);
	} else {
		snprintf(buf, size, "string \"%s\"", s);
	}
}

static int convert(const hermes_type_desc_t *desc, const hermes_yaml_slot_t *slots, void *obj,
                   const char *verb, const char *pre, const key_marks_t *marks, hermes_error_t *err);

/* "string \"...\"": how a quoted scalar reads in an error. */
static void describe_quoted(const char *s, char *buf, size_t size)
{
	if (strlen(s) > 40)
		snprintf(buf, size, "string \"%.37s...\"", s);
	else
		snprintf(buf, size, "string \"%s\"", s);
}

static int convert_scalar(const hermes_field_desc_t *f, const char *text, bool plain, void *obj,
                          const char *path, hermes_error_t *err)
{
	char got[96];
	int64_t v;
	if (!plain && f->kind != HERMES_KIND_STRING) {
		describe_quoted(text, got, sizeof got); /* "5" is a string, in YAML as in JSON */
		hermes_decode_err_type(err, f, path, got);
		goto field_error;
	}
	switch (f->kind) {
	case HERMES_KIND_STRING: {
		if (plain && core_kind(text) != CORE_STRING) {
			describe_scalar(text, got, sizeof got);
			hermes_decode_err_type(err, f, path, got);
			goto field_error;
		}
		char *s = strdup(text);
		if (!s)
			break;
		*(char **)((char *)obj + f->offset) = s;
		return 0;
	}
	case HERMES_KIND_INT32:
	case HERMES_KIND_INT64: {
		int rc = hermes_parse_int(text, f->min, f->max, &v);
		if (rc == 0) {
			hermes_field_set_int(obj, f, v);
			return 0;
		}
		if (rc == -2) {
			hermes_decode_err_range(err, f, path, text);
		} else {
			describe_scalar(text, got, sizeof got);
			hermes_decode_err_type(err, f, path, got);
		}
		goto field_error;
	}
	case HERMES_KIND_BOOL:
		if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
			hermes_field_set_bool(obj, f, text[0] == 't');
			return 0;
		}
		describe_scalar(text, got, sizeof got);
		hermes_decode_err_type(err, f, path, got);
		goto field_error;
	default:
		break;
	}
	hermes_error_set(err, HERMES_E_INTERNAL, "out of memory while decoding '%s'", path);
	return -1;
field_error:
	if (err)
		snprintf(err->field, sizeof err->field, "arguments.%s", path);
	return -1;
}

static int convert(const hermes_type_desc_t *desc, const hermes_yaml_slot_t *slots, void *obj,
                   const char *verb, const char *pre, const key_marks_t *marks, hermes_error_t *err)
{
	bool seen[MAX_FIELDS] = { false };
	if (desc->field_count > MAX_FIELDS)
		return -1;
	for (size_t i = 0; slots && i < desc->field_count; i++) {
		const hermes_field_desc_t *f = &desc->fields[i];
		const hermes_yaml_slot_t *s = &slots[i];
		char path[300];
		snprintf(path, sizeof path, "%s%s", pre, f->name);
		if (f->kind == HERMES_KIND_STRING_LIST || f->kind == HERMES_KIND_OBJECT_LIST) {
			/* libcyaml leaves an empty sequence NULL; a required one was checked present. */
			if (!s->items && s->count == 0 && f->presence != HERMES_PRESENCE_REQUIRED)
				continue;
			seen[i] = true;
			size_t n = s->count;
			size_t esize = f->kind == HERMES_KIND_STRING_LIST ? sizeof(char *) : f->element->size;
			char *items = calloc(n ? n : 1, esize);
			if (!items)
				goto oom;
			*(char **)((char *)obj + f->offset) = items;
			for (size_t j = 0; j < n; j++) {
				if (f->kind == HERMES_KIND_STRING_LIST) {
					const char *item = ((char **)s->items)[j];
					char ipath[320], got[96];
					snprintf(ipath, sizeof ipath, "%s[%zu]", path, j);
					if (was_plain(marks, ipath) && core_kind(item) != CORE_STRING) {
						describe_scalar(item, got, sizeof got);
						hermes_error_set(err, HERMES_E_INVALID_ARGUMENTS,
						                 "%s: expected String, got %s", ipath, got);
						if (err)
							snprintf(err->field, sizeof err->field, "arguments.%s", ipath);
						return -1;
					}
					if (!(((char **)items)[j] = strdup(item)))
						goto oom;
				} else {
					size_t mstride = (f->element->field_count ? f->element->field_count : 1) *
					                 sizeof(hermes_yaml_slot_t);
					char epre[300];
					snprintf(epre, sizeof epre, "%s[%zu].", path, j);
					*(size_t *)((char *)obj + f->count_offset) = j + 1;
					if (convert(f->element,
					            (const hermes_yaml_slot_t *)((const char *)s->items + j * mstride),
					            items + j * esize, verb, epre, marks, err))
						return -1;
				}
				*(size_t *)((char *)obj + f->count_offset) = j + 1;
			}
			continue;
		}
		if (!s->scalar)
			continue;
		/* A plain null (null, ~, nothing) means "absent", as JSON's null does, unless the field
		 * is required; a quoted "null" is the string. */
		bool plain = was_plain(marks, path);
		if (plain && is_null_text(s->scalar)) {
			if (f->presence != HERMES_PRESENCE_REQUIRED)
				continue;
			hermes_decode_err_type(err, f, path, "null");
			if (err)
				snprintf(err->field, sizeof err->field, "arguments.%s", path);
			return -1;
		}
		seen[i] = true;
		if (convert_scalar(f, s->scalar, plain, obj, path, err))
			return -1;
	}
	for (size_t i = 0; i < desc->field_count; i++) {
		if (!seen[i] && desc->fields[i].presence == HERMES_PRESENCE_REQUIRED) {
			char full[300];
			snprintf(full, sizeof full, "arguments.%s", pre);
			hermes_decode_err_missing(err, &desc->fields[i], verb, full);
			return -1;
		}
	}
	hermes_apply_defaults(desc, obj, seen);
	return 0;
oom:
	hermes_error_set(err, HERMES_E_INTERNAL, "out of memory while decoding arguments");
	return -1;
}

/* Gives a conversion error the position of its argument's key. */
static void locate(const key_marks_t *marks, hermes_error_t *err)
{
	if (!err || err->line || strncmp(err->field, "arguments.", 10) != 0)
		return;
	const char *name = err->field + 10;
	size_t n = strcspn(name, ".[");
	for (int i = 0; i < marks->count; i++) {
		if (strlen(marks->keys[i].name) == n && strncmp(marks->keys[i].name, name, n) == 0) {
			err->line = marks->keys[i].line;
			err->column = marks->keys[i].column;
			return;
		}
	}
}

/* The first pass only finds the verb: the arguments are skipped. */
static const cyaml_schema_field_t probe_fields[] = {
	{ .key = "verb", .data_offset = offsetof(hermes_yaml_envelope_t, verb),
	  .value = { CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, CYAML_UNLIMITED) } },
	CYAML_FIELD_IGNORE("arguments", CYAML_FLAG_OPTIONAL),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t probe_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, hermes_yaml_envelope_t, probe_fields),
};

/* libcyaml's allocations (its own cyaml_mem, which would tie this file to one more symbol). */
static void *mem_fn(void *ctx, void *ptr, size_t size)
{
	(void)ctx;
	if (size == 0) {
		free(ptr);
		return NULL;
	}
	return realloc(ptr, size);
}

const hermes_verb_desc_t *hermes_decode_yaml_envelope(const char *text, size_t len, void **args,
                                                      hermes_error_t *err)
{
	char why[300];
	if (!hermes_yaml_lib_load(why, sizeof why)) {
		hermes_error_set(err, HERMES_E_INTERNAL, "cannot read a YAML envelope: %s", why);
		return NULL;
	}
	yaml_log_t log;
	cyaml_config_t cfg = {
		.log_fn = log_fn,
		.log_ctx = &log,
		.mem_fn = mem_fn,
		.log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_NO_ALIAS,
	};
	hermes_yaml_envelope_t *env = NULL;
	const hermes_verb_desc_t *verb = NULL;

	key_marks_t marks;
	if (yaml_precheck(text, len, &marks, err)) {
		marks_free(&marks);
		return NULL;
	}
	memset(&log, 0, sizeof log);
	cyaml_err_t rc = cyaml_load_data((const uint8_t *)text, len, &cfg, &probe_schema,
	                                 (cyaml_data_t **)&env, NULL);
	if (rc != CYAML_OK) {
		cyaml_failure(rc, &log, NULL, err);
		marks_free(&marks);
		return NULL;
	}
	if (!env) {
		hermes_error_set(err, HERMES_E_INVALID_ENVELOPE,
		                 "empty envelope (expected a mapping with verb and arguments)");
		marks_free(&marks);
		return NULL;
	}
	verb = hermes_verb_desc_find(env->verb);
	if (!verb)
		hermes_decode_err_unknown_verb(err, env->verb);
	cyaml_free(&cfg, &probe_schema, env, 0);
	if (!verb) {
		marks_free(&marks);
		return NULL;
	}

	env = NULL;
	memset(&log, 0, sizeof log);
	size_t index = (size_t)(verb - hermes_verb_descs);
	rc = cyaml_load_data((const uint8_t *)text, len, &cfg, hermes_yaml_envelope_schemas[index],
	                     (cyaml_data_t **)&env, NULL);
	if (rc != CYAML_OK) {
		cyaml_failure(rc, &log, verb, err);
		marks_free(&marks);
		return NULL;
	}
	void *obj = hermes_struct_new(verb->args);
	if (!obj) {
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory while decoding arguments");
	} else if (convert(verb->args, env->arguments, obj, verb->name, "", &marks, err)) {
		hermes_struct_free(verb->args, obj);
		obj = NULL;
		locate(&marks, err);
	}
	cyaml_free(&cfg, hermes_yaml_envelope_schemas[index], env, 0);
	marks_free(&marks);
	if (!obj)
		return NULL;
	*args = obj;
	return verb;
}
