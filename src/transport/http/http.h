/* transport/http/http.h: Streamable HTTP, the transport of `hermes mcp --listen`: MCP over HTTP
 * POST on one endpoint (/mcp), answered with JSON or, when notifications precede the result, an SSE
 * stream; libmicrohttpd parses HTTP (loaded on first use, see mhd_lib.h). */
#ifndef HERMES_SERVER_HTTP_H
#define HERMES_SERVER_HTTP_H

#include <stddef.h>

#include "session/server.h"

typedef struct hermes_http_options {
	const char *listen;             /* HOST:PORT, [IPV6]:PORT, or unix:PATH */
	const char *auth_token_file;    /* or NULL: no token (then only loopback or a Unix socket);
	                                   a line per token, with its rights (auth/rights.h) */
	const char *oauth_issuer;       /* OAuth 2.1 resource server: the issuer whose JWT access
	                                   tokens are accepted (auth/oauth.h), or NULL */
	const char *oauth_audience;     /* with it: this endpoint's URL, which tokens' aud holds */
	const char *const *allow_origins; /* Origins served besides loopback ones */
	size_t n_allow_origins;
	int timeout_seconds;            /* a whole request (line, headers, body), an idle connection;
	                                   0 = 30 */
	int max_connections;            /* 0 = 64 */
} hermes_http_options_t;

/* Serves MCP on http->listen until SIGTERM or SIGINT (a second one cancels the work in flight),
 * with the sessions opts describes (workspace, policy, jobs, grace, message size). Returns the
 * process exit status: 0, 1 if serving failed, 2 for a bad address or token file (said on
 * standard error). */
int hermes_http_run(const hermes_server_options_t *opts, const hermes_http_options_t *http);

#endif
