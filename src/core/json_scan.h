/* core/json_scan.h: a strict RFC 8259 validator run before cJSON, which is lenient (it accepts
 * some invalid numbers and does not check UTF-8). It also finds where a value ends, so several
 * envelopes can follow one another in one stream, and reports errors with line and column. */
#ifndef HERMES_CORE_JSON_SCAN_H
#define HERMES_CORE_JSON_SCAN_H

#include <stddef.h>

#include <hermes/hermes.h>

#define HERMES_JSON_REJECT_NUL 1u   /* refuse \u0000 in strings (C strings cannot carry it) */
#define HERMES_JSON_MAX_DEPTH_LIMIT 1024

/* Validates the JSON value at the start of text[0..len) (leading whitespace allowed).
 * Returns 0 and sets *end just past the value; or -1 with *end at the offending byte and err
 * filled (code HERMES_E_INVALID_ENVELOPE, message, line and column). max_depth counts nested
 * arrays and objects (at most HERMES_JSON_MAX_DEPTH_LIMIT). */
int hermes_json_scan(const char *text, size_t len, unsigned flags, int max_depth, size_t *end,
                     hermes_error_t *err);

/* Offset of the first non-whitespace byte at or after pos (JSON whitespace). */
size_t hermes_json_skip_ws(const char *text, size_t len, size_t pos);

/* The value of a hexadecimal digit (for \u escapes), or -1. */
int hermes_json_hexval(char c);

#endif
