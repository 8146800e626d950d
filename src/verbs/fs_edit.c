/* verbs/fs_edit.c: fs.editFile: exact-text replacements, applied in order to the file's text in
 * memory, checked all before anything is written, then written like fs.writeFile (a temporary
 * file renamed into place, keeping the file's permission bits), with the change as a diff. The
 * whole read-modify-write holds the file's writer lock (fs/filelock.h), so concurrent edits are
 * applied one after another. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fdio.h"
#include "fs/atomic.h"
#include "fs/diff.h"
#include "fs/filelock.h"
#include "verbs/handlers.h"
#include "fs/lines.h"
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

/* Applies the edits to text in order. The count of replacements, or -1 once result says why. */
static int64_t apply(const hermes_fs_edit_file_args_t *args, bool crlf, hermes_buf_t *text,
                     void *result)
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
		if (n == 0 || (n > 1 && !ed->replace_all)) {
			if (n == 0)
				hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
				                   "cannot edit '%s': edit %zu: oldText was not found%s; nothing "
				                   "was written", path, i, i ? " (after the edits before it)" : "");
			else
				hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
				                   "cannot edit '%s': edit %zu: oldText occurs %zu times; give "
				                   "more of the text around it to make it unique, or set "
				                   "replaceAll; nothing was written", path, i, n);
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
	int64_t n = apply(args, uses_crlf(before.data, before.len), &after, result);
	if (n < 0)
		goto out;
	result->replacements = n;
	result->diff = hermes_unified_diff(args->path, before.data, before.len, after.data, after.len, 3);
	if (!result->diff) {
		hermes_ws_fail(result, -ENOMEM, "edit", args->path);
		goto out;
	}
	if (args->dry_run) {
		now = st;
	} else {
		rc = hermes_atomic_replace(loc->dirfd, loc->name, &st, &st, after.data, after.len, &now);
		if (rc == HERMES_WS_ECHANGED && !last) {
			free(result->diff);
			result->diff = NULL;
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
	if (loc.is_root || !loc.exists)
		hermes_ws_fail(result, loc.is_root ? -EISDIR : -ENOENT, "edit", args->path);
	else
		for (int turn = 0; edit_once(call, args, &loc, result, turn == HERMES_VERBS_WRITE_TURNS - 1);
		     turn++)
			;
	hermes_ws_loc_close(&loc);
}
