/* protocol/mcp/mcp_meta.h: the per-request metadata of MCP 2026-07-28 (the stateless revision):
 * which era a request belongs to, its protocol version, capabilities and log level read from
 * params._meta, and the fields every 2026 result carries (resultType, serverInfo, cache hints). */
#ifndef HERMES_SERVER_MCP_META_H
#define HERMES_SERVER_MCP_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json.h"
#include "rpc/jsonrpc.h"

#define HERMES_MCP_MODERN_VERSION "2026-07-28"
#define HERMES_MCP_META_VERSION "io.modelcontextprotocol/protocolVersion"
#define HERMES_MCP_META_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define HERMES_MCP_META_CLIENT_INFO "io.modelcontextprotocol/clientInfo"
#define HERMES_MCP_META_LOG_LEVEL "io.modelcontextprotocol/logLevel"

#define HERMES_RPC_HEADER_MISMATCH        -32020
#define HERMES_RPC_MISSING_CAPABILITY     -32021
#define HERMES_RPC_UNSUPPORTED_VERSION    -32022

/* The revisions Hermes speaks, newest first: 2026-07-28 per request, the others after an
 * initialize handshake. */
extern const char *const hermes_mcp_versions[];
extern const size_t hermes_mcp_version_count;

/* Appends the JSON array of hermes_mcp_versions to b. */
struct hermes_buf;
void hermes_mcp_versions_json(struct hermes_buf *b);

/* MCP's logging levels (syslog's), index 0 debug .. 7 emergency; -1 if name is none of them. */
int hermes_mcp_level(const char *name);
extern const char *const hermes_mcp_level_names[8];

typedef struct hermes_mcp_meta {
	bool modern;                        /* _meta names a protocol version: the 2026 rules */
	const char *version;                /* that version (in the tree) */
	int log_level;                      /* notifications/message at or above it; -1: none */
	const hermes_json_t *capabilities;  /* the client's, for this request */
	const hermes_json_t *client_info;   /* or NULL */
} hermes_mcp_meta_t;

/* Reads params._meta of a request (params may be NULL). A request whose _meta has neither a
 * protocol version nor client capabilities is not modern (m->modern false, 0 returned): the 2025
 * rules apply to it. For a modern
 * one, 0 if the version is 2026-07-28 and the required fields are well-formed; else the JSON-RPC
 * error code (-32602 for a missing or malformed field, named in why; -32022 for a version Hermes
 * does not speak per request, with *data the error's data: {"supported":[...],"requested":...},
 * malloc'd JSON, else NULL). */
int hermes_mcp_meta_read(const hermes_json_t *params, hermes_mcp_meta_t *m, char *why, size_t n,
                         char **data);

/* A 2026 result from the fields of result (a JSON object's text, len bytes): {"resultType":
 * "complete", "_meta": {serverInfo}, with "ttlMs" and "cacheScope" when cacheable, then the
 * fields of result. malloc'd (length in *out_len), or NULL if out of memory. */
char *hermes_mcp_complete(const char *result, size_t len, bool cacheable, size_t *out_len);

/* A monotonic clock, in milliseconds (the deadlines of the MCP module). */
int64_t hermes_mcp_clock_ms(void);

/* How long a client may keep tools/list and server/discover (they change only with the server's
 * configuration, i.e. a restart). */
#define HERMES_MCP_TTL_MS 300000

#endif
