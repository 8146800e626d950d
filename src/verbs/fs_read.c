/* verbs/fs_read.c: the verbs that look at a file: fs.exists, fs.readRange and fs.lineCount
 * (fs.readFile is in fs_read_file.c, fs.listDir in fs_list.c), and what they share with
 * fs.readFile. The line verbs stream through one fixed buffer, so their memory does not grow with
 * the file (only with what they return). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs/handlers.h"
#include "core/buf.h"
#include "core/utf8.h"
#include "fs/ignore.h"
#include "fs/filelock.h"
#include "fs/linecount.h"
#include "fs/lines.h"
#include "fs/workspace.h"

void hermes_verbs_fail_not_text(void *result, const char *path, bool nul, size_t bad,
                                long long line)
{
	char shown[256];
	hermes_result_fail(result, HERMES_E_NOT_TEXT,
	                   "cannot read '%s' as text: %s at byte %zu of the content (line %lld)",
	                   hermes_ws_shown(path, shown, sizeof shown),
	                   nul ? "a NUL byte" : "invalid UTF-8", bad, line);
}

int hermes_verbs_open_regular(const hermes_call_t *call, const char *path, const char *action,
                              void *result, struct stat *st)
{
	const hermes_ws_t *ws = call->host;
	int fd;
	/* O_NONBLOCK: opening a FIFO must not hang; it is refused below anyway. */
	int rc = hermes_ws_open_path(ws, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, &fd);
	if (rc) {
		hermes_ws_fail(result, rc, action, path);
		return -1;
	}
	if (fstat(fd, st) < 0) {
		hermes_ws_fail(result, -errno, action, path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		char shown[256];
		if (S_ISDIR(st->st_mode))
			hermes_result_fail(result, HERMES_E_IS_A_DIRECTORY, "cannot %s '%s': it is a directory",
			                   action, hermes_ws_shown(path, shown, sizeof shown));
		else
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "cannot %s '%s': it is not a regular file (a device, FIFO or socket)",
			                   action, hermes_ws_shown(path, shown, sizeof shown));
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* ---- fs.exists ---------------------------------------------------------------------------- */

void hermes_verb_fs_exists(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_exists_args_t *args = args_;
	hermes_fs_exists_result_t *result = result_;
	hermes_ws_loc_t loc;
	int rc = hermes_ws_locate(call->host, args->path, 0, &loc);
	if (rc == -ENOENT || rc == -ENOTDIR) {
		result->exists = false; /* a directory on the way is missing or is a file */
		return;
	}
	if (rc) {
		hermes_ws_fail(result, rc, "test", args->path);
		return;
	}
	result->exists = loc.is_root || loc.exists;
	if (result->exists && loc.trailing_slash && !loc.is_root && !S_ISDIR(loc.st.st_mode)) {
		/* "file/" names a directory: follow a symlink to see whether it is one. */
		int fd;
		if (S_ISLNK(loc.st.st_mode) &&
		    hermes_ws_open_path(call->host, args->path, O_PATH | O_DIRECTORY, &fd) == 0)
			close(fd);
		else
			result->exists = false;
	}
	hermes_ws_loc_close(&loc);
}

/* Fails result with NotText, saying where in content the first bad byte is. */
static void fail_not_text(void *result, const char *path, const char *content, size_t bad,
                          long long first_line)
{
	hermes_verbs_fail_not_text(result, path, content[bad] == '\0', bad,
	                           first_line + (long long)hermes_count_newlines(content, bad));
}

/* ---- fs.readRange ------------------------------------------------------------------------- */

/* The lines start..end (1-based, inclusive) read forward from fd's offset into text. *lines: how
 * many were copied; *at_end: nothing of the file follows them. 0, or -1 once result says why.
 * The file is scanned first for where the lines are, then their bytes are read in one go: so
 * the host learns the result's size before it is built (hermes_call_hold_memory), and the text
 * is one block of its size. */
static int read_forward(const hermes_call_t *call, int fd, int64_t start, int64_t end,
                        const char *path, void *result, hermes_buf_t *text, int64_t *lines,
                        bool *at_end)
{
	char shown[256];
	const int64_t max = call->config->max_read_bytes;
	char *buf = hermes_lines_buffer();
	if (!buf) {
		hermes_ws_fail(result, -ENOMEM, "read", path);
		return -1;
	}
	int64_t line = 1;     /* number of the line the next byte belongs to */
	bool partial = false; /* text ends inside a line (no '\n' yet) */
	int rc = 0;
	int64_t pos = lseek(fd, 0, SEEK_CUR); /* the file offset of buf[0] */
	int64_t from = -1;    /* the file offset of the range's first byte */
	size_t bytes = 0;     /* the range's bytes */
	if (pos < 0) {
		hermes_ws_fail(result, -errno, "read", path);
		free(buf);
		return -1;
	}
	*lines = 0;
	*at_end = true;
	for (bool done = false; !done;) {
		if (hermes_cancel_requested(call->cancel)) {
			hermes_ws_fail(result, HERMES_WS_ECANCELLED, "read", path);
			rc = -1;
			break;
		}
		ssize_t n = read(fd, buf, HERMES_LINES_BUFSIZE);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			hermes_ws_fail(result, -errno, "read", path);
			rc = -1;
			break;
		}
		if (n == 0)
			break;
		const char *p = buf, *e = buf + n;
		int64_t at = pos;
		pos += n;
		if (line < start) {
			/* Skip whole buffers at memory speed while the range is still ahead. */
			size_t nl = hermes_count_newlines(p, (size_t)n);
			if (line + (int64_t)nl < start) {
				line += (int64_t)nl;
				continue;
			}
		}
		while (p < e) {
			const char *q = memchr(p, '\n', (size_t)(e - p));
			if (line < start) {
				if (!q)
					break;
				line++;
				p = q + 1;
				continue;
			}
			const char *stop = q ? q + 1 : e;
			if (!partial)
				(*lines)++;
			if (from < 0)
				from = at + (p - buf);
			bytes += (size_t)(stop - p);
			if ((int64_t)bytes > max) {
				hermes_result_fail(result, HERMES_E_TOO_LARGE,
				                   "cannot read lines %lld-%lld of '%s': they pass the read limit "
				                   "of %lld bytes (ask for fewer lines)", (long long)start,
				                   (long long)end, hermes_ws_shown(path, shown, sizeof shown),
				                   (long long)max);
				rc = -1;
				done = true;
				break;
			}
			p = stop;
			partial = !q;
			if (q && ++line > end) {
				done = true;
				/* Does anything follow? What is left of this buffer, or of the file. */
				*at_end = p == e && read(fd, buf, 1) == 0;
				break;
			}
		}
	}
	free(buf);
	if (rc || bytes == 0)
		return rc;
	/* The host may bound the memory that results hold: it may make this wait for room. */
	if (!hermes_call_hold_memory(call, bytes)) {
		hermes_ws_fail(result, HERMES_WS_ECANCELLED, "read", path);
		return -1;
	}
	if (!hermes_buf_reserve(text, bytes + 1)) {
		hermes_ws_fail(result, -ENOMEM, "read", path);
		return -1;
	}
	for (size_t got = 0; got < bytes;) {
		ssize_t r = pread(fd, text->data + text->len, bytes - got, from + (int64_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			hermes_ws_fail(result, -errno, "read", path);
			return -1;
		}
		if (r == 0)
			break; /* the file was cut short meanwhile: what is left of the lines */
		got += (size_t)r;
		text->len += (size_t)r;
	}
	text->data[text->len] = '\0';
	return 0;
}

/* Lines of the file from the end: the offset where its last k lines start (0 if it has fewer)
 * into *off, and how many lines there are from there (k, or all of them) into *count. Reads
 * backwards from the end in blocks, so it costs what those lines cost, whatever the file's size. */
static int find_tail(int fd, int64_t size, int64_t k, int64_t *off, int64_t *count)
{
	enum { BLOCK = 65536 };
	char buf[BLOCK];
	*off = 0;
	*count = 0;
	if (size == 0)
		return 0;
	char last;
	if (pread(fd, &last, 1, size - 1) != 1)
		return -errno;
	int64_t pos = last == '\n' ? size - 1 : size; /* a final '\n' ends the last line */
	int64_t found = 0;
	while (pos > 0) {
		size_t n = pos > BLOCK ? BLOCK : (size_t)pos;
		ssize_t r = pread(fd, buf, n, pos - (int64_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)n)
			return r < 0 ? -errno : -EIO;
		for (size_t i = n; i > 0;) {
			const char *q = memrchr(buf, '\n', i);
			if (!q)
				break;
			i = (size_t)(q - buf);
			if (++found == k) {
				*off = pos - (int64_t)n + (int64_t)i + 1;
				*count = k;
				return 0;
			}
		}
		pos -= (int64_t)n;
	}
	*count = found + 1; /* the file has fewer lines than k: all of them */
	return 0;
}

/* Lines in the file (as fs.lineCount counts them), from what the last count of it learned. */
static int count_lines(const hermes_call_t *call, int fd, const struct stat *st, int64_t *total)
{
	int64_t newlines;
	int rc = hermes_linecount_newlines(fd, st, call->cancel, &newlines);
	if (rc)
		return rc == -ECANCELED ? HERMES_WS_ECANCELLED : rc;
	char last = '\n';
	if (st->st_size > 0 && pread(fd, &last, 1, st->st_size - 1) != 1)
		return -errno;
	*total = newlines + (last != '\n' ? 1 : 0);
	return 0;
}

/* The last lines of the file, from -start to -end (both negative): read backwards, so only the
 * range is read. *first: the number of the first line returned if numbers are wanted (the lines
 * before it are then counted, at memory speed), else 0. */
static int read_tail(const hermes_call_t *call, int fd, const struct stat *st, int32_t start,
                     int32_t end, bool numbers, const char *path, void *result, hermes_buf_t *text,
                     int64_t *lines, int64_t *first, bool *at_end)
{
	char shown[256];
	int64_t off, count;
	int rc = find_tail(fd, (int64_t)st->st_size, -(int64_t)start, &off, &count);
	if (rc) {
		hermes_ws_fail(result, rc, "read", path);
		return -1;
	}
	/* the range within those count lines (1..count): start clamps to the first line */
	int64_t rs = count + start + 1, re = count + end + 1;
	if (rs < 1)
		rs = 1;
	*lines = re >= rs ? re - rs + 1 : 0;
	*at_end = end == -1 || count == 0;
	*first = 0;
	if (*lines == 0)
		return 0;
	int64_t len = (int64_t)st->st_size - off;
	if (len > call->config->max_read_bytes) {
		hermes_result_fail(result, HERMES_E_TOO_LARGE,
		                   "cannot read lines %d to %d of '%s': they pass the read limit of %lld "
		                   "bytes (ask for fewer lines)", (int)start, (int)end,
		                   hermes_ws_shown(path, shown, sizeof shown),
		                   (long long)call->config->max_read_bytes);
		return -1;
	}
	if (!hermes_call_hold_memory(call, (size_t)len)) {
		hermes_ws_fail(result, HERMES_WS_ECANCELLED, "read", path);
		return -1;
	}
	char *tail = malloc((size_t)len + 1);
	if (!tail) {
		hermes_ws_fail(result, -ENOMEM, "read", path);
		return -1;
	}
	for (int64_t got = 0; got < len;) {
		ssize_t r = pread(fd, tail + got, (size_t)(len - got), off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			hermes_ws_fail(result, r < 0 ? -errno : -EIO, "read", path);
			free(tail);
			return -1;
		}
		got += r;
	}
	/* keep lines rs..re of the tail */
	const char *p = tail, *e = tail + len;
	for (int64_t i = 1; i < rs && p < e; i++) {
		const char *q = memchr(p, '\n', (size_t)(e - p));
		p = q ? q + 1 : e;
	}
	const char *stop = p;
	for (int64_t i = rs; i <= re && stop < e; i++) {
		const char *q = memchr(stop, '\n', (size_t)(e - stop));
		stop = q ? q + 1 : e;
	}
	hermes_buf_append(text, p, (size_t)(stop - p));
	int64_t tail_newlines = numbers ? (int64_t)hermes_count_newlines(tail, (size_t)len) : 0;
	free(tail);
	if (text->failed) {
		hermes_ws_fail(result, -ENOMEM, "read", path);
		return -1;
	}
	if (numbers) {
		/* the lines before the tail: all the file's, from what the last count of it learned,
		 * less the tail's */
		int64_t all;
		int crc = hermes_linecount_newlines(fd, st, call->cancel, &all);
		if (crc) {
			hermes_ws_fail(result, crc == -ECANCELED ? HERMES_WS_ECANCELLED : crc, "read", path);
			return -1;
		}
		int64_t before = all - tail_newlines;
		*first = before + rs;
	}
	return 0;
}

void hermes_verb_fs_read_range(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_read_range_args_t *args = args_;
	hermes_fs_read_range_result_t *result = result_;
	char shown[256];
	int64_t start = args->start_line, end = args->end_line;
	if (start == 0 || end == 0) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot read lines of '%s': %s is 0, which is no line (lines count from "
		                   "1, and from -1 for the last one)",
		                   hermes_ws_shown(args->path, shown, sizeof shown),
		                   start == 0 ? "startLine" : "endLine");
		return;
	}
	if ((start > 0) == (end > 0) && end < start) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot read lines of '%s': endLine (%lld) is before startLine (%lld)",
		                   hermes_ws_shown(args->path, shown, sizeof shown), (long long)end,
		                   (long long)start);
		return;
	}
	struct stat st;
	int fd = hermes_verbs_open_regular(call, args->path, "read", result, &st);
	if (fd < 0)
		return;
	hermes_buf_t text = HERMES_BUF_INIT; /* the lines, as they are in the file */
	hermes_buf_append(&text, "", 0);
	int64_t lines = 0, first = start;
	bool at_end = true;
	int rc;
	if (start < 0 && end < 0) {
		rc = read_tail(call, fd, &st, (int32_t)start, (int32_t)end, args->include_line_numbers,
		               args->path, result, &text, &lines, &first, &at_end);
	} else {
		int64_t total = INT64_MAX;
		if (start < 0 || end < 0) {
			/* one end counts from the end: the file's lines are counted first */
			int crc = count_lines(call, fd, &st, &total);
			if (crc) {
				hermes_ws_fail(result, crc, "read", args->path);
				goto out;
			}
			if (start < 0)
				start = total + start + 1 < 1 ? 1 : total + start + 1;
			if (end < 0)
				end = total + end + 1;
			first = start;
		}
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
		rc = end < start ? 0
		                 : read_forward(call, fd, start, end, args->path, result, &text, &lines,
		                                &at_end);
		if (end < start)
			at_end = start > total; /* nothing returned: the end is reached if past it */
	}
	if (rc)
		goto out;
	size_t bad, used = text.len;
	const char *raw = text.data;
	if (!hermes_text_valid(raw, used, &bad)) {
		fail_not_text(result, args->path, raw, bad, first > 0 ? first : 1);
		goto out;
	}
	result->reached_end = at_end;
	if (!(result->version = hermes_file_version_dup(&st))) {
		hermes_ws_fail(result, -ENOMEM, "read", args->path);
		goto out;
	}
	if (lines > 0 && first > 0) {
		result->first_line = first;
		result->has_first_line = true;
	}
	if (!args->include_line_numbers || lines == 0) {
		result->content = hermes_buf_finish(&text);
		goto out;
	}
	/* Number the lines, right-aligned to the width of the largest number returned. */
	int64_t last = first + lines - 1;
	int width = snprintf(NULL, 0, "%lld", (long long)last);
	size_t total = used + (size_t)lines * (size_t)(width + 2) + 1;
	char *out = malloc(total);
	if (!out) {
		hermes_ws_fail(result, -ENOMEM, "read", args->path);
		goto out;
	}
	char *o = out;
	const char *p = raw, *e = raw + used;
	for (int64_t num = first; p < e; num++) {
		const char *q = memchr(p, '\n', (size_t)(e - p));
		const char *stop = q ? q + 1 : e;
		o += sprintf(o, "%*lld: ", width, (long long)num);
		memcpy(o, p, (size_t)(stop - p));
		o += stop - p;
		p = stop;
	}
	*o = '\0';
	result->content = out;
out:
	hermes_buf_free(&text);
	close(fd);
}

/* ---- fs.lineCount ------------------------------------------------------------------------- */

void hermes_verb_fs_line_count(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_line_count_args_t *args = args_;
	hermes_fs_line_count_result_t *result = result_;
	struct stat st;
	int fd = hermes_verbs_open_regular(call, args->path, "count the lines of", result, &st);
	if (fd < 0)
		return;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	char *buf = hermes_lines_buffer();
	if (!buf) {
		hermes_ws_fail(result, -ENOMEM, "count the lines of", args->path);
		close(fd);
		return;
	}
	uint64_t count = 0, done = 0;
	char lastc = '\n';
	for (;;) {
		if (hermes_cancel_requested(call->cancel)) {
			hermes_ws_fail(result, HERMES_WS_ECANCELLED, "count the lines of", args->path);
			goto out;
		}
		ssize_t n = read(fd, buf, HERMES_LINES_BUFSIZE);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			hermes_ws_fail(result, -errno, "count the lines of", args->path);
			goto out;
		}
		if (n == 0)
			break;
		count += hermes_count_newlines(buf, (size_t)n);
		lastc = buf[n - 1];
		done += (uint64_t)n;
		hermes_call_progress(call, (double)done, (double)st.st_size,
		                     "counted %llu lines in %llu of %lld bytes", (unsigned long long)count,
		                     (unsigned long long)done, (long long)st.st_size);
	}
	if (lastc != '\n')
		count++; /* a last line without an ending */
	if (count > INT32_MAX) {
		char shown[256];
		hermes_result_fail(result, HERMES_E_TOO_LARGE,
		                   "cannot count the lines of '%s': it has %llu lines, more than %d",
		                   hermes_ws_shown(args->path, shown, sizeof shown),
		                   (unsigned long long)count, INT32_MAX);
		goto out;
	}
	result->line_count = (int32_t)count;
out:
	free(buf);
	close(fd);
}
