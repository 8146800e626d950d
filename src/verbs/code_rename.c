/* verbs/code_rename.c: code.rename: the language server's workspace edit for a rename, applied to
 * every file all or nothing through the multi-file commit (fs/commit.h), with a diff per file. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fs/commit.h"
#include "fs/diff.h"
#include "fs/lines.h"
#include "lsp/uri.h"
#include "verbs/code.h"
#include "verbs/handlers.h"

#define MAX_RENAME_FILES 10000
#define RENAME_SETTLE_MS 20000  /* longest a rename waits for its server to see the new text */

/* One edit: the LSP range and its new text. */
typedef struct edit {
	int64_t r[4];
	const char *text;
	size_t len;
} edit_t;

/* The edits of one file. */
typedef struct file_edits {
	char *path;            /* workspace-relative */
	const char *uri;
	edit_t *edits;
	size_t count;
	const hermes_code_file_t *synced; /* the text the server was sent for it, if any */
} file_edits_t;

typedef struct rename_ctx {
	file_edits_t *files;
	size_t n;
} rename_ctx_t;


static int cmp_edit(const void *a_, const void *b_)
{
	const edit_t *a = a_, *b = b_;
	if (a->r[0] != b->r[0])
		return a->r[0] < b->r[0] ? -1 : 1;
	return a->r[1] < b->r[1] ? -1 : a->r[1] > b->r[1];
}

/* Applies the edits of f to the file's current text, under the commit's locks. */
static int compute(void *ctx_, hermes_commit_file_t *files, size_t n, hermes_error_t *err)
{
	rename_ctx_t *ctx = ctx_;
	for (size_t i = 0; i < n; i++) {
		file_edits_t *fe = &ctx->files[i];
		hermes_commit_file_t *f = &files[i];
		/* The server computed its edits from the text it was sent: the file must still be it. */
		if (fe->synced && (f->old_len != fe->synced->len ||
		                   memcmp(f->old_data, fe->synced->text, f->old_len) != 0)) {
			hermes_error_set(err, HERMES_E_CONFLICT, "cannot rename: '%s' changed during the "
			                 "call; nothing was written", fe->path);
			return -1;
		}
		hermes_buf_t b = HERMES_BUF_INIT;
		size_t at = 0;
		for (size_t k = 0; k < fe->count; k++) {
			const edit_t *e = &fe->edits[k];
			ssize_t s = hermes_lsp_offset_of(f->old_data, f->old_len, e->r[0], e->r[1]);
			ssize_t t = hermes_lsp_offset_of(f->old_data, f->old_len, e->r[2], e->r[3]);
			if (s < 0 || t < s || (size_t)s < at) {
				hermes_buf_free(&b);
				hermes_error_set(err, HERMES_E_CONFLICT, "cannot rename: the language server's "
				                 "edits of '%s' do not fit its text (overlapping, or past its "
				                 "end); nothing was written", fe->path);
				return -1;
			}
			hermes_buf_append(&b, f->old_data + at, (size_t)s - at);
			hermes_buf_append(&b, e->text, e->len);
			at = (size_t)t;
		}
		hermes_buf_append(&b, f->old_data + at, f->old_len - at);
		if (b.failed) {
			hermes_buf_free(&b);
			hermes_error_set(err, HERMES_E_INTERNAL, "out of memory renaming in '%s'", fe->path);
			return -1;
		}
		f->op = HERMES_COMMIT_WRITE;
		f->new_len = b.len;
		f->new_data = b.data ? b.data : strdup("");
	}
	return 0;
}

/* Adds the TextEdits of uri to the set; false once result says why not. */
static bool add_edits(hermes_code_ctx_t *ctx, rename_ctx_t *rc, const char *uri,
                      const hermes_json_t *edits)
{
	char shown[256];
	char *rel = hermes_code_relative_of(ctx, uri);
	if (!rel) {
		char *abs = hermes_lsp_uri_path(uri);
		hermes_result_fail(ctx->result, HERMES_E_OUTSIDE_WORKSPACE,
		                   "cannot rename: the language server would change '%s', outside the "
		                   "workspace; nothing was written",
		                   hermes_ws_shown(abs ? abs : uri, shown, sizeof shown));
		free(abs);
		return false;
	}
	if (!edits || edits->type != HERMES_JSON_ARRAY || edits->count == 0) {
		free(rel);
		return true;
	}
	if (rc->n == MAX_RENAME_FILES) {
		free(rel);
		hermes_result_fail(ctx->result, HERMES_E_TOO_LARGE, "cannot rename: more than %d files "
		                   "would change", MAX_RENAME_FILES);
		return false;
	}
	file_edits_t *fe = &rc->files[rc->n];
	memset(fe, 0, sizeof *fe);
	fe->path = rel;
	fe->uri = uri;
	fe->edits = calloc(edits->count, sizeof *fe->edits);
	if (!fe->path || !fe->edits) {
		free(fe->path);
		free(fe->edits);
		hermes_result_fail(ctx->result, HERMES_E_INTERNAL, "out of memory");
		return false;
	}
	rc->n++;
	for (const hermes_json_t *e = edits->child; e; e = e->next) {
		edit_t *ed = &fe->edits[fe->count];
		const hermes_json_t *t = hermes_json_member(e, "newText");
		if (!hermes_code_range(hermes_json_member(e, "range"), ed->r) || !t ||
		    t->type != HERMES_JSON_STRING) {
			hermes_result_fail(ctx->result, HERMES_E_UNAVAILABLE, "the language server's rename "
			                   "of '%s' holds an edit that is not a TextEdit", fe->path);
			return false;
		}
		ed->text = t->str;
		ed->len = t->len;
		fe->count++;
	}
	qsort(fe->edits, fe->count, sizeof *fe->edits, cmp_edit);
	for (size_t i = 0; i < ctx->nfiles; i++)
		if (ctx->files[i].synced && strcmp(ctx->files[i].uri, uri) == 0)
			fe->synced = &ctx->files[i];
	return true;
}

/* Reads the WorkspaceEdit: "documentChanges" (TextDocumentEdits; a file operation is refused)
 * or "changes". False once result says why not. */
static bool read_edit(hermes_code_ctx_t *ctx, rename_ctx_t *rc, const hermes_json_t *r)
{
	const hermes_json_t *dc = hermes_json_member(r, "documentChanges");
	const hermes_json_t *ch = hermes_json_member(r, "changes");
	size_t cap = dc && dc->type == HERMES_JSON_ARRAY ? dc->count
	             : ch && ch->type == HERMES_JSON_OBJECT ? ch->count : 0;
	rc->files = calloc(cap ? cap : 1, sizeof *rc->files);
	if (!rc->files) {
		hermes_result_fail(ctx->result, HERMES_E_INTERNAL, "out of memory");
		return false;
	}
	if (dc && dc->type == HERMES_JSON_ARRAY) {
		for (const hermes_json_t *d = dc->child; d; d = d->next) {
			const hermes_json_t *uri = hermes_json_member(hermes_json_member(d, "textDocument"),
			                                              "uri");
			if (!uri || !hermes_json_is_c_string(uri)) {
				hermes_result_fail(ctx->result, HERMES_E_INVALID_ARGUMENT,
				                   "cannot rename: the language server would also create, "
				                   "rename or delete files, which code.rename does not do; "
				                   "nothing was written");
				return false;
			}
			if (!add_edits(ctx, rc, uri->str, hermes_json_member(d, "edits")))
				return false;
		}
	} else if (ch && ch->type == HERMES_JSON_OBJECT) {
		for (const hermes_json_t *m = ch->child; m; m = m->next) {
			if (memchr(m->key, '\0', m->key_len) || !add_edits(ctx, rc, m->key, m)) {
				if (((hermes_result_common_t *)ctx->result)->succeeded)
					hermes_result_fail(ctx->result, HERMES_E_UNAVAILABLE,
					                   "the language server's rename names a bad URI");
				return false;
			}
		}
	}
	/* Two entries for one file would be two change sets of it: refused by the commit. */
	return true;
}

/* Tells the server what the rename wrote: the changed files are synced (opened with their new
 * text: clangd indexes open files at once, while its background index would stay stale) and
 * announced as changed on disk (workspace/didChangeWatchedFiles, for servers that watch). */
static void tell_server(hermes_code_ctx_t *ctx, const rename_ctx_t *rc,
                        const hermes_commit_file_t *files)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"changes\":[");
	for (size_t i = 0; i < rc->n; i++) {
		hermes_buf_puts(&b, i ? ",{\"uri\":" : "{\"uri\":");
		hermes_buf_json_string(&b, rc->files[i].uri, strlen(rc->files[i].uri));
		hermes_buf_puts(&b, ",\"type\":2}");
	}
	hermes_buf_puts(&b, "]}");
	if (!b.failed)
		hermes_lsp_notify(ctx->client, "workspace/didChangeWatchedFiles", b.data, NULL);
	hermes_buf_free(&b);
	bool synced[HERMES_LSP_MAX_OPEN_DOCS] = {false};
	for (size_t i = 0; i < rc->n && i < HERMES_LSP_MAX_OPEN_DOCS; i++) {
		const char *language_id;
		const char *lang = hermes_lsp_language_of(ctx->pool, rc->files[i].path, &language_id);
		bool changed = false;
		if (lang && strcmp(lang, ctx->language) == 0)
			hermes_lsp_sync(ctx->client, rc->files[i].uri, language_id, files[i].new_data,
			                files[i].new_len, &changed, NULL);
		synced[i] = changed;
	}
	/* A server publishes a file's diagnostics once it has analysed its new text: waiting for
	 * them (at most RENAME_SETTLE_MS in all) makes the next answer see the rename. */
	int64_t deadline = hermes_lsp_now_ms() + RENAME_SETTLE_MS;
	for (size_t i = 0; i < rc->n && i < HERMES_LSP_MAX_OPEN_DOCS; i++) {
		int64_t left = deadline - hermes_lsp_now_ms();
		if (synced[i] && left > 0)
			free(hermes_lsp_diagnostics(ctx->client, rc->files[i].uri, (int)left,
			                            ctx->call->cancel));
	}
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const hermes_code_renamed_file_t *)a)->path,
	              ((const hermes_code_renamed_file_t *)b)->path);
}

void hermes_verb_code_rename(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_code_rename_args_t *args = args_;
	hermes_code_rename_result_t *result = result_;
	hermes_code_ctx_t ctx = {.call = call, .result = result};
	hermes_json_doc_t *doc = NULL;
	const hermes_json_t *r;
	hermes_code_file_t *qf;
	int64_t ql, qch;
	rename_ctx_t rc = {0};
	hermes_commit_file_t *files = NULL;
	const char **paths = NULL;
	hermes_code_diagnose_t *dg = NULL;
	hermes_buf_t extra = HERMES_BUF_INIT;
	hermes_buf_puts(&extra, ",\"newName\":");
	hermes_buf_json_string(&extra, args->new_name, strlen(args->new_name));
	if (!*args->new_name) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "newName is empty");
	} else if (extra.failed) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
	} else if (hermes_code_ask(&ctx, "textDocument/rename", args->name_path, args->path,
	                           args->language, args->has_line, args->line, args->has_column,
	                           args->column, extra.data, &doc, &r, &qf, &ql, &qch) &&
	           read_edit(&ctx, &rc, r)) {
		if (rc.n == 0) {
			hermes_result_fail(result, HERMES_E_NOT_FOUND, "the language server proposes no "
			                   "change for renaming %s to '%.200s'; nothing was written",
			                   args->name_path ? args->name_path : "the symbol at that position",
			                   args->new_name);
		} else if (!(files = calloc(rc.n, sizeof *files)) ||
		           !(result->files = calloc(rc.n, sizeof *result->files))) {
			hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
		} else {
			for (size_t i = 0; i < rc.n; i++) {
				files[i].path = rc.files[i].path;
				files[i].flags = HERMES_COMMIT_MUST_EXIST;
			}
			bool diagnose = args->diagnose && !args->dry_run;
			if (diagnose && (paths = calloc(rc.n, sizeof *paths))) {
				for (size_t i = 0; i < rc.n; i++)
					paths[i] = rc.files[i].path;
				dg = hermes_code_diagnose_begin(call, paths, rc.n);
			}
			hermes_error_t err = {0};
			if (hermes_commit_run(call->host, call->cancel, files, rc.n,
			                      args->dry_run ? HERMES_COMMIT_DRY_RUN : 0, compute, &rc,
			                      &err) < 0) {
				hermes_result_fail(result, err.code, "%s", err.message);
			} else {
				for (size_t i = 0; i < rc.n; i++) {
					hermes_code_renamed_file_t *o = &result->files[i];
					o->path = strdup(files[i].path);
					o->diff = hermes_unified_diff(files[i].path, files[i].old_data,
					                              files[i].old_len, files[i].new_data,
					                              files[i].new_len, 3);
					o->edits = (int32_t)rc.files[i].count;
					if (!args->dry_run)
						o->version = strdup(files[i].new_version);
				}
				result->files_count = rc.n;
				if (!args->dry_run)
					tell_server(&ctx, &rc, files);
				qsort(result->files, rc.n, sizeof *result->files, cmp_file);
			}
			size_t nw = 0;
			for (size_t i = 0; paths && result->common.succeeded && i < rc.n; i++)
				if (result->files[i].path)
					paths[nw++] = result->files[i].path;
			if (diagnose)
				hermes_code_diagnose_end(dg, paths, nw, &result->diagnostics,
				                         &result->diagnostics_count);
			hermes_commit_files_free(files, rc.n);
		}
	}
	free(files);
	free(paths);
	for (size_t i = 0; i < rc.n; i++) {
		free(rc.files[i].path);
		free(rc.files[i].edits);
	}
	free(rc.files);
	hermes_buf_free(&extra);
	hermes_json_doc_free(doc);
	hermes_code_end(&ctx);
}
