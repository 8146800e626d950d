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

bool hermes_dl_ensure(hermes_dl_lib_t *l, char *err, size_t n)
{
	int state = atomic_load_explicit(&l->state, memory_order_acquire);
	if (state == 0) {
		pthread_mutex_lock(&l->lock);
		state = atomic_load_explicit(&l->state, memory_order_relaxed);
		if (state == 0) {
			char e[256] = "";
			state = l->load(e, sizeof e) ? 1 : -1;
			if (state < 0 && l->what)
				snprintf(l->why, sizeof l->why, "%s could not be loaded: %s", l->what, e);
			else if (state < 0)
				snprintf(l->why, sizeof l->why, "%s", e);
			atomic_store_explicit(&l->state, state, memory_order_release);
		}
		pthread_mutex_unlock(&l->lock);
	}
	if (state < 0 && err)
		snprintf(err, n, "%s", l->why);
	return state > 0;
}

void *hermes_dl_sym(void *lib, const char *soname, const char *name, char *why, size_t n)
{
	void *p = dlsym(lib, name);
	if (!p && why)
		snprintf(why, n, "%s has no %s", soname, name);
	return p;
}
