/* cli/console_libedit.c: loading libedit at run time (see console_libedit.h). */
#include "config.h"

#define HERMES_LIBEDIT_LOADER
#include <stdio.h>

#include "cli/console_libedit.h"
#include "core/dl.h"

hermes_libedit_api_t hermes_libedit;

bool hermes_libedit_load(char *err, size_t n)
{
	static int state; /* 0: not tried, 1: loaded, -1: failed */
	static char why[256];
	if (state == 0) {
		/* The library configure found, by its SONAME: the version built against. */
		void *lib = hermes_dl_open(HERMES_LIBEDIT_SONAME, why, sizeof why);
		bool ok = false;
		if (lib)
			HERMES_DL_LOAD_ALL(HERMES_LIBEDIT_FUNCTIONS, &hermes_libedit, lib,
			                   HERMES_LIBEDIT_SONAME, why, sizeof why, ok);
		state = ok ? 1 : -1;
	}
	if (state < 0 && err)
		snprintf(err, n, "%s", why);
	return state > 0;
}
