/* core/utf8.c: UTF-8 validation, fast on ASCII. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* Offset of the first byte of s[i..len) that is not plain ASCII (0x80 and up, or a NUL if
 * no_nul), or len. Text is mostly ASCII: this is where a 50 MB file's validation spends its time,
 * so it looks at 32 bytes a step (SSE2, part of every x86_64), 8 elsewhere. */
static size_t skip_ascii(const char *s, size_t i, size_t len, bool no_nul)
{
#ifdef __SSE2__
	const __m128i zero = _mm_setzero_si128();
	while (i + 32 <= len) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
		/* movemask takes each byte's high bit: set for every byte of 0x80 and up */
		unsigned stop = (unsigned)_mm_movemask_epi8(_mm_or_si128(a, b));
		if (no_nul)
			stop |= (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(a, zero),
			                                                 _mm_cmpeq_epi8(b, zero)));
		if (stop)
			break; /* the bytewise loop below finds which byte */
		i += 32;
	}
#endif
	const uint64_t high = UINT64_C(0x8080808080808080), ones = UINT64_C(0x0101010101010101);
	while (i + 8 <= len) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		if ((w & high) || (no_nul && ((w - ones) & ~w & high)))
			break;
		i += 8;
	}
	while (i < len && (unsigned char)s[i] < 0x80 && !(no_nul && s[i] == '\0'))
		i++;
	return i;
}

/* The one validator: the offset of the first byte that is not valid UTF-8 (or, if no_nul, a NUL). */
static size_t validate(const char *s, size_t len, bool no_nul)
{
	size_t i = 0;
	for (;;) {
		i = skip_ascii(s, i, len, no_nul);
		if (i >= len)
			return len;
		if ((unsigned char)s[i] < 0x80)
			return i; /* a NUL, where no_nul */
		size_t n = hermes_utf8_sequence_length(s + i, len - i);
		if (n == 0)
			return i;
		i += n;
	}
}

size_t hermes_utf8_validate(const char *s, size_t len)
{
	return validate(s, len, false);
}

size_t hermes_text_validate(const char *s, size_t len)
{
	return validate(s, len, true);
}

size_t hermes_utf8_safe_cut(const char *s, size_t at)
{
	/* A valid sequence spanning a cut has its lead byte among the 3 before it and a continuation
	 * byte at it. So: the cut goes before the nearest byte that is not a continuation byte, back
	 * to 3 bytes before at; if there is none, no lead byte is there, and `at` is safe itself. */
	for (size_t c = at;; c--) {
		if (((unsigned char)s[c] & 0xC0) != 0x80)
			return c;
		if (c == 0 || c + 3 == at)
			return at;
	}
}

size_t hermes_utf8_whole_prefix(const char *s, size_t len)
{
	size_t lead = len; /* s[lead - 1]: the last byte that is not a continuation byte */
	while (lead > 0 && len - lead < 3 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
		lead--;
	if (lead == 0)
		return len;
	unsigned char c = (unsigned char)s[lead - 1];
	size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	return len - (lead - 1) < need ? lead - 1 : len;
}

bool hermes_text_validate_more(const char *s, size_t len, size_t *checked, bool final)
{
	size_t from = *checked, cut = len;
	if (!final) {
		if (len - from < 8)
			return true; /* wait for more */
		cut = hermes_utf8_safe_cut(s, len - 1);
	}
	size_t at = from + validate(s + from, cut - from, true);
	*checked = at;
	return at == cut;
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
