/* core/buf.h: a growable byte buffer for building result text. Allocation failure is sticky:
 * after it, appends do nothing and hermes_buf_finish() returns NULL. */
#ifndef HERMES_CORE_BUF_H
#define HERMES_CORE_BUF_H

#include <stdbool.h>
#include <stddef.h>

#include <hermes/hermes.h>

typedef struct hermes_buf {
	char *data;
	size_t len;
	size_t cap;
	bool failed;
} hermes_buf_t;

#define HERMES_BUF_INIT { NULL, 0, 0, false }

void hermes_buf_append(hermes_buf_t *b, const char *s, size_t n);
/* Makes room for extra more bytes at once (so that a known size is not reached by doubling);
 * false if that allocation failed (sticky, as for appends). */
bool hermes_buf_reserve(hermes_buf_t *b, size_t extra);
void hermes_buf_puts(hermes_buf_t *b, const char *s);
void hermes_buf_putc(hermes_buf_t *b, char c);
void hermes_buf_printf(hermes_buf_t *b, const char *fmt, ...) HERMES_PRINTF(2, 3);
/* Appends s[0..n) as a JSON string literal (quotes included). Invalid UTF-8 is replaced by
 * U+FFFD so the output is always valid UTF-8 JSON. */
void hermes_buf_json_string(hermes_buf_t *b, const char *s, size_t n);
/* Returns the NUL-terminated text (caller frees), or NULL if an allocation failed. The buffer is
 * left empty either way. */
char *hermes_buf_finish(hermes_buf_t *b);
void hermes_buf_free(hermes_buf_t *b);

#endif
