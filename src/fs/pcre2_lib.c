/* fs/pcre2_lib.c: loading PCRE2 on first use (see pcre2_lib.h). */
#include "config.h"

#define HERMES_PCRE2_LIB_LOADER
#include "fs/pcre2_lib.h"

hermes_pcre2_api_t hermes_pcre2_lib;

static char version[64];

static bool load(char *e, size_t n)
{
	bool ok = false;
	void *lib = hermes_dl_open(HERMES_PCRE2_SONAME, e, n);
	if (lib)
		HERMES_DL_LOAD_ALL(HERMES_PCRE2_FUNCTIONS, &hermes_pcre2_lib, lib, HERMES_PCRE2_SONAME, e,
		                   n, ok);
	if (ok && hermes_pcre2_lib.pcre2_config_8(PCRE2_CONFIG_VERSION, version) < 0)
		version[0] = '\0';
	return ok;
}

static hermes_dl_lib_t loader = HERMES_DL_LIB(load, "PCRE2");

bool hermes_pcre2_lib_load(char *err, size_t n)
{
	return hermes_dl_ensure(&loader, err, n);
}

const char *hermes_pcre2_lib_version(void)
{
	return version;
}
