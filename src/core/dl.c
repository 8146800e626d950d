/* core/dl.c: loading a library on first use (see dl.h). */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>

#include "core/dl.h"

void *hermes_dl_open(const char *soname, char *why, size_t n)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib && why) {
		const char *e = dlerror();
		snprintf(why, n, "%s", e ? e : soname);
	}
	return lib;
}

void *hermes_dl_sym(void *lib, const char *soname, const char *name, char *why, size_t n)
{
	void *p = dlsym(lib, name);
	if (!p && why)
		snprintf(why, n, "%s has no %s", soname, name);
	return p;
}
