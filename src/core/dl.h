/* core/dl.h: libraries loaded with dlopen the first time they are needed, instead of linked.
 *
 * Every start of hermes paid for mapping and relocating the libraries only some requests use:
 * PCRE2 (fs.search), libcyaml and libyaml (YAML envelopes). A one-shot `hermes exec` of a JSON
 * envelope took 1.11 ms with them linked against `test -e`'s 0.85 ms; an empty C program linked
 * with the three starts 0.21 ms slower than one linked with libc alone. systemd loads its optional
 * libraries the same way. The SONAMEs are the versions configure built against.
 *
 * A library's user declares its functions with an X-macro list and loads them with
 * HERMES_DL_LOAD_ALL; see core/yaml_lib.h and fs/pcre2_lib.h. */
#ifndef HERMES_CORE_DL_H
#define HERMES_CORE_DL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* dlopen(soname) (RTLD_NOW | RTLD_LOCAL): the handle, or NULL with why (of size n) saying so. */
void *hermes_dl_open(const char *soname, char *why, size_t n);

/* The address of name in lib, or NULL with why saying which library lacks it. */
void *hermes_dl_sym(void *lib, const char *soname, const char *name, char *why, size_t n);

/* A library (or a few) loaded at most once in the process, from whichever thread first needs it:
 * load opens it and fills its API, or returns false with why (of size n). */
typedef struct hermes_dl_lib {
	bool (*load)(char *why, size_t n);
	const char *what;    /* named in the message when it fails ("PCRE2"), or NULL: the reason alone */
	pthread_mutex_t lock;
	atomic_int state;    /* 0: not tried, 1: loaded, -1: failed */
	char why[300];
} hermes_dl_lib_t;

#define HERMES_DL_LIB(load, what) { (load), (what), PTHREAD_MUTEX_INITIALIZER, 0, "" }

/* Loads l the first time; then true, or false with why it could not be in err (of size n). */
bool hermes_dl_ensure(hermes_dl_lib_t *l, char *err, size_t n);

#define HERMES_DL_STR_(x) #x
#define HERMES_DL_STR(x) HERMES_DL_STR_(x) /* after macro expansion: pcre2_compile is pcre2_compile_8 */

/* Fills api->NAME for every NAME of LIST from lib; ok becomes false at the first one missing. */
#define HERMES_DL_FIELD(name) __typeof__(name) *name;
#define HERMES_DL_LOAD_ONE(name)                                                                   \
	if (ok_ && !((*(void **)&api_->name) = hermes_dl_sym(lib_, soname_, HERMES_DL_STR(name), why_, \
	                                                     n_)))                                     \
		ok_ = false;
#define HERMES_DL_LOAD_ALL(LIST, api, lib, soname, why, n, ok)                                     \
	do {                                                                                       \
		__typeof__(api) api_ = (api);                                                      \
		void *lib_ = (lib);                                                                \
		const char *soname_ = (soname);                                                    \
		char *why_ = (why);                                                                \
		size_t n_ = (n);                                                                   \
		bool ok_ = true;                                                                   \
		LIST(HERMES_DL_LOAD_ONE)                                                           \
		(ok) = ok_;                                                                        \
	} while (0)

#endif
