/* tests/check_verbs_lines.c: the primitives under the line verbs, tested directly: the SIMD
 * newline counter against a plain loop at every length and alignment, and the text check against
 * the core's UTF-8 validator (plus its own NUL rule) on edge cases and random bytes. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "core/utf8.h"
#include "fs/lines.h"
#include "check_run.h"

static size_t naive_count(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += s[i] == '\n';
	return c;
}

START_TEST(count_every_length_and_alignment)
{
	enum { MAX = 70000 };
	char *buf = malloc(MAX + 64);
	unsigned seed = 7;
	for (size_t i = 0; i < MAX + 64; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (seed >> 16) % 5 == 0 ? '\n' : (char)(seed >> 8);
	}
	for (int level = 0; level <= 2; level++) {
		for (size_t off = 0; off < 33; off++)
			for (size_t n = 0; n < 700; n++)
				if (hermes_count_newlines_with(buf + off, n, level) != naive_count(buf + off, n))
					ck_abort_msg("level %d, offset %zu, length %zu", level, off, n);
		for (size_t n = MAX - 300; n <= MAX; n += 7)
			ck_assert_uint_eq(hermes_count_newlines_with(buf + 5, n, level), naive_count(buf + 5, n));
	}
	/* Long runs: more than 255 blocks of every width, all newlines (8-bit lane overflow). */
	memset(buf, '\n', MAX);
	for (int level = 0; level <= 2; level++) {
		for (size_t n = MAX - 40; n <= MAX; n++)
			ck_assert_uint_eq(hermes_count_newlines_with(buf, n, level), n);
		ck_assert_uint_eq(hermes_count_newlines_with(buf + 3, MAX - 3, level), MAX - 3);
	}
	ck_assert_uint_eq(hermes_count_newlines(buf, MAX), MAX);
	memset(buf, 'x', MAX);
	ck_assert_uint_eq(hermes_count_newlines(buf, MAX), 0);
	free(buf);
}
END_TEST

START_TEST(text_edge_cases)
{
	struct { const char *s; size_t len; bool ok; size_t bad; } cases[] = {
		{"", 0, true, 0},
		{"plain ascii text, long enough for the 8-byte path", 49, true, 0},
		{"\x7f", 1, true, 0},
		{"\xc2\x80", 2, true, 0},
		{"\xdf\xbf", 2, true, 0},
		{"\xe0\xa0\x80", 3, true, 0},
		{"\xef\xbf\xbf", 3, true, 0},
		{"\xf0\x90\x80\x80", 4, true, 0},
		{"\xf4\x8f\xbf\xbf", 4, true, 0},          /* U+10FFFF */
		{"abcdefg\0", 8, false, 7},                /* NUL inside the fast path's word */
		{"abcdefgh\0", 9, false, 8},
		{"\xc0\x80", 2, false, 0},                 /* overlong NUL */
		{"\xc1\xbf", 2, false, 0},
		{"\xe0\x9f\xbf", 3, false, 0},             /* overlong */
		{"\xed\xa0\x80", 3, false, 0},             /* surrogate */
		{"\xf0\x8f\xbf\xbf", 4, false, 0},         /* overlong */
		{"\xf4\x90\x80\x80", 4, false, 0},         /* past U+10FFFF */
		{"\xf5\x80\x80\x80", 4, false, 0},
		{"ok\x80", 3, false, 2},                   /* stray continuation */
		{"ok\xe2\x82", 4, false, 2},               /* truncated at the end */
		{"12345678\xc3", 9, false, 8},
		{"\xc3(", 2, false, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t bad = 999;
		bool ok = hermes_text_valid(cases[i].s, cases[i].len, &bad);
		ck_assert_msg(ok == cases[i].ok, "case %zu", i);
		if (!ok)
			ck_assert_msg(bad == cases[i].bad, "case %zu: bad at %zu, want %zu", i, bad, cases[i].bad);
	}
}
END_TEST

START_TEST(text_agrees_with_core_validator)
{
	/* Random short strings biased towards UTF-8 lead and continuation bytes. */
	static const unsigned char pool[] = {'a', 'z', ' ', '\n', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0,
	                                     0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4,
	                                     0xf5, 0xff};
	unsigned seed = 99;
	char s[16];
	for (int round = 0; round < 200000; round++) {
		seed = seed * 1103515245u + 12345u;
		size_t n = (seed >> 16) % 13;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			s[i] = (char)pool[(seed >> 16) % sizeof pool];
		}
		size_t bad;
		bool mine = hermes_text_valid(s, n, &bad);
		bool core = hermes_utf8_valid(s, n);
		ck_assert_msg(mine == core, "round %d disagrees", round);
		if (!mine)
			ck_assert_uint_eq(bad, hermes_utf8_validate(s, n));
	}
}
END_TEST

START_TEST(lossy_names)
{
	char *s = hermes_text_lossy("caf\xe9 ok \xff\xfe");
	ck_assert_str_eq(s, "caf\xef\xbf\xbd ok \xef\xbf\xbd\xef\xbf\xbd");
	ck_assert(hermes_text_valid(s, strlen(s), NULL));
	free(s);
	s = hermes_text_lossy("d\xc3\xa9j\xc3\xa0");
	ck_assert_str_eq(s, "d\xc3\xa9j\xc3\xa0");
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verbs-lines");
	TCase *tc = tcase_create("lines");
	tcase_add_test(tc, count_every_length_and_alignment);
	tcase_add_test(tc, text_edge_cases);
	tcase_add_test(tc, text_agrees_with_core_validator);
	tcase_add_test(tc, lossy_names);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed ? 1 : 0;
}
