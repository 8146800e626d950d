/* core/yaml_lib.c: loading libcyaml and libyaml on first use (see yaml_lib.h). */
#include "config.h"

#define HERMES_YAML_LIB_LOADER
#include <pthread.h>
#include <stdio.h>

#include "core/yaml_lib.h"

hermes_yaml_api_t hermes_yaml_lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[300];

static void load(void)
{
	char e[256] = "";
	bool ok = false;
	void *cyaml = hermes_dl_open(HERMES_CYAML_SONAME, e, sizeof e);
	void *yaml = cyaml ? hermes_dl_open(HERMES_LIBYAML_SONAME, e, sizeof e) : NULL;
	if (yaml) {
		HERMES_DL_LOAD_ALL(HERMES_CYAML_FUNCTIONS, &hermes_yaml_lib, cyaml, HERMES_CYAML_SONAME, e,
		                   sizeof e, ok);
		if (ok)
			HERMES_DL_LOAD_ALL(HERMES_LIBYAML_FUNCTIONS, &hermes_yaml_lib, yaml,
			                   HERMES_LIBYAML_SONAME, e, sizeof e, ok);
		if (ok && !(hermes_yaml_lib.cyaml_version_str = hermes_dl_sym(
		                    cyaml, HERMES_CYAML_SONAME, "cyaml_version_str", e, sizeof e)))
			ok = false;
	}
	loaded = ok;
	if (!ok)
		snprintf(why, sizeof why, "libcyaml and libyaml could not be loaded: %s", e);
}

bool hermes_yaml_lib_load(char *err, size_t n)
{
	pthread_once(&once, load);
	if (!loaded && err)
		snprintf(err, n, "%s", why);
	return loaded;
}
