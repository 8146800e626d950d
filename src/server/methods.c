/* server/methods.c: the methods answered on the reader thread: initialize (and the workspace it
 * chooses), hermes/verbs and hermes/schema. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/decode.h"
#include "core/executor.h"
#include "core/idl.h"
#include "server/jsonrpc.h"
#include "server/log.h"
#include "server/state.h"

/* Makes sure there is an executor: --root, else the current directory. 0, or -1 with why. */
int hermes_server_ensure_executor(server_t *srv, char *why, size_t why_len)
{
	if (srv->ex)
		return 0;
	if (srv->workspace_error) {
		snprintf(why, why_len, "%s", srv->workspace_error);
		return -1;
	}
	hermes_error_t err;
	if (hermes_executor_new(&srv->opts->config, &srv->ex, &err) != 0) {
		snprintf(why, why_len, "cannot open the workspace: %s", err.message);
		return -1;
	}
	hermes_log(HERMES_LOG_INFO, "workspace: %s", hermes_executor_root(srv->ex));
	return 0;
}

/* A file: URI (as LSP hosts send) to a path, percent-decoded; other text is a path already. */
static char *uri_to_path(const char *s)
{
	if (strncmp(s, "file://", 7) != 0)
		return strdup(s);
	s += 7;
	if (strncmp(s, "localhost/", 10) == 0)
		s += 9;
	char *out = malloc(strlen(s) + 1), *o = out;
	if (out == NULL)
		return NULL;
	for (; *s; s++) {
		if (*s == '%' && s[1] && s[2]) {
			char hex[3] = {s[1], s[2], 0};
			char *end;
			long v = strtol(hex, &end, 16);
			if (*end == '\0' && v > 0) {
				*o++ = (char)v;
				s += 2;
				continue;
			}
		}
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

static void append_verb_names(server_t *srv, hermes_buf_t *b)
{
	size_t n = hermes_executor_verb_count(srv->ex);
	hermes_buf_puts(b, "[");
	for (size_t i = 0; i < n; i++) {
		const hermes_verb_desc_t *d = hermes_executor_verb_at(srv->ex, i);
		if (i)
			hermes_buf_puts(b, ",");
		hermes_buf_json_string(b, d->name, strlen(d->name));
	}
	hermes_buf_puts(b, "]");
}

void hermes_method_initialize(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	const cJSON *p = m->params;
	if (srv->initialized) {
		hermes_reply_request_error(srv, batch, slot, m->id, HERMES_RPC_INVALID_REQUEST,
		                           "initialize was already received; the workspace cannot change", NULL);
		return;
	}
	if (p && !cJSON_IsObject(p)) {
		hermes_reply_invalid_params(srv, batch, slot, m->id, "params", "InvalidArguments",
		                            "initialize params must be an object");
		return;
	}
	const cJSON *wr = cJSON_GetObjectItemCaseSensitive(p, "workspaceRoot");
	if (wr == NULL || cJSON_IsNull(wr))
		wr = cJSON_GetObjectItemCaseSensitive(p, "rootUri"); /* what LSP hosts send */
	if (wr && !cJSON_IsNull(wr) && !cJSON_IsString(wr)) {
		hermes_reply_invalid_params(srv, batch, slot, m->id, "workspaceRoot", "InvalidArguments",
		                            "workspaceRoot must be a string (a directory path or a file: URI)");
		return;
	}
	const cJSON *ci = cJSON_GetObjectItemCaseSensitive(p, "clientInfo");
	if (cJSON_IsObject(ci)) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(ci, "name");
		const cJSON *ver = cJSON_GetObjectItemCaseSensitive(ci, "version");
		hermes_log(HERMES_LOG_INFO, "client: %s %s", cJSON_IsString(name) ? name->valuestring : "?",
		           cJSON_IsString(ver) ? ver->valuestring : "");
	}

	char *asked = NULL;
	if (cJSON_IsString(wr)) {
		if (srv->opts->root_given)
			hermes_log(HERMES_LOG_INFO, "workspaceRoot '%s' ignored: --root was given", wr->valuestring);
		else if ((asked = uri_to_path(wr->valuestring)) == NULL) {
			hermes_reply_request_error(srv, batch, slot, m->id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
			return;
		}
	}
	if (asked) {
		hermes_config_t config = srv->opts->config;
		config.root = asked;
		hermes_executor_t *ex = NULL;
		hermes_error_t err;
		if (hermes_executor_new(&config, &ex, &err) != 0) {
			const char *name = hermes_errcode_name(err.code);
			free(srv->workspace_error);
			size_t n = strlen(err.message) + 64;
			srv->workspace_error = malloc(n);
			if (srv->workspace_error)
				snprintf(srv->workspace_error, n, "initialize failed: %s", err.message);
			hermes_reply_invalid_params(srv, batch, slot, m->id, "workspaceRoot", name ? name : "NotFound",
			                            "cannot use workspaceRoot '%s': %s", asked, err.message);
			free(asked);
			return;
		}
		free(asked);
		if (srv->ex && strcmp(hermes_executor_root(srv->ex), hermes_executor_root(ex)) != 0) {
			hermes_reply_invalid_params(srv, batch, slot, m->id, "workspaceRoot", "InvalidArgument",
			                            "the workspace root cannot change: earlier requests already use '%s'",
			                            hermes_executor_root(srv->ex));
			hermes_executor_free(ex);
			return;
		}
		if (srv->ex)
			hermes_executor_free(ex);
		else
			srv->ex = ex;
		free(srv->workspace_error);
		srv->workspace_error = NULL;
	} else {
		char why[1024];
		if (hermes_server_ensure_executor(srv, why, sizeof why) != 0) {
			hermes_reply_request_error(srv, batch, slot, m->id, HERMES_RPC_INTERNAL_ERROR, why, NULL);
			return;
		}
	}
	srv->initialized = true;
	hermes_log(HERMES_LOG_INFO, "initialized; workspace %s", hermes_executor_root(srv->ex));
	if (m->id == NULL) {
		hermes_reply_nothing(srv, batch, slot);
		return;
	}
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"serverInfo\":{\"name\":\"hermes\",\"version\":");
	hermes_buf_json_string(&b, hermes_version(), strlen(hermes_version()));
	hermes_buf_puts(&b, "},\"capabilities\":{\"verbs\":");
	append_verb_names(srv, &b);
	hermes_buf_puts(&b, ",\"framing\":");
	hermes_buf_puts(&b, srv->framer.mode == HERMES_FRAMING_NDJSON ? "\"ndjson\"" : "\"content-length\"");
	hermes_buf_puts(&b, ",\"cancellation\":true,\"batches\":true,\"methods\":[\"initialize\","
	                "\"initialized\",\"shutdown\",\"exit\",\"$/cancelRequest\",\"hermes/execute\","
	                "\"hermes/schema\",\"hermes/verbs\"]},\"workspaceRoot\":");
	const char *root = hermes_executor_root(srv->ex);
	hermes_buf_json_string(&b, root, strlen(root));
	hermes_buf_puts(&b, "}");
	hermes_reply_result(srv, batch, slot, m->id, hermes_buf_finish(&b));
}

void hermes_method_verbs(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"verbs\":[");
	size_t n = hermes_executor_verb_count(srv->ex);
	for (size_t i = 0; i < n; i++) {
		const hermes_verb_desc_t *d = hermes_executor_verb_at(srv->ex, i);
		hermes_buf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
		hermes_buf_json_string(&b, d->name, strlen(d->name));
		hermes_buf_puts(&b, ",\"description\":");
		hermes_buf_json_string(&b, d->description, strlen(d->description));
		hermes_buf_puts(&b, "}");
	}
	hermes_buf_puts(&b, "]}");
	hermes_reply_result(srv, batch, slot, m->id, hermes_buf_finish(&b));
}

void hermes_method_schema(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	const cJSON *p = m->params;
	if (p && !cJSON_IsObject(p)) {
		hermes_reply_invalid_params(srv, batch, slot, m->id, "params", "InvalidArguments",
		                            "hermes/schema params must be an object: {\"verb\": name} or {}");
		return;
	}
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, "verb");
	hermes_buf_t b = HERMES_BUF_INIT;
	if (v && !cJSON_IsNull(v)) {
		if (!cJSON_IsString(v)) {
			hermes_reply_invalid_params(srv, batch, slot, m->id, "verb", "InvalidArguments",
			                            "verb must be a string naming a verb");
			return;
		}
		const hermes_verb_desc_t *d = hermes_executor_find(srv->ex, v->valuestring);
		if (d == NULL) {
			hermes_error_t err; /* the same sentence as `hermes schema` and hermes exec */
			hermes_decode_err_unknown_verb(&err, v->valuestring);
			hermes_reply_invalid_params(srv, batch, slot, m->id, "verb", "UnknownVerb", "%s",
			                            err.message);
			return;
		}
		char *idl = hermes_idl_for_verb(d);
		hermes_buf_puts(&b, "{\"verb\":");
		hermes_buf_json_string(&b, d->name, strlen(d->name));
		hermes_buf_puts(&b, ",\"schema\":");
		if (idl)
			hermes_buf_json_string(&b, idl, strlen(idl));
		else
			b.failed = true;
		free(idl);
	} else {
		hermes_buf_t all = HERMES_BUF_INIT;
		size_t n = hermes_executor_verb_count(srv->ex);
		for (size_t i = 0; i < n; i++) {
			char *idl = hermes_idl_for_verb(hermes_executor_verb_at(srv->ex, i));
			if (idl == NULL)
				all.failed = true;
			else {
				if (i)
					hermes_buf_puts(&all, "\n");
				hermes_buf_puts(&all, idl);
			}
			free(idl);
		}
		size_t len = all.len;
		char *text = hermes_buf_finish(&all);
		hermes_buf_puts(&b, "{\"schema\":");
		if (text)
			hermes_buf_json_string(&b, text, len);
		else
			b.failed = true;
		free(text);
	}
	hermes_buf_puts(&b, "}");
	hermes_reply_result(srv, batch, slot, m->id, hermes_buf_finish(&b));
}
