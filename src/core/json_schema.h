/* core/json_schema.h: the JSON Schemas (draft 2020-12) of each verb's arguments and result,
 * generated from defs/verbs.def (gen/hermes_gen/emit_json_schema_c.py, into gen_json_schema.c):
 * what MCP's tools/list serves and `hermes schema --format=json-schema` prints. */
#ifndef HERMES_CORE_JSON_SCHEMA_H
#define HERMES_CORE_JSON_SCHEMA_H

/* Compact JSON text, static; NULL if verb (the exact dotted name, "fs.readRange") is unknown. */
const char *hermes_verb_input_schema(const char *verb);
const char *hermes_verb_output_schema(const char *verb);

#endif
