/* core/utf8.h: UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF),
 * the only one in Hermes. */
#ifndef HERMES_CORE_UTF8_H
#define HERMES_CORE_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the bytes there are not valid. */
size_t hermes_utf8_sequence_length(const char *s, size_t avail);

/* Offset of the first invalid byte in s[0..len), or len if all of it is valid UTF-8. */
size_t hermes_utf8_validate(const char *s, size_t len);

/* The same, but a NUL byte is invalid too: what Hermes calls text (a file with a NUL is binary). */
size_t hermes_text_validate(const char *s, size_t len);

static inline bool hermes_utf8_valid(const char *s, size_t len)
{
	return hermes_utf8_validate(s, len) == len;
}

/* A cut at or up to 3 bytes before `at` (s[at] readable; it may be 0 if at < 3) such that no valid
 * sequence spans it: the bytes before it are judged the same with or without the bytes after it.
 * For work in slices (escaping a long string, validating as a file is read). */
size_t hermes_utf8_safe_cut(const char *s, size_t at);

/* The longest prefix of s[0..len) that does not end inside a sequence: len, or less by the 1 to 3
 * bytes of a sequence that its last bytes start but do not finish. For text known to be valid
 * (checked before), cut into pieces handed on one at a time. */
size_t hermes_utf8_whole_prefix(const char *s, size_t len);

/* Validates text as it arrives: s[0..len) is what was read so far, s[0..*checked) is known to be
 * text (hermes_text_validate). Checks on up to a safe cut (to len if final), moving *checked.
 * False once a byte is not text: *checked is then its offset, as hermes_text_validate says. */
bool hermes_text_validate_more(const char *s, size_t len, size_t *checked, bool final);

/* The 1-based line and column (in bytes) of offset in text. */
void hermes_text_position(const char *text, size_t offset, int *line, int *column);

#endif
