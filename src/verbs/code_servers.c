/* verbs/code_servers.c: code.servers (the language servers Hermes knows and how they are) and
 * code.diagnostics (a file's errors and warnings, once its server has analysed its text). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fs/lines.h"
#include "verbs/code.h"
#include "verbs/handlers.h"
#include "verbs/state.h"

static char **split_languages(const char *list, size_t *count)
{
	size_t n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	char **out = calloc(n, sizeof *out);
	*count = 0;
	if (!out)
		return NULL;
	const char *p = list;
	for (size_t i = 0; i < n; i++) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		out[(*count)++] = strndup(p, len);
		p += len + 1;
	}
	return out;
}

void hermes_verb_code_servers(const hermes_call_t *call, const void *args_, void *result_)
{
	(void)args_;
	hermes_code_servers_result_t *result = result_;
	const hermes_verbs_state_t *state = call->state;
	hermes_lsp_server_info_t *list = NULL;
	size_t n = 0;
	if (!state || !state->lsp || hermes_lsp_pool_list(state->lsp, call->host, &list, &n) < 0 ||
	    !(result->servers = calloc(n ? n : 1, sizeof *result->servers))) {
		free(list);
		hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const hermes_lsp_server_info_t *e = &list[i];
		hermes_code_server_t *s = &result->servers[i];
		s->name = strdup(e->name);
		s->command = strdup(e->command);
		s->languages = split_languages(e->languages, &s->languages_count);
		s->installed = e->found[0] != '\0';
		s->install = strdup(e->install);
		s->state = strdup(!e->started ? "stopped" : e->info.running ? "running" : "ended");
		s->restarts = e->restarts;
		if (e->info.last_error[0])
			s->last_error = strdup(e->info.last_error);
		if (e->started) {
			s->root = strdup(e->root);
			s->has_pid = true;
			s->pid = e->info.pid;
			s->requests = e->info.requests;
			if (e->info.name[0])
				s->server_name = strdup(e->info.name);
			if (e->info.version[0])
				s->version = strdup(e->info.version);
			if (e->info.stderr_tail[0])
				s->stderr_tail = hermes_text_lossy(e->info.stderr_tail);
		}
	}
	result->servers_count = n;
	free(list);
}

static const char *severity_name(const hermes_json_t *d)
{
	int64_t s = 1;
	hermes_json_integer(hermes_json_member(d, "severity"), 1, 4, &s);
	static const char *const names[] = {"error", "warning", "information", "hint"};
	return names[s - 1];
}

bool hermes_code_diagnostics_add(const hermes_code_file_t *f, const char *text,
                                 hermes_code_diagnostic_t **list, size_t *count)
{
	hermes_json_doc_t *doc = NULL;
	size_t end;
	if (hermes_json_parse(text, strlen(text), 64, &doc, &end, NULL) != 0)
		return true; /* the reader took it as an array: nothing to add if it is not one */
	const hermes_json_t *arr = hermes_json_root(doc);
	hermes_code_diagnostic_t *grown = realloc(*list, (*count + arr->count + 1) * sizeof **list);
	if (!grown) {
		hermes_json_doc_free(doc);
		return false;
	}
	*list = grown;
	bool ok = true;
	for (const hermes_json_t *d = arr->child; d; d = d->next) {
		int64_t r[4];
		const hermes_json_t *msg = hermes_json_member(d, "message");
		if (!hermes_code_range(hermes_json_member(d, "range"), r) || !msg ||
		    msg->type != HERMES_JSON_STRING)
			continue;
		hermes_code_diagnostic_t *o = &grown[(*count)++];
		memset(o, 0, sizeof *o);
		o->path = strdup(f->path);
		o->severity = strdup(severity_name(d));
		hermes_code_to_hermes(f, r[0], r[1], &o->line, &o->column);
		hermes_code_to_hermes(f, r[2], r[3], &o->end_line, &o->end_column);
		o->message = hermes_text_lossy_n(msg->str, msg->len);
		const hermes_json_t *code = hermes_json_member(d, "code");
		if (code && (code->type == HERMES_JSON_STRING || code->type == HERMES_JSON_NUMBER))
			o->code = hermes_text_lossy_n(code->str, code->len);
		const hermes_json_t *src = hermes_json_member(d, "source");
		if (src && src->type == HERMES_JSON_STRING)
			o->source = hermes_text_lossy_n(src->str, src->len);
		ok = ok && o->path && o->severity && o->message;
	}
	hermes_json_doc_free(doc);
	return ok;
}

/* The workspace files open at the server, each synced to its current text (one gone or no
 * longer text is left out). At most HERMES_CODE_MAX_FILES; *n of them in files. */
static void open_files(hermes_code_ctx_t *ctx, hermes_code_file_t **files, size_t *n)
{
	char **uris = NULL;
	size_t count = 0;
	*n = 0;
	if (hermes_lsp_open_documents(ctx->client, &uris, &count) < 0)
		return;
	for (size_t i = 0; i < count; i++) {
		hermes_code_file_t *f = *n < HERMES_CODE_MAX_FILES ? hermes_code_file(ctx, uris[i]) : NULL;
		hermes_error_t err = {0};
		/* Outside the workspace (a header of the system the server opened) has no path. */
		if (f && f->text && f->path[0] != '/' &&
		    hermes_lsp_sync(ctx->client, f->uri, ctx->language_id, f->text, f->len, NULL,
		                    &err) == 0) {
			f->synced = true;
			files[(*n)++] = f;
		}
		free(uris[i]);
	}
	free(uris);
}

void hermes_verb_code_diagnostics(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_code_diagnostics_args_t *args = args_;
	hermes_code_diagnostics_result_t *result = result_;
	hermes_code_ctx_t ctx;
	hermes_code_file_t *files[HERMES_CODE_MAX_FILES];
	size_t n = 0;
	if (!hermes_code_begin(&ctx, call, result, args->path, args->language)) {
		hermes_code_end(&ctx);
		return;
	}
	if (args->path) {
		if ((files[0] = hermes_code_open(&ctx, args->path)))
			n = 1;
		else {
			hermes_code_end(&ctx);
			return;
		}
	} else {
		open_files(&ctx, files, &n);
	}
	result->settled = true;
	result->diagnostics = calloc(1, sizeof *result->diagnostics);
	bool ok = result->diagnostics != NULL;
	int64_t deadline = hermes_lsp_now_ms() + (int64_t)args->wait_seconds * 1000;
	for (size_t i = 0; ok && i < n; i++) {
		int64_t left = deadline - hermes_lsp_now_ms();
		char *text = hermes_lsp_diagnostics(ctx.client, files[i]->uri, left > 0 ? (int)left : 0,
		                                    call->cancel);
		if (!text) {
			if (hermes_cancel_requested(call->cancel)) {
				hermes_result_fail(result, HERMES_E_CANCELLED, "code.diagnostics was cancelled");
				break;
			}
			if (!hermes_lsp_client_alive(ctx.client)) {
				hermes_error_t err = {0};
				hermes_lsp_dead_error(ctx.client, &err);
				hermes_result_fail(result, HERMES_E_UNAVAILABLE, "%s", err.message);
				break;
			}
			result->settled = false;
			continue;
		}
		ok = hermes_code_diagnostics_add(files[i], text, &result->diagnostics,
		                                 &result->diagnostics_count);
		free(text);
	}
	if (result->common.succeeded && !ok)
		hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
	hermes_code_end(&ctx);
}
