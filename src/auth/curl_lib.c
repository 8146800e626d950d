/* auth/curl_lib.c: loading libcurl on first use (see curl_lib.h). */
#include "config.h"

#define HERMES_CURL_LIB_LOADER
#include "auth/curl_lib.h"

#include <stdio.h>

hermes_curl_api_t hermes_curl_lib;

static bool load(char *e, size_t n)
{
	bool ok = false;
	void *lib = hermes_dl_open(HERMES_CURL_SONAME, e, n);
	if (lib)
		HERMES_DL_LOAD_ALL(HERMES_CURL_FUNCTIONS, &hermes_curl_lib, lib, HERMES_CURL_SONAME, e,
		                   n, ok);
	/* once, under the loader's lock: curl_global_init is not thread-safe */
	if (ok && hermes_curl_lib.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(e, n, "libcurl could not be initialized");
		ok = false;
	}
	return ok;
}

static hermes_dl_lib_t loader = HERMES_DL_LIB(load, "libcurl");

bool hermes_curl_lib_load(char *err, size_t n)
{
	return hermes_dl_ensure(&loader, err, n);
}
