/* verbs/fs_edit.c: fs.editFile: text replacements, applied in order to the file's text in memory
 * (each oldText found exactly, else by the tolerant line matching of fs/match.h unless exact), checked all before anything is written, then written like fs.writeFile (a temporary
 * file renamed into place, keeping the file's permission bits), with the change as a diff. The
 * whole read-modify-write holds the file's writer lock (fs/filelock.h), so concurrent edits are
 * applied one after another. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fdio.h"
#include "fs/atomic.h"
#include "fs/history.h"
#include "fs/diff.h"
#include "fs/filelock.h"
#include "verbs/code.h"
#include "verbs/handlers.h"
#include "fs/lines.h"
#include "fs/match.h"
#include "fs/patch_apply.h"
#include "fs/workspace.h"

/* The file's text: read whole, bounded by the read limit, checked to be text. 0, or -1 once
 * result says why. */
static int read_text(const hermes_call_t *call, int fd, const char *path, void *result,
                     hermes_buf_t *text)
{
	char shown[256];
	int64_t max = call->config->max_read_bytes;
	int rc = hermes_read_all(fd, (size_t)max, text);
	if (rc == -EFBIG) {
		hermes_result_fail(result, HERMES_E_TOO_LARGE, "cannot edit '%s': it is larger than the "
		                   "read limit of %lld bytes", hermes_ws_shown(path, shown, sizeof shown),
		                   (long long)max);
		return -1;
	}
	if (rc) {
		hermes_ws_fail(result, rc, "edit", path);
		return -1;
	}
	size_t bad;
	if (!hermes_text_valid(text->data ? text->data : "", text->len, &bad)) {
		hermes_result_fail(result, HERMES_E_NOT_TEXT, "cannot edit '%s': it is not UTF-8 text "
		                   "(byte %zu)", hermes_ws_shown(path, shown, sizeof shown), bad);
		return -1;
	}
	return 0;
}

/* Does the text end its first line with CRLF? Then edits speak LF and are written as CRLF. */
static bool uses_crlf(const char *s, size_t len)
{
	const char *nl = memchr(s, '\n', len);
	return nl && nl > s && nl[-1] == '\r';
}

/* s with each '\n' not already after '\r' written as "\r\n" (crlf), or s itself. malloc'd. */
static char *line_endings(const char *s, bool crlf)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_append(&b, "", 0);
	for (const char *p = s; *p; p++) {
		if (crlf && *p == '\n' && (p == s || p[-1] != '\r'))
			hermes_buf_putc(&b, '\r');
		hermes_buf_putc(&b, *p);
	}
	return hermes_buf_finish(&b);
}

/* How many times needle occurs in hay, without overlaps. */
static size_t occurrences(const char *hay, size_t len, const char *needle, size_t nlen)
{
	size_t n = 0;
	for (const char *p = hay, *e = hay + len; p < e;) {
		const char *q = memmem(p, (size_t)(e - p), needle, nlen);
		if (!q)
			break;
		n++;
		p = q + nlen;
	}
	return n;
}

/* text with the first (or every) occurrence of old replaced by new, into out. */
static void replace(const hermes_buf_t *text, const char *old, const char *new, bool all,
                    hermes_buf_t *out)
{
	size_t olen = strlen(old);
	const char *p = text->data, *e = text->data + text->len;
	hermes_buf_append(out, "", 0);
	while (p < e) {
		const char *q = memmem(p, (size_t)(e - p), old, olen);
		if (!q)
			break;
		hermes_buf_append(out, p, (size_t)(q - p));
		hermes_buf_puts(out, new);
		p = q + olen;
		if (!all)
			break;
	}
	hermes_buf_append(out, p, (size_t)(e - p));
}

/* s as whole lines (without one final "\n", each without "\r\n"), for the tolerant search. An
 * empty s is no line, unless keep_empty (an oldText without a final newline replaced by nothing
 * leaves its line, empty). false if out of memory. */
static bool split_lines(const char *s, bool keep_empty, char ***lines, size_t *n)
{
	size_t len = strlen(s);
	*lines = NULL, *n = 0;
	if (len && s[len - 1] == '\n')
		len--;
	if (len == 0 && !keep_empty)
		return true;
	for (size_t at = 0;;) {
		const char *nl = memchr(s + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - s) : len, l = end - at;
		if (l && s[at + l - 1] == '\r')
			l--;
		char *line = strndup(s + at, l);
		char **more = line ? realloc(*lines, (*n + 1) * sizeof *more) : NULL;
		if (!more) {
			free(line);
			return false;
		}
		*lines = more;
		(*lines)[(*n)++] = line;
		if (!nl)
			return true;
		at = end + 1;
	}
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* A fragment of one line, found with look-alike characters folded (curly quotes, dashes,
 * non-breaking spaces): in exactly one place, it is replaced by newText as given; in several,
 * msg lists their lines. Otherwise msg keeps the whole-line search's message (rc). */
static int fragment_folded(const hermes_text_edit_t *ed, hermes_buf_t *text, unsigned *tol,
                           char *msg, size_t size, int rc)
{
	size_t at[8], end[8];
	size_t n = hermes_match_folded(text->data, text->len, ed->old_text, strlen(ed->old_text),
	                               at, end, 8);
	if (n == 0)
		return rc;
	if (n > 1) {
		hermes_buf_t b = HERMES_BUF_INIT;
		hermes_buf_printf(&b, "oldText matches %zu places when look-alike characters are "
		                  "forgiven (lines", n);
		for (size_t k = 0; k < n && k < 8; k++) {
			size_t line = 1;
			for (size_t i = 0; i < at[k]; i++)
				line += text->data[i] == '\n';
			hermes_buf_printf(&b, "%s %zu", k ? "," : "", line);
		}
		hermes_buf_puts(&b, n > 8 ? ", ...); give more of the text around it" :
		                            "); give more of the text around it");
		snprintf(msg, size, "%s", b.data && !b.failed ? b.data : "out of memory");
		hermes_buf_free(&b);
		return -1;
	}
	hermes_buf_t next = HERMES_BUF_INIT;
	hermes_buf_append(&next, text->data, at[0]);
	hermes_buf_puts(&next, ed->new_text);
	hermes_buf_append(&next, text->data + end[0], text->len - end[0]);
	if (next.failed) {
		hermes_buf_free(&next);
		snprintf(msg, size, "out of memory");
		return -1;
	}
	hermes_buf_free(text);
	*text = next;
	*tol = HERMES_TOL_UNICODE;
	return 0;
}

/* The tolerant search of fs/match.h for an oldText that is not in text exactly: on success text
 * is replaced and *tol gets what was forgiven; otherwise -1 with msg filled (near-miss or
 * ambiguity). exact: whole lines exactly only (then the call is for its near-miss message). */
static int apply_tolerant(const hermes_text_edit_t *ed, bool exact, const char *path,
                          hermes_buf_t *text, unsigned *tol, char *msg, size_t size)
{
	size_t ol = strlen(ed->old_text);
	hermes_patch_hunk_t h = {0};
	if (!split_lines(ed->old_text, false, &h.old_lines, &h.old_count) ||
	    !split_lines(ed->new_text, ol && ed->old_text[ol - 1] != '\n', &h.new_lines,
	                 &h.new_count)) {
		free_lines(h.old_lines, h.old_count);
		snprintf(msg, size, "out of memory");
		return -1;
	}
	char *out = NULL;
	size_t out_len = 0;
	int rc = h.old_count ? hermes_patch_apply_hunks(text->data, text->len, &h, 1, exact, path,
	                                                 &out, &out_len, tol, msg, size)
	                     : (snprintf(msg, size, "oldText was not found"), -1);
	free_lines(h.old_lines, h.old_count);
	free_lines(h.new_lines, h.new_count);
	if (rc != 0 && !exact && !strchr(ed->old_text, '\n'))
		rc = fragment_folded(ed, text, tol, msg, size, rc);
	else if (rc == 0) {
		hermes_buf_free(text);
		*text = (hermes_buf_t){out, out_len, out_len + 1, false};
	}
	return rc;
}

/* Applies the edits to text in order. The count of replacements, or -1 once result says why. */
static int64_t apply(const hermes_fs_edit_file_args_t *args, bool crlf, hermes_buf_t *text,
                     unsigned *tol, void *result)
{
	char shown[256];
	const char *path = hermes_ws_shown(args->path, shown, sizeof shown);
	int64_t total = 0;
	for (size_t i = 0; i < args->edits_count; i++) {
		const hermes_text_edit_t *ed = &args->edits[i];
		char *old = line_endings(ed->old_text, crlf), *new = line_endings(ed->new_text, crlf);
		if (!old || !new) {
			free(old), free(new);
			hermes_ws_fail(result, -ENOMEM, "edit", args->path);
			return -1;
		}
		size_t n = occurrences(text->data, text->len, old, strlen(old));
		if (n == 0) {
			char msg[2048];
			unsigned used = 0;
			free(old), free(new);
			if (apply_tolerant(ed, args->exact, path, text, &used, msg, sizeof msg) == 0) {
				*tol |= used;
				total++;
				continue;
			}
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "cannot edit '%s': edit %zu%s: %s; nothing was written", path, i,
			                   i ? " (after the edits before it)" : "", msg);
			return -1;
		}
		if (n > 1 && !ed->replace_all) {
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "cannot edit '%s': edit %zu: oldText occurs %zu times; give more "
			                   "of the text around it to make it unique, or set replaceAll; "
			                   "nothing was written", path, i, n);
			free(old), free(new);
			return -1;
		}
		hermes_buf_t next = HERMES_BUF_INIT;
		replace(text, old, new, ed->replace_all, &next);
		free(old), free(new);
		if (next.failed) {
			hermes_buf_free(&next);
			hermes_ws_fail(result, -ENOMEM, "edit", args->path);
			return -1;
		}
		hermes_buf_free(text);
		*text = next;
		total += ed->replace_all ? (int64_t)n : 1;
	}
	return total;
}

/* One read-modify-write under the file's lock. 1: the file was changed meanwhile by a writer that
 * does not lock (nothing was written): start over. 0: done, result says how. */
static int edit_once(const hermes_call_t *call, const hermes_fs_edit_file_args_t *args,
                     const hermes_ws_loc_t *loc, hermes_fs_edit_file_result_t *result, bool last)
{
	hermes_buf_t before = HERMES_BUF_INIT, after = HERMES_BUF_INIT;
	struct stat st, now;
	int fd = -1, again = 0;
	int rc = hermes_file_lock(loc->dirfd, loc->name, call->cancel, &fd, &st);
	if (rc) {
		hermes_ws_fail(result, rc, "edit", args->path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		hermes_ws_fail(result, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL, "edit", args->path);
		goto out;
	}
	if (hermes_verbs_check_version(args->expected_version, &st, "edit", args->path, result) < 0)
		goto out;
	if (read_text(call, fd, args->path, result, &before) != 0)
		goto out;
	hermes_buf_append(&before, "", 0);
	hermes_buf_append(&after, before.data, before.len);
	unsigned tol = 0;
	int64_t n = apply(args, uses_crlf(before.data, before.len), &after, &tol, result);
	if (n < 0)
		goto out;
	const char *names[4];
	size_t nn = hermes_match_tolerance_names(tol, names);
	if (!(result->tolerances = calloc(nn + 1, sizeof *result->tolerances))) {
		hermes_ws_fail(result, -ENOMEM, "edit", args->path);
		goto out;
	}
	for (size_t k = 0; k < nn; k++)
		if (!(result->tolerances[result->tolerances_count++] = strdup(names[k]))) {
			hermes_ws_fail(result, -ENOMEM, "edit", args->path);
			goto out;
		}
	result->replacements = n;
	result->diff = hermes_unified_diff(args->path, before.data, before.len, after.data, after.len, 3);
	if (!result->diff) {
		hermes_ws_fail(result, -ENOMEM, "edit", args->path);
		goto out;
	}
	if (args->dry_run) {
		now = st;
	} else {
		hermes_history_t *hist = hermes_history_start(call->host, "fs.editFile");
		int hi = hermes_history_file(hist, loc->dirfd, loc->name, &st);
		rc = hermes_atomic_replace(loc->dirfd, loc->name, &st, &st, after.data, after.len, &now);
		hermes_history_after(hist, hi, &now);
		hermes_history_finish(hist, rc == 0); /* for fs.undo */
		if (rc == HERMES_WS_ECHANGED && !last) {
			/* the next turn computes the result anew: nothing of this one stays */
			free(result->diff);
			result->diff = NULL;
			for (size_t k = 0; k < result->tolerances_count; k++)
				free(result->tolerances[k]);
			free(result->tolerances);
			result->tolerances = NULL;
			result->tolerances_count = 0;
			again = 1;
			goto out;
		}
		if (rc) {
			hermes_ws_fail(result, rc, "edit", args->path);
			goto out;
		}
	}
	if (!(result->version = hermes_file_version_dup(&now)))
		hermes_ws_fail(result, -ENOMEM, "edit", args->path);
out:
	if (fd >= 0)
		close(fd); /* and with it the lock, after the rename */
	hermes_buf_free(&before);
	hermes_buf_free(&after);
	return again;
}

void hermes_verb_fs_edit_file(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_edit_file_args_t *args = args_;
	hermes_fs_edit_file_result_t *result = result_;
	char shown[256];
	if (hermes_verbs_recover(call, result) < 0)
		return;
	if (args->edits_count == 0) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "cannot edit '%s': edits is empty",
		                   hermes_ws_shown(args->path, shown, sizeof shown));
		return;
	}
	for (size_t i = 0; i < args->edits_count; i++)
		if (args->edits[i].old_text[0] == '\0') {
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "cannot edit '%s': edit %zu: oldText is empty",
			                   hermes_ws_shown(args->path, shown, sizeof shown), i);
			return;
		}
	hermes_ws_loc_t loc;
	int rc = hermes_ws_locate(call->host, args->path, HERMES_WS_FOLLOW, &loc);
	if (rc) {
		hermes_ws_fail(result, rc, "edit", args->path);
		return;
	}
	const char *path = args->path;
	bool diagnose = args->diagnose && !args->dry_run && !loc.is_root && loc.exists;
	hermes_code_diagnose_t *dg = diagnose ? hermes_code_diagnose_begin(call, &path, 1) : NULL;
	if (loc.is_root || !loc.exists)
		hermes_ws_fail(result, loc.is_root ? -EISDIR : -ENOENT, "edit", args->path);
	else
		for (int turn = 0; edit_once(call, args, &loc, result, turn == HERMES_VERBS_WRITE_TURNS - 1);
		     turn++)
			;
	hermes_ws_loc_close(&loc);
	if (result->version && !args->dry_run)
		hermes_code_written(call, args->path);
	/* An edit that changed nothing (its diff is empty) is still diagnosed: the answer is its
	 * file's diagnostics, none introduced. */
	if (diagnose)
		hermes_code_diagnose_end(dg, &path, result->version ? 1 : 0, &result->diagnostics,
		                         &result->diagnostics_count);
}
