/* verbs/fs_history.c: fs.history (the changes recorded in .hermes/history, fs/history.h) and
 * fs.undo (one of them reverted through the all-or-nothing commit of fs/commit.h, only if none of
 * its files changed since). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "fs/commit.h"
#include "fs/history.h"
#include "verbs/handlers.h"

void hermes_verb_fs_history(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_history_args_t *args = args_;
	hermes_fs_history_result_t *result = result_;
	hermes_history_entry_t *e = NULL;
	size_t n = 0;
	int rc = hermes_history_list(call->host, (size_t)args->limit, &e, &n);
	if (rc) {
		hermes_ws_fail(result, rc, "list", ".hermes/history");
		return;
	}
	result->changes = calloc(n ? n : 1, sizeof *result->changes); /* empty list, not missing */
	if (!result->changes) {
		hermes_history_entries_free(e, n);
		free(e);
		hermes_ws_fail(result, -ENOMEM, "list", ".hermes/history");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		hermes_fs_history_change_t *c = &result->changes[i];
		c->id = strdup(e[i].id);
		c->verb = strdup(e[i].verb);
		c->time = e[i].time;
		c->files = e[i].paths; /* moved */
		c->files_count = e[i].count;
		e[i].paths = NULL;
		e[i].count = 0;
		result->changes_count = i + 1;
		if (!c->id || !c->verb) {
			hermes_history_entries_free(e, n);
			free(e);
			hermes_ws_fail(result, -ENOMEM, "list", ".hermes/history");
			return;
		}
	}
	hermes_history_entries_free(e, n);
	free(e);
}

typedef struct undo {
	const hermes_ws_t *ws;
	const hermes_history_entry_t *entry;
	char **links; /* per file: the kept old file's path, for new_link */
} undo_t;

/* Under the locks: every file must be as the change left it; then each goes back. */
static int undo_compute(void *ctx, hermes_commit_file_t *f, size_t n, hermes_error_t *err)
{
	undo_t *u = ctx;
	const hermes_history_entry_t *e = u->entry;
	hermes_buf_t changed = HERMES_BUF_INIT;
	size_t nchanged = 0;
	for (size_t i = 0; i < n; i++) {
		const char *want = e->after[i];
		bool same = want[0] ? f[i].exists && strcmp(f[i].old_version, want) == 0 : !f[i].exists;
		if (same)
			continue;
		char shown[256], line[700];
		snprintf(line, sizeof line, "%s'%s' (now %s, after the change %s)", nchanged ? ", " : "",
		         hermes_ws_shown(f[i].path, shown, sizeof shown),
		         f[i].exists ? f[i].old_version : "absent", want[0] ? want : "absent");
		hermes_buf_append(&changed, line, strlen(line));
		nchanged++;
	}
	if (nchanged) {
		hermes_error_set(err, HERMES_E_CONFLICT,
		                 "cannot undo change %s: %zu of its files changed since: %.*s; nothing was "
		                 "written", e->id, nchanged, (int)(changed.failed ? 0 : changed.len),
		                 changed.data ? changed.data : "");
		free(changed.data);
		return -1;
	}
	free(changed.data);
	for (size_t i = 0; i < n; i++) {
		if (e->existed[i]) {
			int rc = hermes_history_old_content(u->ws, e->id, i, &f[i].new_data, &f[i].new_len);
			if (rc) {
				char why[256];
				hermes_error_set(err, hermes_ws_errcode(rc),
				                 "cannot undo change %s: the old content of '%s' is gone from "
				                 ".hermes/history: %s; nothing was written", e->id, f[i].path,
				                 hermes_ws_strerror(rc, why, sizeof why));
				return -1;
			}
			/* The kept inode itself goes back, so the file has its old version again and
			 * the undo of the change before this one finds it as that change left it. */
			char *link = malloc(64);
			if (link)
				snprintf(link, 64, ".hermes/history/%s/b%zu", e->id, i);
			free(u->links[i]);
			u->links[i] = link;
			f[i].new_link = link;
			f[i].op = HERMES_COMMIT_WRITE;
		} else {
			f[i].op = f[i].exists ? HERMES_COMMIT_DELETE : HERMES_COMMIT_KEEP;
		}
	}
	return 0;
}

void hermes_verb_fs_undo(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_undo_args_t *args = args_;
	hermes_fs_undo_result_t *result = result_;
	hermes_history_entry_t e;
	int rc = hermes_history_get(call->host, args->id, &e);
	if (rc == -ENOENT || rc == -EINVAL) {
		hermes_result_fail(result, HERMES_E_NOT_FOUND,
		                   "cannot undo change '%.40s': there is no such change in .hermes/history "
		                   "(fs.history lists them; the oldest are dropped)", args->id);
		return;
	}
	if (rc) {
		hermes_ws_fail(result, rc, "read", ".hermes/history");
		return;
	}
	hermes_commit_file_t *files = calloc(e.count, sizeof *files);
	if (!files) {
		hermes_history_entries_free(&e, 1);
		hermes_ws_fail(result, -ENOMEM, "undo", args->id);
		return;
	}
	for (size_t i = 0; i < e.count; i++)
		files[i].path = e.paths[i];
	undo_t u = {call->host, &e, calloc(e.count, sizeof(char *))};
	if (!u.links) {
		free(files);
		hermes_history_entries_free(&e, 1);
		hermes_ws_fail(result, -ENOMEM, "undo", args->id);
		return;
	}
	hermes_error_t err;
	if (hermes_commit_run_as("fs.undo", call->host, call->cancel, files, e.count, 0, undo_compute,
	                         &u, &err) < 0) {
		hermes_result_fail(result, err.code, "%s", err.message);
	} else {
		result->files = e.paths; /* moved */
		result->files_count = e.count;
		e.paths = NULL;
		e.count = 0;
	}
	size_t n = e.count ? e.count : result->files_count;
	hermes_commit_files_free(files, n);
	for (size_t i = 0; i < n; i++)
		free(u.links[i]);
	free(u.links);
	free(files);
	hermes_history_entries_free(&e, 1);
}
