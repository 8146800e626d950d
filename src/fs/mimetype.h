/* fs/mimetype.h: a file's MIME type judged from its content. libmagic (MAGIC_MIME_TYPE, its
 * system database) when it can be loaded; otherwise a small built-in table: the four image types
 * (fs/imageinfo.h), PDF, gzip, zip, ELF, UTF-8 text ("text/plain"), else
 * "application/octet-stream". */
#ifndef HERMES_FS_MIMETYPE_H
#define HERMES_FS_MIMETYPE_H

#include <stddef.h>
#include <stdint.h>

#define HERMES_MIME_MAX 128

/* The MIME type of a file that starts with head[0..len) (len: what was read of it, at most
 * HERMES_IMAGE_HEAD), written to out (NUL-terminated, cut to HERMES_MIME_MAX - 1 bytes).
 * Thread-safe (one libmagic handle, used under a lock). Never fails. */
void hermes_mime_type(const uint8_t *head, size_t len, char out[HERMES_MIME_MAX]);

#endif
