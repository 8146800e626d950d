/* verbs/fs_write.c: fs.writeFile and fs.writeRange. Both build the new version in a temporary file
 * next to the target and rename it into place (fs/atomic.c), so nobody ever sees a partial file; the
 * target keeps its permission bits, and a symlink inside the workspace is written through. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/atomic.h"
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

/* ---- fs.writeFile ------------------------------------------------------------------------- */

void hermes_verb_fs_write_file(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_write_file_args_t *args = args_;
	hermes_fs_write_file_result_t *result = result_;
	hermes_ws_loc_t loc;
	if (locate_target(call, args->path, HERMES_WS_MKDIRS, "write", result, &loc) < 0)
		return;
	int rc = hermes_atomic_replace(loc.dirfd, loc.name, loc.exists ? &loc.st : NULL, args->content,
	                               strlen(args->content));
	if (rc)
		hermes_ws_fail(result, rc, "write", args->path);
	hermes_ws_loc_close(&loc);
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

void hermes_verb_fs_write_range(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_write_range_args_t *args = args_;
	hermes_fs_write_range_result_t *result = result_;
	const char *action = "write lines of";
	char shown[256];
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
	if (!loc.exists) {
		hermes_ws_fail(result, -ENOENT, action, args->path);
		hermes_ws_loc_close(&loc);
		return;
	}
	int fd = openat(loc.dirfd, loc.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		hermes_ws_fail(result, fd < 0 ? -errno : -EAGAIN, action, args->path);
		if (fd >= 0)
			close(fd);
		hermes_ws_loc_close(&loc);
		return;
	}
	char *buf = hermes_lines_buffer();
	const bool crlf = file_uses_crlf(fd);
	hermes_atomic_t at;
	at.fd = -1;
	int rc = buf ? hermes_atomic_begin(&at, loc.dirfd, loc.name, &st) : -ENOMEM;
	if (rc)
		goto fail;

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
	rc = hermes_atomic_commit(&at, true);
	if (rc)
		goto fail;
	goto out;
fail:
	hermes_ws_fail(result, rc, action, args->path);
abort:
	if (at.fd >= 0)
		hermes_atomic_abort(&at);
out:
	free(buf);
	close(fd);
	hermes_ws_loc_close(&loc);
}
