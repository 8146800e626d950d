/* auth/jwt.h: OAuth 2.1 access tokens that are JWTs (RFC 7519 in JWS compact form, RFC 7515),
 * verified against the issuer's published keys (a JWK Set, RFC 7517), for a Hermes that is an
 * OAuth resource server (`hermes mcp --listen --oauth-issuer`). Hermes splits the token and reads
 * its JSON with its own strict reader; every signature check is OpenSSL's (auth/crypto_lib.h).
 *
 * What is accepted, and why:
 *   - asymmetric algorithms only: RS256/384/512, PS256/384/512, ES256/384/512, EdDSA and Ed25519.
 *     `none` and every HMAC algorithm are refused, so a public key can never be used as an HMAC
 *     secret; the key's type (and curve, and `alg` if the key names one) must fit the token's alg;
 *     RSA keys under 2048 bits are not loaded;
 *   - a header with `crit` is refused (no extension is understood); `jku`, `x5u` and other
 *     key-locating headers are ignored: keys come only from the configured issuer;
 *   - `iss` equal to the expected issuer, `aud` (a string or an array) holding the expected
 *     audience (RFC 8707's resource), `exp` required and `nbf` honoured, each with a leeway of at
 *     most 60 s. */
#ifndef HERMES_AUTH_JWT_H
#define HERMES_AUTH_JWT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hermes/hermes.h>

/* The longest access token Hermes reads (a bearer header is bounded by the HTTP layer too). */
#define HERMES_JWT_MAX_BYTES 16384
/* The most leeway the clock checks allow. */
#define HERMES_JWT_MAX_LEEWAY 60

/* Strict base64url without padding (RFC 7515 section 2): out gets the bytes (of capacity cap,
 * which must be at least len * 3 / 4 + 1). Returns the decoded length, or -1 if a character is
 * outside the alphabet, '=' appears, the length is impossible (len % 4 == 1), or the unused bits
 * of the last character are not zero (so one token has one spelling). */
long hermes_base64url_decode(const char *in, size_t len, unsigned char *out, size_t cap);

/* A JWK Set's usable keys. */
typedef struct hermes_jwks hermes_jwks_t;

/* Reads a JWK Set document ({"keys": [...]}) and loads each signing key Hermes can use (RSA of
 * 2048 bits or more, EC on P-256/P-384/P-521, OKP Ed25519; `use`, if present, "sig"). Keys of
 * other types (symmetric `oct` among them) are skipped, not errors. Returns 0 and *out (free with
 * hermes_jwks_free) on success; -1 with err (InvalidArgument naming what was wrong; Internal if
 * libcrypto cannot be loaded) if the text is not a JWK Set or holds no usable key. */
int hermes_jwks_parse(const char *text, size_t len, hermes_jwks_t **out, hermes_error_t *err);
/* The number of usable keys. */
size_t hermes_jwks_count(const hermes_jwks_t *keys);
/* Frees the set. NULL is fine. */
void hermes_jwks_free(hermes_jwks_t *keys);

/* What the token must say. */
typedef struct hermes_jwt_expect {
	const char *issuer;   /* `iss` must equal it */
	const char *audience; /* `aud` must be it or hold it */
	int64_t now;          /* seconds since the epoch */
	int leeway;           /* seconds, 0..HERMES_JWT_MAX_LEEWAY */
} hermes_jwt_expect_t;

/* What Hermes uses of a verified token; the strings are owned (hermes_jwt_claims_clear). */
typedef struct hermes_jwt_claims {
	char *subject;   /* `sub`, or NULL */
	char *client_id; /* `client_id` (RFC 9068), or NULL */
	char *scope;     /* `scope` (a space-separated string) or `scp` (an array) joined by spaces; "" if none */
	int64_t expires; /* `exp` */
} hermes_jwt_claims_t;

/* Frees what the claims hold and zeroes them. */
void hermes_jwt_claims_clear(hermes_jwt_claims_t *claims);

/* True if the space-separated scope string holds the scope word. */
bool hermes_jwt_scope_has(const char *scopes, const char *word);

typedef enum hermes_jwt_status {
	HERMES_JWT_OK = 0,
	HERMES_JWT_MALFORMED,     /* not three base64url parts of JSON objects, or a claim of the wrong type */
	HERMES_JWT_BAD_ALG,       /* none, HMAC, unknown, or a key that does not fit it */
	HERMES_JWT_UNKNOWN_KEY,   /* no key of the set has the token's kid: the set may be stale */
	HERMES_JWT_BAD_SIGNATURE,
	HERMES_JWT_EXPIRED,
	HERMES_JWT_NOT_YET_VALID,
	HERMES_JWT_BAD_ISSUER,
	HERMES_JWT_BAD_AUDIENCE,
	HERMES_JWT_NO_CRYPTO      /* libcrypto could not be loaded */
} hermes_jwt_status_t;

/* Verifies token[0..len) (signature first, then the claims). On HERMES_JWT_OK fills *claims (if
 * not NULL); otherwise leaves it untouched and writes a sentence saying why to why (of size n):
 * the message for the `error_description` of a 401. */
hermes_jwt_status_t hermes_jwt_verify(const char *token, size_t len, const hermes_jwks_t *keys,
                                      const hermes_jwt_expect_t *expect,
                                      hermes_jwt_claims_t *claims, char *why, size_t n);

#endif
