/* core/base64.h: standard base64 (RFC 4648 section 4, with '=' padding), for binary file content
 * carried in JSON strings (fs.readBytes, fs.writeFile with encoding "base64").
 *
 * Decoding is strict, so that one text means one byte string: only the 64 letters of the
 * alphabet, length a multiple of 4, '=' only as the last one or two characters, and the bits a
 * padded group leaves over must be zero (RFC 4648 section 3.5). No whitespace, no URL-safe
 * letters. Nothing here allocates. */
#ifndef HERMES_CORE_BASE64_H
#define HERMES_CORE_BASE64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Characters the encoding of n bytes takes (without a NUL): 4 * ceil(n / 3). */
static inline size_t hermes_base64_encoded_len(size_t n)
{
	return (n / 3 + (n % 3 != 0)) * 4;
}

/* Writes the encoding of in[0..n) to out, which has room for hermes_base64_encoded_len(n) + 1
 * characters, and NUL-terminates it. */
void hermes_base64_encode(const uint8_t *in, size_t n, char *out);

/* Bytes the decoding of a text of len characters takes at most: len / 4 * 3. */
static inline size_t hermes_base64_decoded_max(size_t len)
{
	return len / 4 * 3;
}

/* Decodes in[0..len) into out (room for hermes_base64_decoded_max(len) bytes). On success true
 * and *out_len is the byte count. On failure false, *out_len untouched (out may hold garbage),
 * and why (of size n, may be NULL) says what was wrong and at which character, counting from 0:
 * "invalid base64 character '%' at position 12". */
bool hermes_base64_decode(const char *in, size_t len, uint8_t *out, size_t *out_len, char *why,
                          size_t n);

#endif
