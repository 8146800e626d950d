/* core/json_scan.c: strict JSON validation with positions (iterative, bounded depth). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/json_scan.h"
#include "core/utf8.h"
#include "core/verb.h"

size_t hermes_json_skip_ws(const char *t, size_t len, size_t pos)
{
	while (pos < len && (t[pos] == ' ' || t[pos] == '\t' || t[pos] == '\n' || t[pos] == '\r'))
		pos++;
	return pos;
}

static int fail(const char *t, size_t len, size_t at, size_t *end, hermes_error_t *err,
                const char *what)
{
	*end = at;
	if (err) {
		char near[32] = "end of input";
		if (at < len) {
			unsigned char c = (unsigned char)t[at];
			if (c >= 0x20 && c < 0x7F)
				snprintf(near, sizeof near, "'%c'", c);
			else
				snprintf(near, sizeof near, "byte 0x%02X", c);
		}
		hermes_error_set(err, HERMES_E_INVALID_ENVELOPE, "JSON syntax error: %s (found %s)",
		                 what, near);
		hermes_text_position(t, at, &err->line, &err->column);
	}
	return -1;
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

/* Scans a string starting at the opening quote t[*pos]; leaves *pos after the closing quote. */
static int scan_string(const char *t, size_t len, size_t *pos, unsigned flags, size_t *end,
                       hermes_error_t *err)
{
	size_t p = *pos + 1;
	for (;;) {
		if (p >= len)
			return fail(t, len, p, end, err, "unterminated string");
		unsigned char c = (unsigned char)t[p];
		if (c == '"') {
			*pos = p + 1;
			return 0;
		}
		if (c < 0x20)
			return fail(t, len, p, end, err, "control character in string (escape it)");
		if (c >= 0x80) {
			size_t n = hermes_utf8_sequence_length(t + p, len - p);
			if (n == 0)
				return fail(t, len, p, end, err, "invalid UTF-8 in string");
			p += n;
			continue;
		}
		if (c != '\\') {
			p++;
			continue;
		}
		if (p + 1 >= len)
			return fail(t, len, p + 1, end, err, "unterminated escape");
		char e = t[p + 1];
		if (strchr("\"\\/bfnrt", e) && e != '\0') {
			p += 2;
			continue;
		}
		if (e != 'u')
			return fail(t, len, p, end, err, "invalid escape in string");
		long u = read_u4(t, len, p + 2);
		if (u < 0)
			return fail(t, len, p, end, err, "invalid \\u escape (expected four hex digits)");
		if (u == 0 && (flags & HERMES_JSON_REJECT_NUL))
			return fail(t, len, p, end, err, "\\u0000 (NUL) is not allowed in strings");
		if (u >= 0xDC00 && u <= 0xDFFF)
			return fail(t, len, p, end, err, "lone low surrogate in \\u escape");
		if (u >= 0xD800 && u <= 0xDBFF) {
			long lo = (p + 8 <= len && t[p + 6] == '\\' && t[p + 7] == 'u')
			              ? read_u4(t, len, p + 8) : -1;
			if (lo < 0xDC00 || lo > 0xDFFF)
				return fail(t, len, p, end, err, "high surrogate not followed by a low surrogate");
			p += 12;
			continue;
		}
		p += 6;
	}
}

static int scan_number(const char *t, size_t len, size_t *pos, size_t *end, hermes_error_t *err)
{
	size_t p = *pos;
	if (p < len && t[p] == '-')
		p++;
	if (p >= len || t[p] < '0' || t[p] > '9')
		return fail(t, len, p, end, err, "invalid number");
	if (t[p] == '0') {
		p++;
	} else {
		while (p < len && t[p] >= '0' && t[p] <= '9')
			p++;
	}
	if (p < len && t[p] == '.') {
		p++;
		if (p >= len || t[p] < '0' || t[p] > '9')
			return fail(t, len, p, end, err, "invalid number (digits must follow '.')");
		while (p < len && t[p] >= '0' && t[p] <= '9')
			p++;
	}
	if (p < len && (t[p] == 'e' || t[p] == 'E')) {
		p++;
		if (p < len && (t[p] == '+' || t[p] == '-'))
			p++;
		if (p >= len || t[p] < '0' || t[p] > '9')
			return fail(t, len, p, end, err, "invalid number (digits must follow the exponent)");
		while (p < len && t[p] >= '0' && t[p] <= '9')
			p++;
	}
	*pos = p;
	return 0;
}

int hermes_json_scan(const char *t, size_t len, unsigned flags, int max_depth, size_t *end,
                     hermes_error_t *err)
{
	char stack[HERMES_JSON_MAX_DEPTH_LIMIT]; /* '[' or '{' per open container */
	int depth = 0;
	if (max_depth > HERMES_JSON_MAX_DEPTH_LIMIT)
		max_depth = HERMES_JSON_MAX_DEPTH_LIMIT;
	size_t p = hermes_json_skip_ws(t, len, 0);

	for (;;) {
		/* Expect a value at p. */
		p = hermes_json_skip_ws(t, len, p);
		if (p >= len)
			return fail(t, len, p, end, err, "expected a value");
		char c = t[p];
		if (c == '{' || c == '[') {
			if (depth >= max_depth) {
				fail(t, len, p, end, err, "nesting too deep");
				if (err)
					snprintf(err->message, sizeof err->message,
					         "JSON nesting deeper than %d levels", max_depth);
				return -1;
			}
			stack[depth++] = c;
			p = hermes_json_skip_ws(t, len, p + 1);
			if (p < len && t[p] == (c == '{' ? '}' : ']')) {
				depth--;
				p++;
				goto after_value;
			}
			if (c == '{')
				goto expect_key;
			continue;
		} else if (c == '"') {
			if (scan_string(t, len, &p, flags, end, err))
				return -1;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			if (scan_number(t, len, &p, end, err))
				return -1;
		} else if (len - p >= 4 && memcmp(t + p, "true", 4) == 0) {
			p += 4;
		} else if (len - p >= 5 && memcmp(t + p, "false", 5) == 0) {
			p += 5;
		} else if (len - p >= 4 && memcmp(t + p, "null", 4) == 0) {
			p += 4;
		} else {
			return fail(t, len, p, end, err, "expected a value");
		}
	after_value:
		for (;;) {
			if (depth == 0) {
				*end = p;
				return 0;
			}
			p = hermes_json_skip_ws(t, len, p);
			if (p >= len)
				return fail(t, len, p, end, err,
				            stack[depth - 1] == '{' ? "unterminated object" : "unterminated array");
			char close = stack[depth - 1] == '{' ? '}' : ']';
			if (t[p] == close) {
				depth--;
				p++;
				continue;
			}
			if (t[p] != ',')
				return fail(t, len, p, end, err,
				            close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
			p++;
			if (close == '}')
				goto expect_key;
			break; /* next array element */
		}
		continue;
	expect_key:
		p = hermes_json_skip_ws(t, len, p);
		if (p >= len || t[p] != '"')
			return fail(t, len, p, end, err, "expected a string key");
		if (scan_string(t, len, &p, flags, end, err))
			return -1;
		p = hermes_json_skip_ws(t, len, p);
		if (p >= len || t[p] != ':')
			return fail(t, len, p, end, err, "expected ':' after key");
		p++;
	}
}
