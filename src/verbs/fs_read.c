/* verbs/fs_read.c: the verbs that only look: fs.exists, fs.readFile, fs.readRange, fs.lineCount
 * and fs.listDir. The line verbs stream through one fixed buffer, so their memory does not grow
 * with the file (only with what they return). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs/handlers.h"
#include "core/buf.h"
#include "verbs/lines.h"
#include "verbs/workspace.h"

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

/* ---- fs.readFile -------------------------------------------------------------------------- */

/* Fails result with NotText, saying where in content the first bad byte is. */
static void fail_not_text(void *result, const char *path, const char *content, size_t bad,
                          long long first_line)
{
	char shown[256];
	long long line = first_line + (long long)hermes_count_newlines(content, bad);
	hermes_result_fail(result, HERMES_E_NOT_TEXT,
	                   "cannot read '%s' as text: %s at byte %zu of the content (line %lld)",
	                   hermes_ws_shown(path, shown, sizeof shown),
	                   content[bad] == '\0' ? "a NUL byte" : "invalid UTF-8", bad, line);
}

void hermes_verb_fs_read_file(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_read_file_args_t *args = args_;
	hermes_fs_read_file_result_t *result = result_;
	int64_t max = call->config->max_read_bytes;
	char shown[256];
	struct stat st;
	int fd = hermes_verbs_open_regular(call, args->path, "read", result, &st);
	if (fd < 0)
		return;
	if (st.st_size > max) {
		hermes_result_fail(result, HERMES_E_TOO_LARGE,
		                   "cannot read '%s': it is %lld bytes, over the read limit of %lld bytes "
		                   "(read it in parts with fs.readRange)",
		                   hermes_ws_shown(args->path, shown, sizeof shown),
		                   (long long)st.st_size, (long long)max);
		close(fd);
		return;
	}
	/* One read into a buffer of the file's size (+1 to notice that it grew meanwhile). */
	size_t cap = (size_t)st.st_size + 1, used = 0;
	char *buf = malloc(cap + 1);
	if (!buf) {
		hermes_ws_fail(result, -ENOMEM, "read", args->path);
		close(fd);
		return;
	}
	for (;;) {
		if (used == cap) {
			if ((int64_t)used > max) {
				hermes_result_fail(result, HERMES_E_TOO_LARGE,
				                   "cannot read '%s': it grew past the read limit of %lld bytes",
				                   hermes_ws_shown(args->path, shown, sizeof shown), (long long)max);
				goto fail;
			}
			size_t ncap = cap * 2 > (size_t)max + 1 ? (size_t)max + 1 : cap * 2;
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				hermes_ws_fail(result, -ENOMEM, "read", args->path);
				goto fail;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + used, cap - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			hermes_ws_fail(result, -errno, "read", args->path);
			goto fail;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		hermes_call_progress(call, (double)used, (double)st.st_size, "read %zu of %lld bytes",
		                     used, (long long)st.st_size);
	}
	close(fd);
	buf[used] = '\0';
	size_t bad;
	if (!hermes_text_valid(buf, used, &bad)) {
		fail_not_text(result, args->path, buf, bad, 1);
		free(buf);
		return;
	}
	result->content = buf;
	return;
fail:
	free(buf);
	close(fd);
}

/* ---- fs.readRange ------------------------------------------------------------------------- */

void hermes_verb_fs_read_range(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_read_range_args_t *args = args_;
	hermes_fs_read_range_result_t *result = result_;
	char shown[256];
	const int64_t max = call->config->max_read_bytes;
	const int32_t start = args->start_line, end = args->end_line;
	if (start < 1) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot read lines of '%s': startLine must be 1 or more (got %d)",
		                   hermes_ws_shown(args->path, shown, sizeof shown), (int)start);
		return;
	}
	if (end < start) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot read lines of '%s': endLine (%d) is before startLine (%d)",
		                   hermes_ws_shown(args->path, shown, sizeof shown), (int)end, (int)start);
		return;
	}
	struct stat st;
	int fd = hermes_verbs_open_regular(call, args->path, "read", result, &st);
	if (fd < 0)
		return;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	char *buf = malloc(HERMES_LINES_BUFSIZE);
	hermes_buf_t text = HERMES_BUF_INIT; /* the lines, as they are in the file */
	hermes_buf_append(&text, "", 0);
	if (!buf || text.failed) {
		hermes_ws_fail(result, -ENOMEM, "read", args->path);
		goto out;
	}
	int64_t line = 1;     /* number of the line the next byte belongs to */
	int64_t lines = 0;    /* lines (complete or not) copied into text */
	bool partial = false; /* text ends inside a line (no '\n' yet) */
	bool done = false;
	while (!done) {
		if (hermes_cancel_requested(call->cancel)) {
			hermes_ws_fail(result, HERMES_WS_ECANCELLED, "read", args->path);
			goto out;
		}
		ssize_t n = read(fd, buf, HERMES_LINES_BUFSIZE);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			hermes_ws_fail(result, -errno, "read", args->path);
			goto out;
		}
		if (n == 0)
			break;
		const char *p = buf, *e = buf + n;
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
				lines++;
			hermes_buf_append(&text, p, (size_t)(stop - p));
			if (text.failed) {
				hermes_ws_fail(result, -ENOMEM, "read", args->path);
				goto out;
			}
			if ((int64_t)text.len > max) {
				hermes_result_fail(result, HERMES_E_TOO_LARGE,
				                   "cannot read lines %d-%d of '%s': they pass the read limit of "
				                   "%lld bytes (ask for fewer lines)",
				                   (int)start, (int)end, hermes_ws_shown(args->path, shown, sizeof shown),
				                   (long long)max);
				goto out;
			}
			p = stop;
			partial = !q;
			if (q && ++line > end) {
				done = true;
				break;
			}
		}
	}
	size_t bad, used = text.len;
	const char *raw = text.data;
	if (!hermes_text_valid(raw, used, &bad)) {
		fail_not_text(result, args->path, raw, bad, start);
		goto out;
	}
	if (!args->include_line_numbers || lines == 0) {
		result->content = hermes_buf_finish(&text);
		goto out;
	}
	/* Number the lines, right-aligned to the width of the largest number returned. */
	int64_t last = start + lines - 1;
	int width = snprintf(NULL, 0, "%lld", (long long)last);
	size_t total = used + (size_t)lines * (size_t)(width + 2) + 1;
	char *out = malloc(total);
	if (!out) {
		hermes_ws_fail(result, -ENOMEM, "read", args->path);
		goto out;
	}
	char *o = out;
	const char *p = raw, *e = raw + used;
	for (int64_t num = start; p < e; num++) {
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
	free(buf);
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
	char *buf = malloc(HERMES_LINES_BUFSIZE);
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

/* ---- fs.listDir --------------------------------------------------------------------------- */

static int cmp_entries(const void *a, const void *b)
{
	return strcmp(((const hermes_dir_entry_t *)a)->name, ((const hermes_dir_entry_t *)b)->name);
}

void hermes_verb_fs_list_dir(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_list_dir_args_t *args = args_;
	hermes_fs_list_dir_result_t *result = result_;
	int fd;
	int rc = hermes_ws_open_path(call->host, args->path, O_RDONLY | O_DIRECTORY, &fd);
	if (rc == -ENOTDIR && hermes_ws_open_path(call->host, args->path, O_PATH, &fd) == 0) {
		close(fd); /* the path itself, not a directory on the way, is the file */
		char shown[256];
		hermes_result_fail(result, HERMES_E_NOT_A_DIRECTORY, "cannot list '%s': it is not a directory",
		                   hermes_ws_shown(args->path, shown, sizeof shown));
		return;
	}
	if (rc) {
		hermes_ws_fail(result, rc, "list", args->path);
		return;
	}
	DIR *dir = fdopendir(fd);
	if (!dir) {
		hermes_ws_fail(result, -errno, "list", args->path);
		close(fd);
		return;
	}
	hermes_dir_entry_t *entries = NULL;
	size_t count = 0, cap = 0;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(dir);
		if (!de) {
			if (errno) {
				hermes_ws_fail(result, -errno, "list", args->path);
				goto fail;
			}
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (count == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			hermes_dir_entry_t *ne = realloc(entries, ncap * sizeof *ne);
			if (!ne)
				goto oom;
			entries = ne;
			cap = ncap;
		}
		bool is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			is_dir = fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			         S_ISDIR(st.st_mode);
		}
		entries[count].name = hermes_text_lossy(de->d_name);
		if (!entries[count].name)
			goto oom;
		entries[count].is_directory = is_dir;
		count++;
	}
	closedir(dir);
	if (count > 1)
		qsort(entries, count, sizeof *entries, cmp_entries);
	if (count == 0) {
		free(entries);
		entries = calloc(1, sizeof *entries); /* an empty list, not a missing one */
	}
	result->entries = entries;
	result->entries_count = count;
	return;
oom:
	hermes_ws_fail(result, -ENOMEM, "list", args->path);
fail:
	for (size_t i = 0; i < count; i++)
		free(entries[i].name);
	free(entries);
	closedir(dir);
}
