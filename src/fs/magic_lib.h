/* fs/magic_lib.h: libmagic (file(1)'s content sniffing), loaded with dlopen the first time
 * fs.readBytes asks for a file's MIME type (see core/dl.h): no other verb maps it, nor its
 * database. mimetype.c calls it by its usual names, which the macros below turn into the loaded
 * functions. */
#ifndef HERMES_FS_MAGIC_LIB_H
#define HERMES_FS_MAGIC_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include <magic.h>

#include "core/dl.h"

#define HERMES_MAGIC_FUNCTIONS(X) \
	X(magic_open) X(magic_load) X(magic_buffer) X(magic_error) X(magic_close)

typedef struct hermes_magic_api {
	HERMES_MAGIC_FUNCTIONS(HERMES_DL_FIELD)
} hermes_magic_api_t;

extern hermes_magic_api_t hermes_magic_lib;

/* Loads libmagic (once; thread-safe). false, with why in err (of size n), if it cannot be. */
bool hermes_magic_lib_load(char *err, size_t n);

#ifndef HERMES_MAGIC_LIB_LOADER
#define magic_open hermes_magic_lib.magic_open
#define magic_load hermes_magic_lib.magic_load
#define magic_buffer hermes_magic_lib.magic_buffer
#define magic_error hermes_magic_lib.magic_error
#define magic_close hermes_magic_lib.magic_close
#endif

#endif
