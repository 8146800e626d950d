/* verbs/code_nav.c: code.definition, code.references and code.hover: a symbol named by name path
 * or position (code.h), asked of its file's language server, and the answer's locations turned
 * into Hermes positions. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fs/lines.h"
#include "verbs/code.h"
#include "verbs/handlers.h"

#define LINE_TEXT_MAX 500

/* Does the Location loc hold the position (uri, line, ch)? */
static bool holds(const hermes_json_t *loc, const char *uri, int64_t line, int64_t ch)
{
	const char *u;
	int64_t r[4];
	if (!hermes_code_loc_read(loc, &u, r) || strcmp(u, uri) != 0)
		return false;
	return (line > r[0] || (line == r[0] && ch >= r[1])) &&
	       (line < r[2] || (line == r[2] && ch <= r[3]));
}

/* Is the position on the name of one of f's symbols (a definition or declaration), as far as its
 * outline tells? True also when the server gives no outline. False with result failed if the
 * outline could not be asked. */
static bool at_a_name(hermes_code_ctx_t *ctx, hermes_code_file_t *f, int64_t line, int64_t ch,
                      bool *at)
{
	const hermes_json_t *p =
		hermes_json_member(hermes_lsp_capabilities(ctx->client), "documentSymbolProvider");
	*at = true;
	if (!p || p->type == HERMES_JSON_FALSE || p->type == HERMES_JSON_NULL)
		return true;
	const hermes_code_outline_t *o = hermes_code_outline(ctx, f);
	if (!o)
		return false;
	*at = false;
	/* A name is on one line: a selection range of several (typescript-language-server's for a
	 * constructor, a flat outline's whole symbol) holds the name on its first line at most. */
	for (size_t i = 0; i < o->count && !*at; i++) {
		const int64_t *r = o->syms[i].sel;
		*at = line == r[0] && ch >= r[1] && (line < r[2] || ch <= r[3]);
	}
	return true;
}

/* Some servers (clangd) answer "definition" at a definition with its declaration. If the answer
 * does not hold the position asked, asking again from the answer tells: when that leads back to
 * the position, the position was the definition, and that answer is the one kept. Only a
 * symbol's own name can be led back to: at a use (the position on no name of the file's outline,
 * which is kept with its text after the first call) the second request is spared. True, or false
 * once result says why not. */
static bool second_hop(hermes_code_ctx_t *ctx, hermes_code_file_t *f, int64_t line, int64_t ch,
                       hermes_json_doc_t **doc, const hermes_json_t **r)
{
	const hermes_json_t *first = hermes_code_loc_first(*r);
	const char *u;
	int64_t rr[4];
	bool at;
	if (!first || holds(first, f->uri, line, ch) || !hermes_code_loc_read(first, &u, rr))
		return true;
	if (!at_a_name(ctx, f, line, ch, &at))
		return false;
	if (!at)
		return true;
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_code_position_params(&b, u, rr[0], rr[1]);
	hermes_buf_putc(&b, '}');
	hermes_json_doc_t *doc2 = NULL;
	const hermes_json_t *r2;
	/* The declaration's file must be open for the server to answer from it. */
	hermes_code_file_t *df = hermes_code_file(ctx, u);
	bool ok = !b.failed && df && df->text && hermes_code_open(ctx, df->path) &&
	          hermes_code_request(ctx, "textDocument/definition", b.data, &doc2, &r2);
	hermes_buf_free(&b);
	if (!ok) {
		hermes_json_doc_free(doc2);
		return ((hermes_result_common_t *)ctx->result)->succeeded;
	}
	bool back = false;
	for (const hermes_json_t *it = hermes_code_loc_first(r2); it;
	     it = hermes_code_loc_next(r2, it))
		back |= holds(it, f->uri, line, ch);
	if (back) {
		hermes_json_doc_free(*doc);
		*doc = doc2;
		*r = r2;
	} else {
		hermes_json_doc_free(doc2);
	}
	return true;
}

void hermes_verb_code_definition(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_code_definition_args_t *args = args_;
	hermes_code_definition_result_t *result = result_;
	hermes_code_ctx_t ctx = {.call = call, .result = result};
	hermes_json_doc_t *doc = NULL;
	const hermes_json_t *r;
	hermes_code_file_t *qf;
	int64_t ql, qch;
	if (hermes_code_ask(&ctx, "textDocument/definition", args->name_path, args->path, args->language, args->has_line,
	        args->line, args->has_column, args->column, NULL, &doc, &r, &qf, &ql, &qch) &&
	    second_hop(&ctx, qf, ql, qch, &doc, &r)) {
		size_t n = r->type == HERMES_JSON_ARRAY ? r->count : 1;
		result->definitions = calloc(n ? n : 1, sizeof *result->definitions);
		for (const hermes_json_t *it = hermes_code_loc_first(r); result->definitions && it;
		     it = hermes_code_loc_next(r, it)) {
			hermes_code_location_t *d = &result->definitions[result->definitions_count];
			hermes_code_file_t *f;
			int64_t rr[4];
			if (hermes_code_loc_hermes(&ctx, it, &f, rr, &d->path, &d->line, &d->column,
			                           &d->end_line, &d->end_column))
				result->definitions_count++;
		}
		if (!result->definitions)
			hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
		else if (result->definitions_count == 0)
			hermes_result_fail(result, HERMES_E_NOT_FOUND,
			                   "the language server knows no definition of %s%s",
			                   args->name_path ? args->name_path : "the symbol at that position",
			                   args->name_path ? "" : " (is it a symbol's name?)");
	}
	hermes_json_doc_free(doc);
	hermes_code_end(&ctx);
}

static int cmp_ref(const void *a_, const void *b_)
{
	const hermes_code_reference_t *a = a_, *b = b_;
	int c = strcmp(a->path, b->path);
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->column < b->column ? -1 : a->column > b->column;
}

void hermes_verb_code_references(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_code_references_args_t *args = args_;
	hermes_code_references_result_t *result = result_;
	hermes_code_ctx_t ctx = {.call = call, .result = result};
	hermes_json_doc_t *doc = NULL;
	const hermes_json_t *r;
	hermes_code_file_t *qf;
	int64_t ql, qch;
	if (hermes_code_ask(&ctx, "textDocument/references", args->name_path, args->path, args->language, args->has_line,
	        args->line, args->has_column, args->column,
	        ",\"context\":{\"includeDeclaration\":true}", &doc, &r, &qf, &ql, &qch)) {
		size_t n = r->type == HERMES_JSON_ARRAY ? r->count : r->type == HERMES_JSON_OBJECT;
		size_t max = (size_t)args->max_results;
		result->truncated = n > max;
		result->references = calloc(n ? (n < max ? n : max) : 1, sizeof *result->references);
		for (const hermes_json_t *it = hermes_code_loc_first(r);
		     result->references && it && result->references_count < max;
		     it = hermes_code_loc_next(r, it)) {
			hermes_code_reference_t *ref = &result->references[result->references_count];
			hermes_code_file_t *f;
			int64_t rr[4];
			if (!hermes_code_loc_hermes(&ctx, it, &f, rr, &ref->path, &ref->line, &ref->column,
			                            &ref->end_line, &ref->end_column))
				continue;
			size_t len;
			const char *text = hermes_code_line(f, rr[0], &len);
			ref->text = hermes_text_lossy_n(text, len > LINE_TEXT_MAX ? LINE_TEXT_MAX : len);
			/* The enclosing symbol needs the file's outline: only for files the server can
			 * open (in the workspace, of this call's language). */
			if (f->text && !f->synced && ctx.language &&
			    hermes_lsp_language_of(ctx.pool, f->path, NULL) &&
			    strcmp(hermes_lsp_language_of(ctx.pool, f->path, NULL) , ctx.language) == 0) {
				if (!hermes_code_sync(&ctx, f)) /* read by hermes_code_file just now */
					break;
			}
			if (f->synced) {
				const hermes_code_outline_t *o = hermes_code_outline(&ctx, f);
				if (!o)
					break;
				const hermes_code_sym_t *s = hermes_code_enclosing(o, rr[0], rr[1]);
				if (s)
					ref->symbol = strdup(s->name_path);
			}
			result->references_count++;
		}
		if (!result->references)
			hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
		else if (result->common.succeeded)
			qsort(result->references, result->references_count, sizeof *result->references,
			      cmp_ref);
	}
	hermes_json_doc_free(doc);
	hermes_code_end(&ctx);
}

void hermes_verb_code_hover(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_code_hover_args_t *args = args_;
	hermes_code_hover_result_t *result = result_;
	hermes_code_ctx_t ctx = {.call = call, .result = result};
	hermes_json_doc_t *doc = NULL;
	const hermes_json_t *r;
	hermes_code_file_t *qf;
	int64_t ql, qch;
	if (hermes_code_ask(&ctx, "textDocument/hover", args->name_path, args->path, args->language, args->has_line, args->line,
	        args->has_column, args->column, NULL, &doc, &r, &qf, &ql, &qch)) {
		const hermes_json_t *c = hermes_json_member(r, "contents");
		hermes_buf_t b = HERMES_BUF_INIT;
		/* MarkupContent, a MarkedString, or an array of MarkedStrings. */
		const hermes_json_t *one = c && c->type == HERMES_JSON_ARRAY ? c->child : c;
		for (; one; one = c->type == HERMES_JSON_ARRAY ? one->next : NULL) {
			const hermes_json_t *v = one->type == HERMES_JSON_STRING
			                             ? one : hermes_json_member(one, "value");
			if (v && v->type == HERMES_JSON_STRING) {
				if (b.len)
					hermes_buf_puts(&b, "\n\n");
				hermes_buf_append(&b, v->str, v->len);
			}
		}
		if (b.failed)
			hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
		else if (!b.len)
			hermes_result_fail(result, HERMES_E_NOT_FOUND,
			                   "the language server has nothing to say of %s",
			                   args->name_path ? args->name_path : "that position");
		else
			result->text = hermes_text_lossy_n(b.data, b.len);
		hermes_buf_free(&b);
	}
	hermes_json_doc_free(doc);
	hermes_code_end(&ctx);
}
