/* auth/jwt.c: verifying a JWS-compact access token against a JWK Set (see jwt.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/jwks_key.h"
#include "core/json.h"

static int b64url_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '-' ? 62 : c == '_' ? 63 : -1;
}

long hermes_base64url_decode(const char *in, size_t len, unsigned char *out, size_t cap)
{
	if (len % 4 == 1)
		return -1;
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0;
	for (size_t i = 0; i < len; i++) {
		int v = b64url_value((unsigned char)in[i]);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= cap)
				return -1;
			out[o++] = (unsigned char)(acc >> bits);
		}
		acc &= (1u << bits) - 1;
	}
	return acc ? -1 : (long)o; /* leftover bits must be zero: one spelling per token */
}

/* One part of a token decoded; NULL if it is not base64url (or memory ran out). */
static unsigned char *part(const char *s, size_t len, size_t *out_len)
{
	unsigned char *buf = malloc(len * 3 / 4 + 1);
	long n = buf ? hermes_base64url_decode(s, len, buf, len * 3 / 4 + 1) : -1;
	if (n < 0) {
		free(buf);
		return NULL;
	}
	*out_len = (size_t)n;
	return buf;
}

/* A decoded part as a JSON object; NULL if it is not exactly one object without repeated keys. */
static hermes_json_doc_t *object(const unsigned char *text, size_t len)
{
	hermes_json_doc_t *doc = NULL;
	size_t end = 0;
	if (hermes_json_parse_bounded((const char *)text, len, 8, 4096, &doc, &end, NULL) != 0)
		return NULL;
	const hermes_json_t *root = hermes_json_root(doc);
	if (root->type != HERMES_JSON_OBJECT || root->first_repeat ||
	    hermes_json_skip_ws((const char *)text, len, end) != len) {
		hermes_json_doc_free(doc);
		return NULL;
	}
	return doc;
}

typedef struct alg {
	const char *name;
	hermes_jwk_type_t type;
	int bits;     /* the digest (RSA, EC) */
	bool pss;
	int ec_bytes; /* EC: the curve's coordinate size */
} alg_t;

static const alg_t algs[] = {
	{"RS256", HERMES_JWK_RSA, 256, false, 0}, {"RS384", HERMES_JWK_RSA, 384, false, 0},
	{"RS512", HERMES_JWK_RSA, 512, false, 0}, {"PS256", HERMES_JWK_RSA, 256, true, 0},
	{"PS384", HERMES_JWK_RSA, 384, true, 0},  {"PS512", HERMES_JWK_RSA, 512, true, 0},
	{"ES256", HERMES_JWK_EC, 256, false, 32}, {"ES384", HERMES_JWK_EC, 384, false, 48},
	{"ES512", HERMES_JWK_EC, 512, false, 66}, {"EdDSA", HERMES_JWK_ED25519, 0, false, 0},
	{"Ed25519", HERMES_JWK_ED25519, 0, false, 0}, /* RFC 9864's fully-specified name */
};

static const alg_t *find_alg(const char *name)
{
	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
		if (!strcmp(algs[i].name, name))
			return &algs[i];
	return NULL;
}

static const EVP_MD *digest(int bits)
{
	return bits == 256 ? EVP_sha256() : bits == 384 ? EVP_sha384() : EVP_sha512();
}

/* JWS's ECDSA signature is r || s; OpenSSL wants DER. Returns a new DER buffer or NULL. */
static unsigned char *ecdsa_der(const unsigned char *sig, size_t len, int bytes, int *der_len)
{
	if (len != (size_t)bytes * 2)
		return NULL;
	ECDSA_SIG *es = ECDSA_SIG_new();
	BIGNUM *r = BN_bin2bn(sig, bytes, NULL), *s = BN_bin2bn(sig + bytes, bytes, NULL);
	unsigned char *der = NULL;
	if (es && r && s && ECDSA_SIG_set0(es, r, s) == 1) {
		r = s = NULL; /* owned by es now */
		*der_len = i2d_ECDSA_SIG(es, &der);
		if (*der_len <= 0)
			der = NULL;
	}
	BN_free(r);
	BN_free(s);
	ECDSA_SIG_free(es);
	return der;
}

static bool verify_with(const hermes_jwk_t *k, const alg_t *a, const char *data, size_t data_len,
                        const unsigned char *sig, size_t sig_len)
{
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pctx = NULL;
	unsigned char *der = NULL;
	int der_len = 0;
	bool ok = false;
	if (!m)
		return false;
	if (a->type == HERMES_JWK_ED25519) {
		ok = EVP_DigestVerifyInit(m, NULL, NULL, NULL, k->pkey) == 1 &&
		     EVP_DigestVerify(m, sig, sig_len, (const unsigned char *)data, data_len) == 1;
	} else if (EVP_DigestVerifyInit(m, &pctx, digest(a->bits), NULL, k->pkey) == 1) {
		if (a->type == HERMES_JWK_EC) {
			der = ecdsa_der(sig, sig_len, a->ec_bytes, &der_len);
			ok = der && EVP_DigestVerify(m, der, (size_t)der_len, (const unsigned char *)data,
			                             data_len) == 1;
		} else {
			ok = EVP_PKEY_CTX_set_rsa_padding(pctx, a->pss ? RSA_PKCS1_PSS_PADDING
			                                               : RSA_PKCS1_PADDING) == 1 &&
			     (!a->pss || EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1) &&
			     EVP_DigestVerify(m, sig, sig_len, (const unsigned char *)data, data_len) == 1;
		}
	}
	if (der)
		CRYPTO_free(der, __FILE__, __LINE__);
	EVP_MD_CTX_free(m);
	return ok;
}

static bool key_fits(const hermes_jwk_t *k, const alg_t *a)
{
	bool alg_ok = !k->alg || !strcmp(k->alg, a->name) ||
	              (a->type == HERMES_JWK_ED25519 && (!strcmp(k->alg, "EdDSA") || !strcmp(k->alg, "Ed25519")));
	return k->type == a->type && (a->type != HERMES_JWK_EC || k->ec_bytes == a->ec_bytes) && alg_ok;
}

/* `aud` is the audience or an array holding it. */
static bool audience_ok(const hermes_json_t *aud, const char *want)
{
	if (aud && aud->type == HERMES_JSON_STRING)
		return hermes_json_is_c_string(aud) && !strcmp(aud->str, want);
	if (aud && aud->type == HERMES_JSON_ARRAY)
		for (const hermes_json_t *v = aud->child; v; v = v->next)
			if (v->type == HERMES_JSON_STRING && hermes_json_is_c_string(v) && !strcmp(v->str, want))
				return true;
	return false;
}

/* A NumericDate claim (integer seconds; a fraction is allowed and dropped). 1 set, 0 absent, -1 bad. */
static int numeric_date(const hermes_json_t *obj, const char *name, int64_t *out)
{
	const hermes_json_t *v = hermes_json_member(obj, name);
	if (!v)
		return 0;
	if (v->type != HERMES_JSON_NUMBER)
		return -1;
	if (hermes_json_integer(v, 0, INT64_MAX / 2, out) == 0)
		return 1;
	char *end;
	double d = strtod(v->str, &end);
	if (*end || !(d >= 0 && d < 9e15))
		return -1;
	*out = (int64_t)d;
	return 1;
}

/* The scopes: "scope" (a string) or "scp" (an array of strings), as one space-separated string. */
static char *scopes(const hermes_json_t *claims, bool *bad)
{
	const hermes_json_t *s = hermes_json_member(claims, "scope");
	if (s) {
		if (!hermes_json_is_c_string(s))
			return *bad = true, NULL;
		return strdup(s->str);
	}
	const hermes_json_t *scp = hermes_json_member(claims, "scp");
	size_t total = 1;
	if (scp && scp->type != HERMES_JSON_ARRAY)
		return *bad = true, NULL;
	for (const hermes_json_t *v = scp ? scp->child : NULL; v; v = v->next) {
		if (!hermes_json_is_c_string(v))
			return *bad = true, NULL;
		total += v->len + 1;
	}
	char *out = malloc(total), *p = out;
	if (!out)
		return NULL;
	*p = '\0';
	for (const hermes_json_t *v = scp ? scp->child : NULL; v; v = v->next) {
		if (p != out)
			*p++ = ' ';
		memcpy(p, v->str, v->len + 1);
		p += v->len;
	}
	return out;
}

#define FAIL(status, ...) do { snprintf(why, n, __VA_ARGS__); rc = (status); goto out; } while (0)

hermes_jwt_status_t hermes_jwt_verify(const char *token, size_t len, const hermes_jwks_t *keys,
                                      const hermes_jwt_expect_t *expect,
                                      hermes_jwt_claims_t *claims_out, char *why, size_t n)
{
	hermes_jwt_status_t rc = HERMES_JWT_OK;
	unsigned char *head = NULL, *body = NULL, *sig = NULL;
	hermes_json_doc_t *hdoc = NULL, *cdoc = NULL;
	size_t hl = 0, bl = 0, sl = 0;
	char lib_why[256];
	if (!hermes_crypto_lib_load(lib_why, sizeof lib_why))
		FAIL(HERMES_JWT_NO_CRYPTO, "cannot verify access tokens: %s", lib_why);
	const char *d1 = len <= HERMES_JWT_MAX_BYTES ? memchr(token, '.', len) : NULL;
	const char *d2 = d1 ? memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - token)) : NULL;
	if (!d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - token)))
		FAIL(HERMES_JWT_MALFORMED, "the access token is not a JWT (three base64url parts joined by dots)");
	head = part(token, (size_t)(d1 - token), &hl);
	body = part(d1 + 1, (size_t)(d2 - d1 - 1), &bl);
	sig = part(d2 + 1, len - (size_t)(d2 + 1 - token), &sl);
	if (!head || !body || !sig)
		FAIL(HERMES_JWT_MALFORMED, "the access token has a part that is not base64url");
	if (!(hdoc = object(head, hl)) || !(cdoc = object(body, bl)))
		FAIL(HERMES_JWT_MALFORMED, "the access token's %s is not a JSON object",
		     hdoc ? "claims set" : "header");
	const hermes_json_t *h = hermes_json_root(hdoc), *c = hermes_json_root(cdoc);
	const hermes_json_t *alg = hermes_json_member(h, "alg"), *kid = hermes_json_member(h, "kid");
	if (!alg || !hermes_json_is_c_string(alg) || (kid && !hermes_json_is_c_string(kid)))
		FAIL(HERMES_JWT_MALFORMED, "the access token's header has no alg, or a kid that is not a string");
	const alg_t *a = find_alg(alg->str);
	if (!a)
		FAIL(HERMES_JWT_BAD_ALG, "the access token's algorithm \"%.32s\" is not accepted "
		     "(asymmetric signatures only: RS, PS, ES, EdDSA)", alg->str);
	if (hermes_json_member(h, "crit"))
		FAIL(HERMES_JWT_MALFORMED, "the access token's header has critical extensions (crit) Hermes does not know");
	/* The key: the kid's if the token names one, else each key that fits the algorithm. */
	bool kid_found = false, fits = false, good = false;
	for (size_t i = 0; i < keys->count && !good; i++) {
		const hermes_jwk_t *k = &keys->keys[i];
		if (kid && (!k->kid || strcmp(k->kid, kid->str)))
			continue;
		kid_found = true;
		if (!key_fits(k, a))
			continue;
		fits = true;
		good = verify_with(k, a, token, (size_t)(d2 - token), sig, sl);
	}
	if (kid && !kid_found)
		FAIL(HERMES_JWT_UNKNOWN_KEY, "the access token's key \"%.64s\" is not among the issuer's keys", kid->str);
	if (!fits)
		FAIL(HERMES_JWT_BAD_ALG, "no key of the issuer fits the access token's algorithm %s", a->name);
	if (!good)
		FAIL(HERMES_JWT_BAD_SIGNATURE, "the access token's signature does not verify");
	/* The claims. */
	const hermes_json_t *iss = hermes_json_member(c, "iss");
	if (!iss || !hermes_json_is_c_string(iss) || strcmp(iss->str, expect->issuer))
		FAIL(HERMES_JWT_BAD_ISSUER, "the access token was not issued by %s", expect->issuer);
	if (!audience_ok(hermes_json_member(c, "aud"), expect->audience))
		FAIL(HERMES_JWT_BAD_AUDIENCE, "the access token is not for this resource (aud must hold %s)",
		     expect->audience);
	int64_t exp = 0, nbf = 0;
	int leeway = expect->leeway < 0 ? 0 : expect->leeway > HERMES_JWT_MAX_LEEWAY ? HERMES_JWT_MAX_LEEWAY
	                                                                            : expect->leeway;
	int has_exp = numeric_date(c, "exp", &exp), has_nbf = numeric_date(c, "nbf", &nbf);
	if (has_exp != 1 || has_nbf < 0)
		FAIL(HERMES_JWT_MALFORMED, "the access token has %s", has_exp != 1 ? "no valid exp" : "an nbf that is not a date");
	if (exp + leeway <= expect->now)
		FAIL(HERMES_JWT_EXPIRED, "the access token expired");
	if (has_nbf && nbf - leeway > expect->now)
		FAIL(HERMES_JWT_NOT_YET_VALID, "the access token is not valid yet (nbf)");
	const hermes_json_t *sub = hermes_json_member(c, "sub"), *cid = hermes_json_member(c, "client_id");
	bool bad = false;
	hermes_jwt_claims_t cl = {0};
	cl.expires = exp;
	cl.scope = scopes(c, &bad);
	cl.subject = sub && hermes_json_is_c_string(sub) ? strdup(sub->str) : NULL;
	cl.client_id = cid && hermes_json_is_c_string(cid) ? strdup(cid->str) : NULL;
	if (bad || !cl.scope) {
		hermes_jwt_claims_clear(&cl);
		FAIL(HERMES_JWT_MALFORMED, bad ? "the access token's scope is not a string (or scp not an array of strings)"
		                               : "out of memory reading the access token");
	}
	if (claims_out)
		*claims_out = cl;
	else
		hermes_jwt_claims_clear(&cl);
out:
	hermes_json_doc_free(hdoc);
	hermes_json_doc_free(cdoc);
	free(head);
	free(body);
	free(sig);
	return rc;
}

void hermes_jwt_claims_clear(hermes_jwt_claims_t *c)
{
	free(c->subject);
	free(c->client_id);
	free(c->scope);
	memset(c, 0, sizeof(*c));
}

bool hermes_jwt_scope_has(const char *scopes_str, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = scopes_str; p && *p;) {
		while (*p == ' ')
			p++;
		size_t l = strcspn(p, " ");
		if (l == wl && !memcmp(p, word, wl))
			return true;
		p += l;
	}
	return false;
}
