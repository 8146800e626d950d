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

/* A string field of a result that is produced while the result is written, not before it:
 * fs.readFile's content under `hermes exec`, taken from the file a chunk at a time instead of held
 * whole (50 MB of fresh pages cost more than the rest of the read). */
typedef struct hermes_string_source {
	/* The string's next piece into *data, *len: 1, or 0 at its end. A piece ends where no valid
	 * UTF-8 sequence spans (as hermes_utf8_safe_cut() cuts), and stays readable until the next
	 * call. -1: the string cannot go on; the source marked the result failed (keep_fields set,
	 * fields that no longer hold cleared), and the string is closed after what was written. */
	int (*next)(void *ctx, const char **data, size_t *len);
	void (*release)(void *ctx); /* once the result is written or dropped; may be NULL */
	void *ctx;
	bool escaped; /* the pieces are the string's JSON text already (what hermes_buf_json_chars
	                 makes of it, without the quotes): they go out as they are */
} hermes_string_source_t;

/* Which field a source stands for: field is the address of that string field in the result
 * (NULL: none). Owned by whoever runs the call (the executor), which calls source.release. */
typedef struct hermes_string_stream {
	char *const *field;
	hermes_string_source_t source;
} hermes_string_stream_t;

/* hermes_encode_result() handed to sink in pieces of about 256 KiB instead of built whole, so a
 * big result (a 50 MB file's content) is not copied into a second buffer of its size. stream (may
 * be NULL) gives a field whose string comes from a source. Returns 0 once every piece was sent;
 * -1 if memory ran out (before anything was sent: the pieces' buffer is taken first and is
 * enough); -2 if the sink refused a piece (what went before it was sent). */
int hermes_encode_result_to(const hermes_type_desc_t *desc, const void *result, unsigned flags,
                            const hermes_string_stream_t *stream, hermes_result_sink_t sink,
                            void *ctx);

/* The JSON object of a failure with no result fields. */
char *hermes_encode_failure(hermes_errcode_t code, const char *message, unsigned flags);

#endif
