/* core/idl.h: the schema IDL writer (the spec's reference JsonSchemaBuilder, in C). */
#ifndef HERMES_CORE_IDL_H
#define HERMES_CORE_IDL_H

#include "core/desc.h"

/* The IDL of a verb: a line naming its traits ("// traits: read-only, idempotent", or
 * "// traits: none"), its arguments type, then its result type, then the nested types they use in
 * first-use order, none twice. malloc'd, NUL-terminated, each line ending in '\n'; NULL if out of
 * memory. */
char *hermes_idl_for_verb(const hermes_verb_desc_t *verb);

#endif
