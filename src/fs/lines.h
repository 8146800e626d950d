/* fs/lines.h: the line and text primitives of the fs verbs: counting newlines at memory speed,
 * and checking that bytes are text that can travel in a JSON string (valid UTF-8, no NUL). */
#ifndef HERMES_FS_LINES_H
#define HERMES_FS_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

/* Size of the fixed buffer the streaming verbs read through. */
#define HERMES_LINES_BUFSIZE (256u * 1024u)

/* A read buffer of HERMES_LINES_BUFSIZE bytes, page-aligned (the kernel copies into aligned pages
 * faster: fs.lineCount of 1 GiB goes from 1.0x to 0.8x the time of wc -l). free() it. NULL if out
 * of memory. */
void *hermes_lines_buffer(void);

/* The number of '\n' bytes in buf[0..len), with the fastest code the processor runs. */
size_t hermes_count_newlines(const char *buf, size_t len);

/* The same with a chosen implementation, for the tests: 0 the portable memchr loop, 1 SSE2,
 * 2 AVX2 (each falls back to the one below where the processor or build lacks it). */
size_t hermes_count_newlines_with(const char *buf, size_t len, int level);

/* True if s[0..len) is valid UTF-8 (shortest forms, no surrogates, at most U+10FFFF) without NUL
 * bytes (which a C string, and so a result field, cannot carry). Otherwise false and, if bad is
 * not NULL, *bad = the offset of the first offending byte. */
bool hermes_text_valid(const char *s, size_t len, size_t *bad);

/* A malloc'd copy of s with each byte that is not part of valid UTF-8 replaced by U+FFFD, for
 * names the file system holds as arbitrary bytes; NULL if out of memory. */
char *hermes_text_lossy(const char *s);
/* The same for s[0..len) (no NUL inside); a valid name costs one malloc and one copy. */
char *hermes_text_lossy_n(const char *s, size_t len);
/* Appends s[0..len) to b the same way (bytes that are not UTF-8 text become U+FFFD). */
void hermes_buf_append_lossy(hermes_buf_t *b, const char *s, size_t len);

#endif
