/* verbs/fs_write.c: fs.writeFile and fs.writeRange. Both build the new version in a temporary file
 * next to the target and rename it into place (fs/atomic.h), so nobody ever sees a partial file;
 * the target keeps its permission bits, and a symlink inside the workspace is written through.
 * Over an existing file both hold its writer lock (fs/filelock.h) from the read to the rename.
 * Each change is recorded for fs.undo (fs/history.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base64.h"
#include "fs/atomic.h"
#include "fs/commit.h"
#include "fs/filelock.h"
#include "fs/history.h"
#include "verbs/code.h"
#include "verbs/handlers.h"
#include "fs/lines.h"
#include "fs/workspace.h"

/* Locates the file a write goes to (through in-root symlinks) and checks it can be one. */
static int locate_target(const hermes_call_t *call, const char *path, unsigned flags,
                         const char *action, void *result, hermes_ws_loc_t *loc)
{
	char shown[256];
	size_t len = strlen(path);
	if (len > 1 && path[len - 1] == '/') {
		/* Refused before anything is created on the way. */
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot %s '%s': a file's path cannot end with '/'", action,
		                   hermes_ws_shown(path, shown, sizeof shown));
		return -1;
	}
	int rc = hermes_ws_locate(call->host, path, HERMES_WS_FOLLOW | flags, loc);
	if (rc) {
		hermes_ws_fail(result, rc, action, path);
		return -1;
	}
	const char *why = NULL;
	hermes_errcode_t code = HERMES_E_INVALID_ARGUMENT;
	if (loc->is_root || (loc->exists && S_ISDIR(loc->st.st_mode))) {
		why = "it is a directory";
		code = HERMES_E_IS_A_DIRECTORY;
	} else if (loc->trailing_slash) {
		why = "a file's path cannot end with '/'";
	} else if (loc->exists && !S_ISREG(loc->st.st_mode)) {
		why = "it is not a regular file (a device, FIFO or socket)";
	}
	if (why) {
		hermes_result_fail(result, code, "cannot %s '%s': %s", action,
		                   hermes_ws_shown(path, shown, sizeof shown), why);
		hermes_ws_loc_close(loc);
		return -1;
	}
	return 0;
}

int hermes_verbs_check_version(const char *expected, const struct stat *st, const char *action,
                               const char *path, void *result)
{
	char now[HERMES_FILE_VERSION_MAX], shown[256];
	if (!expected)
		return 0;
	if (st)
		hermes_file_version(st, now);
	if (st && strcmp(expected, now) == 0)
		return 0;
	hermes_result_fail(result, HERMES_E_CONFLICT,
	                   "cannot %s '%s': it changed since version %.64s (it is now %s); nothing was "
	                   "written", action, hermes_ws_shown(path, shown, sizeof shown), expected,
	                   st ? now : "absent");
	return -1;
}

int hermes_verbs_recover(const hermes_call_t *call, void *result)
{
	hermes_error_t err;
	if (hermes_commit_recover(call->host, &err) == 0)
		return 0;
	hermes_result_fail(result, err.code, "%s", err.message);
	return -1;
}

/* ---- fs.writeFile ------------------------------------------------------------------------- */

/* Replaces (or creates) the file once, under its lock if it exists. 1: changed meanwhile by a
 * writer that does not lock, nothing written: start over. 0: done, result says how. */
static int write_once(const hermes_call_t *call, const hermes_fs_write_file_args_t *args,
                      const void *data, size_t len, const hermes_ws_loc_t *loc,
                      hermes_fs_write_file_result_t *result, bool last)
{
	struct stat st, now;
	int fd = -1, rc = 0;
	bool exists = loc->exists;
	if (exists) {
		rc = hermes_file_lock(loc->dirfd, loc->name, call->cancel, &fd, &st);
		if (rc == -ENOENT)
			exists = false; /* removed meanwhile: created anew */
		else if (rc == 0 && !S_ISREG(st.st_mode))
			rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	if (rc == 0 || rc == -ENOENT) {
		rc = 0;
		if (hermes_verbs_check_version(args->expected_version, exists ? &st : NULL, "write",
		                               args->path, result) < 0)
			goto out;
		hermes_history_t *hist = hermes_history_start(call->host, "fs.writeFile");
		int hi = hermes_history_file(hist, loc->dirfd, loc->name, exists ? &st : NULL);
		rc = hermes_atomic_replace(loc->dirfd, loc->name, exists ? &st : NULL,
		                           exists ? &st : NULL, data, len, &now);
		hermes_history_after(hist, hi, &now);
		hermes_history_finish(hist, rc == 0);
	}
	if (rc == HERMES_WS_ECHANGED && !last) {
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (rc)
		hermes_ws_fail(result, rc, "write", args->path);
	else if (!(result->version = hermes_file_version_dup(&now)))
		hermes_ws_fail(result, -ENOMEM, "write", args->path);
out:
	if (fd >= 0)
		close(fd);
	return 0;
}

void hermes_verb_fs_write_file(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_write_file_args_t *args = args_;
	hermes_fs_write_file_result_t *result = result_;
	hermes_ws_loc_t loc;
	char shown[256];
	const void *data = args->content;
	size_t len = strlen(args->content);
	uint8_t *bytes = NULL;
	if (strcmp(args->encoding, "base64") == 0) {
		/* Decoded before anything is created, so bad base64 leaves no trace. */
		char why[160];
		size_t n;
		if (!(bytes = malloc(hermes_base64_decoded_max(len) + 1))) {
			hermes_ws_fail(result, -ENOMEM, "write", args->path);
			return;
		}
		if (!hermes_base64_decode(args->content, len, bytes, &n, why, sizeof why)) {
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "cannot write '%s': content: %s; nothing was written",
			                   hermes_ws_shown(args->path, shown, sizeof shown), why);
			free(bytes);
			return;
		}
		data = bytes;
		len = n;
	} else if (strcmp(args->encoding, "utf8") != 0) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot write '%s': unknown encoding '%.40s' (expected: utf8, base64)",
		                   hermes_ws_shown(args->path, shown, sizeof shown), args->encoding);
		return;
	}
	const char *path = args->path;
	hermes_code_diagnose_t *dg = args->diagnose ? hermes_code_diagnose_begin(call, &path, 1)
	                                            : NULL;
	if (hermes_verbs_recover(call, result) == 0 &&
	    locate_target(call, args->path, HERMES_WS_MKDIRS, "write", result, &loc) == 0) {
		for (int turn = 0; write_once(call, args, data, len, &loc, result,
		                              turn == HERMES_VERBS_WRITE_TURNS - 1);
		     turn++)
			;
		hermes_ws_loc_close(&loc);
		if (result->version)
			hermes_code_written(call, args->path);
	}
	if (args->diagnose)
		hermes_code_diagnose_end(dg, &path, result->version ? 1 : 0, &result->diagnostics,
		                         &result->diagnostics_count);
	free(bytes);
}

/* ---- fs.writeRange ------------------------------------------------------------------------ */

/* Does the file open as fd end its first line with CRLF? Then the lines written into it get CRLF
 * too (content written with LF). */
static bool file_uses_crlf(int fd)
{
	char buf[65536];
	ssize_t n = pread(fd, buf, sizeof buf, 0);
	const char *nl = n > 0 ? memchr(buf, '\n', (size_t)n) : NULL;
	return nl && nl > buf && nl[-1] == '\r';
}

/* Writes content as whole lines (a missing final line ending is added), with the file's line
 * ending: in a CRLF file, each LF not already after CR becomes CRLF. */
static int write_content(hermes_atomic_t *at, const char *content, bool crlf)
{
	size_t len = strlen(content);
	int rc = 0;
	const char *p = content, *e = content + len;
	while (rc == 0 && p < e) {
		const char *q = crlf ? memchr(p, '\n', (size_t)(e - p)) : NULL;
		if (!q) {
			rc = hermes_atomic_write(at, p, (size_t)(e - p));
			break;
		}
		if (q > p && q[-1] == '\r') {
			rc = hermes_atomic_write(at, p, (size_t)(q + 1 - p));
		} else {
			rc = hermes_atomic_write(at, p, (size_t)(q - p));
			if (rc == 0)
				rc = hermes_atomic_write(at, "\r\n", 2);
		}
		p = q + 1;
	}
	if (rc == 0 && len > 0 && content[len - 1] != '\n')
		rc = hermes_atomic_write(at, crlf ? "\r\n" : "\n", crlf ? 2 : 1); /* whole lines */
	return rc;
}

/* One read-modify-write of fs.writeRange under the file's lock. 1: the file was changed
 * meanwhile by a writer that does not lock (nothing was written): start over. 0: done. */
static int write_range_once(const hermes_call_t *call, const hermes_fs_write_range_args_t *args,
                            const hermes_ws_loc_t *loc, hermes_fs_write_range_result_t *result,
                            bool last)
{
	const char *action = "write lines of";
	char shown[256];
	const int64_t start = args->start_line;
	const bool has_end = args->has_end_line;
	const int64_t end = args->end_line;
	int fd = -1, again = 0;
	struct stat st, now;
	int rc = hermes_file_lock(loc->dirfd, loc->name, call->cancel, &fd, &st);
	if (rc == 0 && !S_ISREG(st.st_mode))
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (rc) {
		hermes_ws_fail(result, rc, action, args->path);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (hermes_verbs_check_version(args->expected_version, &st, "write lines of", args->path,
	                               result) < 0) {
		close(fd);
		return 0;
	}
	char *buf = hermes_lines_buffer();
	const bool crlf = file_uses_crlf(fd);
	hermes_atomic_t at;
	at.fd = -1;
	rc = buf ? hermes_atomic_begin(&at, loc->dirfd, loc->name, &st) : -ENOMEM;
	if (rc)
		goto fail;
	at.expect = &st;

	enum { BEFORE, SKIPPING, AFTER } phase = BEFORE;
	int64_t line = 1;          /* the line the next byte belongs to */
	bool at_line_start = true; /* the previous byte was '\n' (or there was none) */
	if (start == 1) {
		rc = write_content(&at, args->content, crlf);
		phase = has_end ? SKIPPING : AFTER;
	}
	while (rc == 0) {
		if (hermes_cancel_requested(call->cancel)) {
			rc = HERMES_WS_ECANCELLED;
			break;
		}
		ssize_t n = read(fd, buf, HERMES_LINES_BUFSIZE);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		const char *p = buf, *e = buf + n;
		while (rc == 0 && p < e) {
			if (phase == AFTER) {
				rc = hermes_atomic_write(&at, p, (size_t)(e - p));
				break;
			}
			const char *q = memchr(p, '\n', (size_t)(e - p));
			if (!q) {
				if (phase == BEFORE)
					rc = hermes_atomic_write(&at, p, (size_t)(e - p));
				at_line_start = false;
				break;
			}
			if (phase == BEFORE)
				rc = hermes_atomic_write(&at, p, (size_t)(q + 1 - p));
			p = q + 1;
			line++;
			at_line_start = true;
			if (phase == BEFORE && line == start) {
				if (rc == 0)
					rc = write_content(&at, args->content, crlf);
				phase = has_end ? SKIPPING : AFTER;
			} else if (phase == SKIPPING && line > end) {
				phase = AFTER;
			}
		}
	}
	if (rc)
		goto fail;
	/* At the end of the file: was the range inside it? */
	int64_t line_count = at_line_start ? line - 1 : line;
	if (phase == BEFORE) {
		if (start != line_count + 1) {
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "cannot %s '%s': startLine %lld is past the end (the file has %lld "
			                   "line%s; startLine %lld appends)", action,
			                   hermes_ws_shown(args->path, shown, sizeof shown), (long long)start,
			                   (long long)line_count, line_count == 1 ? "" : "s",
			                   (long long)line_count + 1);
			goto abort;
		}
		if (has_end)
			phase = SKIPPING; /* reported just below: the range is past the end */
		else if (!at_line_start)
			rc = hermes_atomic_write(&at, "\n", 1); /* the last line gets its ending */
		if (rc == 0 && !has_end)
			rc = write_content(&at, args->content, crlf);
		if (rc)
			goto fail;
	}
	if (phase == SKIPPING && end > line_count) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot %s '%s': endLine %lld is past the end (the file has %lld line%s)",
		                   action, hermes_ws_shown(args->path, shown, sizeof shown), (long long)end,
		                   (long long)line_count, line_count == 1 ? "" : "s");
		goto abort;
	}
	if (fstat(at.fd, &now) < 0) {
		rc = -errno;
		goto fail;
	}
	hermes_history_t *hist = hermes_history_start(call->host, "fs.writeRange");
	int hi = hermes_history_file(hist, loc->dirfd, loc->name, &st);
	rc = hermes_atomic_commit(&at, true);
	hermes_history_after(hist, hi, &now);
	hermes_history_finish(hist, rc == 0);
	if (rc == HERMES_WS_ECHANGED && !last) {
		again = 1;
		goto out;
	}
	if (rc)
		goto fail;
	if (!(result->version = hermes_file_version_dup(&now)))
		hermes_ws_fail(result, -ENOMEM, action, args->path);
	goto out;
fail:
	hermes_ws_fail(result, rc, action, args->path);
abort:
	if (at.fd >= 0)
		hermes_atomic_abort(&at);
out:
	free(buf);
	close(fd); /* and with it the lock, after the rename */
	return again;
}

void hermes_verb_fs_write_range(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_write_range_args_t *args = args_;
	hermes_fs_write_range_result_t *result = result_;
	const char *action = "write lines of";
	char shown[256];
	if (hermes_verbs_recover(call, result) < 0)
		return;
	const int64_t start = args->start_line;
	const bool has_end = args->has_end_line;
	const int64_t end = args->end_line;
	if (start < 1) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot %s '%s': startLine must be 1 or more (got %lld)", action,
		                   hermes_ws_shown(args->path, shown, sizeof shown), (long long)start);
		return;
	}
	if (has_end && end < start) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot %s '%s': endLine (%lld) is before startLine (%lld)", action,
		                   hermes_ws_shown(args->path, shown, sizeof shown), (long long)end,
		                   (long long)start);
		return;
	}
	hermes_ws_loc_t loc;
	if (locate_target(call, args->path, 0, action, result, &loc) < 0)
		return;
	const char *path = args->path;
	hermes_code_diagnose_t *dg = args->diagnose && loc.exists
	                             ? hermes_code_diagnose_begin(call, &path, 1) : NULL;
	if (!loc.exists)
		hermes_ws_fail(result, -ENOENT, action, args->path);
	else
		for (int turn = 0; write_range_once(call, args, &loc, result,
		                                    turn == HERMES_VERBS_WRITE_TURNS - 1); turn++)
			;
	hermes_ws_loc_close(&loc);
	if (result->version)
		hermes_code_written(call, args->path);
	if (args->diagnose)
		hermes_code_diagnose_end(dg, &path, result->version ? 1 : 0, &result->diagnostics,
		                         &result->diagnostics_count);
}
