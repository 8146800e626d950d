/* verbs/fs_patch.c: fs.applyPatch: a patch in any of three formats (fs/patch.h) over one or more
 * files, applied all or nothing through the multi-file commit (fs/commit.h). Every file's new
 * content is computed inside the commit's compute step, under the writer locks of all the
 * files, from their current content, by the tolerant matching of fs/patch_apply.h; a file whose
 * hunks do not match, or any other failure, leaves every file as it was. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "fs/commit.h"
#include "fs/diff.h"
#include "fs/lines.h"
#include "fs/match.h"
#include "fs/patch.h"
#include "fs/patch_apply.h"
#include "verbs/code.h"
#include "verbs/handlers.h"

/* What compute found for one file of the patch. */
typedef struct outcome {
	size_t entry;      /* its commit entry (the source for a move) */
	size_t dest;       /* a move's destination entry; (size_t)-1 otherwise */
	char *diff;
	unsigned tol;
} outcome_t;

typedef struct ctx {
	const hermes_call_t *call;
	const hermes_patch_t *patch;
	outcome_t *out;    /* one per patch file */
} ctx_t;

static int fail(hermes_error_t *err, hermes_errcode_t code, const char *fmt, ...)
	HERMES_PRINTF(3, 4);

static int fail(hermes_error_t *err, hermes_errcode_t code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	err->code = code;
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return -1;
}

/* The new text of an UPDATE (or a SEARCH/REPLACE creation) from the current one. */
static int update_text(const ctx_t *c, const hermes_patch_file_t *f, const hermes_commit_file_t *e,
                       char **data, size_t *len, unsigned *tol, hermes_error_t *err)
{
	char msg[4096];
	const char *old = e->exists ? e->old_data : "";
	size_t old_len = e->exists ? e->old_len : 0;
	if (f->hunk_count == 0) { /* a pure move: any content, text or not, moves as it is */
		if (!(*data = malloc(old_len + 1)))
			return fail(err, HERMES_E_INTERNAL, "out of memory");
		memcpy(*data, old, old_len);
		(*data)[old_len] = '\0';
		*len = old_len;
		*tol = 0;
		return 0;
	}
	if (e->exists) {
		size_t bad;
		if ((int64_t)old_len > c->call->config->max_read_bytes)
			return fail(err, HERMES_E_TOO_LARGE, "cannot patch '%s': it is larger than the read "
			            "limit of %lld bytes; nothing was written", f->path,
			            (long long)c->call->config->max_read_bytes);
		if (!hermes_text_valid(old, old_len, &bad))
			return fail(err, HERMES_E_NOT_TEXT, "cannot patch '%s': it is not UTF-8 text (byte "
			            "%zu); nothing was written", f->path, bad);
		if (f->create_if_missing && old_len > 0)
			return fail(err, HERMES_E_ALREADY_EXISTS, "cannot patch '%s': its first SEARCH "
			            "(patch line %d) is empty, which creates the file, but the file exists; "
			            "nothing was written", f->path, f->hunks[0].line);
	}
	if (c->patch->format != HERMES_PATCH_SEARCH_REPLACE) {
		if (hermes_patch_apply_hunks(old, old_len, f->hunks, f->hunk_count, false, f->path,
		                             data, len, tol, msg, sizeof msg) != 0)
			return fail(err, HERMES_E_INVALID_ARGUMENT, "cannot apply the patch: %s; nothing "
			            "was written", msg);
		return 0;
	}
	/* SEARCH/REPLACE blocks are not in the file's order: each applies to the result of the
	 * ones before it, found anywhere in it */
	char *cur = NULL;
	size_t cur_len = 0;
	*tol = 0;
	for (size_t k = 0; k < f->hunk_count; k++) {
		char *next;
		size_t next_len;
		unsigned t;
		int rc = hermes_patch_apply_hunks(cur ? cur : old, cur ? cur_len : old_len, &f->hunks[k],
		                                  1, false, f->path, &next, &next_len, &t, msg, sizeof msg);
		if (rc != 0) {
			free(cur);
			return fail(err, HERMES_E_INVALID_ARGUMENT, "cannot apply the patch: %s%s; nothing "
			            "was written", msg, k ? " (after the blocks before it)" : "");
		}
		free(cur);
		cur = next, cur_len = next_len;
		*tol |= t;
	}
	*data = cur;
	*len = cur_len;
	return 0;
}

static int compute(void *ctx_, hermes_commit_file_t *files, size_t n, hermes_error_t *err)
{
	ctx_t *c = ctx_;
	(void)n;
	for (size_t i = 0; i < c->patch->file_count; i++) {
		const hermes_patch_file_t *f = &c->patch->files[i];
		outcome_t *o = &c->out[i];
		hermes_commit_file_t *e = &files[o->entry];
		free(o->diff);
		o->diff = NULL;
		o->tol = 0;
		char *data = NULL;
		size_t len = 0;
		if (f->action == HERMES_PATCH_ADD) {
			if (!(data = malloc(f->content_len + 1)))
				return fail(err, HERMES_E_INTERNAL, "out of memory");
			memcpy(data, f->content, f->content_len + 1);
			len = f->content_len;
			e->op = HERMES_COMMIT_WRITE;
		} else if (f->action == HERMES_PATCH_DELETE) {
			e->op = HERMES_COMMIT_DELETE;
		} else {
			if (update_text(c, f, e, &data, &len, &o->tol, err) != 0)
				return -1;
			if (o->dest != (size_t)-1) {
				e->op = HERMES_COMMIT_DELETE;
				e = &files[o->dest];
			}
			e->op = HERMES_COMMIT_WRITE;
		}
		const char *old = files[o->entry].exists ? files[o->entry].old_data : "";
		size_t old_len = files[o->entry].exists ? files[o->entry].old_len : 0;
		const char *name = o->dest != (size_t)-1 ? f->move_to : f->path;
		size_t bad;
		if (!hermes_text_valid(old, old_len, &bad)) { /* a binary file deleted or moved */
			hermes_buf_t b = HERMES_BUF_INIT;
			hermes_buf_printf(&b, "Binary files a/%s and b/%s differ\n", f->path, name);
			o->diff = hermes_buf_finish(&b);
		} else {
			o->diff = hermes_unified_diff(name, old, old_len, data ? data : "", len, 3);
		}
		if (e->op == HERMES_COMMIT_WRITE) {
			e->new_data = data;
			e->new_len = len;
		}
		if (!o->diff)
			return fail(err, HERMES_E_INTERNAL, "out of memory");
	}
	return 0;
}

/* Index of path among files[0..n), or -1. */
static long entry_of(const hermes_commit_file_t *files, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(files[i].path, path) == 0)
			return (long)i;
	return -1;
}

static const char *action_name(const hermes_patch_file_t *f)
{
	return f->action == HERMES_PATCH_ADD      ? "add"
	     : f->action == HERMES_PATCH_DELETE   ? "delete"
	     : f->move_to                         ? "move"
	                                          : "update";
}

/* The commit entries of the patch's files (and of expectedVersions); -1 once result says why. */
static int plan(const hermes_fs_apply_patch_args_t *args, const hermes_patch_t *p,
                hermes_commit_file_t *files, size_t *count, outcome_t *out, void *result)
{
	size_t n = 0;
	for (size_t i = 0; i < p->file_count; i++) {
		const hermes_patch_file_t *f = &p->files[i];
		const char *paths[2] = {f->path, f->move_to};
		for (int k = 0; k < (f->move_to ? 2 : 1); k++) {
			long dup = entry_of(files, n, paths[k]);
			if (dup >= 0) {
				hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "cannot apply the patch: "
				                   "it names '%s' twice (patch line %d); put all of a file's "
				                   "changes in one section", paths[k], f->line);
				return -1;
			}
			hermes_commit_file_t *e = &files[n];
			e->path = paths[k];
			e->flags = k == 1 || f->action == HERMES_PATCH_ADD ? HERMES_COMMIT_MUST_NOT_EXIST
			         : f->create_if_missing                   ? 0
			                                                  : HERMES_COMMIT_MUST_EXIST;
			if (k == 0)
				out[i].entry = n, out[i].dest = (size_t)-1;
			else
				out[i].dest = n;
			n++;
		}
	}
	for (size_t i = 0; i < args->expected_versions_count; i++) {
		const hermes_file_version_t *v = &args->expected_versions[i];
		long at = entry_of(files, n, v->path);
		if (at < 0) { /* a file the patch does not change: checked and kept */
			at = (long)n++;
			files[at].path = v->path;
		}
		files[at].expected_version = v->version;
	}
	*count = n;
	return 0;
}

static int fill(hermes_fs_apply_patch_result_t *result, const hermes_patch_t *p,
                const hermes_commit_file_t *files, outcome_t *out)
{
	if (!(result->format = strdup(hermes_patch_format_name(p->format))) ||
	    !(result->files = calloc(p->file_count, sizeof *result->files)))
		return -1;
	result->files_count = p->file_count;
	for (size_t i = 0; i < p->file_count; i++) {
		const hermes_patch_file_t *f = &p->files[i];
		hermes_patched_file_t *r = &result->files[i];
		const hermes_commit_file_t *e = &files[out[i].dest != (size_t)-1 ? out[i].dest : out[i].entry];
		const char *names[4];
		size_t nn = hermes_match_tolerance_names(out[i].tol, names);
		if (!(r->path = strdup(f->path)) || !(r->action = strdup(action_name(f))) ||
		    (f->move_to && !(r->moved_to = strdup(f->move_to))) ||
		    !(r->version = strdup(e->new_version)) ||
		    !(r->tolerances = calloc(nn + 1, sizeof *r->tolerances)))
			return -1;
		r->diff = out[i].diff;
		out[i].diff = NULL;
		for (size_t k = 0; k < nn; k++)
			if (!(r->tolerances[r->tolerances_count++] = strdup(names[k])))
				return -1;
	}
	return 0;
}

void hermes_verb_fs_apply_patch(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_apply_patch_args_t *args = args_;
	hermes_fs_apply_patch_result_t *result = result_;
	int format = hermes_patch_format_parse(args->format);
	if (format < 0) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "format '%s' is not one of auto, "
		                   "apply_patch, unified, search_replace", args->format);
		return;
	}
	hermes_patch_t p;
	char msg[1024];
	if (hermes_patch_parse(args->patch, strlen(args->patch), (hermes_patch_format_t)format, &p,
	                       msg, sizeof msg) != 0) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "cannot read the patch: %s", msg);
		return;
	}
	size_t cap = 2 * p.file_count + args->expected_versions_count, n = 0;
	hermes_commit_file_t *files = calloc(cap, sizeof *files);
	outcome_t *out = calloc(p.file_count, sizeof *out);
	hermes_error_t err = {0};
	const char **paths = NULL;
	if (!files || !out) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
		goto done;
	}
	if (plan(args, &p, files, &n, out, result) != 0)
		goto done;
	bool diagnose = args->diagnose && !args->dry_run;
	hermes_code_diagnose_t *dg = NULL;
	if (diagnose && (paths = calloc(n ? n : 1, sizeof *paths))) {
		/* The files the patch writes: a deleted one has no diagnostics after, and one only
		 * named by expectedVersions is not changed. */
		size_t np = 0;
		for (size_t i = 0; i < p.file_count; i++)
			if (p.files[i].action != HERMES_PATCH_DELETE)
				paths[np++] = p.files[i].move_to ? p.files[i].move_to : p.files[i].path;
		dg = hermes_code_diagnose_begin(call, paths, np);
	}
	ctx_t c = {.call = call, .patch = &p, .out = out};
	int rc = hermes_commit_run_as("fs.applyPatch", call->host, call->cancel, files, n,
	                              args->dry_run ? HERMES_COMMIT_DRY_RUN : 0, compute, &c, &err);
	size_t nw = 0;
	if (rc != 0)
		hermes_result_fail(result, err.code ? err.code : HERMES_E_INTERNAL, "%s", err.message);
	else if (fill(result, &p, files, out) != 0)
		hermes_result_fail(result, HERMES_E_INTERNAL, "out of memory");
	else if (!args->dry_run)
		for (size_t i = 0; i < n; i++)
			if (files[i].op == HERMES_COMMIT_WRITE)
				hermes_code_written(call, files[i].path);
	/* The files written (a move's new path; a deleted file has none). */
	for (size_t i = 0; paths && result->common.succeeded && !args->dry_run && i < n; i++)
		if (files[i].op == HERMES_COMMIT_WRITE)
			paths[nw++] = files[i].path;
	if (diagnose)
		hermes_code_diagnose_end(dg, paths, nw, &result->diagnostics,
		                         &result->diagnostics_count);
	free(paths);
	hermes_commit_files_free(files, n);
done:
	if (out)
		for (size_t i = 0; i < p.file_count; i++)
			free(out[i].diff);
	free(out);
	free(files);
	hermes_patch_free(&p);
}
