/* auth/crypto_lib.c: loading libcrypto on first use (see crypto_lib.h). */
#include "config.h"

#define HERMES_CRYPTO_LIB_LOADER
#include "auth/crypto_lib.h"

hermes_crypto_api_t hermes_crypto_lib;

static bool load(char *e, size_t n)
{
	bool ok = false;
	void *lib = hermes_dl_open(HERMES_CRYPTO_SONAME, e, n);
	if (lib)
		HERMES_DL_LOAD_ALL(HERMES_CRYPTO_FUNCTIONS, &hermes_crypto_lib, lib,
		                   HERMES_CRYPTO_SONAME, e, n, ok);
	return ok;
}

static hermes_dl_lib_t loader = HERMES_DL_LIB(load, "OpenSSL's libcrypto");

bool hermes_crypto_lib_load(char *err, size_t n)
{
	return hermes_dl_ensure(&loader, err, n);
}
