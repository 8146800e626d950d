/* transport/http/http_headers.c: the checks a request passes once its headers are in (see
 * http_server.h): the endpoint (and OAuth's metadata), Origin, the credential (http_auth.c), then
 * /files/ requests handed to http_files.c; the method (DELETE ends a 2025
 * session, GET opens its stream), Content-Type, Accept and the announced length; and the mirrored headers that must
 * come once. The decisions themselves are
 * http_check.c's where they need no connection. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpc/jsonrpc.h"
#include "transport/http/http_check.h"
#include "transport/http/http_server.h"

/* The checks made once the headers are in: a response queued (MHD_YES/NO) if the request is
 * refused, -1 if it may go on. */
typedef struct {
	unsigned seen[4];
} mirror_count_t;

static const char *const mirrored[4] = {"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name",
                                        "Mcp-Param-Handle"};

static enum MHD_Result count_mirrored(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
	(void)kind, (void)value;
	mirror_count_t *n = cls;
	for (int i = 0; i < 4; i++)
		if (key && strcasecmp(key, mirrored[i]) == 0)
			n->seen[i]++;
	return MHD_YES;
}

const char *hermes_http_doubled_mirror(struct MHD_Connection *c)
{
	mirror_count_t n = {{0, 0, 0, 0}};
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_mirrored, &n);
	for (int i = 0; i < 4; i++)
		if (n.seen[i] > 1)
			return mirrored[i];
	return NULL;
}

/* GET of the endpoint with a session: the session's standalone SSE stream (http_stream.c). */
static int get_stream(http_server_t *hs, hreq_t *q, struct MHD_Connection *c)
{
	const char *accept = hermes_http_header(c, "Accept");
	if (accept == NULL || !strstr(accept, "text/event-stream"))
		return hermes_http_respond_error(c, MHD_HTTP_NOT_ACCEPTABLE, NULL,
		                                 HERMES_RPC_INVALID_REQUEST, "a GET of the endpoint opens "
		                                 "the session's stream: Accept must list "
		                                 "text/event-stream", NULL, NULL);
	legacy_t *l = hermes_http_legacy_find(hs, hermes_http_header(c, "Mcp-Session-Id"));
	if (l == NULL)
		return hermes_http_respond_error(c, MHD_HTTP_NOT_FOUND, NULL, HERMES_RPC_INVALID_REQUEST,
		                                 "no such session (it ended or expired): initialize "
		                                 "again", NULL, NULL);
	q->legacy = l; /* released when the request ends */
	q->standalone = q->keepalive = true;
	/* it has arrived; it stays open: quiet streams get comments, an unread one the reaper */
	pthread_mutex_lock(&hs->lock);
	if (q->conn)
		q->conn->reading_since.tv_sec = q->conn->reading_since.tv_nsec = 0;
	pthread_mutex_unlock(&hs->lock);
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
	hermes_http_stream_attach(l, q);
	pthread_mutex_lock(&hs->lock);
	bool ended = l->ended; /* by a DELETE since it was found: its stream ends too */
	pthread_mutex_unlock(&hs->lock);
	if (ended)
		hermes_http_stream_end(l);
	return hermes_http_sse_respond(q, c, NULL);
}

int hermes_http_check_headers(http_server_t *hs, hreq_t *q, struct MHD_Connection *c,
                              const char *url, const char *method)
{
	char why[512];
	int prm = hermes_http_resource_metadata(hs, c, url, method);
	if (prm >= 0)
		return prm;
	bool files = q->raw_uri != NULL;
	if (!files && strcmp(url, ENDPOINT) != 0) {
		snprintf(why, sizeof why, "no MCP endpoint at %.200s (it is " ENDPOINT ")", url);
		return hermes_http_respond_error(c, MHD_HTTP_NOT_FOUND, NULL, HERMES_RPC_INVALID_REQUEST,
		                                 why, NULL, NULL);
	}
	const char *origin = hermes_http_header(c, "Origin");
	if (!hermes_http_origin_allowed(origin, (const char *const *)hs->http->allow_origins,
	                                hs->http->n_allow_origins)) {
		snprintf(why, sizeof why, "Origin '%.200s' is not allowed (only loopback origins, and those "
		         "given with --allow-origin)", origin);
		return hermes_http_respond_error(c, MHD_HTTP_FORBIDDEN, NULL, HERMES_RPC_INVALID_REQUEST,
		                                 why, NULL, NULL);
	}
	int refused = hermes_http_authenticate(hs, q, c);
	if (refused >= 0)
		return refused;
	if (files)
		return hermes_http_files_begin(hs, q, c, method);
	if (strcmp(method, "DELETE") == 0) {
		const char *sid = hermes_http_header(c, "Mcp-Session-Id");
		legacy_t *l = sid ? hermes_http_legacy_find(hs, sid) : NULL;
		if (l == NULL) {
			const char *h[] = {"Allow", "POST", NULL};
			if (sid)
				return hermes_http_respond_error(c, MHD_HTTP_NOT_FOUND, NULL,
				                                 HERMES_RPC_INVALID_REQUEST,
				                                 "no such session (it ended or expired)", NULL,
				                                 NULL);
			return hermes_http_respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
			                                 HERMES_RPC_INVALID_REQUEST,
			                                 "DELETE ends a 2025-era session named by "
			                                 "Mcp-Session-Id; the 2026-07-28 revision has no "
			                                 "sessions", NULL, h);
		}
		hermes_http_legacy_drop(hs, l); /* then its stream: a GET racing it sees it ended */
		hermes_http_stream_end(l);
		hermes_http_legacy_unref(hs, l);
		return hermes_http_respond_empty(c, MHD_HTTP_NO_CONTENT, NULL);
	}
	if (strcmp(method, "GET") == 0 && hermes_http_header(c, "Mcp-Session-Id"))
		return get_stream(hs, q, c);
	if (strcmp(method, "POST") != 0) {
		const char *h[] = {"Allow", hermes_http_header(c, "Mcp-Session-Id") ? "GET, POST, DELETE"
		                                                                    : "POST", NULL};
		snprintf(why, sizeof why, "%.20s is not served: every message is a POST (a 2025-era "
		         "session, named by Mcp-Session-Id, may also GET its stream and DELETE itself)",
		         method);
		return hermes_http_respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
		                                 HERMES_RPC_INVALID_REQUEST, why, NULL, h);
	}
	const char *type = hermes_http_header(c, "Content-Type");
	if (type == NULL || strncasecmp(type, "application/json", 16) != 0 ||
	    (type[16] != '\0' && type[16] != ';' && type[16] != ' ')) {
		snprintf(why, sizeof why, "Content-Type must be application/json, not '%.100s'",
		         type ? type : "(none)");
		return hermes_http_respond_error(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL,
		                                 HERMES_RPC_INVALID_REQUEST, why, NULL, NULL);
	}
	const char *accept = hermes_http_header(c, "Accept");
	if (accept && !strstr(accept, "application/json") && !strstr(accept, "text/event-stream") &&
	    !strstr(accept, "*/*")) {
		snprintf(why, sizeof why, "Accept must list application/json and text/event-stream, not "
		         "'%.100s'", accept);
		return hermes_http_respond_error(c, MHD_HTTP_NOT_ACCEPTABLE, NULL,
		                                 HERMES_RPC_INVALID_REQUEST, why, NULL, NULL);
	}
	const char *cl = hermes_http_header(c, "Content-Length");
	if (cl && strtoull(cl, NULL, 10) > hs->max_body) {
		q->too_large = true;
		snprintf(why, sizeof why, "the message (%.30s bytes) is over the limit of %zu bytes "
		         "(--max-message-bytes)", cl, hs->max_body);
		return hermes_http_respond_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL,
		                                 HERMES_RPC_INVALID_REQUEST, why, NULL, NULL);
	}
	return -1;
}
