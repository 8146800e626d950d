/* auth/oauth.h: Hermes as an OAuth 2.1 resource server (the MCP authorization specification):
 * the issuer's keys found through its metadata (RFC 8414, else OpenID discovery) and cached, the
 * bearer token of each request verified (auth/jwt.h) and turned into rights (auth/rights.h), and
 * the Protected Resource Metadata (RFC 9728) a client reads to learn where to get a token.
 *
 * Costs: a token verified once is remembered (by its SHA-256) until it expires, so a client
 * that sends the same token with every request pays one signature check, not one per request;
 * the key set is fetched on first use and again only when a token names a key the set lacks
 * (a rotation), at most once every 30 s, whatever clients send. */
#ifndef HERMES_AUTH_OAUTH_H
#define HERMES_AUTH_OAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/jwt.h"
#include "auth/rights.h"

typedef struct hermes_oauth hermes_oauth_t;

typedef struct hermes_oauth_config {
	const char *issuer;   /* the authorization server's issuer identifier (https://..., or
	                         http://... on a loopback host only) */
	const char *audience; /* this resource's identifier (RFC 8707), which tokens' aud must hold:
	                         the URL clients use for the endpoint, e.g. https://host/mcp */
	int leeway;           /* clock leeway in seconds, at most 60 */
	int refetch_seconds;  /* the least time between two fetches of the keys (30; tests lower it) */
} hermes_oauth_config_t;

/* Checks the configuration (URLs, leeway) without fetching anything. Returns 0 and *out, or -1
 * with a sentence in why (of size n). */
int hermes_oauth_new(const hermes_oauth_config_t *config, hermes_oauth_t **out, char *why, size_t n);
/* Frees it. NULL is fine. */
void hermes_oauth_free(hermes_oauth_t *o);

/* Fetches the issuer's metadata and keys now (a server calls it at start to say early that the
 * issuer cannot be reached; verification fetches them anyway when it needs them). 0, or -1 with
 * why. */
int hermes_oauth_prefetch(hermes_oauth_t *o, char *why, size_t n);

/* Verifies a bearer token. HERMES_JWT_OK fills *rights (its scopes; hermes_rights_clear it);
 * anything else leaves it untouched and says why in why (of size n). Thread-safe. */
hermes_jwt_status_t hermes_oauth_verify(hermes_oauth_t *o, const char *token, size_t len,
                                        hermes_rights_t *rights, char *why, size_t n);

/* The Protected Resource Metadata document (RFC 9728) as JSON text: resource (the audience),
 * authorization_servers (the issuer), scopes_supported, bearer_methods_supported. The caller frees
 * it; NULL if memory ran out. */
char *hermes_oauth_resource_metadata(const hermes_oauth_t *o);

/* How many times the key set has been fetched (for tests and the log). */
unsigned hermes_oauth_key_fetches(const hermes_oauth_t *o);

#endif
