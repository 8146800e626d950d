/* core/base64.c: strict standard base64 (see base64.h). Both directions work on whole groups of
 * 3 bytes / 4 characters in a plain loop with table look-ups, which compilers keep branch-free. */
#include "config.h"

#include <stdio.h>

#include "core/base64.h"

static const char alphabet[65] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* 0..63 for a letter of the alphabet, 0xff for anything else ('=' included). */
static const uint8_t values[256] = {
#define X 0xff
	X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
	X, X, X, X, X, X, X, X, X, X, X, 62, X, X, X, 63,
	52, 53, 54, 55, 56, 57, 58, 59, 60, 61, X, X, X, X, X, X,
	X, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, X, X, X, X, X,
	X, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
	41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, X, X, X, X, X,
	X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
	X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
	X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
	X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
#undef X
};

void hermes_base64_encode(const uint8_t *in, size_t n, char *out)
{
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[0] = alphabet[v >> 18];
		out[1] = alphabet[(v >> 12) & 63];
		out[2] = alphabet[(v >> 6) & 63];
		out[3] = alphabet[v & 63];
		out += 4;
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)in[i] << 16;
		out[0] = alphabet[v >> 18];
		out[1] = alphabet[(v >> 12) & 63];
		out[2] = out[3] = '=';
		out += 4;
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		out[0] = alphabet[v >> 18];
		out[1] = alphabet[(v >> 12) & 63];
		out[2] = alphabet[(v >> 6) & 63];
		out[3] = '=';
		out += 4;
	}
	*out = '\0';
}

static void say(char *why, size_t n, const char *in, size_t at, const char *what)
{
	if (!why || !n)
		return;
	unsigned char c = (unsigned char)in[at];
	if (c >= 0x20 && c < 0x7f && c != '\'')
		snprintf(why, n, "%s '%c' at position %zu", what, c, at);
	else
		snprintf(why, n, "%s (byte 0x%02x) at position %zu", what, c, at);
}

bool hermes_base64_decode(const char *in, size_t len, uint8_t *out, size_t *out_len, char *why,
                          size_t n)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0, i = 0;
	/* Whole groups with no padding: every group but the last. */
	size_t full = len >= 4 ? len - 4 : 0;
	for (; i < full; i += 4) {
		uint32_t a = values[s[i]], b = values[s[i + 1]], c = values[s[i + 2]], d = values[s[i + 3]];
		if ((a | b | c | d) == 0xff)
			goto bad_char;
		uint32_t v = a << 18 | b << 12 | c << 6 | d;
		out[o] = (uint8_t)(v >> 16);
		out[o + 1] = (uint8_t)(v >> 8);
		out[o + 2] = (uint8_t)v;
		o += 3;
	}
	if (len % 4 != 0) {
		if (why && n)
			snprintf(why, n, "invalid base64 length %zu: it must be a multiple of 4 (the text is "
			         "cut, or its padding '=' is missing)", len);
		return false;
	}
	if (len == 0) {
		*out_len = 0;
		return true;
	}
	/* The last group: "xxxx", "xxx=" or "xx==". */
	uint32_t a = values[s[i]], b = values[s[i + 1]], c = values[s[i + 2]], d = values[s[i + 3]];
	size_t pad = s[i + 3] == '=' ? (s[i + 2] == '=' ? 2 : 1) : 0;
	if (a == 0xff || b == 0xff || (pad < 2 && c == 0xff) || (pad == 0 && d == 0xff))
		goto bad_char;
	uint32_t v = a << 18 | b << 12 | (pad < 2 ? c : 0) << 6 | (pad == 0 ? d : 0);
	if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff))) {
		if (why && n)
			snprintf(why, n, "invalid base64: the character at position %zu leaves bits that "
			         "are not zero before the padding (not the canonical encoding)",
			         i + 3 - pad);
		return false;
	}
	out[o++] = (uint8_t)(v >> 16);
	if (pad < 2)
		out[o++] = (uint8_t)(v >> 8);
	if (pad == 0)
		out[o++] = (uint8_t)v;
	*out_len = o;
	return true;
bad_char:
	for (size_t j = i; j < len; j++) {
		if (values[s[j]] != 0xff)
			continue;
		if (s[j] == '=')
			say(why, n, in, j, j + 2 < len || (j + 2 == len && s[j + 1] != '=')
			                       ? "padding '=' before the end of the base64 text"
			                       : "misplaced padding '=' in the base64 text");
		else
			say(why, n, in, j, "invalid base64 character");
		return false;
	}
	say(why, n, in, i, "invalid base64 character"); /* not reached */
	return false;
}
