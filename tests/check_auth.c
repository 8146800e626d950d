/* tests/check_auth.c: OAuth access tokens (src/auth/jwt.h) against keys this suite makes with
 * OpenSSL: each accepted algorithm, and every way a token must be refused (expired, not yet
 * valid, another issuer or audience, a bad signature, alg none, HMAC, an unknown key, a key that
 * does not fit the algorithm, critical headers, malformed parts). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "auth/jwt.h"
#include "auth/oauth.h"
#include "auth/rights.h"
#include "core/desc.h"
#include "check_run.h"

static void b64url(const unsigned char *in, size_t len, char *out)
{
	static const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0;
	for (size_t i = 0; i < len; i++) {
		acc = (acc << 8) | in[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			out[o++] = a[(acc >> bits) & 63];
		}
	}
	if (bits)
		out[o++] = a[(acc << (6 - bits)) & 63];
	out[o] = '\0';
}

static void b64url_str(const char *s, char *out)
{
	b64url((const unsigned char *)s, strlen(s), out);
}

static void bn_b64(EVP_PKEY *k, const char *name, char *out)
{
	BIGNUM *bn = NULL;
	ck_assert(EVP_PKEY_get_bn_param(k, name, &bn) == 1);
	unsigned char buf[1024];
	int n = BN_bn2bin(bn, buf);
	b64url(buf, (size_t)n, out);
	BN_free(bn);
}

static EVP_PKEY *rsa_key, *rsa_small, *ec_key, *ed_key;
static char jwks[16384];

static void make_keys(void)
{
	rsa_key = EVP_RSA_gen(2048);
	rsa_small = EVP_RSA_gen(1024);
	ec_key = EVP_EC_gen("P-256");
	ed_key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	ck_assert(rsa_key && rsa_small && ec_key && ed_key);
	char n[1024], e[16], sn[1024], se[16], x[64], y[64], ex[64];
	bn_b64(rsa_key, OSSL_PKEY_PARAM_RSA_N, n);
	bn_b64(rsa_key, OSSL_PKEY_PARAM_RSA_E, e);
	bn_b64(rsa_small, OSSL_PKEY_PARAM_RSA_N, sn);
	bn_b64(rsa_small, OSSL_PKEY_PARAM_RSA_E, se);
	unsigned char pub[65];
	size_t pl = 0;
	ck_assert(EVP_PKEY_get_octet_string_param(ec_key, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub, &pl) == 1);
	ck_assert_uint_eq(pl, 65);
	b64url(pub + 1, 32, x);
	b64url(pub + 33, 32, y);
	unsigned char raw[32];
	size_t rl = sizeof raw;
	ck_assert(EVP_PKEY_get_raw_public_key(ed_key, raw, &rl) == 1);
	b64url(raw, rl, ex);
	snprintf(jwks, sizeof jwks,
	         "{\"keys\":["
	         "{\"kty\":\"oct\",\"kid\":\"hmac\",\"k\":\"c2VjcmV0\"},"
	         "{\"kty\":\"RSA\",\"kid\":\"small\",\"n\":\"%s\",\"e\":\"%s\"},"
	         "{\"kty\":\"RSA\",\"kid\":\"rsa\",\"use\":\"sig\",\"n\":\"%s\",\"e\":\"%s\"},"
	         "{\"kty\":\"EC\",\"kid\":\"ec\",\"crv\":\"P-256\",\"x\":\"%s\",\"y\":\"%s\"},"
	         "{\"kty\":\"OKP\",\"kid\":\"ed\",\"crv\":\"Ed25519\",\"x\":\"%s\",\"alg\":\"EdDSA\"}]}",
	         sn, se, n, e, x, y, ex);
}

/* header.claims.signature, signed with key by alg ("none": no signature). */
static char *sign(const char *alg, EVP_PKEY *key, const char *header_json, const char *claims)
{
	char h[2048], c[4096], input[8192], sig[2048];
	b64url_str(header_json, h);
	b64url_str(claims, c);
	snprintf(input, sizeof input, "%s.%s", h, c);
	unsigned char raw[1024];
	size_t sl = sizeof raw;
	sig[0] = '\0';
	if (key) {
		EVP_MD_CTX *m = EVP_MD_CTX_new();
		EVP_PKEY_CTX *p = NULL;
		const EVP_MD *md = !strncmp(alg, "Ed", 2) ? NULL : EVP_sha256();
		ck_assert(EVP_DigestSignInit(m, &p, md, NULL, key) == 1);
		if (!strncmp(alg, "PS", 2)) {
			EVP_PKEY_CTX_set_rsa_padding(p, RSA_PKCS1_PSS_PADDING);
			EVP_PKEY_CTX_set_rsa_pss_saltlen(p, RSA_PSS_SALTLEN_DIGEST);
		}
		ck_assert(EVP_DigestSign(m, raw, &sl, (unsigned char *)input, strlen(input)) == 1);
		EVP_MD_CTX_free(m);
		if (!strncmp(alg, "ES", 2)) { /* DER -> r || s */
			const unsigned char *d = raw;
			ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &d, (long)sl);
			const BIGNUM *r, *s;
			ECDSA_SIG_get0(es, &r, &s);
			unsigned char rs[64];
			BN_bn2binpad(r, rs, 32);
			BN_bn2binpad(s, rs + 32, 32);
			ECDSA_SIG_free(es);
			memcpy(raw, rs, 64);
			sl = 64;
		}
		b64url(raw, sl, sig);
	}
	char *out = malloc(strlen(input) + strlen(sig) + 2);
	sprintf(out, "%s.%s", input, sig);
	return out;
}

#define ISS "https://as.example"
#define AUD "https://hermes.example/mcp"

static char *claims(long exp_offset, const char *extra)
{
	static char buf[2048];
	snprintf(buf, sizeof buf,
	         "{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"agent-7\",\"exp\":%lld,"
	         "\"scope\":\"hermes:read hermes:write\"%s}",
	         (long long)time(NULL) + exp_offset, extra ? extra : "");
	return buf;
}

static hermes_jwks_t *keys;

static hermes_jwt_status_t check(const char *token, hermes_jwt_claims_t *cl)
{
	hermes_jwt_expect_t want = {ISS, AUD, (int64_t)time(NULL), 60};
	char why[256] = "";
	hermes_jwt_status_t st = hermes_jwt_verify(token, strlen(token), keys, &want, cl, why, sizeof why);
	if (st != HERMES_JWT_OK)
		ck_assert_msg(why[0], "a refusal says why");
	return st;
}

static hermes_jwt_status_t check_signed(const char *alg, EVP_PKEY *key, const char *kid,
                                        const char *claims_json)
{
	char header[256];
	snprintf(header, sizeof header, "{\"alg\":\"%s\",\"typ\":\"at+jwt\"%s%s%s}", alg,
	         kid ? ",\"kid\":\"" : "", kid ? kid : "", kid ? "\"" : "");
	char *t = sign(alg, key, header, claims_json);
	hermes_jwt_status_t st = check(t, NULL);
	free(t);
	return st;
}

static void setup(void)
{
	if (!rsa_key)
		make_keys();
	hermes_error_t err;
	ck_assert_msg(hermes_jwks_parse(jwks, strlen(jwks), &keys, &err) == 0, "%s", err.message);
}

static void teardown(void)
{
	hermes_jwks_free(keys);
	keys = NULL;
}

START_TEST(test_jwks_keeps_usable_keys)
{
	/* oct (symmetric) and the 1024-bit RSA key are not kept */
	ck_assert_uint_eq(hermes_jwks_count(keys), 3);
	hermes_jwks_t *k = NULL;
	hermes_error_t err;
	const char *only_oct = "{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}";
	ck_assert_int_eq(hermes_jwks_parse(only_oct, strlen(only_oct), &k, &err), -1);
	ck_assert_ptr_null(k);
	ck_assert_ptr_nonnull(strstr(err.message, "no signing key"));
	ck_assert_int_eq(hermes_jwks_parse("[]", 2, &k, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.message, "\"keys\""));
	ck_assert_int_eq(hermes_jwks_parse("{\"keys\":[]} x", 13, &k, &err), -1);
}
END_TEST

START_TEST(test_each_algorithm_verifies)
{
	hermes_jwt_claims_t cl;
	char header[64] = "{\"alg\":\"RS256\",\"kid\":\"rsa\"}";
	char *t = sign("RS256", rsa_key, header, claims(300, ",\"client_id\":\"c1\""));
	ck_assert_int_eq(check(t, &cl), HERMES_JWT_OK);
	ck_assert_str_eq(cl.subject, "agent-7");
	ck_assert_str_eq(cl.client_id, "c1");
	ck_assert_str_eq(cl.scope, "hermes:read hermes:write");
	ck_assert(hermes_jwt_scope_has(cl.scope, "hermes:write"));
	ck_assert(!hermes_jwt_scope_has(cl.scope, "hermes:exec"));
	ck_assert(!hermes_jwt_scope_has(cl.scope, "hermes:rea"));
	hermes_jwt_claims_clear(&cl);
	free(t);
	ck_assert_int_eq(check_signed("PS256", rsa_key, "rsa", claims(300, NULL)), HERMES_JWT_OK);
	ck_assert_int_eq(check_signed("ES256", ec_key, "ec", claims(300, NULL)), HERMES_JWT_OK);
	ck_assert_int_eq(check_signed("EdDSA", ed_key, "ed", claims(300, NULL)), HERMES_JWT_OK);
	ck_assert_int_eq(check_signed("Ed25519", ed_key, "ed", claims(300, NULL)), HERMES_JWT_OK);
	/* without a kid, each key that fits the algorithm is tried */
	ck_assert_int_eq(check_signed("ES256", ec_key, NULL, claims(300, NULL)), HERMES_JWT_OK);
}
END_TEST

START_TEST(test_time_claims)
{
	ck_assert_int_eq(check_signed("RS256", rsa_key, "rsa", claims(-120, NULL)), HERMES_JWT_EXPIRED);
	ck_assert_int_eq(check_signed("RS256", rsa_key, "rsa", claims(-30, NULL)), HERMES_JWT_OK); /* leeway */
	char extra[64];
	snprintf(extra, sizeof extra, ",\"nbf\":%lld", (long long)time(NULL) + 600);
	ck_assert_int_eq(check_signed("RS256", rsa_key, "rsa", claims(900, extra)), HERMES_JWT_NOT_YET_VALID);
	const char *no_exp = "{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\"}";
	ck_assert_int_eq(check_signed("RS256", rsa_key, "rsa", no_exp), HERMES_JWT_MALFORMED);
}
END_TEST

START_TEST(test_issuer_and_audience)
{
	char buf[512];
	long long exp = (long long)time(NULL) + 300;
	snprintf(buf, sizeof buf, "{\"iss\":\"https://evil.example\",\"aud\":\"" AUD "\",\"exp\":%lld}", exp);
	ck_assert_int_eq(check_signed("ES256", ec_key, "ec", buf), HERMES_JWT_BAD_ISSUER);
	snprintf(buf, sizeof buf, "{\"iss\":\"" ISS "\",\"aud\":\"https://other.example/mcp\",\"exp\":%lld}", exp);
	ck_assert_int_eq(check_signed("ES256", ec_key, "ec", buf), HERMES_JWT_BAD_AUDIENCE);
	snprintf(buf, sizeof buf, "{\"iss\":\"" ISS "\",\"aud\":[\"x\",\"" AUD "\"],\"exp\":%lld}", exp);
	ck_assert_int_eq(check_signed("ES256", ec_key, "ec", buf), HERMES_JWT_OK);
	snprintf(buf, sizeof buf, "{\"iss\":\"" ISS "\",\"exp\":%lld}", exp);
	ck_assert_int_eq(check_signed("ES256", ec_key, "ec", buf), HERMES_JWT_BAD_AUDIENCE);
}
END_TEST

START_TEST(test_signature_and_algorithm_attacks)
{
	/* a changed claim under the old signature */
	char *t = sign("RS256", rsa_key, "{\"alg\":\"RS256\",\"kid\":\"rsa\"}", claims(300, NULL));
	char *u = sign("RS256", rsa_key, "{\"alg\":\"RS256\",\"kid\":\"rsa\"}",
	               claims(300, ",\"admin\":true"));
	char spliced[8192]; /* u's header and claims under t's signature */
	snprintf(spliced, sizeof spliced, "%.*s%s", (int)(strrchr(u, '.') - u), u, strrchr(t, '.'));
	ck_assert_int_eq(check(spliced, NULL), HERMES_JWT_BAD_SIGNATURE);
	free(t);
	free(u);
	/* signed by a key that is not the issuer's, under the issuer's kid */
	EVP_PKEY *other = EVP_EC_gen("P-256");
	ck_assert_int_eq(check_signed("ES256", other, "ec", claims(300, NULL)), HERMES_JWT_BAD_SIGNATURE);
	EVP_PKEY_free(other);
	/* alg none, and HMAC keyed with anything (the public key among them) */
	ck_assert_int_eq(check_signed("none", NULL, "rsa", claims(300, NULL)), HERMES_JWT_BAD_ALG);
	ck_assert_int_eq(check_signed("HS256", NULL, "rsa", claims(300, NULL)), HERMES_JWT_BAD_ALG);
	ck_assert_int_eq(check_signed("HS256", NULL, "hmac", claims(300, NULL)), HERMES_JWT_BAD_ALG);
	/* a key that does not fit the algorithm; a key restricted to another alg */
	ck_assert_int_eq(check_signed("RS256", rsa_key, "ec", claims(300, NULL)), HERMES_JWT_BAD_ALG);
	ck_assert_int_eq(check_signed("ES256", ec_key, "ed", claims(300, NULL)), HERMES_JWT_BAD_ALG);
	/* the 1024-bit key was not loaded: its kid is unknown */
	ck_assert_int_eq(check_signed("RS256", rsa_small, "small", claims(300, NULL)), HERMES_JWT_UNKNOWN_KEY);
	ck_assert_int_eq(check_signed("RS256", rsa_key, "rotated", claims(300, NULL)), HERMES_JWT_UNKNOWN_KEY);
	/* critical extensions are refused */
	t = sign("RS256", rsa_key, "{\"alg\":\"RS256\",\"kid\":\"rsa\",\"crit\":[\"b64\"],\"b64\":false}",
	         claims(300, NULL));
	ck_assert_int_eq(check(t, NULL), HERMES_JWT_MALFORMED);
	free(t);
}
END_TEST

START_TEST(test_malformed_tokens)
{
	const char *bad[] = {"", "abc", "a.b", "a.b.c.d", "e30.e30.", "!!.e30.AA", "e30.e30.AA=",
	                     "eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.AA", /* claims not JSON */
	                     "eyJhbGciOiJSUzI1NiIsImFsZyI6Im5vbmUifQ.e30.AA", /* duplicate alg */
	                     "W10.e30.AA"}; /* a header that is an array */
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(check(bad[i], NULL) == HERMES_JWT_MALFORMED || check(bad[i], NULL) == HERMES_JWT_BAD_ALG,
		              "token %zu accepted", i);
	ck_assert_int_eq(check("e30.e30.AA", NULL), HERMES_JWT_MALFORMED); /* no alg */
}
END_TEST

START_TEST(test_base64url_is_strict)
{
	unsigned char out[16];
	ck_assert_int_eq(hermes_base64url_decode("aGk", 3, out, sizeof out), 2);
	ck_assert(!memcmp(out, "hi", 2));
	ck_assert_int_eq(hermes_base64url_decode("aGk=", 4, out, sizeof out), -1); /* padding */
	ck_assert_int_eq(hermes_base64url_decode("aGl", 3, out, sizeof out), -1);  /* nonzero bits */
	ck_assert_int_eq(hermes_base64url_decode("aGk+", 4, out, sizeof out), -1); /* base64, not url */
	ck_assert_int_eq(hermes_base64url_decode("a", 1, out, sizeof out), -1);
	ck_assert_int_eq(hermes_base64url_decode("", 0, out, sizeof out), 0);
	ck_assert_int_eq(hermes_base64url_decode("-_-_", 4, out, 2), -1); /* no room */
}
END_TEST


/* ---- rights: scopes by trait, the static token file --------------------------------------- */

static char token_dir[] = "/tmp/hermes-check-auth.XXXXXX";

static const char *token_file(const char *name, const char *text, mode_t mode)
{
	static char path[256];
	snprintf(path, sizeof path, "%s/%s", token_dir, name);
	unlink(path);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

static const hermes_verb_desc_t *verb(const char *name)
{
	const hermes_verb_desc_t *d = hermes_verb_desc_find(name);
	ck_assert_ptr_nonnull(d);
	return d;
}

START_TEST(test_scopes_follow_traits)
{
	ck_assert_str_eq(hermes_rights_scope_needed(verb("fs.readFile")), "hermes:read");
	ck_assert_str_eq(hermes_rights_scope_needed(verb("fs.writeFile")), "hermes:write");
	ck_assert_str_eq(hermes_rights_scope_needed(verb("proc.run")), "hermes:exec");
	hermes_rights_t r = {hermes_rights_scopes_parse("openid hermes:read  hermes:exec"), false, NULL, NULL};
	ck_assert_uint_eq(r.scopes, HERMES_SCOPE_READ | HERMES_SCOPE_EXEC);
	ck_assert(hermes_rights_allow(&r, verb("fs.readRange")));
	ck_assert(!hermes_rights_allow(&r, verb("fs.editFile")));
	ck_assert(hermes_rights_allow(&r, verb("proc.run")));
	ck_assert_uint_eq(hermes_rights_scopes_parse("hermes:readx hermes:"), 0);
	ck_assert(hermes_rights_allow(NULL, verb("proc.run")));
}
END_TEST

START_TEST(test_token_file_lines)
{
	hermes_token_file_t *f = NULL;
	char why[512];
	const char *p = token_file("one", "s3cret-token\n", 0600);
	ck_assert_msg(hermes_token_file_load(p, &f, why, sizeof why) == 0, "%s", why);
	const hermes_rights_t *r = hermes_token_file_match(f, "s3cret-token", 12);
	ck_assert_ptr_nonnull(r);
	ck_assert(hermes_rights_allow(r, verb("proc.run"))); /* a one-token file: every right */
	ck_assert_ptr_null(hermes_token_file_match(f, "s3cret-toke", 11));
	ck_assert_ptr_null(hermes_token_file_match(f, "s3cret-token2", 13));
	hermes_token_file_free(f);

	p = token_file("many", "# agents\nreader read-only\r\n\n  builder deny=proc.*\nfiles allow=fs.*,sys.* deny=fs.delete*\n", 0600);
	ck_assert_msg(hermes_token_file_load(p, &f, why, sizeof why) == 0, "%s", why);
	ck_assert_uint_eq(hermes_token_file_count(f), 3);
	r = hermes_token_file_match(f, "reader", 6);
	ck_assert(r && hermes_rights_allow(r, verb("fs.readFile")) && !hermes_rights_allow(r, verb("fs.writeFile")));
	r = hermes_token_file_match(f, "builder", 7);
	ck_assert(r && hermes_rights_allow(r, verb("fs.writeFile")) && !hermes_rights_allow(r, verb("proc.run")));
	r = hermes_token_file_match(f, "files", 5);
	ck_assert(r && hermes_rights_allow(r, verb("fs.writeFile")) && !hermes_rights_allow(r, verb("fs.deleteFile")));
	ck_assert(!hermes_rights_allow(r, verb("proc.run")) && hermes_rights_allow(r, verb("sys.machineInfo")));
	hermes_token_file_free(f);
}
END_TEST

START_TEST(test_token_file_refusals)
{
	struct { const char *text; mode_t mode; const char *says; } bad[] = {
		{"tok\n", 0644, "read by others"},
		{"# nothing\n\n", 0600, "holds no token"},
		{"tok write\n", 0600, "unknown word 'write'"},
		{"tok\ntok\n", 0600, ":2: the token is given twice"},
		{"tok allow=\n", 0600, "no globs"},
		{"tok allow=a allow=b\n", 0600, "given twice"},
		{"t\x01k\n", 0600, "printable ASCII"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hermes_token_file_t *f = NULL;
		char why[512] = "";
		ck_assert_int_eq(hermes_token_file_load(token_file("bad", bad[i].text, bad[i].mode), &f, why, sizeof why), -1);
		ck_assert_ptr_null(f);
		ck_assert_msg(strstr(why, bad[i].says), "case %zu: '%s' does not say '%s'", i, why, bad[i].says);
	}
	/* a FIFO is refused at once instead of waiting for a writer */
	char fifo[256];
	snprintf(fifo, sizeof fifo, "%s/fifo", token_dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	hermes_token_file_t *f = NULL;
	char why[512];
	ck_assert_int_eq(hermes_token_file_load(fifo, &f, why, sizeof why), -1);
	ck_assert_ptr_nonnull(strstr(why, "not a regular file"));
	ck_assert_int_eq(hermes_token_file_load(token_dir, &f, why, sizeof why), -1);
	ck_assert_int_eq(hermes_token_file_load("/nonexistent/token", &f, why, sizeof why), -1);
	ck_assert_ptr_nonnull(strstr(why, "No such file"));
	unlink(fifo);
}
END_TEST


/* ---- the resource server: discovery, key rotation, the token cache ------------------------- */

/* A loopback HTTP server standing in for the authorization server: its metadata and key set. */
static struct {
	int fd, port;
	pthread_t thread;
	volatile int serve_rfc8414; /* 0: 404 there, so discovery falls back to OpenID's */
	char jwks[8192];
	char metadata_issuer[128];
	pthread_mutex_t lock;
} as = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void *as_main(void *arg)
{
	(void)arg;
	for (;;) {
		int c = accept(as.fd, NULL, NULL);
		if (c < 0)
			return NULL;
		char req[4096];
		ssize_t got = 0, r;
		while (got < (ssize_t)sizeof req - 1 && (r = read(c, req + got, sizeof req - 1 - (size_t)got)) > 0) {
			got += r;
			req[got] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		req[got > 0 ? got : 0] = '\0';
		char body[8192] = "", head[256];
		int status = 200;
		pthread_mutex_lock(&as.lock);
		if (!strncmp(req, "GET /jwks ", 10))
			snprintf(body, sizeof body, "%s", as.jwks);
		else if ((!strncmp(req, "GET /.well-known/oauth-authorization-server ", 44) && as.serve_rfc8414) ||
		         !strncmp(req, "GET /.well-known/openid-configuration ", 38))
			snprintf(body, sizeof body, "{\"issuer\":\"%s\",\"jwks_uri\":\"http://127.0.0.1:%d/jwks\"}",
			         as.metadata_issuer, as.port);
		else
			status = 404;
		pthread_mutex_unlock(&as.lock);
		snprintf(head, sizeof head, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
		         "Content-Length: %zu\r\nConnection: close\r\n\r\n", status, strlen(body));
		if (write(c, head, strlen(head)) < 0 || write(c, body, strlen(body)) < 0)
			perror("write");
		close(c);
	}
}

static void as_start(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	as.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert(as.fd >= 0 && bind(as.fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(as.fd, 16) == 0);
	ck_assert(getsockname(as.fd, (struct sockaddr *)&a, &al) == 0);
	as.port = ntohs(a.sin_port);
	snprintf(as.metadata_issuer, sizeof as.metadata_issuer, "http://127.0.0.1:%d", as.port);
	ck_assert(pthread_create(&as.thread, NULL, as_main, NULL) == 0);
}

static void as_stop(void)
{
	shutdown(as.fd, SHUT_RDWR);
	close(as.fd);
	pthread_join(as.thread, NULL);
}

static void jwk_ec(EVP_PKEY *k, const char *kid, char *out, size_t n)
{
	unsigned char pub[65];
	size_t pl = 0;
	char x[64], y[64];
	ck_assert(EVP_PKEY_get_octet_string_param(k, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub, &pl) == 1);
	b64url(pub + 1, 32, x);
	b64url(pub + 33, 32, y);
	snprintf(out, n, "{\"kty\":\"EC\",\"kid\":\"%s\",\"crv\":\"P-256\",\"x\":\"%s\",\"y\":\"%s\"}", kid, x, y);
}

static hermes_oauth_t *new_oauth(int refetch)
{
	char issuer[64], why[512];
	snprintf(issuer, sizeof issuer, "http://127.0.0.1:%d", as.port);
	hermes_oauth_config_t c = {issuer, AUD, 60, refetch};
	hermes_oauth_t *o = NULL;
	ck_assert_msg(hermes_oauth_new(&c, &o, why, sizeof why) == 0, "%s", why);
	return o;
}

static char *token_for(EVP_PKEY *key, const char *kid, const char *scope)
{
	char header[128], body[512];
	snprintf(header, sizeof header, "{\"alg\":\"ES256\",\"kid\":\"%s\"}", kid);
	snprintf(body, sizeof body, "{\"iss\":\"http://127.0.0.1:%d\",\"aud\":\"" AUD "\",\"exp\":%lld,\"scope\":\"%s\"}",
	         as.port, (long long)time(NULL) + 300, scope);
	return sign("ES256", key, header, body);
}

START_TEST(test_oauth_config_is_checked)
{
	const char *bad_issuers[] = {"http://as.example", "ftp://as.example", "https://", "https://as.example/?q",
	                             "http://127.0.0.1.evil.example", "as.example"};
	char why[512];
	hermes_oauth_t *o = NULL;
	for (size_t i = 0; i < sizeof bad_issuers / sizeof bad_issuers[0]; i++) {
		hermes_oauth_config_t c = {bad_issuers[i], AUD, 60, 0};
		ck_assert_msg(hermes_oauth_new(&c, &o, why, sizeof why) == -1, "%s accepted", bad_issuers[i]);
		ck_assert_ptr_nonnull(strstr(why, "--oauth-issuer"));
	}
	hermes_oauth_config_t c = {"https://as.example/tenant", "hermes", 60, 0};
	ck_assert_int_eq(hermes_oauth_new(&c, &o, why, sizeof why), -1);
	ck_assert_ptr_nonnull(strstr(why, "--oauth-audience"));
	c.audience = AUD;
	c.leeway = 61;
	ck_assert_int_eq(hermes_oauth_new(&c, &o, why, sizeof why), -1);
	c.leeway = 0;
	ck_assert_int_eq(hermes_oauth_new(&c, &o, why, sizeof why), 0);
	char *prm = hermes_oauth_resource_metadata(o);
	ck_assert_ptr_nonnull(strstr(prm, "\"resource\":\"" AUD "\""));
	ck_assert_ptr_nonnull(strstr(prm, "\"authorization_servers\":[\"https://as.example/tenant\"]"));
	ck_assert_ptr_nonnull(strstr(prm, "\"scopes_supported\":[\"hermes:read\",\"hermes:write\",\"hermes:exec\"]"));
	free(prm);
	hermes_oauth_free(o);
}
END_TEST

START_TEST(test_oauth_discovery_rotation_and_cache)
{
	EVP_PKEY *k1 = EVP_EC_gen("P-256"), *k2 = EVP_EC_gen("P-256");
	char j1[512], j2[512];
	jwk_ec(k1, "one", j1, sizeof j1);
	jwk_ec(k2, "two", j2, sizeof j2);
	pthread_mutex_lock(&as.lock);
	snprintf(as.jwks, sizeof as.jwks, "{\"keys\":[%s]}", j1);
	as.serve_rfc8414 = 0; /* only OpenID discovery answers */
	pthread_mutex_unlock(&as.lock);
	hermes_oauth_t *o = new_oauth(3);
	char why[512];
	hermes_rights_t r;
	char *t1 = token_for(k1, "one", "hermes:read hermes:write");
	ck_assert_msg(hermes_oauth_verify(o, t1, strlen(t1), &r, why, sizeof why) == HERMES_JWT_OK, "%s", why);
	ck_assert_uint_eq(r.scopes, HERMES_SCOPE_READ | HERMES_SCOPE_WRITE);
	ck_assert_uint_eq(hermes_oauth_key_fetches(o), 1);
	/* the same token again: from the cache (no fetch, same rights) */
	ck_assert_int_eq(hermes_oauth_verify(o, t1, strlen(t1), &r, why, sizeof why), HERMES_JWT_OK);
	ck_assert_uint_eq(r.scopes, HERMES_SCOPE_READ | HERMES_SCOPE_WRITE);
	/* the issuer rotates to a second key: a token under it makes Hermes fetch the set again,
	 * once the refetch interval (3 s here, 30 s by default) has passed */
	pthread_mutex_lock(&as.lock);
	snprintf(as.jwks, sizeof as.jwks, "{\"keys\":[%s,%s]}", j1, j2);
	pthread_mutex_unlock(&as.lock);
	sleep(4);
	char *t2 = token_for(k2, "two", "hermes:exec");
	ck_assert_msg(hermes_oauth_verify(o, t2, strlen(t2), &r, why, sizeof why) == HERMES_JWT_OK, "%s", why);
	ck_assert_uint_eq(r.scopes, HERMES_SCOPE_EXEC);
	ck_assert_uint_eq(hermes_oauth_key_fetches(o), 2);
	/* an unknown kid right after: refused without another fetch (a client cannot make Hermes
	 * hammer the issuer) */
	char *t3 = token_for(k2, "ghost", "hermes:exec");
	ck_assert_int_eq(hermes_oauth_verify(o, t3, strlen(t3), &r, why, sizeof why), HERMES_JWT_UNKNOWN_KEY);
	ck_assert_int_eq(hermes_oauth_verify(o, t3, strlen(t3), &r, why, sizeof why), HERMES_JWT_UNKNOWN_KEY);
	ck_assert_uint_eq(hermes_oauth_key_fetches(o), 2);
	/* a bad signature is not remembered as good: refused every time */
	char *forged = token_for(k2, "one", "hermes:exec");
	ck_assert_int_eq(hermes_oauth_verify(o, forged, strlen(forged), &r, why, sizeof why), HERMES_JWT_BAD_SIGNATURE);
	ck_assert_int_eq(hermes_oauth_verify(o, forged, strlen(forged), &r, why, sizeof why), HERMES_JWT_BAD_SIGNATURE);
	free(t1);
	free(t2);
	free(t3);
	free(forged);
	hermes_oauth_free(o);
	EVP_PKEY_free(k1);
	EVP_PKEY_free(k2);
}
END_TEST

START_TEST(test_oauth_metadata_must_name_the_issuer)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	char j[512];
	jwk_ec(k, "one", j, sizeof j);
	EVP_PKEY_free(k);
	pthread_mutex_lock(&as.lock);
	snprintf(as.jwks, sizeof as.jwks, "{\"keys\":[%s]}", j);
	as.serve_rfc8414 = 1;
	snprintf(as.metadata_issuer, sizeof as.metadata_issuer, "https://impostor.example");
	pthread_mutex_unlock(&as.lock);
	hermes_oauth_t *o = new_oauth(1);
	char why[1024];
	ck_assert_int_eq(hermes_oauth_prefetch(o, why, sizeof why), -1);
	ck_assert_msg(strstr(why, "names another issuer"), "%s", why);
	hermes_oauth_free(o);
	pthread_mutex_lock(&as.lock);
	snprintf(as.metadata_issuer, sizeof as.metadata_issuer, "http://127.0.0.1:%d", as.port);
	pthread_mutex_unlock(&as.lock);
	o = new_oauth(1);
	ck_assert_msg(hermes_oauth_prefetch(o, why, sizeof why) == 0, "%s", why); /* RFC 8414 this time */
	hermes_oauth_free(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("jwt");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_jwks_keeps_usable_keys);
	tcase_add_test(tc, test_each_algorithm_verifies);
	tcase_add_test(tc, test_time_claims);
	tcase_add_test(tc, test_issuer_and_audience);
	tcase_add_test(tc, test_signature_and_algorithm_attacks);
	tcase_add_test(tc, test_malformed_tokens);
	tcase_add_test(tc, test_base64url_is_strict);
	suite_add_tcase(s, tc);
	TCase *rights = tcase_create("rights");
	tcase_add_test(rights, test_scopes_follow_traits);
	tcase_add_test(rights, test_token_file_lines);
	tcase_add_test(rights, test_token_file_refusals);
	suite_add_tcase(s, rights);
	TCase *oauth = tcase_create("oauth");
	tcase_add_checked_fixture(oauth, as_start, as_stop); /* in the test's own process */
	tcase_add_checked_fixture(oauth, setup, teardown);
	tcase_set_timeout(oauth, 60);
	tcase_add_test(oauth, test_oauth_config_is_checked);
	tcase_add_test(oauth, test_oauth_discovery_rotation_and_cache);
	tcase_add_test(oauth, test_oauth_metadata_must_name_the_issuer);
	suite_add_tcase(s, oauth);
	if (!mkdtemp(token_dir))
		return 1;
	int failed = check_run(s);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", token_dir);
	if (system(cmd) != 0)
		failed++;
	return failed ? 1 : 0;
}
