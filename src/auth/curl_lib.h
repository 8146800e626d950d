/* auth/curl_lib.h: libcurl, loaded with dlopen the first time Hermes fetches an OAuth issuer's
 * metadata or keys (see core/dl.h): a Hermes without --oauth-issuer never maps it. */
#ifndef HERMES_AUTH_CURL_LIB_H
#define HERMES_AUTH_CURL_LIB_H

#include <stdbool.h>
#include <stddef.h>

#define CURL_DISABLE_TYPECHECK /* its macros would wrap the loaded pointers */
#include <curl/curl.h>

#include "core/dl.h"

#define HERMES_CURL_FUNCTIONS(X)                                                             \
	X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform)       \
	X(curl_easy_getinfo) X(curl_easy_cleanup) X(curl_easy_strerror)

typedef struct hermes_curl_api {
	HERMES_CURL_FUNCTIONS(HERMES_DL_FIELD)
} hermes_curl_api_t;

extern hermes_curl_api_t hermes_curl_lib;

/* Loads libcurl and initializes it (once; thread-safe). false, with why in err (of size n). */
bool hermes_curl_lib_load(char *err, size_t n);

#ifndef HERMES_CURL_LIB_LOADER
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init hermes_curl_lib.curl_global_init
#define curl_easy_init hermes_curl_lib.curl_easy_init
#define curl_easy_setopt hermes_curl_lib.curl_easy_setopt
#define curl_easy_perform hermes_curl_lib.curl_easy_perform
#define curl_easy_getinfo hermes_curl_lib.curl_easy_getinfo
#define curl_easy_cleanup hermes_curl_lib.curl_easy_cleanup
#define curl_easy_strerror hermes_curl_lib.curl_easy_strerror
#endif

#endif
