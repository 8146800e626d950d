/* verbs/lines.c: newline counting (SIMD where available) and the UTF-8 text check. */
#include <config.h>

#include "verbs/lines.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* 8-bit lane counters: subtracting the 0xFF of each match adds 1; flushed every 255 blocks. */
__attribute__((target("avx2"))) static size_t count_avx2(const unsigned char *p, size_t n)
{
	size_t total = 0;
	const __m256i nl = _mm256_set1_epi8('\n');
	while (n >= 128) {
		size_t blocks = n / 128;
		if (blocks > 255)
			blocks = 255;
		__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
		for (size_t i = 0; i < blocks; i++, p += 128) {
			a0 = _mm256_sub_epi8(a0, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)p), nl));
			a1 = _mm256_sub_epi8(a1, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + 32)), nl));
			a2 = _mm256_sub_epi8(a2, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + 64)), nl));
			a3 = _mm256_sub_epi8(a3, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + 96)), nl));
		}
		const __m256i z = _mm256_setzero_si256();
		__m256i s = _mm256_add_epi64(_mm256_add_epi64(_mm256_sad_epu8(a0, z), _mm256_sad_epu8(a1, z)),
		                             _mm256_add_epi64(_mm256_sad_epu8(a2, z), _mm256_sad_epu8(a3, z)));
		total += (size_t)_mm256_extract_epi64(s, 0) + (size_t)_mm256_extract_epi64(s, 1) +
		         (size_t)_mm256_extract_epi64(s, 2) + (size_t)_mm256_extract_epi64(s, 3);
		n -= blocks * 128;
	}
	while (n--)
		total += (*p++ == '\n');
	return total;
}

static size_t count_sse2(const unsigned char *p, size_t n)
{
	size_t total = 0;
	const __m128i nl = _mm_set1_epi8('\n');
	while (n >= 16) {
		size_t blocks = n / 16;
		if (blocks > 255)
			blocks = 255;
		__m128i acc = _mm_setzero_si128();
		for (size_t i = 0; i < blocks; i++, p += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), nl));
		__m128i s = _mm_sad_epu8(acc, _mm_setzero_si128());
		total += (size_t)_mm_cvtsi128_si64(s) + (size_t)_mm_extract_epi16(s, 4);
		n -= blocks * 16;
	}
	while (n--)
		total += (*p++ == '\n');
	return total;
}

#endif

static size_t count_memchr(const char *buf, size_t len)
{
	size_t total = 0;
	const char *end = buf + len;
	while ((buf = memchr(buf, '\n', (size_t)(end - buf))) != NULL) {
		total++;
		buf++;
	}
	return total;
}

size_t hermes_count_newlines_with(const char *buf, size_t len, int level)
{
#if defined(__x86_64__) && defined(__GNUC__)
	/* __builtin_cpu_supports only reads what libgcc detected at startup: cheap, thread-safe. */
	if (level >= 2 && __builtin_cpu_supports("avx2"))
		return count_avx2((const unsigned char *)buf, len);
	if (level >= 1)
		return count_sse2((const unsigned char *)buf, len);
#else
	(void)level;
#endif
	return count_memchr(buf, len);
}

size_t hermes_count_newlines(const char *buf, size_t len)
{
	return hermes_count_newlines_with(buf, len, 2);
}


bool hermes_text_valid(const char *str, size_t len, size_t *bad)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < len) {
		/* Fast path: 8 ASCII bytes at a time, none of them NUL. */
		if (i + 8 <= len) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if ((w & 0x8080808080808080ULL) == 0 &&
			    ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL) == 0) {
				i += 8;
				continue;
			}
		}
		unsigned c = s[i];
		size_t need;
		unsigned min;
		if (c == 0)
			goto fail;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xC2 && c <= 0xDF) {
			need = 1; min = 0x80;
		} else if (c >= 0xE0 && c <= 0xEF) {
			need = 2; min = 0x800;
		} else if (c >= 0xF0 && c <= 0xF4) {
			need = 3; min = 0x10000;
		} else {
			goto fail;
		}
		if (len - i <= need)
			goto fail;
		unsigned cp = c & (0x3F >> need);
		for (size_t k = 1; k <= need; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				goto fail;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			goto fail;
		i += need + 1;
	}
	return true;
fail:
	if (bad)
		*bad = i;
	return false;
}

int hermes_verbs_append(char **buf, size_t *used, size_t *cap, const char *s, size_t len)
{
	if (*used + len + 1 > *cap) {
		size_t ncap = *cap ? *cap : 4096;
		while (ncap < *used + len + 1)
			ncap *= 2;
		char *nb = realloc(*buf, ncap);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *used, s, len);
	*used += len;
	(*buf)[*used] = '\0';
	return 0;
}

char *hermes_text_lossy(const char *s)
{
	size_t len = strlen(s), used = 0, cap = 0;
	char *out = NULL;
	if (hermes_verbs_append(&out, &used, &cap, "", 0) < 0)
		return NULL;
	while (len > 0) {
		size_t bad = len;
		bool ok = hermes_text_valid(s, len, &bad);
		if (hermes_verbs_append(&out, &used, &cap, s, ok ? len : bad) < 0)
			goto oom;
		if (ok)
			break;
		if (hermes_verbs_append(&out, &used, &cap, "\xEF\xBF\xBD", 3) < 0)
			goto oom;
		s += bad + 1;
		len -= bad + 1;
	}
	return out;
oom:
	free(out);
	return NULL;
}
