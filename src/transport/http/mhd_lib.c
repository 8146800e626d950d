/* transport/http/mhd_lib.c: loading libmicrohttpd on first use (see mhd_lib.h). */
#include "config.h"

#define HERMES_MHD_LIB_LOADER
#include "transport/http/mhd_lib.h"

hermes_mhd_api_t hermes_mhd_lib;

static bool load(char *e, size_t n)
{
	bool ok = false;
	void *lib = hermes_dl_open(HERMES_MHD_SONAME, e, n);
	if (lib)
		HERMES_DL_LOAD_ALL(HERMES_MHD_FUNCTIONS, &hermes_mhd_lib, lib, HERMES_MHD_SONAME, e, n, ok);
	return ok;
}

static hermes_dl_lib_t loader = HERMES_DL_LIB(load, "libmicrohttpd");

bool hermes_mhd_lib_load(char *err, size_t n)
{
	return hermes_dl_ensure(&loader, err, n);
}
