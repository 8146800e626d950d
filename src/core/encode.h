/* core/encode.h: result struct → JSON text, walking the type's descriptor. */
#ifndef HERMES_CORE_ENCODE_H
#define HERMES_CORE_ENCODE_H

#include "core/desc.h"

/* The JSON object of a result: its own fields in table order (left out when the result failed,
 * unless common.keep_fields), then succeeded, errorMessage, errorCode. Strings are always valid
 * UTF-8 in the output (invalid bytes become U+FFFD); 64-bit integers print exactly.
 * flags: HERMES_JSON_PRETTY. malloc'd; NULL if out of memory. */
char *hermes_encode_result(const hermes_type_desc_t *desc, const void *result, unsigned flags);

/* Where an encoded result goes, piece by piece, in order; false if it could not take this piece
 * (the sink keeps why): nothing more is sent. */
typedef bool (*hermes_result_sink_t)(void *ctx, const char *data, size_t len);

/* hermes_encode_result() handed to sink in pieces of about 256 KiB instead of built whole, so a
 * big result (a 50 MB file's content) is not copied into a second buffer of its size. Returns 0
 * once every piece was sent; -1 if memory ran out (before anything was sent: the pieces' buffer is
 * taken first and is enough); -2 if the sink refused a piece (what went before it was sent). */
int hermes_encode_result_to(const hermes_type_desc_t *desc, const void *result, unsigned flags,
                            hermes_result_sink_t sink, void *ctx);

/* The JSON object of a failure with no result fields. */
char *hermes_encode_failure(hermes_errcode_t code, const char *message, unsigned flags);

#endif
