/* protocol/hermes/hermes_lifecycle.c: the Hermes protocol's lifecycle methods: initialize (and the
 * workspace it chooses), initialized, shutdown and exit. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/executor.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "protocol/hermes/hermes_methods.h"
#include "rpc/state.h"

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

/* The method names of the table, for the initialize result. */
static void append_method_names(server_t *srv, hermes_buf_t *b)
{
	const method_t *methods = srv->protocols[HERMES_PROTOCOL_HERMES]->methods;
	hermes_buf_puts(b, "[");
	for (size_t i = 0; methods[i].name; i++) {
		if (i)
			hermes_buf_puts(b, ",");
		hermes_buf_json_string(b, methods[i].name, strlen(methods[i].name));
	}
	hermes_buf_puts(b, "]");
}

static void log_client(const hermes_json_t *p)
{
	const hermes_json_t *ci = hermes_json_member(p, "clientInfo");
	if (ci == NULL || ci->type != HERMES_JSON_OBJECT)
		return;
	const hermes_json_t *name = hermes_json_member(ci, "name");
	const hermes_json_t *ver = hermes_json_member(ci, "version");
	hermes_log(HERMES_LOG_INFO, "client: %s %s", hermes_json_is_c_string(name) ? name->str : "?",
	           hermes_json_is_c_string(ver) ? ver->str : "");
}

/* Opens the workspace initialize asked for (asked: a path). 0, or -1 once answered. */
static int use_root(server_t *srv, call_t *c, const char *asked)
{
	hermes_config_t config = srv->opts.config;
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
		hermes_reply_invalid_params(c, "workspaceRoot", name ? name : "NotFound",
		                            "cannot use workspaceRoot '%s': %s", asked, err.message);
		return -1;
	}
	if (srv->ex && strcmp(hermes_executor_root(srv->ex), hermes_executor_root(ex)) != 0) {
		hermes_reply_invalid_params(c, "workspaceRoot", "InvalidArgument",
		                            "the workspace root cannot change: earlier requests already use '%s'",
		                            hermes_executor_root(srv->ex));
		hermes_executor_free(ex);
		return -1;
	}
	if (srv->ex)
		hermes_executor_free(ex);
	else
		srv->ex = ex;
	free(srv->workspace_error);
	srv->workspace_error = NULL;
	return 0;
}

void hermes_method_initialize(server_t *srv, call_t *c)
{
	const hermes_json_t *p = c->m.params;
	if (srv->protocol == HERMES_PROTOCOL_AUTO && hermes_json_member(p, "protocolVersion")) {
		/* an MCP client: the session speaks MCP from now on */
		hermes_dispatch_handoff(srv, c, HERMES_PROTOCOL_MCP);
		return;
	}
	if (srv->initialized) {
		hermes_reply_error(c, HERMES_RPC_INVALID_REQUEST,
		                   "initialize was already received; the workspace cannot change", NULL);
		return;
	}
	if (p && p->type != HERMES_JSON_OBJECT) {
		hermes_reply_invalid_params(c, "params", "InvalidArguments",
		                            "initialize params must be an object");
		return;
	}
	const hermes_json_t *wr = hermes_json_member(p, "workspaceRoot");
	const char *field = "workspaceRoot";
	if (wr == NULL || wr->type == HERMES_JSON_NULL) {
		wr = hermes_json_member(p, "rootUri"); /* what LSP hosts send */
		field = "rootUri";
	}
	if (wr && wr->type != HERMES_JSON_NULL && wr->type != HERMES_JSON_STRING) {
		hermes_reply_invalid_params(c, field, "InvalidArguments",
		                            "%s must be a string (a directory path or a file: URI)", field);
		return;
	}
	if (wr && wr->type == HERMES_JSON_STRING && !hermes_json_is_c_string(wr)) {
		hermes_reply_invalid_params(c, field, "InvalidArguments",
		                            "%s must not contain a NUL character (\\u0000)", field);
		return;
	}
	log_client(p);

	char *asked = NULL;
	if (wr && wr->type == HERMES_JSON_STRING) {
		bool bad;
		if (srv->opts.root_given)
			hermes_log(HERMES_LOG_INFO, "workspaceRoot '%s' ignored: --root was given", wr->str);
		else if ((asked = hermes_uri_path(wr->str, false, &bad)) == NULL) {
			if (bad)
				hermes_reply_invalid_params(c, field, "InvalidArguments",
				                            "%s must be a directory path or a file: URI of this "
				                            "machine, without an encoded NUL byte (%%00)", field);
			else
				hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
			return;
		}
	}
	if (asked) {
		int rc = use_root(srv, c, asked);
		free(asked);
		if (rc != 0)
			return;
	} else {
		char why[1024];
		if (hermes_server_workspace(srv, why, sizeof why) != 0) {
			hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, why, NULL);
			return;
		}
	}
	srv->initialized = true;
	srv->protocol = HERMES_PROTOCOL_HERMES;
	hermes_log(HERMES_LOG_INFO, "initialized; workspace %s", hermes_executor_root(srv->ex));
	if (c->m.id == NULL) {
		hermes_reply_nothing(c);
		return;
	}
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"serverInfo\":{\"name\":\"hermes\",\"version\":");
	hermes_buf_json_string(&b, hermes_version(), strlen(hermes_version()));
	hermes_buf_puts(&b, "},\"capabilities\":{\"verbs\":");
	append_verb_names(srv, &b);
	const char *framing = c->ch->ops->framing ? c->ch->ops->framing(c->ch) : NULL;
	if (framing) {
		hermes_buf_puts(&b, ",\"framing\":");
		hermes_buf_json_string(&b, framing, strlen(framing));
	}
	hermes_buf_puts(&b, ",\"cancellation\":true,\"batches\":true,\"methods\":");
	append_method_names(srv, &b);
	hermes_buf_puts(&b, "},\"workspaceRoot\":");
	const char *root = hermes_executor_root(srv->ex);
	hermes_buf_json_string(&b, root, strlen(root));
	hermes_buf_puts(&b, "}");
	hermes_reply_result(c, hermes_buf_finish(&b));
}

void hermes_method_initialized(server_t *srv, call_t *c)
{
	(void)srv;
	hermes_reply_result(c, strdup("null"));
}

void hermes_method_shutdown(server_t *srv, call_t *c)
{
	hermes_log(HERMES_LOG_INFO, "shutdown: finishing the work in flight");
	if (c->m.id == NULL) {
		/* A shutdown notification (some hosts send one): finish the work, then exit. */
		hermes_inflight_shutdown(srv, c->ch, NULL);
		srv->stop_reading = true;
		if (srv->exit_status < 0)
			srv->exit_status = 0;
		hermes_reply_nothing(c);
	} else if (c->batch) {
		/* its reply goes out with its batch, which waits for the batch's own work anyway */
		hermes_inflight_shutdown(srv, c->ch, NULL);
		hermes_reply_result(c, strdup("null"));
	} else {
		hermes_inflight_shutdown(srv, c->ch, c->m.id); /* answered once the work in flight is done */
		c->m.id = NULL;
	}
}

void hermes_method_exit(server_t *srv, call_t *c)
{
	pthread_mutex_lock(&srv->lock);
	bool clean = srv->shutdown;
	srv->shutdown = true;
	pthread_mutex_unlock(&srv->lock);
	hermes_log(HERMES_LOG_INFO, "exit%s", clean ? "" : " without shutdown: cancelling the work in flight");
	if (!clean) {
		size_t n = hermes_inflight_cancel(srv, NULL, 0, 0);
		if (n)
			hermes_log(HERMES_LOG_INFO, "cancelled %zu request(s)", n);
	}
	srv->stop_reading = true;
	if (srv->exit_status < 0)
		srv->exit_status = clean ? 0 : 1;
	hermes_reply_result(c, strdup("null"));
}
