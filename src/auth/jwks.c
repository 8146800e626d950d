/* auth/jwks.c: reading a JWK Set (RFC 7517) into OpenSSL public keys (see jwt.h for which). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "auth/jwks_key.h"
#include "core/json.h"
#include "core/verb.h"

/* The largest JWK Set read, and the most keys kept from it. */
#define JWKS_MAX_KEYS 64

static const char *member_str(const hermes_json_t *o, const char *name)
{
	const hermes_json_t *v = hermes_json_member(o, name);
	return v && hermes_json_is_c_string(v) ? v->str : NULL;
}

/* A base64url member decoded into a new buffer; NULL if absent or not base64url. */
static unsigned char *member_b64(const hermes_json_t *o, const char *name, size_t *len)
{
	const char *s = member_str(o, name);
	if (!s)
		return NULL;
	size_t n = strlen(s);
	unsigned char *out = malloc(n * 3 / 4 + 1);
	if (!out)
		return NULL;
	long got = hermes_base64url_decode(s, n, out, n * 3 / 4 + 1);
	if (got <= 0) {
		free(out);
		return NULL;
	}
	*len = (size_t)got;
	return out;
}

static EVP_PKEY *from_params(const char *type, OSSL_PARAM_BLD *bld)
{
	EVP_PKEY *pkey = NULL;
	OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	if (params && ctx && EVP_PKEY_fromdata_init(ctx) == 1 &&
	    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1)
		pkey = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	return pkey;
}

static EVP_PKEY *load_rsa(const hermes_json_t *jwk)
{
	size_t nl = 0, el = 0;
	unsigned char *n = member_b64(jwk, "n", &nl), *e = member_b64(jwk, "e", &el);
	EVP_PKEY *pkey = NULL;
	BIGNUM *bn = n ? BN_bin2bn(n, (int)nl, NULL) : NULL;
	BIGNUM *be = e ? BN_bin2bn(e, (int)el, NULL) : NULL;
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	if (bn && be && bld && BN_num_bits(bn) >= 2048 && BN_num_bits(be) <= 64 &&
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) == 1 &&
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be) == 1)
		pkey = from_params("RSA", bld);
	OSSL_PARAM_BLD_free(bld);
	BN_free(bn);
	BN_free(be);
	free(n);
	free(e);
	return pkey;
}

static EVP_PKEY *load_ec(const hermes_json_t *jwk, int *bytes)
{
	const char *crv = member_str(jwk, "crv"), *group;
	if (!crv)
		return NULL;
	if (!strcmp(crv, "P-256"))
		group = "prime256v1", *bytes = 32;
	else if (!strcmp(crv, "P-384"))
		group = "secp384r1", *bytes = 48;
	else if (!strcmp(crv, "P-521"))
		group = "secp521r1", *bytes = 66;
	else
		return NULL;
	size_t xl = 0, yl = 0;
	unsigned char *x = member_b64(jwk, "x", &xl), *y = member_b64(jwk, "y", &yl);
	EVP_PKEY *pkey = NULL;
	unsigned char pub[1 + 2 * 66];
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	if (x && y && bld && xl == (size_t)*bytes && yl == (size_t)*bytes) {
		pub[0] = 0x04; /* uncompressed point */
		memcpy(pub + 1, x, xl);
		memcpy(pub + 1 + xl, y, yl);
		if (OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) == 1 &&
		    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, 1 + 2 * xl) == 1)
			pkey = from_params("EC", bld);
	}
	OSSL_PARAM_BLD_free(bld);
	free(x);
	free(y);
	return pkey;
}

static EVP_PKEY *load_okp(const hermes_json_t *jwk)
{
	const char *crv = member_str(jwk, "crv");
	size_t xl = 0;
	if (!crv || strcmp(crv, "Ed25519"))
		return NULL;
	unsigned char *x = member_b64(jwk, "x", &xl);
	EVP_PKEY *pkey = x && xl == 32 ? EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x, xl) : NULL;
	free(x);
	return pkey;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Loads one JWK into k; false if Hermes cannot use it (skipped) or memory ran out (*oom). */
static bool load_key(const hermes_json_t *jwk, hermes_jwk_t *k, bool *oom)
{
	const char *kty = member_str(jwk, "kty"), *use = member_str(jwk, "use");
	if (jwk->type != HERMES_JSON_OBJECT || !kty || (use && strcmp(use, "sig")))
		return false;
	memset(k, 0, sizeof(*k));
	if (!strcmp(kty, "RSA")) {
		k->type = HERMES_JWK_RSA;
		k->pkey = load_rsa(jwk);
	} else if (!strcmp(kty, "EC")) {
		k->type = HERMES_JWK_EC;
		k->pkey = load_ec(jwk, &k->ec_bytes);
	} else if (!strcmp(kty, "OKP")) {
		k->type = HERMES_JWK_ED25519;
		k->pkey = load_okp(jwk);
	}
	if (!k->pkey)
		return false;
	k->kid = dup_or_null(member_str(jwk, "kid"));
	k->alg = dup_or_null(member_str(jwk, "alg"));
	if ((member_str(jwk, "kid") && !k->kid) || (member_str(jwk, "alg") && !k->alg)) {
		*oom = true;
		EVP_PKEY_free(k->pkey);
		free(k->kid);
		free(k->alg);
		return false;
	}
	return true;
}

int hermes_jwks_parse(const char *text, size_t len, hermes_jwks_t **out, hermes_error_t *err)
{
	char why[256];
	if (!hermes_crypto_lib_load(why, sizeof why)) {
		hermes_error_set(err, HERMES_E_INTERNAL, "cannot verify access tokens: %s", why);
		return -1;
	}
	hermes_json_doc_t *doc = NULL;
	size_t end = 0;
	hermes_error_t perr;
	if (hermes_json_parse_bounded(text, len, 16, 65536, &doc, &end, &perr) != 0 ||
	    hermes_json_skip_ws(text, len, end) != len) {
		hermes_error_set(err, HERMES_E_INVALID_ARGUMENT, "the JWK Set is not one JSON value%s%s",
		                 doc ? "" : ": ", doc ? "" : perr.message);
		hermes_json_doc_free(doc);
		return -1;
	}
	const hermes_json_t *keys = hermes_json_member(hermes_json_root(doc), "keys");
	if (!keys || keys->type != HERMES_JSON_ARRAY) {
		hermes_error_set(err, HERMES_E_INVALID_ARGUMENT, "the JWK Set has no \"keys\" array");
		hermes_json_doc_free(doc);
		return -1;
	}
	hermes_jwks_t *set = calloc(1, sizeof(*set));
	if (set)
		set->keys = calloc(JWKS_MAX_KEYS, sizeof(*set->keys));
	bool oom = !set || !set->keys;
	for (const hermes_json_t *k = keys->child; !oom && k && set->count < JWKS_MAX_KEYS; k = k->next)
		if (load_key(k, &set->keys[set->count], &oom))
			set->count++;
	hermes_json_doc_free(doc);
	if (oom || set->count == 0) {
		if (oom)
			hermes_error_set(err, HERMES_E_INTERNAL, "out of memory reading the JWK Set");
		else
			hermes_error_set(err, HERMES_E_INVALID_ARGUMENT,
			                 "the JWK Set holds no signing key Hermes can use (RSA of 2048 bits "
			                 "or more, EC P-256/P-384/P-521, Ed25519)");
		hermes_jwks_free(set);
		return -1;
	}
	*out = set;
	return 0;
}

size_t hermes_jwks_count(const hermes_jwks_t *keys)
{
	return keys ? keys->count : 0;
}

void hermes_jwks_free(hermes_jwks_t *set)
{
	if (!set)
		return;
	for (size_t i = 0; set->keys && i < set->count; i++) {
		EVP_PKEY_free(set->keys[i].pkey);
		free(set->keys[i].kid);
		free(set->keys[i].alg);
	}
	free(set->keys);
	free(set);
}
