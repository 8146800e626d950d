/* fs/pcre2_lib.h: PCRE2, loaded with dlopen the first time fs.search compiles a pattern (see
 * core/dl.h): no other verb maps it. fs_search.c calls it by its usual names, which the macros
 * below turn into the loaded functions (pcre2.h already makes each name a macro for its 8-bit
 * variant, pcre2_compile for pcre2_compile_8: those are the names loaded). */
#ifndef HERMES_FS_PCRE2_LIB_H
#define HERMES_FS_PCRE2_LIB_H

#include <stdbool.h>
#include <stddef.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "core/dl.h"

#define HERMES_PCRE2_FUNCTIONS(X)                                                            \
	X(pcre2_compile) X(pcre2_code_free) X(pcre2_get_error_message) X(pcre2_jit_compile)  \
	X(pcre2_match) X(pcre2_jit_match) X(pcre2_get_ovector_pointer)                       \
	X(pcre2_compile_context_create) X(pcre2_compile_context_free) X(pcre2_set_newline)   \
	X(pcre2_match_context_create) X(pcre2_match_context_free)                            \
	X(pcre2_set_match_limit) X(pcre2_set_depth_limit)                                    \
	X(pcre2_match_data_create_from_pattern) X(pcre2_match_data_free)                     \
	X(pcre2_jit_stack_create) X(pcre2_jit_stack_free) X(pcre2_jit_stack_assign)          \
	X(pcre2_config)

typedef struct hermes_pcre2_api {
	HERMES_PCRE2_FUNCTIONS(HERMES_DL_FIELD)
} hermes_pcre2_api_t;

extern hermes_pcre2_api_t hermes_pcre2_lib;

/* Loads PCRE2 (once; thread-safe). false, with why in err (of size n), if it cannot be. */
bool hermes_pcre2_lib_load(char *err, size_t n);
/* The loaded PCRE2's version ("10.42 2022-12-11"); only after hermes_pcre2_lib_load succeeded. */
const char *hermes_pcre2_lib_version(void);

#ifndef HERMES_PCRE2_LIB_LOADER
#undef pcre2_compile
#undef pcre2_code_free
#undef pcre2_get_error_message
#undef pcre2_jit_compile
#undef pcre2_match
#undef pcre2_jit_match
#undef pcre2_get_ovector_pointer
#undef pcre2_compile_context_create
#undef pcre2_compile_context_free
#undef pcre2_set_newline
#undef pcre2_match_context_create
#undef pcre2_match_context_free
#undef pcre2_set_match_limit
#undef pcre2_set_depth_limit
#undef pcre2_match_data_create_from_pattern
#undef pcre2_match_data_free
#undef pcre2_jit_stack_create
#undef pcre2_jit_stack_free
#undef pcre2_jit_stack_assign
#undef pcre2_config
#define pcre2_compile hermes_pcre2_lib.pcre2_compile_8
#define pcre2_code_free hermes_pcre2_lib.pcre2_code_free_8
#define pcre2_get_error_message hermes_pcre2_lib.pcre2_get_error_message_8
#define pcre2_jit_compile hermes_pcre2_lib.pcre2_jit_compile_8
#define pcre2_match hermes_pcre2_lib.pcre2_match_8
#define pcre2_jit_match hermes_pcre2_lib.pcre2_jit_match_8
#define pcre2_get_ovector_pointer hermes_pcre2_lib.pcre2_get_ovector_pointer_8
#define pcre2_compile_context_create hermes_pcre2_lib.pcre2_compile_context_create_8
#define pcre2_compile_context_free hermes_pcre2_lib.pcre2_compile_context_free_8
#define pcre2_set_newline hermes_pcre2_lib.pcre2_set_newline_8
#define pcre2_match_context_create hermes_pcre2_lib.pcre2_match_context_create_8
#define pcre2_match_context_free hermes_pcre2_lib.pcre2_match_context_free_8
#define pcre2_set_match_limit hermes_pcre2_lib.pcre2_set_match_limit_8
#define pcre2_set_depth_limit hermes_pcre2_lib.pcre2_set_depth_limit_8
#define pcre2_match_data_create_from_pattern hermes_pcre2_lib.pcre2_match_data_create_from_pattern_8
#define pcre2_match_data_free hermes_pcre2_lib.pcre2_match_data_free_8
#define pcre2_jit_stack_create hermes_pcre2_lib.pcre2_jit_stack_create_8
#define pcre2_jit_stack_free hermes_pcre2_lib.pcre2_jit_stack_free_8
#define pcre2_jit_stack_assign hermes_pcre2_lib.pcre2_jit_stack_assign_8
#define pcre2_config hermes_pcre2_lib.pcre2_config_8
#endif

#endif
