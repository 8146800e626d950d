/* core/yaml_lib.c: loading libcyaml and libyaml on first use (see yaml_lib.h). */
#include "config.h"

#define HERMES_YAML_LIB_LOADER
#include "core/yaml_lib.h"

hermes_yaml_api_t hermes_yaml_lib;

static bool load(char *e, size_t n)
{
	bool ok = false;
	void *cyaml = hermes_dl_open(HERMES_CYAML_SONAME, e, n);
	void *yaml = cyaml ? hermes_dl_open(HERMES_LIBYAML_SONAME, e, n) : NULL;
	if (yaml) {
		HERMES_DL_LOAD_ALL(HERMES_CYAML_FUNCTIONS, &hermes_yaml_lib, cyaml, HERMES_CYAML_SONAME, e,
		                   n, ok);
		if (ok)
			HERMES_DL_LOAD_ALL(HERMES_LIBYAML_FUNCTIONS, &hermes_yaml_lib, yaml,
			                   HERMES_LIBYAML_SONAME, e, n, ok);
		if (ok && !(hermes_yaml_lib.cyaml_version_str =
		                    hermes_dl_sym(cyaml, HERMES_CYAML_SONAME, "cyaml_version_str", e, n)))
			ok = false;
	}
	return ok;
}

static hermes_dl_lib_t loader = HERMES_DL_LIB(load, "libcyaml and libyaml");

bool hermes_yaml_lib_load(char *err, size_t n)
{
	return hermes_dl_ensure(&loader, err, n);
}
