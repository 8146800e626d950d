/* cli/console_libedit.c: loading libedit at run time (see console_libedit.h). */
#include "config.h"

#define HERMES_LIBEDIT_LOADER
#include <dlfcn.h>
#include <stdio.h>

#include "cli/console_libedit.h"

hermes_libedit_api_t hermes_libedit;

bool hermes_libedit_load(char *err, size_t n)
{
	static int state; /* 0: not tried, 1: loaded, -1: failed */
	static char why[256];
	if (state == 0) {
		/* The library configure found, by its SONAME: the version built against. */
		void *lib = dlopen(HERMES_LIBEDIT_SONAME, RTLD_NOW | RTLD_LOCAL);
		state = lib ? 1 : -1;
		if (!lib)
			snprintf(why, sizeof why, "%s", dlerror());
#define HERMES_LIBEDIT_SYMBOL(name)                                                         \
		if (state == 1 && !(hermes_libedit.name = (__typeof__(name) *)dlsym(lib, #name))) { \
			snprintf(why, sizeof why, "%s: no %s", HERMES_LIBEDIT_SONAME, #name);      \
			state = -1;                                                                 \
		}
		HERMES_LIBEDIT_FUNCTIONS(HERMES_LIBEDIT_SYMBOL)
#undef HERMES_LIBEDIT_SYMBOL
	}
	if (state < 0 && err)
		snprintf(err, n, "%s", why);
	return state > 0;
}
