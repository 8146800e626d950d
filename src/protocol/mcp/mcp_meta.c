/* protocol/mcp/mcp_meta.c: MCP 2026-07-28's per-request metadata and result fields (see
 * mcp_meta.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/buf.h"
#include "core/executor.h"
#include "protocol/mcp/mcp_meta.h"

const char *const hermes_mcp_versions[] = {HERMES_MCP_MODERN_VERSION, "2025-11-25", "2025-06-18",
                                           "2025-03-26", "2024-11-05"};
const size_t hermes_mcp_version_count = sizeof hermes_mcp_versions / sizeof hermes_mcp_versions[0];

const char *const hermes_mcp_level_names[8] = {"debug", "info", "notice", "warning", "error",
                                               "critical", "alert", "emergency"};

int hermes_mcp_level(const char *name)
{
	for (int i = 0; name && i < 8; i++)
		if (strcmp(name, hermes_mcp_level_names[i]) == 0)
			return i;
	return -1;
}

void hermes_mcp_versions_json(hermes_buf_t *b)
{
	hermes_buf_putc(b, '[');
	for (size_t i = 0; i < hermes_mcp_version_count; i++) {
		if (i)
			hermes_buf_putc(b, ',');
		hermes_buf_json_string(b, hermes_mcp_versions[i], strlen(hermes_mcp_versions[i]));
	}
	hermes_buf_putc(b, ']');
}

static char *unsupported_data(const hermes_json_t *requested)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"supported\":");
	hermes_mcp_versions_json(&b);
	hermes_buf_puts(&b, ",\"requested\":");
	hermes_buf_json_string(&b, requested->str, requested->len);
	hermes_buf_puts(&b, "}");
	return hermes_buf_finish(&b);
}

int hermes_mcp_meta_read(const hermes_json_t *params, hermes_mcp_meta_t *m, char *why, size_t n,
                         char **data)
{
	memset(m, 0, sizeof *m);
	m->log_level = -1;
	*data = NULL;
	const hermes_json_t *meta = hermes_json_member(params, "_meta");
	const hermes_json_t *v = hermes_json_member(meta, HERMES_MCP_META_VERSION);
	if (v == NULL && hermes_json_member(meta, HERMES_MCP_META_CAPABILITIES) == NULL)
		return 0;
	m->modern = true;
	if (!hermes_json_is_c_string(v)) {
		snprintf(why, n, "params._meta[\"" HERMES_MCP_META_VERSION "\"] %s (a string such as "
		         "\"" HERMES_MCP_MODERN_VERSION "\", on every " HERMES_MCP_MODERN_VERSION " request)",
		         v ? "must be a string" : "is missing");
		return HERMES_RPC_INVALID_PARAMS;
	}
	m->version = v->str;
	if (strcmp(v->str, HERMES_MCP_MODERN_VERSION) != 0) {
		bool legacy = false;
		for (size_t i = 1; i < hermes_mcp_version_count; i++)
			legacy |= strcmp(v->str, hermes_mcp_versions[i]) == 0;
		if (legacy)
			snprintf(why, n, "Unsupported protocol version %s per request: Hermes speaks %s after an "
			         "initialize handshake, and " HERMES_MCP_MODERN_VERSION " per request",
			         v->str, v->str);
		else
			snprintf(why, n, "Unsupported protocol version %.64s (Hermes speaks "
			         HERMES_MCP_MODERN_VERSION ", and 2025-11-25 to 2024-11-05 after initialize)",
			         v->str);
		*data = unsupported_data(v);
		return HERMES_RPC_UNSUPPORTED_VERSION;
	}
	m->capabilities = hermes_json_member(meta, HERMES_MCP_META_CAPABILITIES);
	if (m->capabilities == NULL || m->capabilities->type != HERMES_JSON_OBJECT) {
		snprintf(why, n, "params._meta[\"" HERMES_MCP_META_CAPABILITIES "\"] %s (an object, {} "
		         "for none, on every " HERMES_MCP_MODERN_VERSION " request)",
		         m->capabilities ? "must be an object" : "is missing");
		return HERMES_RPC_INVALID_PARAMS;
	}
	m->client_info = hermes_json_member(meta, HERMES_MCP_META_CLIENT_INFO);
	const hermes_json_t *level = hermes_json_member(meta, HERMES_MCP_META_LOG_LEVEL);
	if (level) {
		m->log_level = hermes_json_is_c_string(level) ? hermes_mcp_level(level->str) : -1;
		if (m->log_level < 0) {
			snprintf(why, n, "params._meta[\"" HERMES_MCP_META_LOG_LEVEL "\"] must be one of debug, "
			         "info, notice, warning, error, critical, alert, emergency");
			return HERMES_RPC_INVALID_PARAMS;
		}
	}
	return 0;
}

char *hermes_mcp_complete(const char *result, size_t len, bool cacheable, size_t *out_len)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"resultType\":\"complete\",");
	if (cacheable)
		hermes_buf_printf(&b, "\"ttlMs\":%d,\"cacheScope\":\"public\",", HERMES_MCP_TTL_MS);
	hermes_buf_puts(&b, "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"hermes\","
	                "\"title\":\"Hermes\",\"version\":");
	hermes_buf_json_string(&b, hermes_version(), strlen(hermes_version()));
	hermes_buf_puts(&b, "}}");
	/* the fields of result after its '{', if it has any */
	size_t i = 0;
	while (i < len && result[i] != '{')
		i++;
	size_t j = hermes_json_skip_ws(result, len, i + 1);
	if (j < len && result[j] != '}')
		hermes_buf_putc(&b, ',');
	if (i + 1 < len)
		hermes_buf_append(&b, result + i + 1, len - i - 1);
	else
		hermes_buf_putc(&b, '}');
	*out_len = b.len;
	return hermes_buf_finish(&b);
}

int64_t hermes_mcp_clock_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}
