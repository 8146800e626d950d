/* auth/jwks_key.h: the loaded keys of a JWK Set, shared by jwks.c (which loads them) and jwt.c
 * (which verifies with them). Private to src/auth. */
#ifndef HERMES_AUTH_JWKS_KEY_H
#define HERMES_AUTH_JWKS_KEY_H

#include "auth/crypto_lib.h"
#include "auth/jwt.h"

typedef enum hermes_jwk_type { HERMES_JWK_RSA, HERMES_JWK_EC, HERMES_JWK_ED25519 } hermes_jwk_type_t;

typedef struct hermes_jwk {
	hermes_jwk_type_t type;
	int ec_bytes;   /* EC: the size of a coordinate (32, 48, 66), which fixes the curve */
	char *kid;      /* or NULL */
	char *alg;      /* the alg the key is restricted to, or NULL */
	EVP_PKEY *pkey;
} hermes_jwk_t;

struct hermes_jwks {
	size_t count;
	hermes_jwk_t *keys;
};

#endif
