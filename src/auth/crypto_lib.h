/* auth/crypto_lib.h: OpenSSL's libcrypto, loaded with dlopen the first time an access token is
 * verified (see core/dl.h): a Hermes without --oauth-issuer never maps it. The signature
 * algorithms and key handling are OpenSSL's; Hermes only splits the token and reads its JSON.
 * jwt.c and jwks.c call the functions by their usual names, which the macros below turn into the
 * loaded ones. */
#ifndef HERMES_AUTH_CRYPTO_LIB_H
#define HERMES_AUTH_CRYPTO_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include "core/dl.h"

#define HERMES_CRYPTO_FUNCTIONS(X)                                                           \
	X(BN_bin2bn) X(BN_free) X(BN_num_bits)                                               \
	X(OSSL_PARAM_BLD_new) X(OSSL_PARAM_BLD_free) X(OSSL_PARAM_BLD_push_BN)               \
	X(OSSL_PARAM_BLD_push_utf8_string) X(OSSL_PARAM_BLD_push_octet_string)               \
	X(OSSL_PARAM_BLD_to_param) X(OSSL_PARAM_free)                                        \
	X(EVP_PKEY_CTX_new_from_name) X(EVP_PKEY_CTX_free) X(EVP_PKEY_fromdata_init)         \
	X(EVP_PKEY_fromdata) X(EVP_PKEY_free) X(EVP_PKEY_new_raw_public_key)                 \
	X(EVP_PKEY_CTX_set_rsa_padding) X(EVP_PKEY_CTX_set_rsa_pss_saltlen)                  \
	X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestVerifyInit) X(EVP_DigestVerify)     \
	X(EVP_Digest) X(EVP_sha256) X(EVP_sha384) X(EVP_sha512)                              \
	X(ECDSA_SIG_new) X(ECDSA_SIG_free) X(ECDSA_SIG_set0) X(i2d_ECDSA_SIG)                \
	X(CRYPTO_free) X(OpenSSL_version)

typedef struct hermes_crypto_api {
	HERMES_CRYPTO_FUNCTIONS(HERMES_DL_FIELD)
} hermes_crypto_api_t;

extern hermes_crypto_api_t hermes_crypto_lib;

/* Loads libcrypto (once; thread-safe). false, with why in err (of size n), if it cannot be. */
bool hermes_crypto_lib_load(char *err, size_t n);

#ifndef HERMES_CRYPTO_LIB_LOADER
#define BN_bin2bn hermes_crypto_lib.BN_bin2bn
#define BN_free hermes_crypto_lib.BN_free
#define BN_num_bits hermes_crypto_lib.BN_num_bits
#define OSSL_PARAM_BLD_new hermes_crypto_lib.OSSL_PARAM_BLD_new
#define OSSL_PARAM_BLD_free hermes_crypto_lib.OSSL_PARAM_BLD_free
#define OSSL_PARAM_BLD_push_BN hermes_crypto_lib.OSSL_PARAM_BLD_push_BN
#define OSSL_PARAM_BLD_push_utf8_string hermes_crypto_lib.OSSL_PARAM_BLD_push_utf8_string
#define OSSL_PARAM_BLD_push_octet_string hermes_crypto_lib.OSSL_PARAM_BLD_push_octet_string
#define OSSL_PARAM_BLD_to_param hermes_crypto_lib.OSSL_PARAM_BLD_to_param
#define OSSL_PARAM_free hermes_crypto_lib.OSSL_PARAM_free
#define EVP_PKEY_CTX_new_from_name hermes_crypto_lib.EVP_PKEY_CTX_new_from_name
#define EVP_PKEY_CTX_free hermes_crypto_lib.EVP_PKEY_CTX_free
#define EVP_PKEY_fromdata_init hermes_crypto_lib.EVP_PKEY_fromdata_init
#define EVP_PKEY_fromdata hermes_crypto_lib.EVP_PKEY_fromdata
#define EVP_PKEY_free hermes_crypto_lib.EVP_PKEY_free
#define EVP_PKEY_new_raw_public_key hermes_crypto_lib.EVP_PKEY_new_raw_public_key
#define EVP_PKEY_CTX_set_rsa_padding hermes_crypto_lib.EVP_PKEY_CTX_set_rsa_padding
#define EVP_PKEY_CTX_set_rsa_pss_saltlen hermes_crypto_lib.EVP_PKEY_CTX_set_rsa_pss_saltlen
#define EVP_MD_CTX_new hermes_crypto_lib.EVP_MD_CTX_new
#define EVP_MD_CTX_free hermes_crypto_lib.EVP_MD_CTX_free
#define EVP_DigestVerifyInit hermes_crypto_lib.EVP_DigestVerifyInit
#define EVP_DigestVerify hermes_crypto_lib.EVP_DigestVerify
#define EVP_Digest hermes_crypto_lib.EVP_Digest
#define EVP_sha256 hermes_crypto_lib.EVP_sha256
#define EVP_sha384 hermes_crypto_lib.EVP_sha384
#define EVP_sha512 hermes_crypto_lib.EVP_sha512
#define ECDSA_SIG_new hermes_crypto_lib.ECDSA_SIG_new
#define ECDSA_SIG_free hermes_crypto_lib.ECDSA_SIG_free
#define ECDSA_SIG_set0 hermes_crypto_lib.ECDSA_SIG_set0
#define i2d_ECDSA_SIG hermes_crypto_lib.i2d_ECDSA_SIG
#define CRYPTO_free hermes_crypto_lib.CRYPTO_free
#define OpenSSL_version hermes_crypto_lib.OpenSSL_version
#endif

#endif
