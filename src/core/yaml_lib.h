/* core/yaml_lib.h: libcyaml and libyaml, loaded with dlopen the first time a YAML envelope is
 * decoded (see core/dl.h): a JSON envelope, what agents send, never maps them. decode_yaml.c calls
 * them by their usual names, which the macros below turn into the loaded functions. */
#ifndef HERMES_CORE_YAML_LIB_H
#define HERMES_CORE_YAML_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include <cyaml/cyaml.h>
#include <yaml.h>

#include "core/dl.h"

#define HERMES_CYAML_FUNCTIONS(X) X(cyaml_load_data) X(cyaml_free) X(cyaml_strerror)
#define HERMES_LIBYAML_FUNCTIONS(X)                                                          \
	X(yaml_parser_initialize) X(yaml_parser_set_input_string) X(yaml_parser_parse)     \
	X(yaml_event_delete) X(yaml_parser_delete) X(yaml_get_version_string)

typedef struct hermes_yaml_api {
	HERMES_CYAML_FUNCTIONS(HERMES_DL_FIELD)
	HERMES_LIBYAML_FUNCTIONS(HERMES_DL_FIELD)
	const char **cyaml_version_str;
} hermes_yaml_api_t;

extern hermes_yaml_api_t hermes_yaml_lib;

/* Loads both (once; thread-safe). false, with why in err (of size n), if they cannot be. */
bool hermes_yaml_lib_load(char *err, size_t n);

#ifndef HERMES_YAML_LIB_LOADER
#define cyaml_load_data hermes_yaml_lib.cyaml_load_data
#define cyaml_free hermes_yaml_lib.cyaml_free
#define cyaml_strerror hermes_yaml_lib.cyaml_strerror
#define yaml_parser_initialize hermes_yaml_lib.yaml_parser_initialize
#define yaml_parser_set_input_string hermes_yaml_lib.yaml_parser_set_input_string
#define yaml_parser_parse hermes_yaml_lib.yaml_parser_parse
#define yaml_event_delete hermes_yaml_lib.yaml_event_delete
#define yaml_parser_delete hermes_yaml_lib.yaml_parser_delete
#define yaml_get_version_string hermes_yaml_lib.yaml_get_version_string
#endif

#endif
