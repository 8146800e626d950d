/* server/dispatch.c: what each JSON-RPC message means: validation, batches, the lifecycle methods
 * (initialize, shutdown, exit), $/cancelRequest, the schema and verb listing, and the verb requests
 * that run on the worker pool. */
#include <config.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/executor.h"
#include "core/idl.h"
#include "core/json_scan.h"
#include "core/utf8.h"
#include "server/json_text.h"
#include "server/jsonrpc.h"
#include "server/log.h"
#include "server/state.h"

/* A batch: its replies are collected and sent together once the last one is in. */
struct batch {
	size_t n;          /* elements */
	size_t pending;    /* replies still to come, plus one held by the reader while dispatching */
	char **bodies;     /* per element: its reply body, NULL for a notification */
	size_t *lens;
};

static void free_request(request_t *req)
{
	cJSON_Delete(req->root);
	free(req->id);
	free(req->id_key);
	free(req);
}

/* The whole body of a reply as one string (for batches). */
static char *flatten(hermes_reply_t *r, size_t *len)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	for (int i = 0; i < 2; i++)
		hermes_buf_append(&b, r->part[i] ? r->part[i] : "", r->len[i]);
	if (r->tail)
		hermes_buf_puts(&b, r->tail);
	*len = b.len;
	hermes_reply_clear(r);
	return hermes_buf_finish(&b);
}

void hermes_dispatch_send(server_t *srv, hermes_reply_t *r)
{
	hermes_output_send(srv->out, srv->framer.mode, r);
}

/* Sends the collected replies of a finished batch (nothing if it held only notifications). */
static void send_batch(server_t *srv, batch_t *b)
{
	hermes_buf_t out = HERMES_BUF_INIT;
	bool any = false;
	for (size_t i = 0; i < b->n; i++) {
		if (b->bodies[i] == NULL)
			continue;
		hermes_buf_puts(&out, any ? "," : "[");
		hermes_buf_append(&out, b->bodies[i], b->lens[i]);
		free(b->bodies[i]);
		any = true;
	}
	hermes_buf_puts(&out, "]");
	size_t len = out.len;
	char *body = hermes_buf_finish(&out);
	if (any) {
		hermes_reply_t r = {{body, NULL}, {len, 0}, NULL};
		if (body == NULL)
			hermes_rpc_error(&r, NULL, HERMES_RPC_INTERNAL_ERROR, "out of memory building a batch reply", NULL);
		hermes_dispatch_send(srv, &r);
	} else {
		free(body);
	}
	free(b->bodies);
	free(b->lens);
	free(b);
}

/* Puts a reply where it belongs: into its batch, or straight out. Takes r. Returns a batch that
 * is now complete (the caller sends it after unlocking), or NULL. Server lock held. */
static batch_t *place_reply_locked(server_t *srv, batch_t *batch, size_t slot, hermes_reply_t *r)
{
	if (batch == NULL) {
		hermes_dispatch_send(srv, r);
		return NULL;
	}
	if (r->part[0] || r->part[1] || r->tail)
		batch->bodies[slot] = flatten(r, &batch->lens[slot]);
	return --batch->pending == 0 ? batch : NULL;
}

/* A reply made by the reader for an element or message that never reached the pool. */
static void reply_now(server_t *srv, batch_t *batch, size_t slot, hermes_reply_t *r)
{
	pthread_mutex_lock(&srv->lock);
	if (batch)
		batch->pending++; /* place_reply_locked takes one off */
	batch_t *done = place_reply_locked(srv, batch, slot, r);
	pthread_mutex_unlock(&srv->lock);
	if (done)
		send_batch(srv, done);
}

static void error_now(server_t *srv, batch_t *batch, size_t slot, const char *id, int code,
                      const char *message, const char *data)
{
	hermes_reply_t r;
	hermes_rpc_error(&r, id, code, message, data);
	reply_now(srv, batch, slot, &r);
}

/* A notification in a batch still owns a slot: mark it answered with nothing. */
static void nothing_now(server_t *srv, batch_t *batch, size_t slot)
{
	hermes_reply_t r = {{NULL, NULL}, {0, 0}, NULL};
	if (batch)
		reply_now(srv, batch, slot, &r);
}

/* An error about a request; a notification is never answered, so for one it is only logged. */
static void answer_error(server_t *srv, batch_t *batch, size_t slot, const char *id, int code,
                         const char *message, const char *data)
{
	if (id) {
		error_now(srv, batch, slot, id, code, message, data);
	} else {
		hermes_log(HERMES_LOG_WARN, "notification failed: %s", message);
		nothing_now(srv, batch, slot);
	}
}

static void result_now(server_t *srv, batch_t *batch, size_t slot, const char *id, char *json)
{
	if (id == NULL) {
		free(json);
		nothing_now(srv, batch, slot);
		return;
	}
	hermes_reply_t r;
	if (json == NULL)
		hermes_rpc_error(&r, id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		hermes_rpc_result(&r, id, json, strlen(json));
	reply_now(srv, batch, slot, &r);
}

/* Answers waiting shutdown requests once nothing is in flight, and wakes a finishing loop. */
void hermes_dispatch_check_idle(server_t *srv)
{
	pending_id_t *ids = NULL;
	bool wake = false;
	pthread_mutex_lock(&srv->lock);
	if (srv->active_count == 0) {
		ids = srv->shutdown_replies;
		srv->shutdown_replies = NULL;
		wake = srv->finishing;
	}
	pthread_mutex_unlock(&srv->lock);
	while (ids) {
		pending_id_t *next = ids->next;
		hermes_reply_t r;
		hermes_rpc_result(&r, ids->id, strdup("null"), 4);
		hermes_dispatch_send(srv, &r);
		free(ids->id);
		free(ids);
		ids = next;
	}
	if (wake)
		hermes_server_wake(srv);
}

/* The end of a pooled request: off the active list, reply placed, request freed. */
static void complete(request_t *req, hermes_reply_t *r)
{
	server_t *srv = req->srv;
	pthread_mutex_lock(&srv->lock);
	if (req->prev)
		req->prev->next = req->next;
	else
		srv->active = req->next;
	if (req->next)
		req->next->prev = req->prev;
	srv->active_count--;
	bool idle = srv->active_count == 0;
	batch_t *done;
	if (req->id == NULL) {
		hermes_reply_clear(r);
		hermes_reply_t none = {{NULL, NULL}, {0, 0}, NULL};
		done = req->batch ? place_reply_locked(srv, req->batch, req->slot, &none) : NULL;
	} else {
		done = place_reply_locked(srv, req->batch, req->slot, r);
	}
	pthread_mutex_unlock(&srv->lock);
	if (done)
		send_batch(srv, done);
	free_request(req);
	if (idle)
		hermes_dispatch_check_idle(srv);
}

static void cancelled_reply(hermes_reply_t *r, const char *id, char *result)
{
	if (result) {
		hermes_buf_t b = HERMES_BUF_INIT;
		hermes_buf_puts(&b, "{\"result\":");
		hermes_buf_puts(&b, result);
		hermes_buf_puts(&b, "}");
		char *data = hermes_buf_finish(&b);
		hermes_rpc_error(r, id, HERMES_RPC_CANCELLED, "request cancelled", data);
		free(data);
	} else {
		hermes_rpc_error(r, id, HERMES_RPC_CANCELLED, "request cancelled", NULL);
	}
}

/* Did the verb stop because it was cancelled (errorCode Cancelled)? */
static bool result_is_cancelled(const char *result)
{
	cJSON *j = cJSON_Parse(result);
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(j, "errorCode");
	bool c = cJSON_IsString(code) && strcmp(code->valuestring, "Cancelled") == 0;
	cJSON_Delete(j);
	return c;
}

static void invalid_params_reply(hermes_reply_t *r, const char *id, const hermes_error_t *err)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	const char *name = hermes_errcode_name(err->code);
	hermes_buf_puts(&b, "{\"errorCode\":");
	hermes_buf_json_string(&b, name ? name : "InvalidArguments", strlen(name ? name : "InvalidArguments"));
	if (err->field[0]) {
		hermes_buf_puts(&b, ",\"field\":");
		hermes_buf_json_string(&b, err->field, strlen(err->field));
	}
	hermes_buf_puts(&b, "}");
	char *data = hermes_buf_finish(&b);
	hermes_rpc_error(r, id, HERMES_RPC_INVALID_PARAMS, err->message[0] ? err->message : "invalid params", data);
	free(data);
}

/* A worker runs this for every pooled request. */
static void run_request(hermes_pool_job_t *job)
{
	request_t *req = (request_t *)job;
	server_t *srv = req->srv;
	hermes_reply_t r;

	/* Only a blocking verb (proc.run) watches a cancellation token; the others run to the end
	 * anyway, so they are spared the descriptor it costs. */
	hermes_cancel_t *token = NULL;
	if (req->job.blocking && (token = hermes_cancel_new()) == NULL)
		hermes_log(HERMES_LOG_WARN, "no cancellation token for a request (out of descriptors?)");
	pthread_mutex_lock(&srv->lock);
	req->started = true;
	bool cancelled = req->cancel_requested;
	req->token = cancelled ? NULL : token;
	pthread_mutex_unlock(&srv->lock);
	if (cancelled) {
		/* cancelled between leaving the queue and starting: it never runs */
		hermes_cancel_free(token);
		cancelled_reply(&r, req->id, NULL);
		complete(req, &r);
		return;
	}

	char *result = NULL;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	hermes_outcome_t outcome = hermes_execute_cjson(srv->ex, req->verb, req->params, 0, token,
	                                                &result, &err);

	if (token) {
		pthread_mutex_lock(&srv->lock);
		req->token = NULL;
		cancelled = req->cancel_requested;
		pthread_mutex_unlock(&srv->lock);
		hermes_cancel_free(token);
	}

	if (req->id == NULL) {
		free(result);
		memset(&r, 0, sizeof r);
	} else if (result == NULL) {
		hermes_rpc_error(&r, req->id, HERMES_RPC_INTERNAL_ERROR, "out of memory running the verb", NULL);
	} else if (outcome == HERMES_OUTCOME_INVALID) {
		free(result);
		invalid_params_reply(&r, req->id, &err);
	} else if (cancelled && outcome == HERMES_OUTCOME_FAILED && result_is_cancelled(result)) {
		cancelled_reply(&r, req->id, result);
		free(result);
	} else {
		hermes_rpc_result(&r, req->id, result, strlen(result));
	}
	complete(req, &r);
}

/* ---- the workspace ---------------------------------------------------------------------- */

/* Makes sure there is an executor: --root, else the current directory. 0, or -1 with why. */
static int ensure_executor(server_t *srv, char *why, size_t why_len)
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

static void field_error(server_t *srv, batch_t *batch, size_t slot, const char *id,
                        const char *field, const char *errcode, const char *fmt, ...)
	HERMES_PRINTF(7, 8);

static void field_error(server_t *srv, batch_t *batch, size_t slot, const char *id,
                        const char *field, const char *errcode, const char *fmt, ...)
{
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"errorCode\":");
	hermes_buf_json_string(&b, errcode, strlen(errcode));
	hermes_buf_puts(&b, ",\"field\":");
	hermes_buf_json_string(&b, field, strlen(field));
	hermes_buf_puts(&b, "}");
	char *data = hermes_buf_finish(&b);
	answer_error(srv, batch, slot, id, HERMES_RPC_INVALID_PARAMS, message, data);
	free(data);
}

static void do_initialize(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	const cJSON *p = m->params;
	if (srv->initialized) {
		answer_error(srv, batch, slot, m->id, HERMES_RPC_INVALID_REQUEST,
		             "initialize was already received; the workspace cannot change", NULL);
		return;
	}
	if (p && !cJSON_IsObject(p)) {
		field_error(srv, batch, slot, m->id, "params", "InvalidArguments",
		            "initialize params must be an object");
		return;
	}
	const cJSON *wr = cJSON_GetObjectItemCaseSensitive(p, "workspaceRoot");
	if (wr == NULL || cJSON_IsNull(wr))
		wr = cJSON_GetObjectItemCaseSensitive(p, "rootUri"); /* what LSP hosts send */
	if (wr && !cJSON_IsNull(wr) && !cJSON_IsString(wr)) {
		field_error(srv, batch, slot, m->id, "workspaceRoot", "InvalidArguments",
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
			answer_error(srv, batch, slot, m->id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
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
			field_error(srv, batch, slot, m->id, "workspaceRoot", name ? name : "NotFound",
			            "cannot use workspaceRoot '%s': %s", asked, err.message);
			free(asked);
			return;
		}
		free(asked);
		if (srv->ex && strcmp(hermes_executor_root(srv->ex), hermes_executor_root(ex)) != 0) {
			field_error(srv, batch, slot, m->id, "workspaceRoot", "InvalidArgument",
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
		if (ensure_executor(srv, why, sizeof why) != 0) {
			answer_error(srv, batch, slot, m->id, HERMES_RPC_INTERNAL_ERROR, why, NULL);
			return;
		}
	}
	srv->initialized = true;
	hermes_log(HERMES_LOG_INFO, "initialized; workspace %s", hermes_executor_root(srv->ex));
	if (m->id == NULL) {
		nothing_now(srv, batch, slot);
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
	result_now(srv, batch, slot, m->id, hermes_buf_finish(&b));
}

static void do_verbs(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
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
	result_now(srv, batch, slot, m->id, hermes_buf_finish(&b));
}

static void do_schema(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	const cJSON *p = m->params;
	if (p && !cJSON_IsObject(p)) {
		field_error(srv, batch, slot, m->id, "params", "InvalidArguments",
		            "hermes/schema params must be an object: {\"verb\": name} or {}");
		return;
	}
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, "verb");
	hermes_buf_t b = HERMES_BUF_INIT;
	if (v && !cJSON_IsNull(v)) {
		if (!cJSON_IsString(v)) {
			field_error(srv, batch, slot, m->id, "verb", "InvalidArguments",
			            "verb must be a string naming a verb");
			return;
		}
		const hermes_verb_desc_t *d = hermes_executor_find(srv->ex, v->valuestring);
		if (d == NULL) {
			hermes_buf_t names = HERMES_BUF_INIT;
			size_t n = hermes_executor_verb_count(srv->ex);
			for (size_t i = 0; i < n; i++) {
				hermes_buf_puts(&names, i ? ", " : "");
				hermes_buf_puts(&names, hermes_executor_verb_at(srv->ex, i)->name);
			}
			char *list = hermes_buf_finish(&names);
			field_error(srv, batch, slot, m->id, "verb", "UnknownVerb",
			            "unknown verb '%s' (expected one of: %s)", v->valuestring, list ? list : "");
			free(list);
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
	result_now(srv, batch, slot, m->id, hermes_buf_finish(&b));
}

/* Cancels the requests matching key (NULL: all). Queued ones are answered -32800 at once and never
 * run; running ones have their token cancelled (proc.run ends its process group). */
static size_t cancel_matching(server_t *srv, const char *key)
{
	request_t *dropped = NULL;
	size_t n = 0;
	pthread_mutex_lock(&srv->lock);
	for (request_t *r = srv->active; r; r = r->next) {
		if (key && (r->id_key == NULL || strcmp(r->id_key, key) != 0))
			continue;
		n++;
		if (!r->started && hermes_pool_remove(srv->pool, &r->job)) {
			r->dropped = dropped;
			dropped = r;
		} else {
			r->cancel_requested = true;
			if (r->token)
				hermes_cancel_request(r->token);
		}
	}
	pthread_mutex_unlock(&srv->lock);
	while (dropped) {
		request_t *next = dropped->dropped;
		hermes_reply_t r;
		cancelled_reply(&r, dropped->id, NULL);
		complete(dropped, &r);
		dropped = next;
	}
	return n;
}

void hermes_dispatch_cancel_all(server_t *srv)
{
	size_t n = cancel_matching(srv, NULL);
	if (n)
		hermes_log(HERMES_LOG_INFO, "cancelled %zu request(s)", n);
}

static void do_cancel(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	const char *raw = NULL;
	size_t raw_len = 0;
	char *key = NULL;
	if (m->params_raw && cJSON_IsObject(m->params) &&
	    hermes_jt_member(m->params_raw, m->params_raw_len, "id", &raw, &raw_len) == 1)
		key = hermes_rpc_id_key(raw, raw_len);
	if (key == NULL) {
		field_error(srv, batch, slot, m->id, "id", "InvalidArguments",
		            "$/cancelRequest needs params {\"id\": <the id of the request to cancel>}");
		return;
	}
	size_t n = cancel_matching(srv, key);
	hermes_log(HERMES_LOG_DEBUG, "$/cancelRequest %.*s: %zu request(s) in flight", (int)raw_len, raw, n);
	free(key);
	if (m->id)
		result_now(srv, batch, slot, m->id, strdup("null"));
	else
		nothing_now(srv, batch, slot);
}

static void do_shutdown(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	hermes_log(HERMES_LOG_INFO, "shutdown: finishing the work in flight");
	pthread_mutex_lock(&srv->lock);
	srv->shutdown = true;
	bool now = srv->active_count == 0;
	pending_id_t *p = NULL;
	if (!now && m->id && batch == NULL && (p = malloc(sizeof *p)) != NULL) {
		p->id = m->id;
		m->id = NULL;
		p->next = srv->shutdown_replies;
		srv->shutdown_replies = p;
	}
	pthread_mutex_unlock(&srv->lock);
	if (m->id == NULL && p == NULL) {
		/* A shutdown notification (some hosts send one): finish the work, then exit. */
		srv->stop_reading = true;
		if (srv->exit_status < 0)
			srv->exit_status = 0;
		nothing_now(srv, batch, slot);
		return;
	}
	if (p == NULL) /* nothing in flight (or in a batch: its own reply waits for the batch) */
		result_now(srv, batch, slot, m->id, strdup("null"));
}

static void do_exit(server_t *srv, hermes_rpc_message_t *m, batch_t *batch, size_t slot)
{
	pthread_mutex_lock(&srv->lock);
	bool clean = srv->shutdown;
	srv->shutdown = true;
	pthread_mutex_unlock(&srv->lock);
	hermes_log(HERMES_LOG_INFO, "exit%s", clean ? "" : " without shutdown: cancelling the work in flight");
	if (!clean)
		hermes_dispatch_cancel_all(srv);
	srv->stop_reading = true;
	if (srv->exit_status < 0)
		srv->exit_status = clean ? 0 : 1;
	if (m->id)
		result_now(srv, batch, slot, m->id, strdup("null"));
	else
		nothing_now(srv, batch, slot);
}

/* Queues a verb request on the pool. verb NULL: hermes/execute (params is the envelope). */
static void queue_verb(server_t *srv, hermes_rpc_message_t *m, const hermes_verb_desc_t *verb,
                       batch_t *batch, size_t slot)
{
	if (m->params && !cJSON_IsObject(m->params)) {
		field_error(srv, batch, slot, m->id, "params", verb ? "InvalidArguments" : "InvalidEnvelope",
		            verb ? "params of %s must be an object of named arguments"
		                 : "params of %s must be an envelope object {\"verb\": ..., \"arguments\": {...}}",
		            verb ? verb->name : "hermes/execute");
		return;
	}
	if (verb == NULL && m->params == NULL) {
		field_error(srv, batch, slot, m->id, "params", "InvalidEnvelope",
		            "hermes/execute needs params: an envelope {\"verb\": ..., \"arguments\": {...}}");
		return;
	}
	request_t *req = calloc(1, sizeof *req);
	if (req == NULL) {
		answer_error(srv, batch, slot, m->id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	const hermes_verb_desc_t *runs = verb;
	if (runs == NULL) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(m->params, "verb");
		runs = cJSON_IsString(v) ? hermes_executor_find(srv->ex, v->valuestring) : NULL;
	}
	req->srv = srv;
	req->job.run = run_request;
	/* proc.run waits on a child: it must not hold up a worker that quick requests need */
	req->job.blocking = runs && strcmp(runs->name, "proc.run") == 0;
	req->root = m->root;
	req->params = m->params;
	req->verb = verb ? verb->name : NULL;
	req->id = m->id;
	req->id_key = m->id_key;
	req->batch = batch;
	req->slot = slot;
	m->root = NULL;
	m->id = m->id_key = NULL;

	pthread_mutex_lock(&srv->lock);
	req->next = srv->active;
	if (srv->active)
		srv->active->prev = req;
	srv->active = req;
	srv->active_count++;
	if (batch)
		batch->pending++;
	pthread_mutex_unlock(&srv->lock);
	if (hermes_pool_submit(srv->pool, &req->job) != 0) {
		hermes_reply_t r;
		hermes_rpc_error(&r, req->id, HERMES_RPC_INTERNAL_ERROR, "cannot start a worker thread", NULL);
		complete(req, &r);
	}
}

/* One request object (alone or in a batch): text[0..len) is valid JSON. */
static void handle_object(server_t *srv, const char *text, size_t len, batch_t *batch, size_t slot)
{
	hermes_rpc_message_t m;
	hermes_rpc_kind_t kind = hermes_rpc_parse(text, len, &m);
	if (kind == HERMES_RPC_RESPONSE) {
		hermes_log(HERMES_LOG_DEBUG, "a response (id %s) ignored: hermes serve sends no requests", m.id);
		nothing_now(srv, batch, slot);
		goto out;
	}
	if (kind == HERMES_RPC_INVALID) {
		hermes_log(HERMES_LOG_DEBUG, "invalid request: %s", m.why);
		error_now(srv, batch, slot, m.id, m.code, m.why, NULL);
		goto out;
	}
	const char *method = m.method;
	if (m.id)
		hermes_log(HERMES_LOG_DEBUG, "request %s (id %s)", method, m.id);
	else
		hermes_log(HERMES_LOG_DEBUG, "notification %s", method);

	if (strcmp(method, "exit") == 0) {
		do_exit(srv, &m, batch, slot);
		goto out;
	}
	if (strcmp(method, "$/cancelRequest") == 0) {
		do_cancel(srv, &m, batch, slot);
		goto out;
	}
	pthread_mutex_lock(&srv->lock);
	bool shutting_down = srv->shutdown;
	pthread_mutex_unlock(&srv->lock);
	if (shutting_down) {
		if (m.id)
			error_now(srv, batch, slot, m.id, HERMES_RPC_INVALID_REQUEST,
			          "the server is shutting down and takes no new requests", NULL);
		else
			nothing_now(srv, batch, slot);
		goto out;
	}
	if (strcmp(method, "initialize") == 0) {
		do_initialize(srv, &m, batch, slot);
		goto out;
	}
	if (strcmp(method, "initialized") == 0) {
		if (m.id)
			result_now(srv, batch, slot, m.id, strdup("null"));
		else
			nothing_now(srv, batch, slot);
		goto out;
	}
	if (strcmp(method, "shutdown") == 0) {
		do_shutdown(srv, &m, batch, slot);
		goto out;
	}

	bool execute = strcmp(method, "hermes/execute") == 0;
	bool verbs = strcmp(method, "hermes/verbs") == 0;
	bool schema = strcmp(method, "hermes/schema") == 0;
	const hermes_verb_desc_t *desc = NULL;
	if (!execute && !verbs && !schema && (desc = hermes_verb_desc_find(method)) == NULL) {
		if (m.id) {
			char message[512];
			snprintf(message, sizeof message, "method not found: '%.400s'", method);
			error_now(srv, batch, slot, m.id, HERMES_RPC_METHOD_NOT_FOUND, message, NULL);
		} else {
			/* unknown notifications ($/setTrace, ...) are ignored, as LSP asks */
			hermes_log(HERMES_LOG_DEBUG, "notification '%s' ignored", method);
			nothing_now(srv, batch, slot);
		}
		goto out;
	}
	char why[1024];
	if (ensure_executor(srv, why, sizeof why) != 0) {
		answer_error(srv, batch, slot, m.id, HERMES_RPC_INTERNAL_ERROR, why, NULL);
		goto out;
	}
	if (verbs)
		do_verbs(srv, &m, batch, slot);
	else if (schema)
		do_schema(srv, &m, batch, slot);
	else if (execute)
		queue_verb(srv, &m, NULL, batch, slot);
	else if ((desc = hermes_executor_find(srv->ex, method)) == NULL) {
		char message[512];
		snprintf(message, sizeof message, "method not found: verb '%.400s' is not available", method);
		answer_error(srv, batch, slot, m.id, HERMES_RPC_METHOD_NOT_FOUND, message, NULL);
	} else
		queue_verb(srv, &m, desc, batch, slot);
out:
	hermes_rpc_message_clear(&m);
}

void hermes_dispatch_frame_error(server_t *srv, int code, const char *message)
{
	hermes_log(HERMES_LOG_WARN, "%s", message);
	error_now(srv, NULL, 0, NULL, code, message, NULL);
}

void hermes_dispatch_message(server_t *srv, char *body, size_t len)
{
	size_t end = 0;
	hermes_error_t err;
	if (hermes_json_scan(body, len, 0, HERMES_RPC_MAX_DEPTH, &end, &err) != 0 ||
	    hermes_json_skip_ws(body, len, end) != len) {
		char message[sizeof err.message + 64], data[64];
		if (end < len && hermes_json_skip_ws(body, len, end) != len &&
		    hermes_json_scan(body, len, 0, HERMES_RPC_MAX_DEPTH, &end, &err) == 0) {
			int line, column;
			hermes_text_position(body, end, &line, &column);
			snprintf(message, sizeof message, "parse error: unexpected text after the JSON value "
			         "at line %d, column %d", line, column);
			snprintf(data, sizeof data, "{\"line\":%d,\"column\":%d}", line, column);
		} else {
			snprintf(message, sizeof message, "parse error: %s", err.message);
			snprintf(data, sizeof data, "{\"line\":%d,\"column\":%d}", err.line, err.column);
		}
		hermes_log(HERMES_LOG_DEBUG, "%s", message);
		error_now(srv, NULL, 0, NULL, HERMES_RPC_PARSE_ERROR, message, data);
		free(body);
		return;
	}
	const char *p = body + hermes_json_skip_ws(body, len, 0);
	if (*p == '{') {
		handle_object(srv, body, len, NULL, 0);
	} else if (*p == '[') {
		/* A batch: count the elements, then dispatch each; the reply goes out when the last
		 * element is answered. */
		const char *e = body + len;
		size_t n = 0;
		const char *q = hermes_jt_skip_ws(p + 1, e);
		while (q < e && *q != ']') {
			n++;
			q = hermes_jt_skip_ws(hermes_jt_skip_value(q, e), e);
			if (q < e && *q == ',')
				q = hermes_jt_skip_ws(q + 1, e);
		}
		if (n == 0) {
			error_now(srv, NULL, 0, NULL, HERMES_RPC_INVALID_REQUEST, "empty batch: a batch must hold at least one request", NULL);
			free(body);
			return;
		}
		batch_t *b = calloc(1, sizeof *b);
		if (b)
			b->bodies = calloc(n, sizeof *b->bodies), b->lens = calloc(n, sizeof *b->lens);
		if (b == NULL || b->bodies == NULL || b->lens == NULL) {
			if (b)
				free(b->bodies), free(b->lens);
			free(b);
			error_now(srv, NULL, 0, NULL, HERMES_RPC_INTERNAL_ERROR, "out of memory for a batch", NULL);
			free(body);
			return;
		}
		b->n = n;
		b->pending = 1; /* held while dispatching */
		q = hermes_jt_skip_ws(p + 1, e);
		for (size_t i = 0; i < n; i++) {
			const char *v = q;
			const char *ve = hermes_jt_skip_value(q, e);
			if (*v == '{')
				handle_object(srv, v, (size_t)(ve - v), b, i);
			else
				error_now(srv, b, i, NULL, HERMES_RPC_INVALID_REQUEST,
				          "a batch element must be a request object", NULL);
			q = hermes_jt_skip_ws(ve, e);
			if (q < e && *q == ',')
				q = hermes_jt_skip_ws(q + 1, e);
		}
		pthread_mutex_lock(&srv->lock);
		bool done = --b->pending == 0;
		pthread_mutex_unlock(&srv->lock);
		if (done)
			send_batch(srv, b);
	} else {
		error_now(srv, NULL, 0, NULL, HERMES_RPC_INVALID_REQUEST,
		          "a message must be a request object (or a batch: an array of them)", NULL);
	}
	free(body);
}
