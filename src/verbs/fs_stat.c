/* verbs/fs_stat.c: fs.stat: what a path is, without following a final symlink. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/utf8.h"
#include "verbs/handlers.h"
#include "fs/lines.h"
#include "fs/filelock.h"
#include "fs/workspace.h"

#define TEXT_PROBE 8192 /* what fs.search also looks at to tell text from binary */

/* Is s[0..n) text: UTF-8 without NUL, a character cut by the end of a full probe allowed? */
static bool looks_like_text(const char *s, size_t n, bool cut)
{
	size_t at = hermes_text_validate(s, n);
	if (at == n)
		return true;
	if (!cut || n - at > 3)
		return false;
	/* the bytes from at on may be the start of a character that the probe cut */
	unsigned char c = (unsigned char)s[at];
	size_t need = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
	if (need == 0 || n - at - 1 >= need)
		return false;
	for (size_t i = at + 1; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			return false;
	return true;
}

static bool is_text(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	char buf[TEXT_PROBE];
	size_t n = 0;
	while (n < sizeof buf) {
		ssize_t r = read(fd, buf + n, sizeof buf - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return looks_like_text(buf, n, n == sizeof buf);
}

void hermes_verb_fs_stat(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_stat_args_t *args = args_;
	hermes_fs_stat_result_t *result = result_;
	hermes_ws_loc_t loc;
	int rc = hermes_ws_locate(call->host, args->path, 0, &loc);
	if (rc) {
		hermes_ws_fail(result, rc, "describe", args->path);
		return;
	}
	if (!loc.is_root && !loc.exists) {
		hermes_ws_fail(result, -ENOENT, "describe", args->path);
		hermes_ws_loc_close(&loc);
		return;
	}
	const struct stat *st = &loc.st;
	result->type = strdup(S_ISREG(st->st_mode) ? "file" : S_ISDIR(st->st_mode) ? "directory"
	                      : S_ISLNK(st->st_mode) ? "symlink" : "other");
	result->size = (int64_t)st->st_size;
	char mode[8];
	snprintf(mode, sizeof mode, "%04o", (unsigned)(st->st_mode & 07777));
	result->mode = strdup(mode);
	struct tm tm;
	char when[64], stamp[40];
	gmtime_r(&st->st_mtim.tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when, sizeof when, "%s.%09ldZ", stamp, (long)st->st_mtim.tv_nsec);
	result->modified_time = strdup(when);
	if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX + 1];
		ssize_t n = readlinkat(loc.dirfd, loc.name, target, sizeof target - 1);
		target[n > 0 ? n : 0] = '\0';
		result->link_target = hermes_text_lossy(target);
	}
	result->is_text = S_ISREG(st->st_mode) && is_text(loc.dirfd, loc.name);
	if (S_ISREG(st->st_mode) && !(result->version = hermes_file_version_dup(st)))
		result->type = (free(result->type), NULL); /* reported as out of memory just below */
	if (!result->type || !result->mode || !result->modified_time ||
	    (S_ISLNK(st->st_mode) && !result->link_target))
		hermes_ws_fail(result, -ENOMEM, "describe", args->path);
	hermes_ws_loc_close(&loc);
}
