/* core/json.h: the one strict JSON reader (RFC 8259, JSONTestSuite-clean). Every JSON text Hermes
 * receives -- an envelope from `hermes exec`, a message from `hermes serve`, a line at the console
 * -- is read by it exactly once, into a tree whose strings carry their length (a "\u0000" never
 * shortens a string) and whose values carry their byte position (for errors and for echoing a
 * request id byte for byte). cJSON is not used to read input. */
#ifndef HERMES_CORE_JSON_H
#define HERMES_CORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hermes/hermes.h>

/* Deepest nesting of arrays and objects hermes_json_parse() can be asked to accept. */
#define HERMES_JSON_MAX_DEPTH_LIMIT 1024

typedef enum hermes_json_type {
	HERMES_JSON_NULL,
	HERMES_JSON_FALSE,
	HERMES_JSON_TRUE,
	HERMES_JSON_NUMBER,
	HERMES_JSON_STRING,
	HERMES_JSON_ARRAY,
	HERMES_JSON_OBJECT
} hermes_json_type_t;

/* One value. Read-only for users; it lives in its document. */
typedef struct hermes_json hermes_json_t;
struct hermes_json {
	hermes_json_type_t type;
	bool repeated;          /* a member whose key an earlier member of its object has too */
	uint32_t count;         /* ARRAY, OBJECT: elements or members */
	const hermes_json_t *first_repeat; /* OBJECT: its first repeated member, or NULL */
	hermes_json_t *child;   /* ARRAY, OBJECT: the first element or member */
	hermes_json_t *next;    /* the next element or member of the parent */
	const char *key;        /* member of an object: its key, decoded and NUL-terminated */
	size_t key_len;         /* its length in bytes (it may contain NUL bytes) */
	const char *str;        /* STRING: decoded, NUL-terminated; NUMBER: its text, NUL-terminated */
	size_t len;             /* length of str in bytes (a STRING may contain NUL bytes) */
	size_t start, end;      /* the value's text is input[start..end) (not its key) */
};

/* A parsed text: owns every value and string of its tree. */
typedef struct hermes_json_doc hermes_json_doc_t;

/* Reads the JSON value at the start of text[0..len) (leading whitespace allowed) and stops just
 * after it, so that several values may follow one another in a stream. max_depth bounds the
 * nesting of arrays and objects (at most HERMES_JSON_MAX_DEPTH_LIMIT).
 * On success returns 0, *out owns a new document (free with hermes_json_doc_free) and *end is the
 * offset just past the value. On failure returns -1, *out is untouched, *end is the offset of the
 * offending byte, and err (if not NULL) gets code HERMES_E_INVALID_ENVELOPE, a message and the
 * 1-based line and column; or code HERMES_E_INTERNAL if memory ran out.
 * Duplicate keys are valid JSON: they are marked (hermes_json_t.repeated), found in linear time. */
int hermes_json_parse(const char *text, size_t len, int max_depth, hermes_json_doc_t **out,
                      size_t *end, hermes_error_t *err);

/* The same, refusing a text of more than max_values values (arrays, objects, members' values,
 * strings, numbers, literals) with code HERMES_E_TOO_LARGE, so that what a tree costs is
 * bounded whatever the text holds (a value takes about 80 bytes; "[0,0,...]" two bytes of text). */
int hermes_json_parse_bounded(const char *text, size_t len, int max_depth, size_t max_values,
                              hermes_json_doc_t **out, size_t *end, hermes_error_t *err);

/* Bytes allocated for a document (its strings and values), for a caller that bounds memory. */
size_t hermes_json_doc_bytes(const hermes_json_doc_t *doc);

/* The root value of a document. */
const hermes_json_t *hermes_json_root(const hermes_json_doc_t *doc);

/* Frees a document and every value in it. NULL is fine. */
void hermes_json_doc_free(hermes_json_doc_t *doc);

/* The member of an object whose key is exactly name (case-sensitive; the first if repeated), or
 * NULL if there is none or obj is not an object. */
const hermes_json_t *hermes_json_member(const hermes_json_t *obj, const char *name);

/* A NUMBER as an integer in [min, max]: only the plain integer form (-?[0-9]+) is an integer
 * ("1.0" and "1e3" are not). Returns 0 and sets *out; -1 if v is not an integer; -2 if it is out
 * of range. */
int hermes_json_integer(const hermes_json_t *v, int64_t min, int64_t max, int64_t *out);

/* True if v is a STRING holding no NUL byte (so it can be used as a C string). */
bool hermes_json_is_c_string(const hermes_json_t *v);

/* Offset of the first byte at or after pos that is not JSON whitespace. */
size_t hermes_json_skip_ws(const char *text, size_t len, size_t pos);

/* The value of a hexadecimal digit, or -1. */
int hermes_json_hexval(char c);

#endif
