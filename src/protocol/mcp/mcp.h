/* protocol/mcp/mcp.h: what mcp_tools.c gives the MCP module's method tables (mcp.c): the tool
 * methods of both eras, the check every 2026-07-28 request passes, and the tool calls parked while
 * a 2025 client's roots/list answer is awaited. Internal to the module. */
#ifndef HERMES_SERVER_MCP_H
#define HERMES_SERVER_MCP_H

#include "protocol/mcp/mcp_meta.h"
#include "rpc/state.h"

/* How long a tool call waits for the answer to roots/list before it is refused. */
#define HERMES_MCP_ROOTS_WAIT_MS 10000
/* Tool calls that may wait at once; more are refused at once. */
#define HERMES_MCP_MAX_PARKED 64

/* The largest image fs.readBytes hands over as an MCP image block (bigger ones are refused). */
#define HERMES_MCP_IMAGE_MAX (10 * 1024 * 1024)

/* The 2025 era (after initialize). */
void hermes_mcp_tools_list(server_t *srv, call_t *c);
void hermes_mcp_tools_call(server_t *srv, call_t *c);
/* The 2026-07-28 era: the same tools, as complete results. */
void hermes_mcp_modern_tools_list(server_t *srv, call_t *c);
void hermes_mcp_modern_tools_call(server_t *srv, call_t *c);

/* Resources (mcp_resources.c): the workspace's files, in both eras. */
#define HERMES_MCP_RESOURCES_PAGE 200 /* resources in one page of resources/list */
void hermes_mcp_resources_list(server_t *srv, call_t *c);
void hermes_mcp_resources_templates(server_t *srv, call_t *c);
void hermes_mcp_resources_read(server_t *srv, call_t *c);
void hermes_mcp_modern_resources_list(server_t *srv, call_t *c);
void hermes_mcp_modern_resources_templates(server_t *srv, call_t *c);
void hermes_mcp_modern_resources_read(server_t *srv, call_t *c);

/* The workspace-relative path of a file:// URI under the root (malloc'd), or NULL with c
 * answered (-32602 not a file URI of this host, -32002 not under the root). */
char *hermes_mcp_resource_path(server_t *srv, call_t *c, const char *uri);

/* Subscriptions of the 2025 era (mcp_subscribe.c): resources/subscribe and unsubscribe, and the
 * tick that sends notifications/resources/updated (lowers *timeout_ms while there are some). */
#define HERMES_MCP_MAX_SUBSCRIPTIONS 64
#define HERMES_MCP_SUBSCRIPTION_POLL_MS 20
void hermes_mcp_resources_subscribe(server_t *srv, call_t *c);
void hermes_mcp_resources_unsubscribe(server_t *srv, call_t *c);
void hermes_mcp_subscriptions_tick(server_t *srv, int *timeout_ms);
/* 2026-07-28 subscriptions/listen (at most HERMES_MCP_MAX_LISTENERS open in a session: over
 * HTTP, the one every 2026 client shares), and its end by notifications/cancelled (stdio): true if
 * key (an id key) named an open listen, now closed. A listen whose client left (HTTP: closed its
 * stream) is seen within HERMES_MCP_LISTEN_CHECK_MS and ended. */
#define HERMES_MCP_MAX_LISTENERS 32
#define HERMES_MCP_LISTEN_CHECK_MS 250
#define HERMES_MCP_META_SUBSCRIPTION "io.modelcontextprotocol/subscriptionId"
void hermes_mcp_subscriptions_listen(server_t *srv, call_t *c);
bool hermes_mcp_subscriptions_cancel(server_t *srv, const char *key, size_t key_len);

/* Reads the call's 2026 _meta: true if it is well-formed for 2026-07-28 (*meta filled); else the
 * call is answered with the error (-32602, or -32022 with the versions Hermes speaks; -32600 for a
 * call in a batch, which the revision does not have) and false. */
bool hermes_mcp_modern_begin(call_t *c, hermes_mcp_meta_t *meta);

/* The tools/call result (JSON text, malloc'd) of an fs.readBytes that succeeded (result: its
 * JSON, borrowed; args: the call's arguments; ex: the workspace it ran in): a whole image as an
 * image block, other bytes as an embedded resource blob, an image over HERMES_MCP_IMAGE_MAX as a
 * TooLarge failure. *shaped false (and NULL): result is not one to shape, reply as usual; true
 * and NULL: out of memory. */
char *hermes_mcp_bytes_body(const char *result, const hermes_json_t *args, hermes_executor_t *ex,
                            bool *shaped);

/* Replies to a 2026 request with result (JSON object text, taken; NULL: out of memory) made
 * complete (resultType, serverInfo, and the cache hints when cacheable). */
void hermes_mcp_reply_complete(call_t *c, char *result, bool cacheable);

/* The tool calls waiting for roots/list go on: run now (error NULL: the workspace is known, or
 * will not be) or refused with error (-32602). */
void hermes_mcp_tools_unpark(server_t *srv, const char *error);

#endif
