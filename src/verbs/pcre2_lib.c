/* verbs/pcre2_lib.c: loading PCRE2 on first use (see pcre2_lib.h). */
#include "config.h"

#define HERMES_PCRE2_LIB_LOADER
#include <pthread.h>
#include <stdio.h>

#include "verbs/pcre2_lib.h"

hermes_pcre2_api_t hermes_pcre2_lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[300];
static char version[64];

static void load(void)
{
	char e[256] = "";
	bool ok = false;
	void *lib = hermes_dl_open(HERMES_PCRE2_SONAME, e, sizeof e);
	if (lib)
		HERMES_DL_LOAD_ALL(HERMES_PCRE2_FUNCTIONS, &hermes_pcre2_lib, lib, HERMES_PCRE2_SONAME, e,
		                   sizeof e, ok);
	if (ok && hermes_pcre2_lib.pcre2_config_8(PCRE2_CONFIG_VERSION, version) < 0)
		version[0] = '\0';
	loaded = ok;
	if (!ok)
		snprintf(why, sizeof why, "PCRE2 could not be loaded: %s", e);
}

bool hermes_pcre2_lib_load(char *err, size_t n)
{
	pthread_once(&once, load);
	if (!loaded && err)
		snprintf(err, n, "%s", why);
	return loaded;
}

const char *hermes_pcre2_lib_version(void)
{
	return version;
}
