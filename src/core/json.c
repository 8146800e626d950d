/* core/json.c: the strict JSON reader (see json.h): one pass that validates, decodes strings and
 * builds the tree; iterative, bounded depth, linear-time duplicate-key marking. */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/decode.h"
#include "core/json.h"
#include "core/utf8.h"
#include "core/verb.h"
#include "core/zalloc.h"

/* Values are carved from chunks that double in size, so a small message costs one or two
 * allocations and a huge one stays linear. */
typedef struct chunk {
	struct chunk *next;
	size_t used, cap;
	hermes_json_t values[];
} chunk_t;

struct hermes_json_doc {
	hermes_json_t *root;
	size_t bytes;  /* allocated for it: its blocks as malloc sized them, and their overhead */
	char *strings; /* every decoded string, key and number text, NUL-terminated, back to back */
	chunk_t *chunks;
};

/* Objects with more members than this find repeated keys with a hash table, fewer by comparing
 * every pair (cheaper for the small objects that nearly every message holds). */
#define PAIRWISE_MAX 8

typedef struct parser {
	const char *t;
	size_t len;
	hermes_json_doc_t *doc;
	char *s;                 /* next free byte of doc->strings */
	const hermes_json_t **table; /* scratch hash table for repeated keys */
	size_t table_cap;
	hermes_error_t *err;
	size_t values, max_values;   /* values made so far, and the most allowed */
} parser_t;

size_t hermes_json_skip_ws(const char *t, size_t len, size_t pos)
{
	while (pos < len && (t[pos] == ' ' || t[pos] == '\t' || t[pos] == '\n' || t[pos] == '\r'))
		pos++;
	return pos;
}

int hermes_json_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Fills the error for a syntax error at offset at; returns -1. */
static int fail(parser_t *ps, size_t at, const char *what)
{
	hermes_error_t *err = ps->err;
	if (err) {
		char near[32] = "end of input";
		if (at < ps->len) {
			unsigned char c = (unsigned char)ps->t[at];
			if (c >= 0x20 && c < 0x7F)
				snprintf(near, sizeof near, "'%c'", c);
			else
				snprintf(near, sizeof near, "byte 0x%02X", c);
		}
		hermes_error_set(err, HERMES_E_INVALID_ENVELOPE, "JSON syntax error: %s (found %s)", what,
		                 near);
		hermes_text_position(ps->t, at, &err->line, &err->column);
	}
	return -1;
}

static int out_of_memory(parser_t *ps)
{
	hermes_error_set(ps->err, HERMES_E_INTERNAL, "out of memory while reading JSON");
	return -1;
}

static hermes_json_t *new_value(parser_t *ps)
{
	if (ps->values++ >= ps->max_values)
		return NULL;
	chunk_t *c = ps->doc->chunks;
	if (c == NULL || c->used == c->cap) {
		/* the first chunk holds a small message whole (a JSON-RPC request: six values) and stays
		 * under 1 KiB, where malloc's per-thread cache serves it (16 values took its slow path) */
		size_t cap = c ? (c->cap < 65536 ? c->cap * 2 : c->cap) : 8;
		chunk_t *n = malloc(sizeof *n + cap * sizeof n->values[0]);
		if (n == NULL)
			return NULL;
		n->next = c;
		n->used = 0;
		n->cap = cap;
		ps->doc->bytes += malloc_usable_size(n) + 16; /* 16: malloc's own header, rounding */
		ps->doc->chunks = c = n;
	}
	hermes_json_t *v = &c->values[c->used++];
	memset(v, 0, sizeof *v);
	return v;
}

static long read_u4(const char *t, size_t len, size_t p)
{
	if (p + 4 > len)
		return -1;
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hermes_json_hexval(t[p + (size_t)i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static char *put_utf8(char *o, unsigned long cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xC0 | (cp >> 6));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xE0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (char)(0xF0 | (cp >> 18));
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*o++ = (char)(0x80 | (cp & 0x3F));
	}
	return o;
}

/* The offset of the first byte at or after q that a string cannot copy as it is: '"', '\\', a
 * control character or a non-ASCII byte. */
static size_t plain_run_end(const char *t, size_t len, size_t q)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
	const __m128i space = _mm_set1_epi8(0x20);
	while (q + 16 <= len) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(t + q));
		/* signed compare: bytes 0x80-0xFF are negative, so "< 0x20" also catches them */
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
		                         _mm_cmplt_epi8(x, space));
		int mask = _mm_movemask_epi8(m);
		if (mask)
			return q + (size_t)__builtin_ctz((unsigned)mask);
		q += 16;
	}
#endif
	while (q < len) {
		unsigned char c = (unsigned char)t[q];
		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
			break;
		q++;
	}
	return q;
}

/* Reads the string whose opening quote is at *pos into the string block; leaves *pos after the
 * closing quote. */
static int read_string(parser_t *ps, size_t *pos, const char **str, size_t *str_len)
{
	const char *t = ps->t;
	size_t len = ps->len, q = *pos + 1;
	char *start = ps->s, *o = ps->s;
	for (;;) {
		size_t run = plain_run_end(t, len, q);
		memcpy(o, t + q, run - q);
		o += run - q;
		q = run;
		if (q >= len)
			return fail(ps, q, "unterminated string");
		unsigned char c = (unsigned char)t[q];
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(ps, q, "control character in string (escape it)");
		if (c >= 0x80) {
			size_t n = hermes_utf8_sequence_length(t + q, len - q);
			if (n == 0)
				return fail(ps, q, "invalid UTF-8 in string");
			memcpy(o, t + q, n);
			o += n;
			q += n;
			continue;
		}
		/* a backslash */
		if (q + 1 >= len)
			return fail(ps, q + 1, "unterminated escape");
		char e = t[q + 1];
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		const char *k = e ? strchr(from, e) : NULL;
		if (k) {
			*o++ = to[k - from];
			q += 2;
			continue;
		}
		if (e != 'u')
			return fail(ps, q, "invalid escape in string");
		long u = read_u4(t, len, q + 2);
		if (u < 0)
			return fail(ps, q, "invalid \\u escape (expected four hex digits)");
		if (u >= 0xDC00 && u <= 0xDFFF)
			return fail(ps, q, "lone low surrogate in \\u escape");
		if (u >= 0xD800 && u <= 0xDBFF) {
			long lo = (q + 8 <= len && t[q + 6] == '\\' && t[q + 7] == 'u')
			              ? read_u4(t, len, q + 8) : -1;
			if (lo < 0xDC00 || lo > 0xDFFF)
				return fail(ps, q, "high surrogate not followed by a low surrogate");
			o = put_utf8(o, 0x10000 + (((unsigned long)u - 0xD800) << 10) +
			                    ((unsigned long)lo - 0xDC00));
			q += 12;
			continue;
		}
		o = put_utf8(o, (unsigned long)u);
		q += 6;
	}
	*o++ = '\0';
	*str = start;
	*str_len = (size_t)(o - start) - 1;
	ps->s = o;
	*pos = q + 1;
	return 0;
}

static int read_number(parser_t *ps, size_t *pos, hermes_json_t *v)
{
	const char *t = ps->t;
	size_t len = ps->len, p = *pos;
	if (p < len && t[p] == '-')
		p++;
	if (p >= len || t[p] < '0' || t[p] > '9')
		return fail(ps, p, "invalid number");
	if (t[p] == '0') {
		p++;
	} else {
		while (p < len && t[p] >= '0' && t[p] <= '9')
			p++;
	}
	if (p < len && t[p] == '.') {
		p++;
		if (p >= len || t[p] < '0' || t[p] > '9')
			return fail(ps, p, "invalid number (digits must follow '.')");
		while (p < len && t[p] >= '0' && t[p] <= '9')
			p++;
	}
	if (p < len && (t[p] == 'e' || t[p] == 'E')) {
		p++;
		if (p < len && (t[p] == '+' || t[p] == '-'))
			p++;
		if (p >= len || t[p] < '0' || t[p] > '9')
			return fail(ps, p, "invalid number (digits must follow the exponent)");
		while (p < len && t[p] >= '0' && t[p] <= '9')
			p++;
	}
	v->type = HERMES_JSON_NUMBER;
	v->str = ps->s;
	v->len = p - *pos;
	memcpy(ps->s, t + *pos, v->len);
	ps->s[v->len] = '\0';
	ps->s += v->len + 1;
	*pos = p;
	return 0;
}

static size_t key_hash(const hermes_json_t *m)
{
	size_t h = 14695981039346656037u; /* FNV-1a */
	for (size_t i = 0; i < m->key_len; i++)
		h = (h ^ (unsigned char)m->key[i]) * 1099511628211u;
	return h;
}

static bool same_key(const hermes_json_t *a, const hermes_json_t *b)
{
	return a->key_len == b->key_len && memcmp(a->key, b->key, a->key_len) == 0;
}

static void mark_repeat(hermes_json_t *obj, hermes_json_t *m)
{
	m->repeated = true;
	if (obj->first_repeat == NULL)
		obj->first_repeat = m;
}

/* Marks the members of a just-closed object whose key an earlier member has: linear time. */
static int mark_repeats(parser_t *ps, hermes_json_t *obj)
{
	if (obj->count < 2)
		return 0;
	if (obj->count <= PAIRWISE_MAX) {
		for (hermes_json_t *a = obj->child; a; a = a->next)
			for (const hermes_json_t *b = obj->child; b != a; b = b->next)
				if (same_key(a, b)) {
					mark_repeat(obj, a);
					break;
				}
		return 0;
	}
	size_t cap = 16;
	while (cap < (size_t)obj->count * 2)
		cap *= 2;
	if (cap > ps->table_cap) {
		const hermes_json_t **nt = realloc(ps->table, cap * sizeof *nt);
		if (nt == NULL)
			return out_of_memory(ps);
		ps->table = nt;
		ps->table_cap = cap;
	}
	memset(ps->table, 0, cap * sizeof *ps->table);
	for (hermes_json_t *m = obj->child; m; m = m->next) {
		size_t i = key_hash(m) & (cap - 1);
		while (ps->table[i] && !same_key(ps->table[i], m))
			i = (i + 1) & (cap - 1);
		if (ps->table[i])
			mark_repeat(obj, m);
		else
			ps->table[i] = m;
	}
	return 0;
}

typedef struct frame {
	hermes_json_t *node;
	hermes_json_t *last; /* its last element or member so far */
} frame_t;

static int parse(parser_t *ps, int max_depth, size_t *end)
{
	const char *t = ps->t;
	size_t len = ps->len;
	/* The first levels on the C stack: nearly every text is shallow, and a block for the whole
	 * max_depth (8 KiB for a JSON-RPC message) cost a slow malloc on every parse. */
	frame_t shallow[32];
	frame_t *stack = shallow;
	int depth = 0, rc = -1;
	const char *key = NULL;
	size_t key_len = 0;
	size_t p = hermes_json_skip_ws(t, len, 0);

	for (;;) {
		/* A value at p: a new node, attached to the open container (with its key). */
		p = hermes_json_skip_ws(t, len, p);
		if (p >= len) {
			fail(ps, p, "expected a value");
			goto out;
		}
		hermes_json_t *v = new_value(ps);
		if (v == NULL) {
			if (ps->values > ps->max_values) {
				if (ps->err) {
					hermes_error_set(ps->err, HERMES_E_TOO_LARGE, "JSON text too "
					                 "complex: more than %zu values (arrays, objects, strings, "
					                 "numbers, literals) in one text", ps->max_values);
					hermes_text_position(t, p, &ps->err->line, &ps->err->column);
				}
			} else {
				out_of_memory(ps);
			}
			goto out;
		}
		v->start = p;
		if (depth == 0) {
			ps->doc->root = v;
		} else {
			frame_t *f = &stack[depth - 1];
			if (f->last)
				f->last->next = v;
			else
				f->node->child = v;
			f->last = v;
			f->node->count++;
			v->key = key;
			v->key_len = key_len;
		}
		char c = t[p];
		if (c == '{' || c == '[') {
			if (depth >= max_depth) {
				fail(ps, p, "nesting too deep");
				if (ps->err)
					snprintf(ps->err->message, sizeof ps->err->message,
					         "JSON nesting deeper than %d levels", max_depth);
				goto out;
			}
			if (stack == shallow && depth == (int)(sizeof shallow / sizeof shallow[0])) {
				frame_t *deep = malloc((size_t)max_depth * sizeof *deep);
				if (deep == NULL) {
					rc = out_of_memory(ps);
					goto out;
				}
				memcpy(deep, shallow, sizeof shallow);
				stack = deep;
			}
			v->type = c == '{' ? HERMES_JSON_OBJECT : HERMES_JSON_ARRAY;
			stack[depth].node = v;
			stack[depth].last = NULL;
			depth++;
			p = hermes_json_skip_ws(t, len, p + 1);
			if (p < len && t[p] == (c == '{' ? '}' : ']')) {
				v->end = ++p;
				depth--;
				goto after_value;
			}
			if (c == '{')
				goto expect_key;
			continue;
		} else if (c == '"') {
			v->type = HERMES_JSON_STRING;
			if (read_string(ps, &p, &v->str, &v->len))
				goto out;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			if (read_number(ps, &p, v))
				goto out;
		} else if (len - p >= 4 && memcmp(t + p, "true", 4) == 0) {
			v->type = HERMES_JSON_TRUE;
			p += 4;
		} else if (len - p >= 5 && memcmp(t + p, "false", 5) == 0) {
			v->type = HERMES_JSON_FALSE;
			p += 5;
		} else if (len - p >= 4 && memcmp(t + p, "null", 4) == 0) {
			v->type = HERMES_JSON_NULL;
			p += 4;
		} else {
			fail(ps, p, "expected a value");
			goto out;
		}
		v->end = p;
	after_value:
		for (;;) {
			if (depth == 0) {
				*end = p;
				rc = 0;
				goto out;
			}
			frame_t *f = &stack[depth - 1];
			bool object = f->node->type == HERMES_JSON_OBJECT;
			p = hermes_json_skip_ws(t, len, p);
			if (p >= len) {
				fail(ps, p, object ? "unterminated object" : "unterminated array");
				goto out;
			}
			if (t[p] == (object ? '}' : ']')) {
				f->node->end = ++p;
				if (object && mark_repeats(ps, f->node))
					goto out;
				depth--;
				continue;
			}
			if (t[p] != ',') {
				fail(ps, p, object ? "expected ',' or '}'" : "expected ',' or ']'");
				goto out;
			}
			p++;
			if (object)
				goto expect_key;
			break; /* the next element */
		}
		continue;
	expect_key:
		p = hermes_json_skip_ws(t, len, p);
		if (p >= len || t[p] != '"') {
			fail(ps, p, "expected a string key");
			goto out;
		}
		if (read_string(ps, &p, &key, &key_len))
			goto out;
		p = hermes_json_skip_ws(t, len, p);
		if (p >= len || t[p] != ':') {
			fail(ps, p, "expected ':' after key");
			goto out;
		}
		p++;
	}
out:
	if (rc != 0)
		*end = p;
	if (stack != shallow)
		free(stack);
	return rc;
}

int hermes_json_parse(const char *text, size_t len, int max_depth, hermes_json_doc_t **out,
                      size_t *end, hermes_error_t *err)
{
	return hermes_json_parse_bounded(text, len, max_depth, SIZE_MAX, out, end, err);
}

int hermes_json_parse_bounded(const char *text, size_t len, int max_depth, size_t max_values,
                              hermes_json_doc_t **out, size_t *end, hermes_error_t *err)
{
	size_t dummy;
	if (end == NULL)
		end = &dummy;
	if (max_depth > HERMES_JSON_MAX_DEPTH_LIMIT)
		max_depth = HERMES_JSON_MAX_DEPTH_LIMIT;
	if (max_depth < 1)
		max_depth = 1;
	parser_t ps = { text, len, NULL, NULL, NULL, 0, err, 0, max_values };
	ps.doc = hermes_zalloc(sizeof *ps.doc);
	/* A decoded string or number, with its NUL, never takes more bytes than its text (a string
	 * loses its two quotes; a number is followed by a delimiter or the end): len + 1 bytes hold
	 * them all. Pages never written to cost nothing. */
	if (ps.doc == NULL || (ps.doc->strings = malloc(len + 1)) == NULL) {
		free(ps.doc);
		*end = 0;
		return out_of_memory(&ps);
	}
	ps.s = ps.doc->strings;
	ps.doc->bytes = malloc_usable_size(ps.doc) + malloc_usable_size(ps.doc->strings) + 2 * 16;
	int rc = parse(&ps, max_depth, end);
	free(ps.table);
	if (rc != 0) {
		hermes_json_doc_free(ps.doc);
		return -1;
	}
	*out = ps.doc;
	return 0;
}

size_t hermes_json_doc_bytes(const hermes_json_doc_t *doc)
{
	return doc ? doc->bytes : 0;
}

const hermes_json_t *hermes_json_root(const hermes_json_doc_t *doc)
{
	return doc->root;
}

void hermes_json_doc_free(hermes_json_doc_t *doc)
{
	if (doc == NULL)
		return;
	for (chunk_t *c = doc->chunks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(doc->strings);
	free(doc);
}

const hermes_json_t *hermes_json_member(const hermes_json_t *obj, const char *name)
{
	if (obj == NULL || obj->type != HERMES_JSON_OBJECT)
		return NULL;
	size_t n = strlen(name);
	for (const hermes_json_t *m = obj->child; m; m = m->next)
		if (m->key_len == n && memcmp(m->key, name, n) == 0)
			return m;
	return NULL;
}

int hermes_json_integer(const hermes_json_t *v, int64_t min, int64_t max, int64_t *out)
{
	if (v == NULL || v->type != HERMES_JSON_NUMBER)
		return -1;
	return hermes_parse_int(v->str, min, max, out);
}

bool hermes_json_is_c_string(const hermes_json_t *v)
{
	return v && v->type == HERMES_JSON_STRING && memchr(v->str, '\0', v->len) == NULL;
}
