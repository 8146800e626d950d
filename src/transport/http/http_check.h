/* transport/http/http_check.h: the decisions of the Streamable HTTP transport that need no socket:
 * whether an Origin may call, whether a bearer token is the right one (in constant time), whether
 * the headers that mirror the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name) agree with it, and
 * which HTTP status a JSON-RPC error gets; and the parsers of raw transfers (a /files/ path,
 * Range, entity tags: tests/fuzz/fuzz_range.c). Pure functions of their arguments, fuzzed with the rest
 * of the request path (tests/fuzz/fuzz_http.c). */
#ifndef HERMES_SERVER_HTTP_CHECK_H
#define HERMES_SERVER_HTTP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json.h"

struct sockaddr;

/* True if a request with this Origin header may be served: no Origin (not a browser), an origin
 * on a loopback host (localhost, 127.0.0.0/8, [::1]; any scheme http/https and port), or one of
 * allowed[0..n) exactly (scheme, host and port compared case-insensitively; a trailing '/' on
 * either side ignored). "null" and anything else are refused. */
bool hermes_http_origin_allowed(const char *origin, const char *const *allowed, size_t n);

/* True if the Authorization header value is "Bearer <token>" (the scheme's case ignored) with
 * exactly token[0..token_len). The comparison's time does not depend on where they differ. */
bool hermes_http_bearer_ok(const char *authorization, const char *token, size_t token_len);
/* The credential of an "Authorization: Bearer <token>" header (scheme case-insensitive, spaces
 * around the token dropped): its start, and its length in *len; NULL if there is none. */
const char *hermes_http_bearer_token(const char *authorization, size_t *len);

/* A mirrored header value as the body holds it: a plain value as is (visible ASCII, space and tab
 * only), or the Base64 sentinel form "=?base64?...?=" decoded. 0 with *out (malloc'd,
 * NUL-terminated, length in *len); -1 if the value is malformed (why names what). */
int hermes_http_header_decode(const char *value, char **out, size_t *len, char *why, size_t n);

/* What the headers of a POST say, NULL for one that is absent. */
typedef struct hermes_http_mirror {
	const char *protocol_version; /* MCP-Protocol-Version */
	const char *method;           /* Mcp-Method */
	const char *name;             /* Mcp-Name */
	const char *param_handle;     /* Mcp-Param-Handle: a tool's HANDLE argument (x-mcp-header) */
} hermes_http_mirror_t;

/* Checks the headers against the message (method, params) of a 2026-07-28 request whose _meta
 * names version: MCP-Protocol-Version and Mcp-Method must be there and equal the body's, and
 * Mcp-Name too for tools/call, resources/read and prompts/get (params.name or params.uri). For a
 * notification, only the headers present are compared. 0 if they agree; -1 with why ("Header
 * mismatch: ...") for HeaderMismatch (-32020). */
int hermes_http_mirror_check(const hermes_http_mirror_t *h, const char *version, const char *method,
                             const hermes_json_t *params, bool notification, char *why, size_t n);

/* The HTTP status for a reply carrying this JSON-RPC error code (0: a result): 200 for results
 * and for errors that belong to the call (cancelled), 404 for an unknown method, 500 for an
 * internal error, 400 for the rest (invalid message, params, version, headers). */
int hermes_http_status_for(int rpc_code);

/* For a tools/call of a verb with a HANDLE argument (its schema's x-mcp-header "Handle"): the
 * Mcp-Param-Handle header must be there when params.arguments holds that argument, equal to it
 * (after decoding), and absent when it does not. 0 if so (or the tool has none, or is unknown:
 * the protocol's error to give); -1 with why ("Header mismatch: ..."). */
int hermes_http_param_check(const hermes_http_mirror_t *h, const hermes_json_t *params, char *why,
                            size_t n);

/* ---- raw transfers (/files/PATH, http_files.c) ------------------------------------------- */

/* The workspace path of a /files/ request from its raw (still percent-encoded) URI: what follows
 * prefix up to any '?' or '#', %XX decoded. 0 with *out (malloc'd); -1 with why if it is empty,
 * has a bad escape, or would decode to a NUL or another control character. */
int hermes_http_files_path(const char *uri, const char *prefix, char **out, char *why, size_t n);

/* A Range header (RFC 9110 section 14.2) against a file of size bytes. Only one byte range is
 * served: "bytes=a-b", "bytes=a-" and "bytes=-n" (spaces around the parts allowed). 1: that range,
 * *off and *len set (b past the end is cut to it, a suffix longer than the file is all of it);
 * -1: unsatisfiable (a at or past the end, "-0"): 416; 0: no range to honour (absent, another
 * unit, several ranges, or malformed: the whole file is sent, as the RFC allows). */
int hermes_http_range_parse(const char *range, uint64_t size, uint64_t *off, uint64_t *len);

/* Whether an If-Match / If-None-Match header value names the entity tag etag (given with its
 * quotes): "*" matches any existing entity (exists), else one of the comma-separated tags equals
 * it: exactly (strong comparison, for If-Match), or also as W/"..." when weak (for
 * If-None-Match). */
bool hermes_http_etag_match(const char *header, const char *etag, bool exists, bool weak);

/* Whether sa is a loopback address (127/8, ::1, ::ffff:127/104). */
bool hermes_http_loopback(const struct sockaddr *sa);

#endif
