/* protocol/mcp/mcp_tools.c: the MCP module's tools: one tool per verb of the table (tools/list,
 * with the JSON Schemas the generator made from defs/verbs.def and annotations from the verb
 * traits), and tools/call, which runs the verb on the worker pool like any Hermes request; in both
 * eras (a 2026-07-28 result is the 2025 one made complete). A 2025 call that comes before the
 * client's roots/list answer waits for it (parked). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/executor.h"
#include "core/json_schema.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "protocol/mcp/mcp.h"
#include "rpc/state.h"

/* A tool call waiting for the workspace (the client's roots). */
typedef struct parked {
	struct parked *next;
	call_t c;      /* its id strings, a reference on its message and a hold on its channel */
	bool modern;
} parked_t;

/* A tool's name: the verb's with '_' for '.', which the Anthropic and OpenAI APIs accept
 * (^[a-zA-Z0-9_-]{1,64}$). */
static void tool_name(const char *verb, char *out, size_t size)
{
	snprintf(out, size, "%s", verb);
	for (char *p = out; *p; p++)
		if (*p == '.')
			*p = '_';
}

static void append_bool(hermes_buf_t *b, const char *name, bool v)
{
	hermes_buf_printf(b, "\"%s\":%s", name, v ? "true" : "false");
}

static void append_tool(hermes_buf_t *b, const hermes_verb_desc_t *d)
{
	char name[128];
	tool_name(d->name, name, sizeof name);
	hermes_buf_puts(b, "{\"name\":");
	hermes_buf_json_string(b, name, strlen(name));
	hermes_buf_puts(b, ",\"title\":");
	hermes_buf_json_string(b, d->name, strlen(d->name));
	/* The verb's sentence, then its arguments' (the rules and the error words a model needs). */
	hermes_buf_t desc = HERMES_BUF_INIT;
	hermes_buf_puts(&desc, d->description);
	const char *more = d->args->description ? d->args->description : "";
	const char *colon = strstr(more, ": ");
	if (strncmp(more, "Arguments of ", 13) == 0 && colon)
		more = colon + 2; /* "Arguments of fs.copyFile: a source and ..." */
	if (more[0] && strcmp(more, "none.") != 0) {
		hermes_buf_puts(&desc, " ");
		char first = more[0] >= 'a' && more[0] <= 'z' ? (char)(more[0] - 'a' + 'A') : more[0];
		hermes_buf_append(&desc, &first, 1);
		hermes_buf_puts(&desc, more + 1);
	}
	size_t len = desc.len;
	char *text = hermes_buf_finish(&desc);
	hermes_buf_puts(b, ",\"description\":");
	if (text)
		hermes_buf_json_string(b, text, len);
	else
		b->failed = true;
	free(text);
	const char *in = hermes_verb_input_schema(d->name), *out = hermes_verb_output_schema(d->name);
	hermes_buf_puts(b, ",\"inputSchema\":");
	hermes_buf_puts(b, in ? in : "{\"type\":\"object\"}");
	if (out) {
		hermes_buf_puts(b, ",\"outputSchema\":");
		hermes_buf_puts(b, out);
	}
	hermes_buf_puts(b, ",\"annotations\":{\"title\":");
	hermes_buf_json_string(b, d->name, strlen(d->name));
	hermes_buf_puts(b, ",");
	append_bool(b, "readOnlyHint", d->traits & HERMES_TRAIT_READ_ONLY);
	hermes_buf_puts(b, ",");
	append_bool(b, "destructiveHint", d->traits & HERMES_TRAIT_DESTRUCTIVE);
	hermes_buf_puts(b, ",");
	append_bool(b, "idempotentHint", d->traits & HERMES_TRAIT_IDEMPOTENT);
	hermes_buf_puts(b, ",");
	/* a program it runs may reach anything; the file verbs stay in the workspace */
	append_bool(b, "openWorldHint", d->traits & HERMES_TRAIT_SPAWNS);
	hermes_buf_puts(b, "}}");
}

/* {"tools": [...]}: every verb the policy and the client's rights (its channel's) allow, in the
 * table's order (fixed). *restricted: whether the rights left one out (then the list is this
 * client's, not the server's). */
static char *tools_json(server_t *srv, hermes_channel_t *ch, bool *restricted)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"tools\":[");
	/* the executor's verbs; while the workspace is not known yet, the table's (the same) */
	size_t n = srv->ex ? hermes_executor_verb_count(srv->ex) : hermes_verb_desc_count;
	bool first = true;
	*restricted = false;
	for (size_t i = 0; i < n; i++) {
		const hermes_verb_desc_t *d = srv->ex ? hermes_executor_verb_at(srv->ex, i) : &hermes_verb_descs[i];
		char why[256];
		if (!hermes_channel_allows(ch, d, why, sizeof why)) {
			*restricted = true;
			continue;
		}
		if (!first)
			hermes_buf_puts(&b, ",");
		first = false;
		append_tool(&b, d);
	}
	hermes_buf_puts(&b, "]}");
	return hermes_buf_finish(&b);
}

void hermes_mcp_tools_list(server_t *srv, call_t *c)
{
	bool restricted;
	hermes_reply_result(c, tools_json(srv, c->ch, &restricted));
}

void hermes_mcp_reply_complete(call_t *c, char *result, bool cacheable)
{
	size_t n;
	char *body = result ? hermes_mcp_complete(result, strlen(result), cacheable, &n) : NULL;
	free(result);
	hermes_reply_result(c, body);
}

bool hermes_mcp_modern_begin(call_t *c, hermes_mcp_meta_t *meta)
{
	char why[512], *data = NULL;
	if (c->batch) { /* as over HTTP, where a POST of an array is refused (400) */
		hermes_reply_error(c, HERMES_RPC_INVALID_REQUEST, "a 2026-07-28 request comes alone: the "
		                   "revision has no JSON-RPC batches", NULL);
		return false;
	}
	int code = hermes_mcp_meta_read(c->m.params, meta, why, sizeof why, &data);
	if (code == 0 && !meta->modern) { /* server/discover without a version */
		snprintf(why, sizeof why, "%.100s needs params._meta[\"" HERMES_MCP_META_VERSION "\"] (\""
		         HERMES_MCP_MODERN_VERSION "\") and params._meta[\"" HERMES_MCP_META_CAPABILITIES
		         "\"]", c->m.method);
		code = HERMES_RPC_INVALID_PARAMS;
	}
	if (code == 0)
		return true;
	hermes_reply_error(c, code, why, data);
	free(data);
	return false;
}

void hermes_mcp_modern_tools_list(server_t *srv, call_t *c)
{
	hermes_mcp_meta_t meta;
	if (hermes_mcp_modern_begin(c, &meta))
	{
		bool restricted;
		char *list = tools_json(srv, c->ch, &restricted);
		if (restricted && list) {
			/* a list for one caller's rights: cached by that client alone (the 2026 result
			 * must carry the hints) */
			hermes_buf_t b = HERMES_BUF_INIT;
			hermes_buf_printf(&b, "{\"ttlMs\":%d,\"cacheScope\":\"private\",%s",
			                  HERMES_MCP_TTL_MS, list + 1);
			free(list);
			list = hermes_buf_finish(&b);
		}
		hermes_mcp_reply_complete(c, list, !restricted);
	}
}

/* The verb a tool name (fs_readRange) or a verb name (fs.readRange) stands for. */
static const hermes_verb_desc_t *find_tool(server_t *srv, const char *name)
{
	const hermes_verb_desc_t *d = hermes_executor_find(srv->ex, name);
	if (d)
		return d;
	char dotted[128];
	const char *u = strchr(name, '_');
	if (u == NULL || strlen(name) >= sizeof dotted)
		return NULL;
	snprintf(dotted, sizeof dotted, "%s", name);
	dotted[u - name] = '.';
	return hermes_executor_find(srv->ex, dotted);
}

/* The tools/call result of a verb run (result: its JSON, taken; NULL if out of memory): a tool
 * that ran, even cancelled, answers with its result. NULL if out of memory. */
static char *tool_result_body(hermes_outcome_t outcome, char *result, const hermes_error_t *err)
{
	if (outcome == HERMES_OUTCOME_INVALID || result == NULL) {
		/* Arguments the decoder refused: a failed result the model can read and correct. */
		free(result);
		hermes_buf_t s = HERMES_BUF_INIT;
		const char *code = hermes_errcode_name(err->code);
		hermes_buf_puts(&s, "{\"succeeded\":false,\"errorMessage\":");
		const char *msg = err->message[0] ? err->message : "out of memory running the tool";
		hermes_buf_json_string(&s, msg, strlen(msg));
		hermes_buf_puts(&s, ",\"errorCode\":");
		code = code ? code : "Internal";
		hermes_buf_json_string(&s, code, strlen(code));
		hermes_buf_puts(&s, "}");
		result = hermes_buf_finish(&s);
		if (result == NULL)
			return NULL;
		outcome = HERMES_OUTCOME_FAILED;
	}
	size_t len = strlen(result);
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"content\":[{\"type\":\"text\",\"text\":");
	hermes_buf_json_string(&b, result, len);
	hermes_buf_puts(&b, "}],\"structuredContent\":");
	hermes_buf_append(&b, result, len);
	hermes_buf_puts(&b, outcome == HERMES_OUTCOME_SUCCEEDED ? ",\"isError\":false}" : ",\"isError\":true}");
	free(result);
	return hermes_buf_finish(&b);
}

static void tool_result(hermes_reply_t *r, const char *id, hermes_outcome_t outcome, char *result,
                        const hermes_error_t *err, bool cancelled)
{
	(void)cancelled;
	char *body = tool_result_body(outcome, result, err);
	if (body == NULL)
		hermes_rpc_error(r, id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		hermes_rpc_result(r, id, body, strlen(body));
}

/* The 2026-07-28 reply of a tool call's result body (taken and freed; NULL: out of memory): the
 * body made complete (hermes_mcp_complete). */
static void reply_complete(hermes_reply_t *r, const char *id, char *body)
{
	char *complete = NULL;
	size_t n = 0;
	if (body)
		complete = hermes_mcp_complete(body, strlen(body), false, &n);
	free(body);
	if (complete == NULL)
		hermes_rpc_error(r, id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		hermes_rpc_result(r, id, complete, n);
}

/* The same, complete (2026-07-28). */
static void tool_result_modern(hermes_reply_t *r, const char *id, hermes_outcome_t outcome,
                               char *result, const hermes_error_t *err, bool cancelled)
{
	(void)cancelled;
	reply_complete(r, id, tool_result_body(outcome, result, err));
}

/* notifications/progress for the call's progressToken. */
static void send_progress(hermes_channel_t *ch, const char *token, double progress, double total,
                          const char *message)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"progressToken\":");
	hermes_buf_puts(&b, token);
	hermes_buf_printf(&b, ",\"progress\":%.15g", progress);
	if (total > 0)
		hermes_buf_printf(&b, ",\"total\":%.15g", total);
	hermes_buf_puts(&b, ",\"message\":");
	hermes_buf_json_string(&b, message, strlen(message));
	hermes_buf_puts(&b, "}");
	hermes_notify_buf(ch, "notifications/progress", &b);
}

/* fs.readBytes: its bytes as an image or resource block (mcp_bytes.c), else as any tool's. */
static char *bytes_result_body(hermes_outcome_t outcome, char *result, const hermes_error_t *err,
                               const hermes_json_t *args, hermes_executor_t *ex, bool *oom)
{
	*oom = false;
	if (outcome == HERMES_OUTCOME_SUCCEEDED && result) {
		bool shaped;
		char *body = hermes_mcp_bytes_body(result, args, ex, &shaped);
		if (shaped) {
			free(result);
			*oom = body == NULL;
			return body;
		}
	}
	char *body = tool_result_body(outcome, result, err);
	*oom = body == NULL;
	return body;
}

static void bytes_result(hermes_reply_t *r, const char *id, hermes_outcome_t outcome, char *result,
                         const hermes_error_t *err, bool cancelled, const hermes_json_t *args,
                         hermes_executor_t *ex)
{
	(void)cancelled;
	bool oom;
	char *body = bytes_result_body(outcome, result, err, args, ex, &oom);
	if (body == NULL)
		hermes_rpc_error(r, id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
	else
		hermes_rpc_result(r, id, body, strlen(body));
}

static void bytes_result_modern(hermes_reply_t *r, const char *id, hermes_outcome_t outcome,
                                char *result, const hermes_error_t *err, bool cancelled,
                                const hermes_json_t *args, hermes_executor_t *ex)
{
	(void)cancelled;
	bool oom;
	reply_complete(r, id, bytes_result_body(outcome, result, err, args, ex, &oom));
}

/* the content, the verb's JSON, that JSON again as the text content, and the reply */
static const hermes_verb_answer_t answer = {tool_result, send_progress, 4, NULL};
/* the same, and the reply made complete (2026-07-28) beside it */
static const hermes_verb_answer_t answer_modern = {tool_result_modern, send_progress, 5, NULL};
/* fs.readBytes: the bytes twice (the block and the structured result), the parsed copy, the reply */
static const hermes_verb_answer_t answer_bytes = {tool_result, send_progress, 6, bytes_result};
static const hermes_verb_answer_t answer_bytes_modern = {tool_result_modern, send_progress, 7,
                                                         bytes_result_modern};

/* Waits for the client's roots: the call is kept (its id, message and channel) until the answer
 * comes, or the deadline. */
static void park(server_t *srv, call_t *c, bool modern)
{
	parked_t *p = srv->n_parked < HERMES_MCP_MAX_PARKED ? malloc(sizeof *p) : NULL;
	if (p == NULL) {
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, "the workspace is not known yet: the "
		                   "client has not answered roots/list (start hermes mcp with --root DIR)",
		                   NULL);
		return;
	}
	p->c = *c;
	p->modern = modern;
	p->next = NULL;
	c->m.id = NULL; /* the parked copy owns them now */
	c->m.id_key = NULL;
	hermes_message_ref(c->msg);
	hermes_channel_hold(c->ch);
	parked_t **tail = &srv->parked;
	while (*tail)
		tail = &(*tail)->next;
	*tail = p;
	srv->n_parked++;
	if (srv->roots_deadline < 0)
		srv->roots_deadline = hermes_mcp_clock_ms() + HERMES_MCP_ROOTS_WAIT_MS;
	pthread_mutex_lock(&srv->lock);
	srv->active_count++; /* the session is not over while calls wait */
	pthread_mutex_unlock(&srv->lock);
	hermes_log(HERMES_LOG_DEBUG, "tools/call %s waits for the client's roots", p->c.m.id);
}

static void tools_call(server_t *srv, call_t *c, bool modern)
{
	const hermes_json_t *p = c->m.params;
	const hermes_json_t *name = hermes_json_member(p, "name");
	if (p == NULL || p->type != HERMES_JSON_OBJECT || !hermes_json_is_c_string(name)) {
		hermes_reply_invalid_params(c, "name", "InvalidArguments",
		                            "tools/call needs params {\"name\": <a tool of tools/list>, "
		                            "\"arguments\": {...}}");
		return;
	}
	if (srv->roots_pending) {
		park(srv, c, modern);
		return;
	}
	if (srv->ex == NULL) {
		char why[1024];
		if (hermes_server_workspace(srv, why, sizeof why) != 0) {
			hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, why, NULL);
			return;
		}
	}
	const hermes_verb_desc_t *verb = find_tool(srv, name->str);
	if (verb == NULL) {
		hermes_reply_invalid_params(c, "name", "UnknownVerb",
		                            "unknown tool '%.200s': tools/list names the tools", name->str);
		return;
	}
	char why[512];
	if (!hermes_channel_allows(c->ch, verb, why, sizeof why)) {
		hermes_reply_invalid_params(c, "name", "NotAllowed", "%s", why);
		return;
	}
	const hermes_json_t *args = hermes_json_member(p, "arguments");
	if (args && args->type == HERMES_JSON_NULL)
		args = NULL;
	/* An edit with diagnose: true asks (and may start) a language server, as code.diagnostics
	 * does: the caller needs the rights of that verb too (a token that may write but not run
	 * programs must not start one this way). */
	const hermes_json_t *diagnose = args && args->type == HERMES_JSON_OBJECT
	                                ? hermes_json_member(args, "diagnose") : NULL;
	const hermes_verb_desc_t *diagnostics = hermes_verb_desc_find("code.diagnostics");
	if (diagnose && diagnose->type == HERMES_JSON_TRUE && diagnostics &&
	    !hermes_channel_allows(c->ch, diagnostics, why, sizeof why)) {
		hermes_reply_invalid_params(c, "arguments", "NotAllowed", "diagnose: true: %s", why);
		return;
	}
	const hermes_json_t *meta = hermes_json_member(p, "_meta");
	const hermes_json_t *token = hermes_json_member(meta, "progressToken");
	if (token && token->type != HERMES_JSON_STRING && token->type != HERMES_JSON_NUMBER)
		token = NULL;
	const hermes_verb_answer_t *how = modern ? &answer_modern : &answer;
	if (strcmp(verb->name, "fs.readBytes") == 0)
		how = modern ? &answer_bytes_modern : &answer_bytes;
	hermes_requests_queue(srv, c, verb, args, how,
	                      token ? c->msg->body + token->start : NULL,
	                      token ? token->end - token->start : 0);
}

void hermes_mcp_tools_call(server_t *srv, call_t *c)
{
	tools_call(srv, c, false);
}

/* A 2026 request that asked for log messages (logLevel debug) hears of the call as it starts. */
static void log_call(call_t *c, const hermes_mcp_meta_t *meta)
{
	if (meta->log_level < 0 || meta->log_level > 0)
		return;
	const hermes_json_t *p = c->m.params;
	const hermes_json_t *name = hermes_json_member(p, "name");
	const hermes_json_t *args = hermes_json_member(p, "arguments");
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"level\":\"debug\",\"logger\":\"hermes\",\"data\":");
	hermes_buf_t d = HERMES_BUF_INIT;
	hermes_buf_puts(&d, "tools/call ");
	if (hermes_json_is_c_string(name))
		hermes_buf_append(&d, name->str, name->len > 200 ? 200 : name->len);
	if (args) {
		hermes_buf_puts(&d, " ");
		size_t n = args->end - args->start;
		hermes_buf_append(&d, c->msg->body + args->start, n > 1000 ? 1000 : n);
	}
	size_t dn = d.len;
	char *text = hermes_buf_finish(&d);
	if (text)
		hermes_buf_json_string(&b, text, dn);
	free(text);
	hermes_buf_puts(&b, "}");
	hermes_notify_buf(c->ch, "notifications/message", &b);
}

void hermes_mcp_modern_tools_call(server_t *srv, call_t *c)
{
	hermes_mcp_meta_t meta;
	if (!hermes_mcp_modern_begin(c, &meta))
		return;
	log_call(c, &meta);
	tools_call(srv, c, true);
}

void hermes_mcp_tools_unpark(server_t *srv, const char *error)
{
	parked_t *list = srv->parked;
	srv->parked = NULL;
	srv->n_parked = 0;
	srv->roots_deadline = -1;
	while (list) {
		parked_t *p = list;
		list = p->next;
		if (error)
			hermes_reply_error(&p->c, HERMES_RPC_INVALID_PARAMS, error, NULL);
		else
			tools_call(srv, &p->c, p->modern);
		hermes_rpc_message_clear(&p->c.m);
		hermes_message_unref(p->c.msg);
		hermes_channel_release(p->c.ch);
		pthread_mutex_lock(&srv->lock);
		bool woke = --srv->active_count == 0 && srv->finishing;
		pthread_mutex_unlock(&srv->lock);
		if (woke)
			srv->wake(srv->wake_ctx);
		free(p);
	}
}
