/* fs/imageinfo.c: image type and size from the header bytes (see imageinfo.h). Every read goes
 * through need(), which checks the offset against the length first; offsets only grow, and a JPEG
 * segment that does not advance ends the scan, so the loop is bounded by len. */
#include "config.h"

#include <string.h>

#include "fs/imageinfo.h"

/* true if bytes [at, at + n) are inside the buffer (no overflow: at <= len is checked first). */
static bool need(size_t len, size_t at, size_t n)
{
	return at <= len && n <= len - at;
}

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t le16(const uint8_t *p) { return (uint32_t)p[1] << 8 | p[0]; }
static uint32_t le24(const uint8_t *p) { return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }
static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool done(hermes_image_info_t *info, const char *type, uint32_t w, uint32_t h)
{
	if (w == 0 || h == 0)
		return false;
	info->mime_type = type;
	info->width = w;
	info->height = h;
	return true;
}

/* PNG: the signature, then IHDR must be the first chunk (length 13): width, height big-endian,
 * each at most 2^31 - 1 (PNG's own rule). */
static bool png(const uint8_t *p, size_t len, hermes_image_info_t *info)
{
	if (!need(len, 0, 24) || be32(p + 8) != 13 || memcmp(p + 12, "IHDR", 4) != 0)
		return false;
	uint32_t w = be32(p + 16), h = be32(p + 20);
	if (w > 0x7fffffffu || h > 0x7fffffffu)
		return false;
	return done(info, "image/png", w, h);
}

/* GIF: "GIF87a" or "GIF89a", then the logical screen's width and height, little-endian. */
static bool gif(const uint8_t *p, size_t len, hermes_image_info_t *info)
{
	if (!need(len, 0, 10))
		return false;
	return done(info, "image/gif", le16(p + 6), le16(p + 8));
}

/* JPEG: segments from SOI on; the first start-of-frame marker (SOF0..SOF15 but DHT C4, JPG C8,
 * DAC CC) holds precision, height, width. */
static bool jpeg(const uint8_t *p, size_t len, hermes_image_info_t *info)
{
	size_t at = 2;
	for (;;) {
		while (need(len, at, 1) && p[at] == 0xff && need(len, at + 1, 1) && p[at + 1] == 0xff)
			at++; /* fill bytes before a marker */
		if (!need(len, at, 4) || p[at] != 0xff)
			return false;
		uint8_t m = p[at + 1];
		if (m == 0xd8 || m == 0x01 || (m >= 0xd0 && m <= 0xd7)) {
			at += 2; /* markers without a length */
			continue;
		}
		if (m == 0xd9 || m == 0xda)
			return false; /* end of image, or scan data, before any frame header */
		size_t seg = be16(p + at + 2);
		if (seg < 2)
			return false;
		if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
			if (seg < 7 || !need(len, at + 4, 5))
				return false;
			return done(info, "image/jpeg", be16(p + at + 7), be16(p + at + 5));
		}
		at += 2 + seg;
	}
}

/* WebP: RIFF, its size, "WEBP", then one of three first chunks. */
static bool webp(const uint8_t *p, size_t len, hermes_image_info_t *info)
{
	if (!need(len, 0, 16))
		return false;
	const uint8_t *c = p + 12;
	if (memcmp(c, "VP8 ", 4) == 0) {
		if (!need(len, 12, 18))
			return false;
		/* lossy: a 3-byte frame tag, the start code 9d 01 2a, then 14-bit width and height */
		if (c[11] != 0x9d || c[12] != 0x01 || c[13] != 0x2a)
			return false;
		return done(info, "image/webp", le16(c + 14) & 0x3fff, le16(c + 16) & 0x3fff);
	}
	if (memcmp(c, "VP8L", 4) == 0) {
		/* lossless: signature 0x2f, then width - 1 and height - 1 in 14 bits each */
		if (!need(len, 12, 13) || c[8] != 0x2f)
			return false;
		uint32_t b = (uint32_t)c[9] | (uint32_t)c[10] << 8 | (uint32_t)c[11] << 16 |
		             (uint32_t)c[12] << 24;
		return done(info, "image/webp", (b & 0x3fff) + 1, ((b >> 14) & 0x3fff) + 1);
	}
	if (memcmp(c, "VP8X", 4) == 0 && need(len, 12, 18)) /* extended: canvas size - 1, 24 bits */
		return done(info, "image/webp", le24(c + 12) + 1, le24(c + 15) + 1);
	return false;
}

bool hermes_image_info(const uint8_t *head, size_t len, hermes_image_info_t *info)
{
	static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	if (need(len, 0, 8) && memcmp(head, png_sig, 8) == 0)
		return png(head, len, info);
	if (need(len, 0, 6) && (memcmp(head, "GIF87a", 6) == 0 || memcmp(head, "GIF89a", 6) == 0))
		return gif(head, len, info);
	if (need(len, 0, 3) && head[0] == 0xff && head[1] == 0xd8 && head[2] == 0xff)
		return jpeg(head, len, info);
	if (need(len, 0, 12) && memcmp(head, "RIFF", 4) == 0 && memcmp(head + 8, "WEBP", 4) == 0)
		return webp(head, len, info);
	return false;
}
