/* auth/oauth.c: the resource server's side of OAuth (see oauth.h): discovery, the cached key set,
 * the cache of verified tokens, and the Protected Resource Metadata. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/crypto_lib.h"
#include "auth/curl_lib.h"
#include "auth/oauth.h"
#include "core/buf.h"
#include "core/json.h"

#define MAX_DOCUMENT_BYTES (1 << 20) /* metadata and key sets are a few KB */
#define FETCH_TIMEOUT_SECONDS 10
#define CACHE_SLOTS 4096             /* verified tokens remembered */
#define CACHE_WAYS 8

typedef struct cached {
	unsigned char hash[32];
	int64_t expires; /* 0: empty */
	unsigned scopes;
	uint64_t stamp;  /* for eviction: the oldest of a set goes */
} cached_t;

struct hermes_oauth {
	char *issuer, *audience;
	int leeway, refetch_seconds;
	pthread_rwlock_t keys_lock; /* keys and jwks_uri; readers verify, a writer refetches */
	hermes_jwks_t *keys;
	char *jwks_uri;
	pthread_mutex_t fetch_lock; /* one fetch at a time; last_fetch under it */
	int64_t last_fetch;
	unsigned fetches;
	pthread_mutex_t cache_lock;
	cached_t *cache;
	uint64_t clock;
};

static int64_t now_seconds(void)
{
	return (int64_t)time(NULL);
}

/* http:// only for a loopback host: a token's keys must not travel in the clear. */
static bool url_ok(const char *url)
{
	if (!strncmp(url, "https://", 8))
		return url[8] != '\0' && url[8] != '/';
	if (strncmp(url, "http://", 7))
		return false;
	const char *h = url + 7;
	size_t hl = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":/?#");
	return (hl == 9 && !strncmp(h, "localhost", 9)) || (hl == 5 && !strncmp(h, "[::1]", 5)) ||
	       (hl >= 9 && !strncmp(h, "127.", 4) && strspn(h, "0123456789.") == hl);
}

int hermes_oauth_new(const hermes_oauth_config_t *c, hermes_oauth_t **out, char *why, size_t n)
{
	if (!c->issuer || !url_ok(c->issuer) || strchr(c->issuer, '?') || strchr(c->issuer, '#')) {
		snprintf(why, n, "--oauth-issuer '%s' is not an https:// URL without query or fragment "
		         "(http:// only on a loopback host)", c->issuer ? c->issuer : "");
		return -1;
	}
	if (!c->audience || !strstr(c->audience, "://") || strchr(c->audience, '#')) {
		snprintf(why, n, "--oauth-audience '%s' is not this endpoint's URL (an absolute URI "
		         "without fragment, e.g. https://host/mcp)", c->audience ? c->audience : "");
		return -1;
	}
	if (c->leeway < 0 || c->leeway > HERMES_JWT_MAX_LEEWAY) {
		snprintf(why, n, "the clock leeway must be 0 to %d seconds", HERMES_JWT_MAX_LEEWAY);
		return -1;
	}
	hermes_oauth_t *o = calloc(1, sizeof(*o));
	if (o) {
		o->issuer = strdup(c->issuer);
		o->audience = strdup(c->audience);
		o->cache = calloc(CACHE_SLOTS, sizeof(*o->cache));
	}
	if (!o || !o->issuer || !o->audience || !o->cache) {
		if (o) {
			free(o->issuer);
			free(o->audience);
			free(o->cache);
			free(o);
		}
		snprintf(why, n, "out of memory");
		return -1;
	}
	o->leeway = c->leeway;
	o->refetch_seconds = c->refetch_seconds > 0 ? c->refetch_seconds : 30;
	o->last_fetch = INT64_MIN / 2;
	pthread_rwlock_init(&o->keys_lock, NULL);
	pthread_mutex_init(&o->fetch_lock, NULL);
	pthread_mutex_init(&o->cache_lock, NULL);
	*out = o;
	return 0;
}

void hermes_oauth_free(hermes_oauth_t *o)
{
	if (!o)
		return;
	hermes_jwks_free(o->keys);
	free(o->jwks_uri);
	free(o->issuer);
	free(o->audience);
	free(o->cache);
	pthread_rwlock_destroy(&o->keys_lock);
	pthread_mutex_destroy(&o->fetch_lock);
	pthread_mutex_destroy(&o->cache_lock);
	free(o);
}

unsigned hermes_oauth_key_fetches(const hermes_oauth_t *o)
{
	return __atomic_load_n(&o->fetches, __ATOMIC_RELAXED);
}

/* ---- fetching ----------------------------------------------------------------------------- */

typedef struct body {
	char *data;
	size_t len;
	bool too_big;
} body_t;

static size_t on_data(char *p, size_t size, size_t nmemb, void *ctx)
{
	body_t *b = ctx;
	size_t add = size * nmemb;
	if (b->len + add > MAX_DOCUMENT_BYTES) {
		b->too_big = true;
		return 0; /* aborts the transfer */
	}
	char *grown = realloc(b->data, b->len + add + 1);
	if (!grown)
		return 0;
	memcpy(grown + b->len, p, add);
	b->data = grown;
	b->len += add;
	b->data[b->len] = '\0';
	return add;
}

/* GETs url into a new NUL-terminated buffer; NULL with why. No redirects are followed: the
 * documents must be where the issuer's metadata says. */
static char *fetch(const char *url, size_t *len, char *why, size_t n)
{
	if (!hermes_curl_lib_load(why, n))
		return NULL;
	if (!url_ok(url)) {
		snprintf(why, n, "%s is not https:// (http:// only on a loopback host)", url);
		return NULL;
	}
	CURL *c = curl_easy_init();
	body_t b = {NULL, 0, false};
	long status = 0;
	if (!c) {
		snprintf(why, n, "libcurl could not start a transfer");
		return NULL;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)FETCH_TIMEOUT_SECONDS);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)MAX_DOCUMENT_BYTES);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "hermes/" PACKAGE_VERSION);
	CURLcode rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK || status != 200 || !b.data) {
		if (b.too_big)
			snprintf(why, n, "%s is larger than 1 MiB", url);
		else if (rc != CURLE_OK)
			snprintf(why, n, "cannot fetch %s: %s", url, curl_easy_strerror(rc));
		else if (status != 200)
			snprintf(why, n, "%s answered HTTP %ld", url, status);
		else
			snprintf(why, n, "%s answered with an empty body", url);
		free(b.data);
		return NULL;
	}
	*len = b.len;
	return b.data;
}

/* The metadata URL of RFC 8414 (the well-known segment inserted before the issuer's path) or of
 * OpenID Connect Discovery (appended to it). */
static char *metadata_url(const char *issuer, bool openid)
{
	const char *scheme_end = strstr(issuer, "://") + 3;
	const char *path = strchr(scheme_end, '/');
	size_t host_len = path ? (size_t)(path - issuer) : strlen(issuer);
	const char *p = path ? path : "";
	size_t pl = strlen(p);
	while (pl > 0 && p[pl - 1] == '/')
		pl--;
	char *url = malloc(strlen(issuer) + 64);
	if (!url)
		return NULL;
	if (openid)
		sprintf(url, "%.*s%.*s/.well-known/openid-configuration", (int)host_len, issuer, (int)pl, p);
	else
		sprintf(url, "%.*s/.well-known/oauth-authorization-server%.*s", (int)host_len, issuer, (int)pl, p);
	return url;
}

/* Finds jwks_uri through the issuer's metadata, checking that it names this issuer. */
static char *discover(const hermes_oauth_t *o, char *why, size_t n)
{
	char first_why[512] = "";
	for (int openid = 0; openid < 2; openid++) {
		char *url = metadata_url(o->issuer, openid);
		size_t len = 0;
		char *text = url ? fetch(url, &len, openid ? why : first_why, openid ? n : sizeof first_why) : NULL;
		hermes_json_doc_t *doc = NULL;
		size_t end = 0;
		char *jwks_uri = NULL;
		if (text && hermes_json_parse_bounded(text, len, 32, 65536, &doc, &end, NULL) == 0) {
			const hermes_json_t *root = hermes_json_root(doc);
			const hermes_json_t *iss = hermes_json_member(root, "issuer");
			const hermes_json_t *ju = hermes_json_member(root, "jwks_uri");
			if (!iss || !hermes_json_is_c_string(iss) || strcmp(iss->str, o->issuer))
				snprintf(openid ? why : first_why, openid ? n : sizeof first_why,
				         "%s names another issuer than %s", url, o->issuer);
			else if (!ju || !hermes_json_is_c_string(ju))
				snprintf(openid ? why : first_why, openid ? n : sizeof first_why,
				         "%s has no jwks_uri", url);
			else
				jwks_uri = strdup(ju->str);
		} else if (text) {
			snprintf(openid ? why : first_why, openid ? n : sizeof first_why,
			         "%s is not JSON", url);
		}
		hermes_json_doc_free(doc);
		free(text);
		free(url);
		if (jwks_uri)
			return jwks_uri;
	}
	size_t l = strlen(why);
	snprintf(why + l, n - l, " (and RFC 8414 metadata: %s)", first_why);
	return NULL;
}

/* Fetches the keys (discovering jwks_uri first if needed) unless they were fetched less than
 * refetch_seconds ago, or force is false and keys are there. 0 if the set in o is usable. */
static int refresh_keys(hermes_oauth_t *o, bool force, char *why, size_t n)
{
	pthread_mutex_lock(&o->fetch_lock);
	int rc = 0;
	pthread_rwlock_rdlock(&o->keys_lock);
	bool have = o->keys != NULL;
	char *uri = o->jwks_uri ? strdup(o->jwks_uri) : NULL;
	pthread_rwlock_unlock(&o->keys_lock);
	int64_t now = now_seconds();
	if ((have && !force) || now - o->last_fetch < o->refetch_seconds) {
		if (!have) {
			snprintf(why, n, "the issuer's keys could not be fetched (tried again at most every %d s)",
			         o->refetch_seconds);
			rc = -1;
		}
		goto out;
	}
	o->last_fetch = now;
	__atomic_add_fetch(&o->fetches, 1, __ATOMIC_RELAXED);
	if (!uri && !(uri = discover(o, why, n))) {
		rc = -1;
		goto out;
	}
	size_t len = 0;
	char *text = fetch(uri, &len, why, n);
	hermes_jwks_t *keys = NULL;
	hermes_error_t err;
	if (!text || hermes_jwks_parse(text, len, &keys, &err) != 0) {
		if (text)
			snprintf(why, n, "the key set at %s: %s", uri, err.message);
		free(text);
		rc = -1;
		goto out;
	}
	free(text);
	pthread_rwlock_wrlock(&o->keys_lock);
	hermes_jwks_free(o->keys);
	o->keys = keys;
	if (!o->jwks_uri)
		o->jwks_uri = uri, uri = NULL;
	pthread_rwlock_unlock(&o->keys_lock);
out:
	free(uri);
	pthread_mutex_unlock(&o->fetch_lock);
	return rc;
}

int hermes_oauth_prefetch(hermes_oauth_t *o, char *why, size_t n)
{
	return refresh_keys(o, false, why, n);
}

/* ---- the cache of verified tokens --------------------------------------------------------- */

static bool hash_token(const char *token, size_t len, unsigned char out[32])
{
	unsigned int l = 32;
	return EVP_Digest(token, len, out, &l, EVP_sha256(), NULL) == 1 && l == 32;
}

static size_t set_of(const unsigned char hash[32])
{
	return ((size_t)hash[0] << 8 | hash[1]) % (CACHE_SLOTS / CACHE_WAYS) * CACHE_WAYS;
}

static bool cache_find(hermes_oauth_t *o, const unsigned char hash[32], int64_t now, unsigned *scopes)
{
	bool found = false;
	pthread_mutex_lock(&o->cache_lock);
	cached_t *set = &o->cache[set_of(hash)];
	for (int i = 0; i < CACHE_WAYS && !found; i++)
		if (set[i].expires && !memcmp(set[i].hash, hash, 32)) {
			if (set[i].expires + o->leeway > now) {
				*scopes = set[i].scopes;
				found = true;
			} else {
				set[i].expires = 0; /* expired: verified again, and refused */
			}
		}
	pthread_mutex_unlock(&o->cache_lock);
	return found;
}

static void cache_put(hermes_oauth_t *o, const unsigned char hash[32], int64_t expires, unsigned scopes)
{
	pthread_mutex_lock(&o->cache_lock);
	cached_t *set = &o->cache[set_of(hash)], *victim = &set[0];
	for (int i = 0; i < CACHE_WAYS; i++) {
		if (!set[i].expires) {
			victim = &set[i];
			break;
		}
		if (set[i].stamp < victim->stamp)
			victim = &set[i];
	}
	memcpy(victim->hash, hash, 32);
	victim->expires = expires;
	victim->scopes = scopes;
	victim->stamp = ++o->clock;
	pthread_mutex_unlock(&o->cache_lock);
}

/* ---- verifying ---------------------------------------------------------------------------- */

hermes_jwt_status_t hermes_oauth_verify(hermes_oauth_t *o, const char *token, size_t len,
                                        hermes_rights_t *rights, char *why, size_t n)
{
	char lib_why[256];
	if (!hermes_crypto_lib_load(lib_why, sizeof lib_why)) {
		snprintf(why, n, "cannot verify access tokens: %s", lib_why);
		return HERMES_JWT_NO_CRYPTO;
	}
	int64_t now = now_seconds();
	unsigned char hash[32];
	unsigned scopes = 0;
	bool hashed = len <= HERMES_JWT_MAX_BYTES && hash_token(token, len, hash);
	if (hashed && cache_find(o, hash, now, &scopes)) {
		memset(rights, 0, sizeof(*rights));
		rights->scopes = scopes;
		return HERMES_JWT_OK;
	}
	if (refresh_keys(o, false, why, n) != 0)
		return HERMES_JWT_UNKNOWN_KEY;
	hermes_jwt_expect_t want = {o->issuer, o->audience, now, o->leeway};
	hermes_jwt_claims_t claims;
	hermes_jwt_status_t st;
	for (int attempt = 0;; attempt++) {
		pthread_rwlock_rdlock(&o->keys_lock);
		st = hermes_jwt_verify(token, len, o->keys, &want, &claims, why, n);
		pthread_rwlock_unlock(&o->keys_lock);
		/* an unknown kid: the issuer may have rotated its keys; fetch them (rate-limited) */
		if (st != HERMES_JWT_UNKNOWN_KEY || attempt > 0)
			break;
		char fetch_why[512];
		if (refresh_keys(o, true, fetch_why, sizeof fetch_why) != 0)
			break;
	}
	if (st != HERMES_JWT_OK)
		return st;
	scopes = hermes_rights_scopes_parse(claims.scope);
	if (hashed)
		cache_put(o, hash, claims.expires, scopes);
	hermes_jwt_claims_clear(&claims);
	memset(rights, 0, sizeof(*rights));
	rights->scopes = scopes;
	return HERMES_JWT_OK;
}

char *hermes_oauth_resource_metadata(const hermes_oauth_t *o)
{
	hermes_buf_t b = {0};
	hermes_buf_puts(&b, "{\"resource\":");
	hermes_buf_json_string(&b, o->audience, strlen(o->audience));
	hermes_buf_puts(&b, ",\"authorization_servers\":[");
	hermes_buf_json_string(&b, o->issuer, strlen(o->issuer));
	hermes_buf_puts(&b, "],\"scopes_supported\":[\"hermes:read\",\"hermes:write\",\"hermes:exec\"],"
	                    "\"bearer_methods_supported\":[\"header\"],\"resource_name\":\"Hermes\"}");
	return hermes_buf_finish(&b);
}
