/* core/desc.h: the descriptor tables the generator emits for every type and verb of the table, and
 * that the generic decoder, encoder, IDL writer and free function walk (protobuf-c style). */
#ifndef HERMES_CORE_DESC_H
#define HERMES_CORE_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hermes/types.h>

typedef enum hermes_kind {
	HERMES_KIND_STRING,      /* char * */
	HERMES_KIND_INT32,       /* int32_t */
	HERMES_KIND_INT64,       /* int64_t */
	HERMES_KIND_BOOL,        /* bool */
	HERMES_KIND_STRING_LIST, /* char **, size_t count */
	HERMES_KIND_OBJECT_LIST  /* T *, size_t count (T described by element) */
} hermes_kind_t;

typedef enum hermes_presence {
	HERMES_PRESENCE_REQUIRED, /* must be present and not null */
	HERMES_PRESENCE_OPTIONAL, /* may be absent or null: has_<name> (scalars) or NULL (strings) */
	HERMES_PRESENCE_DEFAULT   /* absent or null means the default value */
} hermes_presence_t;

#define HERMES_NO_OFFSET ((size_t)-1)

typedef struct hermes_type_desc hermes_type_desc_t;

typedef struct hermes_field_desc {
	const char *name;          /* camelCase key */
	const char *description;   /* one line, for the IDL and the manual */
	hermes_kind_t kind;
	hermes_presence_t presence;
	size_t offset;             /* of the value (the items pointer for lists) */
	size_t count_offset;       /* lists: of the size_t count; else HERMES_NO_OFFSET */
	size_t has_offset;         /* optional scalars: of bool has_<name>; else HERMES_NO_OFFSET */
	const hermes_type_desc_t *element; /* object lists: the element type */
	int64_t default_int;       /* DEFAULT ints and bools (0/1) */
	const char *default_string;/* DEFAULT strings */
	int64_t min, max;          /* integers: the values accepted (the type's range unless the table
	                              narrows it, INT32(1, MAX)) */
	bool handle;               /* a HANDLE: names state one Hermes process holds (MCP mirrors it
	                              into the Mcp-Param-Handle header, for load balancers) */
} hermes_field_desc_t;

struct hermes_type_desc {
	const char *name;          /* "FsReadRangeArgs" */
	const char *description;
	size_t size;               /* sizeof the C struct */
	const hermes_field_desc_t *fields; /* own fields, in table order */
	size_t field_count;
	bool is_result;            /* starts with hermes_result_common_t, has the common fields */
};

/* Verb traits, declared beside each verb in defs/verbs.def (whose header, like hermes-verbs(7),
 * says what each one means). Whatever treats verbs differently (scheduling, annotations, policy,
 * the IDL) tests a trait, never a verb name. */
#define HERMES_TRAIT_READ_ONLY   0x01u
#define HERMES_TRAIT_DESTRUCTIVE 0x02u
#define HERMES_TRAIT_IDEMPOTENT  0x04u
#define HERMES_TRAIT_SPAWNS      0x08u
#define HERMES_TRAIT_LONG        0x10u
#define HERMES_TRAIT_INSTANT     0x20u

typedef struct hermes_verb_desc {
	const char *name;          /* "fs.readRange" */
	const char *description;
	const hermes_type_desc_t *args;
	const hermes_type_desc_t *result;
	unsigned traits;           /* HERMES_TRAIT_* bits */
} hermes_verb_desc_t;

/* Emitted by the generator (gen_descriptors.c). */
extern const hermes_verb_desc_t hermes_verb_descs[];
extern const size_t hermes_verb_desc_count;
/* The common result fields (succeeded, errorMessage, errorCode), for the IDL. */
extern const hermes_field_desc_t hermes_common_result_fields[];
extern const size_t hermes_common_result_field_count;
/* Names and descriptions of error codes, indexed by hermes_errcode_t (index 0: NULL). */
extern const char *const hermes_errcode_names[];
extern const char *const hermes_errcode_descriptions[];

/* The verb descriptor for a name, compared case-insensitively; NULL if none. */
const hermes_verb_desc_t *hermes_verb_desc_find(const char *name);

/* Frees a struct of type desc and everything it owns. NULL is fine. */
void hermes_struct_free(const hermes_type_desc_t *desc, void *value);
/* Frees what a struct owns, not the struct itself (for array elements). */
void hermes_struct_clear(const hermes_type_desc_t *desc, void *value);
/* A zeroed struct of type desc, defaults applied (results: succeeded = true); NULL if no memory. */
void *hermes_struct_new(const hermes_type_desc_t *desc);

#endif
