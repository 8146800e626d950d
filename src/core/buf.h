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

/* Grows b to hold extra more bytes and a NUL (the slow path of hermes_buf_reserve). */
bool hermes_buf_grow(hermes_buf_t *b, size_t extra);

/* Makes room for extra more bytes at once (so that a known size is not reached by doubling);
 * false if that allocation failed (sticky, as for appends). Room is always left for a NUL. */
static inline bool hermes_buf_reserve(hermes_buf_t *b, size_t extra)
{
	return (!b->failed && b->cap - b->len > extra) || hermes_buf_grow(b, extra);
}

/* Appending is inline: a result is written in thousands of small pieces (a 10k-entry listing:
 * 90,000), and a call into buf.c for each cost a quarter of its encoding. */
static inline void hermes_buf_append(hermes_buf_t *b, const char *s, size_t n)
{
	if (!hermes_buf_reserve(b, n))
		return;
	__builtin_memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static inline void hermes_buf_putc(hermes_buf_t *b, char c)
{
	if (!hermes_buf_reserve(b, 1))
		return;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

static inline void hermes_buf_puts(hermes_buf_t *b, const char *s)
{
	hermes_buf_append(b, s, __builtin_strlen(s));
}
void hermes_buf_printf(hermes_buf_t *b, const char *fmt, ...) HERMES_PRINTF(2, 3);
/* Appends s[0..n) as a JSON string literal (quotes included). Invalid UTF-8 is replaced by
 * U+FFFD so the output is always valid UTF-8 JSON. */
void hermes_buf_json_string(hermes_buf_t *b, const char *s, size_t n);
/* The same without the quotes: what a string holds, for a caller that writes it in slices (a slice
 * must not end inside a valid UTF-8 sequence, or that sequence becomes U+FFFDs). */
void hermes_buf_json_chars(hermes_buf_t *b, const char *s, size_t n);
/* Returns the NUL-terminated text (caller frees), or NULL if an allocation failed. The buffer is
 * left empty either way. */
char *hermes_buf_finish(hermes_buf_t *b);
void hermes_buf_free(hermes_buf_t *b);

#endif
