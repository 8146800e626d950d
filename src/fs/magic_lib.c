/* fs/magic_lib.c: loading libmagic on first use (see magic_lib.h). */
#include "config.h"

#define HERMES_MAGIC_LIB_LOADER
#include "fs/magic_lib.h"

hermes_magic_api_t hermes_magic_lib;

static bool load(char *e, size_t n)
{
	bool ok = false;
	void *lib = hermes_dl_open(HERMES_MAGIC_SONAME, e, n);
	if (lib)
		HERMES_DL_LOAD_ALL(HERMES_MAGIC_FUNCTIONS, &hermes_magic_lib, lib, HERMES_MAGIC_SONAME, e,
		                   n, ok);
	return ok;
}

static hermes_dl_lib_t loader = HERMES_DL_LIB(load, "libmagic");

bool hermes_magic_lib_load(char *err, size_t n)
{
	return hermes_dl_ensure(&loader, err, n);
}
