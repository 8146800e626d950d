/* fs/mimetype.c: MIME types from content (see mimetype.h). libmagic's handle and database are
 * loaded once, the first time a type is asked for, and shared under a lock (a magic_t is not
 * thread-safe). */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fs/lines.h"
#include "fs/imageinfo.h"
#include "fs/magic_lib.h"
#include "fs/mimetype.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static magic_t cookie;
static bool tried;

/* The built-in table, for a system without libmagic or its database. */
static const char *builtin(const uint8_t *h, size_t len)
{
	hermes_image_info_t img;
	if (hermes_image_info(h, len, &img))
		return img.mime_type;
	if (len >= 5 && memcmp(h, "%PDF-", 5) == 0)
		return "application/pdf";
	if (len >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return "application/gzip";
	if (len >= 4 && memcmp(h, "PK\3\4", 4) == 0)
		return "application/zip";
	if (len >= 4 && memcmp(h, "\177ELF", 4) == 0)
		return "application/x-executable";
	if (len == 0)
		return "application/x-empty";
	size_t bad;
	/* A character cut at the end of what was read still counts as text. */
	size_t check = len;
	while (check > 0 && len - check < 3 && (h[check - 1] & 0xc0) == 0x80)
		check--;
	if (check > 0 && (h[check - 1] & 0xc0) == 0xc0)
		check--;
	if (hermes_text_valid((const char *)h, check, &bad))
		return "text/plain";
	return "application/octet-stream";
}

void hermes_mime_type(const uint8_t *head, size_t len, char out[HERMES_MIME_MAX])
{
	const char *type = NULL;
	pthread_mutex_lock(&lock);
	if (!tried) {
		char why[300];
		tried = true;
		if (hermes_magic_lib_load(why, sizeof why)) {
			cookie = magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR);
			if (cookie && magic_load(cookie, NULL) != 0) {
				magic_close(cookie);
				cookie = NULL;
			}
		}
	}
	if (cookie)
		type = magic_buffer(cookie, head, len);
	if (type && *type)
		snprintf(out, HERMES_MIME_MAX, "%s", type);
	else
		snprintf(out, HERMES_MIME_MAX, "%s", builtin(head, len));
	pthread_mutex_unlock(&lock);
}
