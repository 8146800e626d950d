/* transport/http/http_auth.c: who is calling (see http_server.h): the credentials read at the
 * start (a token file whose lines carry rights, an OAuth issuer), each request's Authorization
 * header turned into its rights, the Protected Resource Metadata an OAuth client reads first,
 * and the 403 of a call its scopes do not cover. The token checks themselves are src/auth's. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/desc.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "transport/http/http_check.h"
#include "transport/http/http_server.h"

#define PRM_WELL_KNOWN "/.well-known/oauth-protected-resource"

/* The metadata's URL (RFC 9728 section 3.1: the well-known segment between the audience's
 * origin and its path) and that URL's path. */
static int prm_urls(http_server_t *hs, const char *audience)
{
	const char *host = strstr(audience, "://") + 3;
	const char *path = host + strcspn(host, "/?");
	size_t origin = (size_t)(path - audience);
	size_t pl = strcspn(path, "?");
	while (pl > 0 && path[pl - 1] == '/')
		pl--;
	hs->prm_url = malloc(origin + sizeof PRM_WELL_KNOWN + pl);
	hs->prm_path = malloc(sizeof PRM_WELL_KNOWN + pl);
	if (!hs->prm_url || !hs->prm_path)
		return -1;
	sprintf(hs->prm_url, "%.*s" PRM_WELL_KNOWN "%.*s", (int)origin, audience, (int)pl, path);
	sprintf(hs->prm_path, PRM_WELL_KNOWN "%.*s", (int)pl, path);
	return 0;
}

int hermes_http_read_credentials(http_server_t *hs, const hermes_http_options_t *http)
{
	char why[1024];
	if (http->auth_token_file &&
	    hermes_token_file_load(http->auth_token_file, &hs->tokens, why, sizeof why) != 0) {
		fprintf(stderr, "hermes mcp: %s\n", why);
		return -1;
	}
	if (!http->oauth_issuer != !http->oauth_audience) {
		fprintf(stderr, "hermes mcp: --oauth-issuer and --oauth-audience go together (the issuer "
		        "whose tokens are accepted, and this endpoint's URL that they name)\n");
		return -1;
	}
	if (!http->oauth_issuer)
		return 0;
	hermes_oauth_config_t c = {http->oauth_issuer, http->oauth_audience, 60, 0};
	/* test-only: a key rotation seen in seconds rather than the 30 s between fetches */
	const char *refetch = getenv("HERMES_TEST_OAUTH_REFETCH_SECONDS");
	if (refetch)
		c.refetch_seconds = atoi(refetch);
	if (hermes_oauth_new(&c, &hs->oauth, why, sizeof why) != 0) {
		fprintf(stderr, "hermes mcp: %s\n", why);
		return -1;
	}
	if (prm_urls(hs, http->oauth_audience) != 0)
		return -1;
	/* the keys now, so that an issuer out of reach is said at the start (requests fetch them
	 * again when they need them) */
	if (hermes_oauth_prefetch(hs->oauth, why, sizeof why) != 0)
		fprintf(stderr, "hermes mcp: warning: %s\n", why);
	return 0;
}

void hermes_http_credentials_free(http_server_t *hs)
{
	hermes_token_file_free(hs->tokens);
	hermes_oauth_free(hs->oauth);
	free(hs->prm_url);
	free(hs->prm_path);
	hs->tokens = NULL;
	hs->oauth = NULL;
	hs->prm_url = hs->prm_path = NULL;
}

/* why made fit for a quoted-string of WWW-Authenticate (no quote, backslash or control). */
static void header_safe(char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '\'';
}

int hermes_http_authenticate(http_server_t *hs, hreq_t *q, struct MHD_Connection *c)
{
	if (!hs->tokens && !hs->oauth)
		return -1;
	size_t len = 0;
	const char *auth = hermes_http_header(c, "Authorization");
	const char *token = hermes_http_bearer_token(auth, &len);
	if (token && hs->tokens && (q->rights = hermes_token_file_match(hs->tokens, token, len)))
		return -1;
	char why[512] = "", challenge[1024];
	if (token && hs->oauth) {
		hermes_jwt_status_t st = hermes_oauth_verify(hs->oauth, token, len, &q->oauth_rights,
		                                             why, sizeof why);
		if (st == HERMES_JWT_OK) {
			q->rights = &q->oauth_rights;
			return -1;
		}
		hermes_log(HERMES_LOG_INFO, "an access token was refused: %s", why);
	}
	if (hs->oauth) {
		/* RFC 9728 section 5.1: where the client learns which authorization server to ask */
		header_safe(why);
		if (token)
			snprintf(challenge, sizeof challenge, "Bearer resource_metadata=\"%s\", "
			         "error=\"invalid_token\", error_description=\"%s\"", hs->prm_url, why);
		else
			snprintf(challenge, sizeof challenge, "Bearer resource_metadata=\"%s\"", hs->prm_url);
	} else {
		snprintf(challenge, sizeof challenge, token ? "Bearer realm=\"hermes\", error=\"invalid_token\""
		                                            : "Bearer realm=\"hermes\"");
	}
	const char *h[] = {"WWW-Authenticate", challenge, NULL};
	const char *message = !token ? "this server needs Authorization: Bearer <token>"
	                      : why[0] ? why
	                               : "the bearer token is not one of this server's";
	return hermes_http_respond_error(c, MHD_HTTP_UNAUTHORIZED, NULL, HERMES_RPC_INVALID_REQUEST,
	                                 message, NULL, h);
}

int hermes_http_resource_metadata(http_server_t *hs, struct MHD_Connection *c, const char *url,
                                  const char *method)
{
	if (!hs->oauth || (strcmp(url, hs->prm_path) != 0 && strcmp(url, PRM_WELL_KNOWN) != 0))
		return -1;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		const char *h[] = {"Allow", "GET, HEAD", NULL};
		return hermes_http_respond_empty(c, MHD_HTTP_METHOD_NOT_ALLOWED, h);
	}
	char *doc = hermes_oauth_resource_metadata(hs->oauth);
	if (!doc)
		return MHD_NO;
	const char *h[] = {"Cache-Control", "max-age=300", NULL};
	return hermes_http_respond(c, MHD_HTTP_OK, "application/json", doc, strlen(doc), h);
}

int hermes_http_check_scope(http_server_t *hs, hreq_t *q, struct MHD_Connection *c,
                            const char *tool)
{
	if (!hs->oauth || q->rights != &q->oauth_rights || !tool)
		return -1;
	char dotted[128];
	snprintf(dotted, sizeof dotted, "%s", tool);
	const hermes_verb_desc_t *d = hermes_verb_desc_find(dotted);
	char *u = strchr(dotted, '_');
	if (!d && u) {
		*u = '.';
		d = hermes_verb_desc_find(dotted);
	}
	if (!d || hermes_rights_allow(q->rights, d))
		return -1; /* an unknown tool is the protocol's error to give */
	const char *need = hermes_rights_scope_needed(d);
	char challenge[1024], why[256];
	snprintf(challenge, sizeof challenge, "Bearer error=\"insufficient_scope\", scope=\"%s\", "
	         "resource_metadata=\"%s\", error_description=\"%s needs the scope %s\"", need,
	         hs->prm_url, d->name, need);
	snprintf(why, sizeof why, "the access token lacks the scope %s, which %s needs", need, d->name);
	const char *h[] = {"WWW-Authenticate", challenge, NULL};
	return hermes_http_respond_error(c, MHD_HTTP_FORBIDDEN, q->id_text, HERMES_RPC_INVALID_REQUEST,
	                                 why, NULL, h);
}
