/* core/encode.h: result struct → JSON text, walking the type's descriptor. */
#ifndef HERMES_CORE_ENCODE_H
#define HERMES_CORE_ENCODE_H

#include "core/desc.h"

/* The JSON object of a result: its own fields in table order (left out when the result failed,
 * unless common.keep_fields), then succeeded, errorMessage, errorCode. Strings are always valid
 * UTF-8 in the output (invalid bytes become U+FFFD); 64-bit integers print exactly.
 * flags: HERMES_JSON_PRETTY. malloc'd; NULL if out of memory. */
char *hermes_encode_result(const hermes_type_desc_t *desc, const void *result, unsigned flags);

/* The JSON object of a failure with no result fields. */
char *hermes_encode_failure(hermes_errcode_t code, const char *message, unsigned flags);

#endif
