/* fs/lines.c: newline counting (SIMD where available) and the UTF-8 text check. */
#include <config.h>

#include "core/buf.h"
#include "core/utf8.h"
#include "fs/lines.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#ifdef HAVE_SYS_PLATFORM_X86_H
#include <sys/platform/x86.h>
#endif

/* AVX2: glibc's answer (read from what the dynamic loader found, glibc >= 2.33) where there is one.
 * __builtin_cpu_supports links libgcc's detector, which runs CPUID a dozen times at every start
 * of every process: in a virtual machine each CPUID traps to the hypervisor, and that was 6% of a
 * one-shot `hermes exec`. */
static bool have_avx2(void)
{
#ifdef HAVE_SYS_PLATFORM_X86_H
	return CPU_FEATURE_ACTIVE(AVX2);
#else
	return __builtin_cpu_supports("avx2");
#endif
}

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
	if (level >= 2 && have_avx2())
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


bool hermes_text_valid(const char *s, size_t len, size_t *bad)
{
	size_t at = hermes_text_validate(s, len);
	if (at == len)
		return true;
	if (bad)
		*bad = at;
	return false;
}

void *hermes_lines_buffer(void)
{
	return aligned_alloc(4096, HERMES_LINES_BUFSIZE);
}

char *hermes_text_lossy(const char *s)
{
	return hermes_text_lossy_n(s, strlen(s));
}

char *hermes_text_lossy_n(const char *s, size_t len)
{
	if (hermes_text_valid(s, len, NULL)) {
		char *copy = malloc(len + 1);
		if (copy) {
			memcpy(copy, s, len);
			copy[len] = '\0';
		}
		return copy;
	}
	hermes_buf_t out = HERMES_BUF_INIT;
	hermes_buf_append_lossy(&out, s, len);
	return hermes_buf_finish(&out);
}

void hermes_buf_append_lossy(hermes_buf_t *b, const char *s, size_t len)
{
	while (len > 0) {
		size_t bad = hermes_text_validate(s, len);
		hermes_buf_append(b, s, bad);
		if (bad == len)
			break;
		hermes_buf_append(b, "\xEF\xBF\xBD", 3);
		s += bad + 1;
		len -= bad + 1;
	}
}
