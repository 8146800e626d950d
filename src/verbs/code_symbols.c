/* verbs/code_symbols.c: code.symbols: a file's outline or the workspace's symbols by name, with
 * kinds, name paths, locations and, if asked, their source text. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fs/lines.h"
#include "verbs/code.h"
#include "verbs/handlers.h"

/* The text of lines [first, last] (0-based) of f, or NULL. */
static char *body_of(const hermes_code_file_t *f, int64_t first, int64_t last)
{
	size_t len;
	const char *start = hermes_code_line(f, first, &len);
	const char *end_line = hermes_code_line(f, last, &len);
	if (!f->text || start < f->text || end_line < start)
		return NULL;
	const char *end = end_line + len;
	return hermes_text_lossy_n(start, (size_t)(end - start));
}

static bool fill(hermes_code_ctx_t *ctx, const hermes_code_sym_t *s, bool include_body,
                 hermes_code_symbol_t *out)
{
	hermes_code_file_t *f = hermes_code_file(ctx, s->uri);
	out->name = strdup(s->name);
	out->name_path = strdup(s->name_path);
	out->kind = strdup(hermes_code_kind_name(s->kind));
	out->path = strdup(f ? f->path : s->uri);
	hermes_code_to_hermes(f, s->sel[0], s->sel[1], &out->line, &out->column);
	hermes_code_to_hermes(f, s->sel[2], s->sel[3], &out->end_line, &out->end_column);
	if (s->range[0] >= 0) {
		out->has_body_line = out->has_body_end_line = true;
		out->body_line = s->range[0] + 1;
		out->body_end_line = s->range[2] + 1;
		if (include_body && f)
			out->body = body_of(f, s->range[0], s->range[2]);
	}
	return out->name && out->name_path && out->kind && out->path;
}

void hermes_verb_code_symbols(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_code_symbols_args_t *args = args_;
	hermes_code_symbols_result_t *result = result_;
	int kinds[32] = {0};
	if (args->kinds_count > 32) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "kinds: at most 32");
		return;
	}
	for (size_t i = 0; i < args->kinds_count; i++) {
		kinds[i] = hermes_code_kind_of(args->kinds[i]);
		if (!kinds[i]) {
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "kinds: '%.64s' is not an LSP symbol kind (function, class, "
			                   "method, struct, variable, field, enum, constant, ...)",
			                   args->kinds[i]);
			return;
		}
	}
	if (!args->path && !args->query) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "give path (a file's outline) or query (symbols by name)");
		return;
	}
	if (!args->path && !args->language) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "with query and no path, give language (c, cpp, python, javascript, "
		                   "typescript, go): whose server to ask");
		return;
	}
	hermes_code_ctx_t ctx;
	if (!hermes_code_begin(&ctx, call, result, args->path, args->language)) {
		hermes_code_end(&ctx);
		return;
	}
	hermes_code_outline_t found = {0};
	const hermes_code_outline_t *o = NULL;
	if (args->query) {
		/* With a path, its server is asked after the file is opened: clangd, for one, answers
		 * workspace queries only once it has a file of the project. */
		if ((!args->path || hermes_code_open(&ctx, args->path)) &&
		    hermes_code_workspace_symbols(&ctx, args->query, args->substring, &found))
			o = &found;
	} else {
		hermes_code_file_t *f = hermes_code_open(&ctx, args->path);
		if (f)
			o = hermes_code_outline(&ctx, f);
	}
	if (o) {
		size_t max = (size_t)args->max_results, n = 0;
		result->symbols = calloc(o->count < max ? (o->count ? o->count : 1) : max,
		                         sizeof *result->symbols);
		for (size_t i = 0; result->symbols && i < o->count; i++) {
			const hermes_code_sym_t *s = &o->syms[i];
			if (!args->query && s->depth > args->depth)
				continue;
			bool kind_ok = args->kinds_count == 0;
			for (size_t k = 0; k < args->kinds_count; k++)
				kind_ok |= kinds[k] == s->kind;
			if (!kind_ok)
				continue;
			if (n == max) {
				result->truncated = true;
				break;
			}
			if (!fill(&ctx, s, args->include_body, &result->symbols[n++])) {
				hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
				break;
			}
		}
		result->symbols_count = n;
		if (!result->symbols)
			hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
	}
	hermes_code_outline_clear(&found);
	hermes_code_end(&ctx);
}
