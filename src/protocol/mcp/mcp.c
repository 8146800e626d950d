/* protocol/mcp/mcp.c: the Model Context Protocol module, both eras on one session: the stateless
 * 2026-07-28 revision, chosen per request by its _meta (server/discover, and the tools), and the
 * 2025 revisions (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05) after initialize. Its method
 * tables, and the session methods of the 2025 era: initialize and its version negotiation, ping,
 * logging, cancellation by notification, and the workspace taken from the client's roots. The
 * tools are in mcp_tools.c. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/executor.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "protocol/mcp/mcp.h"
#include "rpc/state.h"

/* The 2025 revisions an initialize may negotiate, newest first (a client asking for another gets
 * the newest): those of hermes_mcp_versions after 2026-07-28. */
static const char *const *const versions = hermes_mcp_versions + 1;

static const char instructions[] =
	"Hermes gives you typed, confined access to one workspace directory. Paths are relative to "
	"the workspace root (absolute paths are accepted only inside it; nothing outside it is "
	"reachable, symlinks included). Lines count from 1 and ranges are inclusive. Prefer "
	"fs_readRange (negative lines count from the end) over fs_readFile for big files, fs_search "
	"(a regular expression, like rg) and fs_glob to find things, fs_listDir to look around. "
	"proc_run runs one program with its arguments as a list, without a shell (no pipes, globs or "
	"redirections); its output goes to files you read with fs_readRange. A failed tool call says "
	"why in errorCode and errorMessage.";

/* MCP's logging levels are syslog's (hermes_mcp_level_names); ours map onto them. */
static const char *const *const mcp_levels = hermes_mcp_level_names;
enum { MCP_WARNING = 3, MCP_ERROR = 4 };

void hermes_mcp_log(void *ctx, hermes_log_level_t level, const char *message)
{
	server_t *srv = ctx;
	int mcp = level == HERMES_LOG_ERROR ? MCP_ERROR : MCP_WARNING;
	if (mcp < atomic_load(&srv->mcp_log_level))
		return;
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_printf(&b, "{\"level\":\"%s\",\"logger\":\"hermes\",\"data\":", mcp_levels[mcp]);
	hermes_buf_json_string(&b, message, strlen(message));
	hermes_buf_puts(&b, "}");
	hermes_notify_buf(srv->channel, "notifications/message", &b);
}

/* Sends roots/list; the answer comes to hermes_mcp_response. */
static void ask_roots(server_t *srv)
{
	char id[48];
	snprintf(id, sizeof id, "\"hermes-roots-%u\"", ++srv->next_request_id);
	free(srv->roots_request);
	srv->roots_request = strdup(id);
	if (srv->roots_request == NULL)
		return;
	srv->roots_pending = true;
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"roots/list\"}", id);
	size_t n = b.len;
	char *body = hermes_buf_finish(&b);
	if (body) {
		hermes_reply_t r = {{body, NULL}, {n, 0}, NULL};
		hermes_channel_send(srv->channel, &r, HERMES_SEND_NOTIFICATION);
	}
	hermes_log(HERMES_LOG_INFO, "asked the client for its roots");
}

static void mcp_initialize(server_t *srv, call_t *c)
{
	const hermes_json_t *p = c->m.params;
	if (srv->initialized) {
		hermes_reply_error(c, HERMES_RPC_INVALID_REQUEST, "initialize was already received", NULL);
		return;
	}
	const hermes_json_t *pv = hermes_json_member(p, "protocolVersion");
	if (!hermes_json_is_c_string(pv)) {
		hermes_reply_invalid_params(c, "protocolVersion", "InvalidArguments",
		                            "initialize needs params.protocolVersion, a string such as \"%s\"",
		                            versions[0]);
		return;
	}
	const char *version = versions[0];
	for (size_t i = 0; i < hermes_mcp_version_count - 1; i++)
		if (strcmp(pv->str, versions[i]) == 0)
			version = versions[i];
	const hermes_json_t *caps = hermes_json_member(p, "capabilities");
	srv->client_roots = hermes_json_member(caps, "roots") != NULL;
	const hermes_json_t *ci = hermes_json_member(p, "clientInfo");
	const hermes_json_t *name = hermes_json_member(ci, "name");
	const hermes_json_t *ver = hermes_json_member(ci, "version");
	hermes_log(HERMES_LOG_INFO, "MCP client %s %s, protocol %s (asked %s)%s",
	           hermes_json_is_c_string(name) ? name->str : "?",
	           hermes_json_is_c_string(ver) ? ver->str : "", version, pv->str,
	           srv->client_roots ? ", with roots" : "");
	srv->protocol = HERMES_PROTOCOL_MCP;
	atomic_store(&srv->mcp_log_level, MCP_WARNING); /* warnings and errors, until setLevel */
	srv->initialized = true;
	if (srv->opts.root_given || !srv->client_roots) {
		char why[1024];
		if (hermes_server_workspace(srv, why, sizeof why) != 0) {
			hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, why, NULL);
			return;
		}
	} else {
		srv->roots_pending = true; /* asked once the client says it is initialized */
	}

	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"protocolVersion\":");
	hermes_buf_json_string(&b, version, strlen(version));
	hermes_buf_puts(&b, ",\"capabilities\":{\"tools\":{\"listChanged\":false},\"resources\":{\"subscribe\":true,\"listChanged\":false},\"logging\":{}},"
	                "\"serverInfo\":{\"name\":\"hermes\",\"title\":\"Hermes\",\"version\":");
	hermes_buf_json_string(&b, hermes_version(), strlen(hermes_version()));
	hermes_buf_puts(&b, "},\"instructions\":");
	hermes_buf_json_string(&b, instructions, strlen(instructions));
	hermes_buf_puts(&b, "}");
	hermes_reply_result(c, hermes_buf_finish(&b));
}

static void mcp_initialized(server_t *srv, call_t *c)
{
	if (srv->roots_pending && srv->roots_request == NULL)
		ask_roots(srv);
	hermes_reply_nothing(c);
}

static void mcp_ping(server_t *srv, call_t *c)
{
	(void)srv;
	hermes_reply_result(c, strdup("{}"));
}

static void mcp_set_level(server_t *srv, call_t *c)
{
	const hermes_json_t *level = hermes_json_member(c->m.params, "level");
	int i = hermes_json_is_c_string(level) ? hermes_mcp_level(level->str) : -1;
	if (i >= 0) {
		atomic_store(&srv->mcp_log_level, i);
		hermes_reply_result(c, strdup("{}"));
		return;
	}
	hermes_reply_invalid_params(c, "level", "InvalidArguments",
	                            "level must be one of debug, info, notice, warning, error, critical, "
	                            "alert, emergency");
}

static void mcp_cancelled(server_t *srv, call_t *c)
{
	const hermes_json_t *id = hermes_json_member(c->m.params, "requestId");
	size_t key_len = 0;
	char *key = hermes_rpc_id_key(id, &key_len);
	if (key) {
		const hermes_json_t *reason = hermes_json_member(c->m.params, "reason");
		size_t n = hermes_mcp_subscriptions_cancel(srv, key, key_len) ? 1 :
		           hermes_inflight_cancel(srv, key, key_len, HERMES_CANCEL_SILENT);
		hermes_log(HERMES_LOG_INFO, "notifications/cancelled (%s): %zu request(s) stopped",
		           hermes_json_is_c_string(reason) ? reason->str : "no reason given", n);
		free(key);
	}
	hermes_reply_nothing(c);
}

static void mcp_roots_changed(server_t *srv, call_t *c)
{
	if (!srv->opts.root_given && srv->client_roots)
		ask_roots(srv);
	hermes_reply_nothing(c);
}

/* The workspace becomes root: requests already running keep theirs (freed at the end). */
static void use_root(server_t *srv, const char *root)
{
	hermes_config_t config = srv->opts.config;
	config.root = root;
	hermes_executor_t *ex = NULL;
	hermes_error_t err;
	if (hermes_executor_new(&config, &ex, &err) != 0) {
		free(srv->workspace_error);
		size_t n = strlen(err.message) + strlen(root) + 96;
		if ((srv->workspace_error = malloc(n)) != NULL)
			snprintf(srv->workspace_error, n, "the client's root '%s' cannot be used: %s", root,
			         err.message);
		hermes_log(HERMES_LOG_WARN, "the client's root '%s' cannot be used: %s", root, err.message);
		return;
	}
	if (srv->ex && strcmp(hermes_executor_root(srv->ex), hermes_executor_root(ex)) == 0) {
		hermes_executor_free(ex);
		return;
	}
	if (srv->ex) {
		retired_t *r = malloc(sizeof *r);
		if (r == NULL) {
			hermes_executor_free(ex);
			return;
		}
		hermes_executor_share_state(ex, srv->ex); /* started programs are the server's */
		r->ex = srv->ex;
		r->next = srv->retired;
		srv->retired = r;
	}
	srv->ex = ex;
	free(srv->workspace_error);
	srv->workspace_error = NULL;
	hermes_log(HERMES_LOG_INFO, "workspace (the client's first root): %s", hermes_executor_root(ex));
}

/* A response from the client (to roots/list): its first file:// root is the workspace; with
 * none (an empty list, only other schemes, an error), --root or the current directory, as for a
 * client without roots. The tool calls that waited go on. */
static void mcp_response(server_t *srv, call_t *c, const hermes_json_t *obj)
{
	if (srv->roots_request == NULL || c->m.id == NULL || strcmp(c->m.id, srv->roots_request) != 0) {
		hermes_log(HERMES_LOG_DEBUG, "a response (id %s) to no request of ours ignored", c->m.id);
		return;
	}
	free(srv->roots_request);
	srv->roots_request = NULL;
	srv->roots_pending = false;
	const hermes_json_t *roots = hermes_json_member(hermes_json_member(obj, "result"), "roots");
	char *path = NULL;
	for (const hermes_json_t *r = roots && roots->type == HERMES_JSON_ARRAY ? roots->child : NULL;
	     r && path == NULL; r = r->next) {
		const hermes_json_t *uri = hermes_json_member(r, "uri");
		bool bad;
		if (hermes_json_is_c_string(uri))
			path = hermes_uri_path(uri->str, true, &bad);
	}
	if (path) {
		use_root(srv, path);
		free(path);
	} else if (srv->ex == NULL) {
		char why[1024];
		const char *what = hermes_json_member(obj, "error") ? "answered roots/list with an error"
		                   : roots && roots->type == HERMES_JSON_ARRAY && roots->count == 0
		                   ? "has no roots (an empty roots/list)" : "named no file:// root";
		if (hermes_server_workspace(srv, why, sizeof why) == 0)
			hermes_log(HERMES_LOG_WARN, "the client %s: the workspace is %s", what,
			           hermes_executor_root(srv->ex));
		else
			hermes_log(HERMES_LOG_WARN, "the client %s, and %s", what, why);
	}
	hermes_mcp_tools_unpark(srv, NULL);
}

/* The deadline of the tool calls waiting for roots/list; at the end of input they wait no more. */
static void mcp_tick(server_t *srv, int *timeout_ms)
{
	hermes_mcp_subscriptions_tick(srv, timeout_ms);
	if (srv->parked == NULL)
		return;
	int64_t left = srv->roots_deadline - hermes_mcp_clock_ms();
	if (srv->eof || srv->stop_reading || srv->graceful || left <= 0) {
		char why[256];
		snprintf(why, sizeof why, "no workspace: the client %s roots/list within %d s (start "
		         "hermes mcp with --root DIR)", left <= 0 ? "did not answer" : "ended before answering",
		         HERMES_MCP_ROOTS_WAIT_MS / 1000);
		hermes_log(HERMES_LOG_WARN, "%s", why);
		hermes_mcp_tools_unpark(srv, why);
		return;
	}
	if (*timeout_ms < 0 || left < *timeout_ms)
		*timeout_ms = (int)left;
}

static void mcp_listen(server_t *srv, call_t *c)
{
	hermes_mcp_meta_t meta;
	if (hermes_mcp_modern_begin(c, &meta))
		hermes_mcp_subscriptions_listen(srv, c);
}

/* server/discover (2026-07-28): the versions, capabilities and instructions, made complete. */
static void mcp_discover(server_t *srv, call_t *c)
{
	(void)srv;
	hermes_mcp_meta_t meta;
	if (!hermes_mcp_modern_begin(c, &meta))
		return;
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"supportedVersions\":");
	hermes_mcp_versions_json(&b);
	hermes_buf_puts(&b, ",\"capabilities\":{\"tools\":{\"listChanged\":false},\"resources\":"
	                "{\"subscribe\":true,\"listChanged\":false},\"logging\":{}},\"instructions\":");
	hermes_buf_json_string(&b, instructions, strlen(instructions));
	hermes_buf_puts(&b, "}");
	hermes_mcp_reply_complete(c, hermes_buf_finish(&b), true);
}

#define REQUEST HERMES_METHOD_REQUEST
#define NOTIFICATION HERMES_METHOD_NOTIFICATION

/* MCP: nothing but initialize and ping before initialize; no shutdown or exit (the end of input
 * ends the session). */
/* name                                handler                  sent as       before init  after shutdown  workspace */
static const method_t methods[] = {
	{"initialize",                       mcp_initialize,          REQUEST,      true,        false,          false},
	{"ping",                             mcp_ping,                REQUEST,      true,        true,           false},
	{"notifications/initialized",        mcp_initialized,         NOTIFICATION, false,       true,           false},
	{"notifications/cancelled",          mcp_cancelled,           NOTIFICATION, false,       true,           false},
	{"notifications/roots/list_changed", mcp_roots_changed,       NOTIFICATION, false,       false,          false},
	{"logging/setLevel",                 mcp_set_level,           REQUEST,      false,       true,           false},
	{"tools/list",                       hermes_mcp_tools_list,   REQUEST,      false,       false,          false},
	{"tools/call",                       hermes_mcp_tools_call,   REQUEST,      false,       false,          false},
	{"resources/list",                   hermes_mcp_resources_list,      REQUEST, false,  false,          false},
	{"resources/templates/list",         hermes_mcp_resources_templates, REQUEST, false,  false,          false},
	{"resources/read",                   hermes_mcp_resources_read,      REQUEST, false,  false,          false},
	{"resources/subscribe",              hermes_mcp_resources_subscribe,   REQUEST, false, false,         false},
	{"resources/unsubscribe",            hermes_mcp_resources_unsubscribe, REQUEST, false, false,         false},
	{NULL, NULL, HERMES_METHOD_EITHER, false, false, false},
};

/* 2026-07-28: every request stands alone (no initialize); the revision removed ping,
 * logging/setLevel and the roots notifications. */
/* name                                handler                       sent as       before init  after shutdown  workspace */
static const method_t modern_methods[] = {
	{"server/discover",                  mcp_discover,                 REQUEST,      true,        true,           false},
	{"tools/list",                       hermes_mcp_modern_tools_list, REQUEST,      true,        false,          true},
	{"tools/call",                       hermes_mcp_modern_tools_call, REQUEST,      true,        false,          false},
	{"resources/list",                   hermes_mcp_modern_resources_list,      REQUEST, true, false,     true},
	{"resources/templates/list",         hermes_mcp_modern_resources_templates, REQUEST, true, false,     true},
	{"resources/read",                   hermes_mcp_modern_resources_read,      REQUEST, true, false,     true},
	{"notifications/cancelled",          mcp_cancelled,                NOTIFICATION, true,        true,           false},
	{"subscriptions/listen",             mcp_listen,                   REQUEST,      true,        false,          true},
	{NULL, NULL, HERMES_METHOD_EITHER, false, false, false},
};

/* The era of a call: 2026-07-28 if its _meta names a protocol version or client capabilities
 * (or it is server/discover, which only that era has); else the 2025 session's. */
static const method_t *table_for(const call_t *c)
{
	if (strcmp(c->m.method, "server/discover") == 0)
		return modern_methods;
	const hermes_json_t *meta = hermes_json_member(c->m.params, "_meta");
	return hermes_json_member(meta, HERMES_MCP_META_VERSION) ||
	       hermes_json_member(meta, HERMES_MCP_META_CAPABILITIES) ? modern_methods : methods;
}

const hermes_protocol_desc_t hermes_protocol_mcp = {methods, NULL, mcp_response, table_for, mcp_tick};
