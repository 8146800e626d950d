/* fs/imageinfo.h: the type and pixel size of a PNG, JPEG, GIF or WebP image, read from the first
 * bytes of its file by a small bounded parser (no image library: it never decodes pixels, never
 * allocates, and reads nothing past the buffer it is given). */
#ifndef HERMES_FS_IMAGEINFO_H
#define HERMES_FS_IMAGEINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many bytes of a file's start hermes_image_info wants to see: a JPEG's frame header may come
 * after its metadata segments (EXIF, a thumbnail, ICC profiles), each at most 64 KiB. */
#define HERMES_IMAGE_HEAD (256 * 1024)

typedef struct hermes_image_info {
	const char *mime_type; /* static: "image/png", "image/jpeg", "image/gif", "image/webp" */
	uint32_t width, height;
} hermes_image_info_t;

/* Recognizes head[0..len) (the start of a file) as one of the four image types by its signature.
 * true: *info says which, with its width and height (both at least 1). false: not one of them, or
 * a header that is cut or inconsistent (a PNG without IHDR, a JPEG with no frame header within
 * len bytes, a zero dimension); *info untouched. */
bool hermes_image_info(const uint8_t *head, size_t len, hermes_image_info_t *info);

#endif
