/* server/json_text.h: the little JSON text work the server does itself: walking already-validated
 * JSON to find a member's raw text (ids are echoed byte for byte, batches are split without a
 * second parse) and decoding strings. Validation is core/json_scan's job. */
#ifndef HERMES_SERVER_JSON_TEXT_H
#define HERMES_SERVER_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* The walkers below expect text that a strict JSON validator has accepted. */
const char *hermes_jt_skip_ws(const char *p, const char *end);
/* Returns the end of the value starting at p (no leading blanks). */
const char *hermes_jt_skip_value(const char *p, const char *end);

/* Looks for member name in the object obj[0..len). Returns how many times it occurs (so that a
 * caller can refuse duplicates) and, if at least once, the raw text of the first value. */
int hermes_jt_member(const char *obj, size_t len, const char *name, const char **value,
                       size_t *value_len);

/* Decodes the JSON string literal raw[0..len) (quotes included) into malloc'd UTF-8; *out_len gets
 * its length (it may contain NUL bytes). NULL if out of memory. */
char *hermes_jt_decode_string(const char *raw, size_t len, size_t *out_len);

#endif
