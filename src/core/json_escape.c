/* core/json_escape.c: a byte string as the inside of a JSON string (hermes_buf_json_chars,
 * hermes_buf_json_string in buf.h): runs of plain ASCII copied a vector at a time, escapes made in
 * place, UTF-8 kept, bytes that are not UTF-8 written as U+FFFD. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/buf.h"
#include "core/utf8.h"

/* The bytes a JSON string holds as they are: ASCII from the space on, but for '"' and '\\'. */
static const unsigned char plain_ascii[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* What each byte under 0x80 that plain_ascii refuses becomes: its escape, padded to 8 bytes so
 * that it is stored in one move, with its length in [7]. The short escapes where JSON has one,
 * \u00XX for the other control bytes. */
static const char escapes[0x80][9] = {
	[0x00] = "\\u0000\0\6",
	[0x01] = "\\u0001\0\6",
	[0x02] = "\\u0002\0\6",
	[0x03] = "\\u0003\0\6",
	[0x04] = "\\u0004\0\6",
	[0x05] = "\\u0005\0\6",
	[0x06] = "\\u0006\0\6",
	[0x07] = "\\u0007\0\6",
	[0x08] = "\\b\0\0\0\0\0\2",
	[0x09] = "\\t\0\0\0\0\0\2",
	[0x0a] = "\\n\0\0\0\0\0\2",
	[0x0b] = "\\u000b\0\6",
	[0x0c] = "\\f\0\0\0\0\0\2",
	[0x0d] = "\\r\0\0\0\0\0\2",
	[0x0e] = "\\u000e\0\6",
	[0x0f] = "\\u000f\0\6",
	[0x10] = "\\u0010\0\6",
	[0x11] = "\\u0011\0\6",
	[0x12] = "\\u0012\0\6",
	[0x13] = "\\u0013\0\6",
	[0x14] = "\\u0014\0\6",
	[0x15] = "\\u0015\0\6",
	[0x16] = "\\u0016\0\6",
	[0x17] = "\\u0017\0\6",
	[0x18] = "\\u0018\0\6",
	[0x19] = "\\u0019\0\6",
	[0x1a] = "\\u001a\0\6",
	[0x1b] = "\\u001b\0\6",
	[0x1c] = "\\u001c\0\6",
	[0x1d] = "\\u001d\0\6",
	[0x1e] = "\\u001e\0\6",
	[0x1f] = "\\u001f\0\6",
	[0x22] = "\\\"\0\0\0\0\0\2",
	[0x5c] = "\\\\\0\0\0\0\0\2",
};

/* Writes the escape of c, a byte under 0x80 that plain_ascii refuses, at o (8 bytes stored: room
 * for them is reserved); returns the next o. */
static inline char *escape_byte(char *o, unsigned char c)
{
	memcpy(o, escapes[c], 8);
	return o + escapes[c][7];
}

/* Writes what the byte at s[*i] (of n) becomes, and what follows it if it starts a valid UTF-8
 * sequence, at o; advances *i past them and returns the next o. */
static inline char *one_step(char *o, const char *s, size_t n, size_t *i)
{
	unsigned char c = (unsigned char)s[*i];
	if (plain_ascii[c]) {
		*o++ = (char)c;
		++*i;
	} else if (c < 0x80) {
		o = escape_byte(o, c);
		++*i;
	} else {
		size_t len = hermes_utf8_sequence_length(s + *i, n - *i);
		if (len == 0) {
			memcpy(o, "\xEF\xBF\xBD", 3); /* U+FFFD */
			o += 3;
			++*i;
		} else {
			memcpy(o, s + *i, len);
			o += len;
			*i += len;
		}
	}
	return o;
}

void hermes_buf_json_chars(hermes_buf_t *b, const char *s, size_t n)
{
	/* Worst case every byte becomes \u00XX (an escape is stored as 8 bytes): reserve once, then
	 * write directly. */
	if (!hermes_buf_reserve(b, n * 6 + 8))
		return;
	char *o = b->data + b->len;
	size_t i = 0;
	/* Runs of plain ASCII are most of any text (a line of source: 50 bytes, then "\n"). Each step
	 * stores 64 (or 32) bytes as they are (while that many remain, at most 6 bytes a byte were
	 * written so far: the reserve has room for them), keeps as many as precede the first byte
	 * that needs a look, and handles that one byte in place. */
#ifdef __SSE2__
	const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'),
	              backslash = _mm_set1_epi8('\\');
/* signed: bytes of 0x80 and up are "less than" a space too */
#define STOPS(v) _mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, space), \
	_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash))))
	/* Four vectors a step: a step without a stop is then the exception (a line is 55 bytes), so
	 * the branch on it is mostly foreseen, where with 32 bytes it went either way. */
	while (i + 64 <= n) {
		__m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
		__m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
		__m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
		uint64_t mask = (uint64_t)(unsigned)STOPS(v0) | (uint64_t)(unsigned)STOPS(v1) << 16 |
		                (uint64_t)(unsigned)STOPS(v2) << 32 | (uint64_t)(unsigned)STOPS(v3) << 48;
		_mm_storeu_si128((__m128i *)(void *)o, v0);
		_mm_storeu_si128((__m128i *)(void *)(o + 16), v1);
		_mm_storeu_si128((__m128i *)(void *)(o + 32), v2);
		_mm_storeu_si128((__m128i *)(void *)(o + 48), v3);
		if (!mask) {
			i += 64;
			o += 64;
			continue;
		}
		__m128i any = _mm_or_si128(_mm_or_si128(v0, v1), _mm_or_si128(v2, v3));
		if (_mm_movemask_epi8(any) || i + 128 > n) { /* a byte of 0x80 and up, or near the end */
			unsigned k = (unsigned)__builtin_ctzll(mask);
			i += k;
			o += k;
			o = one_step(o, s, n, &i);
			continue;
		}
		/* ASCII only, and 64 bytes more after it: every stop of the block escaped in one go (a
		 * block taken again from each stop cost a mispredicted branch a line). After each
		 * escape the rest of the block is stored again further on: its 64 bytes from there are
		 * in s (i + 128 <= n) and, escapes being longer than their byte, within the reserve. */
		unsigned from = 0; /* bytes of the block written out */
		do {
			unsigned k = (unsigned)__builtin_ctzll(mask);
			mask &= mask - 1;
			o = escape_byte(o + (k - from), (unsigned char)s[i + k]);
			from = k + 1;
			const char *rest = s + i + from;
			for (unsigned v = 0; v < 64; v += 16)
				_mm_storeu_si128((__m128i *)(void *)(o + v),
				                 _mm_loadu_si128((const __m128i *)(const void *)(rest + v)));
		} while (mask);
		o += 64 - from;
		i += 64;
	}
	while (i + 32 <= n) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
		unsigned mask = (unsigned)STOPS(v) | (unsigned)STOPS(w) << 16;
		_mm_storeu_si128((__m128i *)(void *)o, v);
		_mm_storeu_si128((__m128i *)(void *)(o + 16), w);
		unsigned k = mask ? (unsigned)__builtin_ctz(mask) : 32;
		i += k;
		o += k;
		if (mask)
			o = one_step(o, s, n, &i);
	}
	if (i + 16 <= n) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned mask = (unsigned)STOPS(v);
		_mm_storeu_si128((__m128i *)(void *)o, v);
		unsigned k = mask ? (unsigned)__builtin_ctz(mask) : 16;
		i += k;
		o += k;
	}
#undef STOPS
#else
	/* 8 bytes a step: any byte under 0x20 or of 0x80 and up, '"' or '\\' ends the word's run */
	const uint64_t ones = UINT64_C(0x0101010101010101), high = ones * 0x80;
	while (i + 8 <= n) {
		uint64_t w, q, bs;
		memcpy(&w, s + i, 8);
		q = w ^ (ones * '"');
		bs = w ^ (ones * '\\');
		if ((w & high) || ((w - ones * 0x20) & ~w & high) || ((q - ones) & ~q & high) ||
		    ((bs - ones) & ~bs & high)) {
			o = one_step(o, s, n, &i);
			continue;
		}
		memcpy(o, &w, 8);
		i += 8;
		o += 8;
	}
#endif
	while (i < n)
		o = one_step(o, s, n, &i);
	b->len = (size_t)(o - b->data);
	b->data[b->len] = '\0';
}

void hermes_buf_json_string(hermes_buf_t *b, const char *s, size_t n)
{
	/* what hermes_buf_json_chars reserves, and the quotes: the buffer is not grown twice */
	if (!hermes_buf_reserve(b, n * 6 + 8 + 2))
		return;
	b->data[b->len++] = '"';
	hermes_buf_json_chars(b, s, n);
	hermes_buf_putc(b, '"');
}
