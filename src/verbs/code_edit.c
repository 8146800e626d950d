/* verbs/code_edit.c: code.replaceSymbol, code.insertBeforeSymbol, code.insertAfterSymbol: a
 * symbol's range from the language server's outline of its file, the write through the write
 * path of the other write verbs (fs/commit.h on one file: writer lock, version check, atomic
 * rename), and the server told the new text. */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fs/commit.h"
#include "fs/diff.h"
#include "lsp/uri.h"
#include "verbs/code.h"
#include "verbs/handlers.h"

enum edit_kind { REPLACE, BEFORE, AFTER };

typedef struct edit_ctx {
	enum edit_kind kind;
	const hermes_code_file_t *file;  /* the text the server's outline was computed from */
	const hermes_code_sym_t *sym;
	const char *body;
	size_t start_line;               /* out: the first line written, from 1 */
	bool changed;                    /* out: the file was not the text the outline came from */
} edit_ctx_t;


static size_t line_of(const char *text, size_t off)
{
	size_t n = 1;
	for (size_t i = 0; i < off; i++)
		n += text[i] == '\n';
	return n;
}

static int compute(void *ctx_, hermes_commit_file_t *files, size_t n, hermes_error_t *err)
{
	edit_ctx_t *ctx = ctx_;
	hermes_commit_file_t *f = &files[0];
	(void)n;
	if (f->old_len != ctx->file->len || memcmp(f->old_data, ctx->file->text, f->old_len) != 0) {
		ctx->changed = true;
		hermes_error_set(err, HERMES_E_CONFLICT, "'%s' changed during the call; nothing was "
		                 "written", f->path);
		return -1;
	}
	const char *t = f->old_data;
	size_t len = f->old_len, body_len = strlen(ctx->body);
	ssize_t s, e;
	const int64_t *r = ctx->sym->range;
	if (ctx->kind == REPLACE) {
		s = hermes_lsp_offset_of(t, len, r[0], r[1]);
		e = hermes_lsp_offset_of(t, len, r[2], r[3]);
	} else if (ctx->kind == BEFORE) {
		s = e = hermes_lsp_offset_of(t, len, r[0], 0);
	} else {
		s = hermes_lsp_offset_of(t, len, r[2], 0);
		if (s >= 0) {
			const char *nl = memchr(t + s, '\n', len - (size_t)s);
			s = nl ? nl - t + 1 : (ssize_t)len;
		}
		e = s;
	}
	if (s < 0 || e < s) {
		hermes_error_set(err, HERMES_E_CONFLICT, "the language server's range of the symbol "
		                 "does not fit '%s'; nothing was written", f->path);
		return -1;
	}
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_append(&b, t, (size_t)s);
	/* After a last line without an ending, inserted lines start on a line of their own. */
	if (ctx->kind == AFTER && s > 0 && t[s - 1] != '\n')
		hermes_buf_putc(&b, '\n');
	ctx->start_line = line_of(b.data ? b.data : "", b.len);
	hermes_buf_append(&b, ctx->body, body_len);
	if (ctx->kind != REPLACE && (body_len == 0 || ctx->body[body_len - 1] != '\n'))
		hermes_buf_putc(&b, '\n');
	hermes_buf_append(&b, t + e, len - (size_t)e);
	if (b.failed) {
		hermes_buf_free(&b);
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory editing '%s'", f->path);
		return -1;
	}
	f->op = HERMES_COMMIT_WRITE;
	f->new_len = b.len;
	f->new_data = b.data ? b.data : strdup("");
	return 0;
}

/* The symbol name_path names in o: the one whose path ends with it; of a declaration and a
 * definition of one name path, the one with the larger range (the body). NULL once result says
 * why (none, or several different ones). */
static const hermes_code_sym_t *pick(void *result, const hermes_code_outline_t *o,
                                     const char *name_path, const char *path)
{
	const hermes_code_sym_t *hit = NULL;
	hermes_buf_t names = HERMES_BUF_INIT;
	size_t distinct = 0, m = strlen(name_path);
	for (size_t i = 0; i < o->count; i++) {
		const hermes_code_sym_t *s = &o->syms[i];
		size_t n = strlen(s->name_path);
		if (n < m || strcmp(s->name_path + n - m, name_path) != 0 ||
		    (n > m && s->name_path[n - m - 1] != '/') || s->range[0] < 0)
			continue;
		if (hit && strcmp(hit->name_path, s->name_path) == 0) {
			if (s->range[2] - s->range[0] > hit->range[2] - hit->range[0])
				hit = s;
			continue;
		}
		if (distinct < 5)
			hermes_buf_printf(&names, "%s%s", distinct ? ", " : "", s->name_path);
		distinct++;
		if (!hit)
			hit = s;
	}
	char shown[256];
	if (!hit)
		hermes_result_fail(result, HERMES_E_NOT_FOUND, "no symbol '%.200s' in '%s'", name_path,
		                   hermes_ws_shown(path, shown, sizeof shown));
	else if (distinct > 1)
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "namePath '%.200s' names %zu "
		                   "symbols in '%s': %s; give a longer name path", name_path, distinct,
		                   hermes_ws_shown(path, shown, sizeof shown),
		                   names.data ? names.data : "");
	hermes_buf_free(&names);
	return hit && distinct == 1 ? hit : NULL;
}

typedef struct edit_out {
	char **diff;
	char **version;
	int64_t *line;
	bool diagnose;                        /* the call's diagnose argument */
	hermes_edit_diagnostics_t **diagnostics;
	size_t *diagnostics_count;
} edit_out_t;

/* One attempt; false if the file changed between the outline and the write (try again). */
static bool edit_once(const hermes_call_t *call, enum edit_kind kind, const char *path,
                      const char *name_path, const char *body, const char *expected,
                      void *result, edit_out_t out, bool last)
{
	hermes_code_ctx_t ctx;
	edit_ctx_t ec = {kind, NULL, NULL, body, 0, false};
	bool done = true;
	if (hermes_code_begin(&ctx, call, result, path, NULL)) {
		hermes_code_file_t *f = hermes_code_open(&ctx, path);
		const hermes_code_outline_t *o = f ? hermes_code_outline(&ctx, f) : NULL;
		ec.file = f;
		ec.sym = o ? pick(result, o, name_path, path) : NULL;
	}
	if (ec.sym) {
		hermes_commit_file_t file = {0};
		file.path = ec.file->path;
		file.flags = HERMES_COMMIT_MUST_EXIST;
		file.expected_version = expected;
		hermes_error_t err = {0};
		if (hermes_commit_run(call->host, call->cancel, &file, 1, 0, compute, &ec, &err) < 0) {
			if (ec.changed && !last)
				done = false;
			else
				hermes_result_fail(result, err.code, "%s", err.message);
		} else {
			*out.diff = hermes_unified_diff(file.path, file.old_data, file.old_len,
			                                file.new_data, file.new_len, 3);
			*out.version = strdup(file.new_version);
			*out.line = (int64_t)ec.start_line;
			const char *language_id;
			if (hermes_lsp_language_of(ctx.pool, file.path, &language_id))
				hermes_lsp_sync(ctx.client, ec.file->uri, language_id, file.new_data,
				                file.new_len, NULL, NULL);
			if (!*out.diff || !*out.version)
				hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory (the file was "
				                   "written)");
		}
		hermes_commit_files_free(&file, 1);
	}
	hermes_code_end(&ctx);
	return done;
}

/* Symbol edits of one file in this process take turns (a lock chosen by the path's hash): each
 * reads, asks the outline and writes while no other does, so they never make each other start
 * over. A writer that changed the file between the outline and the write (another verb, another
 * process) makes the edit start over from the new text (the symbol may have moved),
 * HERMES_VERBS_WRITE_TURNS times. */
static pthread_mutex_t turns[64] = {[0 ... 63] = PTHREAD_MUTEX_INITIALIZER};

static void edit_symbol(const hermes_call_t *call, enum edit_kind kind, const char *path,
                        const char *name_path, const char *body, const char *expected,
                        void *result, edit_out_t out)
{
	unsigned h = 5381;
	for (const char *p = path; *p; p++)
		h = h * 33 + (unsigned char)*p;
	pthread_mutex_t *m = &turns[h % 64];
	/* Taken before the turn, which a diagnose edit then does not hold while its server works. */
	hermes_code_diagnose_t *dg = out.diagnose ? hermes_code_diagnose_begin(call, &path, 1) : NULL;
	pthread_mutex_lock(m);
	for (int turn = 1; turn <= HERMES_VERBS_WRITE_TURNS; turn++)
		if (edit_once(call, kind, path, name_path, body, expected, result, out,
		              turn == HERMES_VERBS_WRITE_TURNS))
			break;
	pthread_mutex_unlock(m);
	if (out.diagnose)
		hermes_code_diagnose_end(dg, &path, *out.version ? 1 : 0, out.diagnostics,
		                         out.diagnostics_count);
}

void hermes_verb_code_replace_symbol(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_code_replace_symbol_args_t *a = args_;
	hermes_code_replace_symbol_result_t *r = result_;
	edit_symbol(call, REPLACE, a->path, a->name_path, a->body, a->expected_version, r,
	            (edit_out_t){&r->diff, &r->version, &r->line, a->diagnose, &r->diagnostics,
	                         &r->diagnostics_count});
}

void hermes_verb_code_insert_before_symbol(const hermes_call_t *call, const void *args_,
                                           void *result_)
{
	const hermes_code_insert_before_symbol_args_t *a = args_;
	hermes_code_insert_before_symbol_result_t *r = result_;
	edit_symbol(call, BEFORE, a->path, a->name_path, a->body, a->expected_version, r,
	            (edit_out_t){&r->diff, &r->version, &r->line, a->diagnose, &r->diagnostics,
	                         &r->diagnostics_count});
}

void hermes_verb_code_insert_after_symbol(const hermes_call_t *call, const void *args_,
                                          void *result_)
{
	const hermes_code_insert_after_symbol_args_t *a = args_;
	hermes_code_insert_after_symbol_result_t *r = result_;
	edit_symbol(call, AFTER, a->path, a->name_path, a->body, a->expected_version, r,
	            (edit_out_t){&r->diff, &r->version, &r->line, a->diagnose, &r->diagnostics,
	                         &r->diagnostics_count});
}
