/* tests/check_bytes.c: the mechanisms under binary files: strict base64 (core/base64.h) against
 * RFC 4648's vectors, random round trips and every kind of bad input, and image headers
 * (fs/imageinfo.h) for each of the four types, cut at every length. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/base64.h"
#include "fs/imageinfo.h"
#include "check_run.h"

static char *enc(const char *s, size_t n)
{
	char *out = malloc(hermes_base64_encoded_len(n) + 1);
	hermes_base64_encode((const uint8_t *)s, n, out);
	return out;
}

START_TEST(base64_vectors)
{
	/* RFC 4648 section 10 */
	const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
	for (int i = 0; i < 7; i++) {
		char *e = enc(in[i], strlen(in[i]));
		ck_assert_str_eq(e, out[i]);
		uint8_t back[16];
		size_t n = 99;
		char why[128];
		ck_assert(hermes_base64_decode(e, strlen(e), back, &n, why, sizeof why));
		ck_assert_uint_eq(n, strlen(in[i]));
		ck_assert(memcmp(back, in[i], n) == 0);
		free(e);
	}
}
END_TEST

START_TEST(base64_round_trips)
{
	srand(26);
	uint8_t *data = malloc(5000), *back = malloc(5000);
	for (size_t len = 0; len < 5000; len += 1 + len / 7) {
		for (size_t i = 0; i < len; i++)
			data[i] = (uint8_t)rand();
		char *e = enc((const char *)data, len);
		ck_assert_uint_eq(strlen(e), hermes_base64_encoded_len(len));
		size_t n;
		ck_assert(hermes_base64_decode(e, strlen(e), back, &n, NULL, 0));
		ck_assert_uint_eq(n, len);
		ck_assert(memcmp(back, data, len) == 0);
		free(e);
	}
	free(data);
	free(back);
}
END_TEST

/* Decoding text must fail with a message holding want. */
static void refused(const char *text, const char *want)
{
	uint8_t out[64];
	size_t n = 12345;
	char why[200] = "";
	ck_assert_msg(!hermes_base64_decode(text, strlen(text), out, &n, why, sizeof why),
	              "'%s' was accepted", text);
	ck_assert_uint_eq(n, 12345);
	ck_assert_msg(strstr(why, want), "'%s': message '%s' lacks '%s'", text, why, want);
}

START_TEST(base64_strict)
{
	refused("Zm9", "length 3");
	refused("Zm9vY", "length 5");
	refused("Zm9v\nYmFy", "(byte 0x0a) at position 4"); /* no line breaks */
	refused("Zm9vYmF\n", "(byte 0x0a) at position 7");
	refused("Zm9v YmF", "' ' at position 4");
	refused("Zm9-YmFy", "'-' at position 3");   /* URL-safe letters are another alphabet */
	refused("Zm9_", "'_' at position 3");
	refused("Zg==Zm8=", "padding '=' before the end");
	refused("Z===", "position 1");
	refused("=Zm8", "position 0");
	refused("Zm=v", "position 2");
	refused("Zh==", "position 1");             /* 'h' leaves bits set: not canonical */
	refused("Zm9=", "position 2");
	refused("Zm\xc3\xa9", "(byte 0xc3) at position 2");
}
END_TEST

/* ---- image headers ------------------------------------------------------------------------ */

static size_t png(uint8_t *b, uint32_t w, uint32_t h)
{
	static const uint8_t start[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13,
	                                  'I', 'H', 'D', 'R'};
	memcpy(b, start, 16);
	for (int i = 0; i < 4; i++) {
		b[16 + i] = (uint8_t)(w >> (24 - 8 * i));
		b[20 + i] = (uint8_t)(h >> (24 - 8 * i));
	}
	memset(b + 24, 0, 9); /* depth, colour type, ..., CRC: not looked at */
	return 33;
}

static size_t jpeg(uint8_t *b, uint32_t w, uint32_t h)
{
	size_t at = 0;
	const uint8_t soi[] = {0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0,
	                       1, 0, 1, 0, 0};
	memcpy(b, soi, sizeof soi);
	at += sizeof soi;
	/* an APP1 segment of 300 bytes, then fill bytes, then SOF2 (progressive) */
	b[at++] = 0xff, b[at++] = 0xe1, b[at++] = 0x01, b[at++] = 0x2c;
	memset(b + at, 0xab, 298);
	at += 298;
	b[at++] = 0xff;
	const uint8_t sof[] = {0xff, 0xc2, 0x00, 0x11, 0x08, (uint8_t)(h >> 8), (uint8_t)h,
	                       (uint8_t)(w >> 8), (uint8_t)w, 3};
	memcpy(b + at, sof, sizeof sof);
	return at + sizeof sof;
}

static size_t gif(uint8_t *b, uint32_t w, uint32_t h)
{
	memcpy(b, "GIF89a", 6);
	b[6] = (uint8_t)w, b[7] = (uint8_t)(w >> 8), b[8] = (uint8_t)h, b[9] = (uint8_t)(h >> 8);
	b[10] = b[11] = b[12] = 0;
	return 13;
}

static size_t webp(uint8_t *b, const char *kind, uint32_t w, uint32_t h)
{
	memset(b, 0, 40);
	memcpy(b, "RIFF", 4);
	b[4] = 100;
	memcpy(b + 8, "WEBP", 4);
	memcpy(b + 12, kind, 4);
	uint8_t *c = b + 12;
	if (strcmp(kind, "VP8 ") == 0) {
		c[11] = 0x9d, c[12] = 0x01, c[13] = 0x2a;
		c[14] = (uint8_t)w, c[15] = (uint8_t)(w >> 8), c[16] = (uint8_t)h, c[17] = (uint8_t)(h >> 8);
	} else if (strcmp(kind, "VP8L") == 0) {
		uint32_t v = (w - 1) | (h - 1) << 14;
		c[8] = 0x2f;
		c[9] = (uint8_t)v, c[10] = (uint8_t)(v >> 8), c[11] = (uint8_t)(v >> 16),
		c[12] = (uint8_t)(v >> 24);
	} else {
		c[12] = (uint8_t)(w - 1), c[13] = (uint8_t)((w - 1) >> 8), c[14] = (uint8_t)((w - 1) >> 16);
		c[15] = (uint8_t)(h - 1), c[16] = (uint8_t)((h - 1) >> 8), c[17] = (uint8_t)((h - 1) >> 16);
	}
	return 40;
}

/* buf[0..len) is recognized as type, w x h; every shorter cut is refused or (never) misread. */
static void image_ok(const uint8_t *buf, size_t len, const char *type, uint32_t w, uint32_t h)
{
	hermes_image_info_t info = {0};
	ck_assert_msg(hermes_image_info(buf, len, &info), "%s not recognized", type);
	ck_assert_str_eq(info.mime_type, type);
	ck_assert_uint_eq(info.width, w);
	ck_assert_uint_eq(info.height, h);
	for (size_t cut = 0; cut < len; cut++) {
		/* A copy of exactly cut bytes, so that ASan sees any read past it. */
		uint8_t *part = malloc(cut ? cut : 1);
		memcpy(part, buf, cut);
		hermes_image_info_t other = {0};
		if (hermes_image_info(part, cut, &other)) /* only if the size was inside the cut */
			ck_assert(other.width == w && other.height == h);
		free(part);
	}
}

START_TEST(image_headers)
{
	uint8_t b[1024];
	image_ok(b, png(b, 640, 480), "image/png", 640, 480);
	image_ok(b, png(b, 1, 0x7fffffff), "image/png", 1, 0x7fffffff);
	image_ok(b, jpeg(b, 1920, 1080), "image/jpeg", 1920, 1080);
	image_ok(b, gif(b, 300, 2), "image/gif", 300, 2);
	image_ok(b, webp(b, "VP8 ", 550, 368), "image/webp", 550, 368);
	image_ok(b, webp(b, "VP8L", 16383, 1), "image/webp", 16383, 1);
	image_ok(b, webp(b, "VP8X", 1 << 24, 77), "image/webp", 1 << 24, 77);
}
END_TEST

START_TEST(image_refusals)
{
	uint8_t b[1024];
	hermes_image_info_t info = {.mime_type = "untouched"};
	size_t n = png(b, 0, 5);
	ck_assert(!hermes_image_info(b, n, &info)); /* zero width */
	n = png(b, 0x80000000u, 5);
	ck_assert(!hermes_image_info(b, n, &info)); /* past PNG's 2^31 - 1 */
	n = png(b, 5, 5);
	memcpy(b + 12, "IDAT", 4);
	ck_assert(!hermes_image_info(b, n, &info)); /* IHDR must come first */
	n = jpeg(b, 10, 10);
	b[2 + 18 + 2] = 0x00, b[2 + 18 + 3] = 0x01; /* a segment length below 2 */
	ck_assert(!hermes_image_info(b, n, &info));
	n = jpeg(b, 10, 10);
	b[18 + 2 + 1] = 0xda; /* scan data before a frame header */
	ck_assert(!hermes_image_info(b, n, &info));
	n = webp(b, "VP8 ", 10, 10);
	b[12 + 11] = 0;
	ck_assert(!hermes_image_info(b, n, &info));
	ck_assert(!hermes_image_info((const uint8_t *)"hello world, not an image", 25, &info));
	ck_assert(!hermes_image_info(b, 0, &info));
	ck_assert_str_eq(info.mime_type, "untouched");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bytes");
	TCase *tc = tcase_create("base64");
	tcase_add_test(tc, base64_vectors);
	tcase_add_test(tc, base64_round_trips);
	tcase_add_test(tc, base64_strict);
	suite_add_tcase(s, tc);
	tc = tcase_create("imageinfo");
	tcase_add_test(tc, image_headers);
	tcase_add_test(tc, image_refusals);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
