/* tests/fuzz/fuzz_jwt.c: what an HTTP client controls of OAuth: the bearer token, split, decoded
 * and verified against a fixed JWK Set (first byte odd), and a JWK Set document as the issuer's
 * server could send it (first byte even). Nothing may crash, hang or leak; a random token is
 * never accepted. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/jwt.h"
#include "fuzz/fuzz.h"

static const char jwks[] =
	"{\"keys\":[{\"kty\":\"EC\",\"kid\":\"ec\",\"crv\":\"P-256\","
	"\"x\":\"SvO7bp1yOJBA5p7AJGEZcoo4epGJqfqbVM9MdLHiYwM\","
	"\"y\":\"D5IUm_m04ZfH24zCKjNYY--hiT_KQlDL_SrF7qjZuLA\"}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static hermes_jwks_t *keys;
	if (!keys && hermes_jwks_parse(jwks, sizeof jwks - 1, &keys, NULL) != 0)
		abort();
	if (size == 0)
		return 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	if (data[0] & 1) {
		hermes_jwt_expect_t want = {"https://as.example", "https://hermes.example/mcp", 1700000000, 60};
		hermes_jwt_claims_t cl;
		char why[256];
		hermes_jwt_status_t st = hermes_jwt_verify(text, len, keys, &want, &cl, why, sizeof why);
		FUZZ_ASSERT(st != HERMES_JWT_OK); /* nobody holds the private key */
		FUZZ_ASSERT(why[0] != '\0');
	} else {
		hermes_jwks_t *set = NULL;
		hermes_error_t err;
		if (hermes_jwks_parse(text, len, &set, &err) == 0)
			FUZZ_ASSERT(hermes_jwks_count(set) > 0);
		else
			FUZZ_ASSERT(set == NULL && err.message[0] != '\0');
		hermes_jwks_free(set);
		unsigned char out[64];
		long n = hermes_base64url_decode(text, len < 80 ? len : 80, out, sizeof out);
		FUZZ_ASSERT(n >= -1 && n <= (long)sizeof out);
	}
	return 0;
}
