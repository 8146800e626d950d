/* cli/console_libedit.c: loading libedit at run time (see console_libedit.h). */
#include "config.h"

#define HERMES_LIBEDIT_LOADER
#include "cli/console_libedit.h"
#include "core/dl.h"

hermes_libedit_api_t hermes_libedit;

/* The library configure found, by its SONAME: the version built against. */
static bool load(char *why, size_t n)
{
	bool ok = false;
	void *lib = hermes_dl_open(HERMES_LIBEDIT_SONAME, why, n);
	if (lib)
		HERMES_DL_LOAD_ALL(HERMES_LIBEDIT_FUNCTIONS, &hermes_libedit, lib, HERMES_LIBEDIT_SONAME,
		                   why, n, ok);
	return ok;
}

static hermes_dl_lib_t loader = HERMES_DL_LIB(load, NULL);

bool hermes_libedit_load(char *err, size_t n)
{
	return hermes_dl_ensure(&loader, err, n);
}
