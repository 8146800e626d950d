/* server/json_text.c: raw JSON text helpers for the server (see json_text.h). */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "server/json_text.h"

const char *hermes_jt_skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

static const char *skip_string(const char *p, const char *end)
{
	p++; /* opening quote */
	while (p < end && *p != '"')
		p += *p == '\\' ? 2 : 1;
	return p < end ? p + 1 : end;
}

const char *hermes_jt_skip_value(const char *p, const char *end)
{
	if (p >= end)
		return end;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[') {
		size_t depth = 0; /* no recursion: validated input nests as deep as it likes */
		while (p < end) {
			char c = *p;
			if (c == '"') {
				p = skip_string(p, end);
				continue;
			}
			if (c == '{' || c == '[')
				depth++;
			else if (c == '}' || c == ']') {
				if (--depth == 0)
					return p + 1;
			}
			p++;
		}
		return end;
	}
	/* number, true, false, null */
	while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t' &&
	       *p != '\r' && *p != '\n')
		p++;
	return p;
}

static void put_utf8(char **o, uint32_t cp)
{
	unsigned char *u = (unsigned char *)*o;
	if (cp < 0x80) {
		*u++ = (unsigned char)cp;
	} else if (cp < 0x800) {
		*u++ = (unsigned char)(0xc0 | (cp >> 6));
		*u++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*u++ = (unsigned char)(0xe0 | (cp >> 12));
		*u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*u++ = (unsigned char)(0x80 | (cp & 0x3f));
	} else {
		*u++ = (unsigned char)(0xf0 | (cp >> 18));
		*u++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		*u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		*u++ = (unsigned char)(0x80 | (cp & 0x3f));
	}
	*o = (char *)u;
}

static uint32_t hex4(const char *p, const char *end)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		int h = p + i < end ? hermes_json_hexval(p[i]) : -1;
		if (h < 0)
			return 0xfffd;
		v = v * 16 + (uint32_t)h;
	}
	return v;
}

char *hermes_jt_decode_string(const char *raw, size_t len, size_t *out_len)
{
	/* Every escape shrinks or keeps its length in UTF-8 (\uXXXX: 6 bytes -> at most 3, a pair:
	 * 12 -> 4), so len bytes are enough. */
	char *out = malloc(len + 1), *o = out;
	if (out == NULL)
		return NULL;
	const char *p = raw, *end = raw + len;
	if (p < end && *p == '"')
		p++;
	if (end > p && end[-1] == '"')
		end--;
	while (p < end) {
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		p++;
		if (p >= end)
			break;
		char c = *p++;
		switch (c) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			uint32_t cp = hex4(p, end);
			p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff && p + 6 <= end && p[0] == '\\' && p[1] == 'u') {
				uint32_t lo = hex4(p + 2, end);
				if (lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				}
			}
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = 0xfffd; /* a lone surrogate */
			put_utf8(&o, cp);
			break;
		}
		default: *o++ = c; break; /* " \ / */
		}
	}
	*o = '\0';
	if (out_len)
		*out_len = (size_t)(o - out);
	return out;
}

int hermes_jt_member(const char *obj, size_t len, const char *name, const char **value,
                       size_t *value_len)
{
	const char *p = obj, *end = obj + len;
	size_t name_len = strlen(name);
	int found = 0;
	p = hermes_jt_skip_ws(p, end);
	if (p >= end || *p != '{')
		return 0;
	p++;
	for (;;) {
		p = hermes_jt_skip_ws(p, end);
		if (p >= end || *p != '"')
			return found;
		const char *k = p;
		p = skip_string(p, end);
		size_t klen = (size_t)(p - k);
		bool match;
		if (memchr(k, '\\', klen) == NULL) {
			match = klen == name_len + 2 && memcmp(k + 1, name, name_len) == 0;
		} else {
			size_t dlen;
			char *d = hermes_jt_decode_string(k, klen, &dlen);
			match = d != NULL && dlen == name_len && memcmp(d, name, name_len) == 0;
			free(d);
		}
		p = hermes_jt_skip_ws(p, end);
		if (p < end && *p == ':')
			p++;
		p = hermes_jt_skip_ws(p, end);
		const char *v = p;
		p = hermes_jt_skip_value(p, end);
		if (match && found++ == 0) {
			*value = v;
			*value_len = (size_t)(p - v);
		}
		p = hermes_jt_skip_ws(p, end);
		if (p < end && *p == ',')
			p++;
		else
			return found;
	}
}
