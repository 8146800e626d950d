/* core/decode.h: strict decoding of an envelope's arguments into the verb's argument struct, from
 * a tree of core/json.c (decode_json.c) or from YAML via libcyaml (decode_yaml.c). Both report errors with
 * the same messages, so JSON and YAML spellings of the same envelope give the same result. */
#ifndef HERMES_CORE_DECODE_H
#define HERMES_CORE_DECODE_H

#include <hermes/hermes.h>

#include "core/desc.h"
#include "core/json.h"

/* libcyaml loads every field into one of these (see gen/hermes_gen/emit_yaml_schema_c.py). */
typedef struct hermes_yaml_slot {
	char *scalar;     /* scalars, as text; NULL if absent */
	void *items;      /* lists: char ** or an array of element mirrors */
	unsigned count;   /* lists: number of items */
} hermes_yaml_slot_t;

typedef struct hermes_yaml_envelope {
	char *verb;
	void *arguments;  /* the verb's argument mirror; NULL if absent or null */
} hermes_yaml_envelope_t;

/* Emitted by the generator, parallel to hermes_verb_descs. */
struct cyaml_schema_value;
extern const struct cyaml_schema_value *const hermes_yaml_envelope_schemas[];

/* Largest nesting accepted in an envelope (objects and arrays). */
#define HERMES_MAX_NESTING 64

/* The IDL spelling of a field's type: "String", "Int32", "Int64", "Boolean", "String[]",
 * "DirEntry[]". */
const char *hermes_field_type_name(const hermes_field_desc_t *field, char *buf, size_t size);

/* Decodes a JSON arguments object (NULL or JSON null: {}) into a new struct of type desc.
 * text (may be NULL) is the JSON text json was read from: errors then carry the line and column
 * of the offending value. prefix ("arguments." or "") is put before field names in err->field.
 * Returns the struct, or NULL with err filled (code HERMES_E_INVALID_ARGUMENTS, or
 * HERMES_E_INTERNAL if out of memory). */
void *hermes_decode_json_args(const hermes_type_desc_t *desc, const hermes_json_t *json,
                              const char *text, const char *verb, const char *prefix,
                              hermes_error_t *err);

/* Decodes one YAML document holding an envelope. On success returns the verb descriptor and sets
 * *args to a new argument struct. On failure returns NULL with err filled (line relative to the
 * document, 1-based). */
const hermes_verb_desc_t *hermes_decode_yaml_envelope(const char *text, size_t len, void **args,
                                                      hermes_error_t *err);

/* The range an integer field accepts in words ("1 or more", "0 to 10") into buf, if the table
 * narrows its type's; NULL if it does not (or f is no integer). */
const char *hermes_field_range_text(const hermes_field_desc_t *f, char *buf, size_t size);
/* "<path>: <got> is out of range ..." for an integer outside the field's range (its type's, or
 * the narrower one the table gives it: "startLine must be 1 or more"). */
void hermes_decode_err_range(hermes_error_t *err, const hermes_field_desc_t *f, const char *path,
                             const char *got);

/* Shared by both decoders. */
void hermes_decode_err_unknown_field(hermes_error_t *err, const hermes_type_desc_t *desc,
                                     const char *verb, const char *prefix, const char *key);
void hermes_decode_err_missing(hermes_error_t *err, const hermes_field_desc_t *field,
                               const char *verb, const char *prefix);
void hermes_decode_err_type(hermes_error_t *err, const hermes_field_desc_t *field,
                            const char *prefix, const char *got);
void hermes_decode_err_unknown_verb(hermes_error_t *err, const char *verb);
/* Strict text → integer (decimal, optional '-', no leading zeros, in range). 0 or -1. */
int hermes_parse_int(const char *text, int64_t min, int64_t max, int64_t *out);
/* Sets a field of a struct from a value already checked; helpers for both decoders. */
void hermes_field_set_int(void *obj, const hermes_field_desc_t *field, int64_t value);
void hermes_field_set_bool(void *obj, const hermes_field_desc_t *field, bool value);
/* Applies defaults to fields left unset (called after decoding, with a "seen" mask). */
void hermes_apply_defaults(const hermes_type_desc_t *desc, void *obj, const bool *seen);

#endif
