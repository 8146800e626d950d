/* core/utf8.c: UTF-8 validation, fast on ASCII. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "core/utf8.h"

size_t hermes_utf8_sequence_length(const char *s, size_t avail)
{
	const unsigned char *p = (const unsigned char *)s;
	if (avail == 0)
		return 0;
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return (avail >= 2 && (p[1] & 0xC0) == 0x80) ? 2 : 0;
	if (c >= 0xE0 && c <= 0xEF) {
		if (avail < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
			return 0;
		if (c == 0xE0 && p[1] < 0xA0)
			return 0; /* overlong */
		if (c == 0xED && p[1] >= 0xA0)
			return 0; /* surrogate */
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if (avail < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
		    (p[3] & 0xC0) != 0x80)
			return 0;
		if (c == 0xF0 && p[1] < 0x90)
			return 0; /* overlong */
		if (c == 0xF4 && p[1] >= 0x90)
			return 0; /* past U+10FFFF */
		return 4;
	}
	return 0;
}

/* The one validator: the offset of the first byte that is not valid UTF-8 (or, if no_nul, a NUL). */
static size_t validate(const char *s, size_t len, bool no_nul)
{
	const uint64_t high = UINT64_C(0x8080808080808080), ones = UINT64_C(0x0101010101010101);
	size_t i = 0;
	while (i < len) {
		/* Skip ASCII eight bytes at a time (with no zero byte among them, if no_nul). */
		while (i + 8 <= len) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if ((w & high) || (no_nul && ((w - ones) & ~w & high)))
				break;
			i += 8;
		}
		if (i >= len)
			break;
		if ((unsigned char)s[i] < 0x80) {
			if (no_nul && s[i] == '\0')
				return i;
			i++;
			continue;
		}
		size_t n = hermes_utf8_sequence_length(s + i, len - i);
		if (n == 0)
			return i;
		i += n;
	}
	return len;
}

size_t hermes_utf8_validate(const char *s, size_t len)
{
	return validate(s, len, false);
}

size_t hermes_text_validate(const char *s, size_t len)
{
	return validate(s, len, true);
}

void hermes_text_position(const char *text, size_t offset, int *line, int *column)
{
	int l = 1;
	size_t bol = 0;
	for (size_t i = 0; i < offset; i++) {
		if (text[i] == '\n') {
			l++;
			bol = i + 1;
		}
	}
	*line = l;
	*column = (int)(offset - bol) + 1;
}
