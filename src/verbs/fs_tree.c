/* verbs/fs_tree.c: the verbs that change the tree: fs.deleteFile, fs.moveFile, fs.copyFile,
 * fs.createDirectory and fs.deleteDirectory. Each acts with *at() calls on a final name inside a
 * parent directory opened beneath the root, never on a path string checked beforehand; nothing is
 * ever replaced (RENAME_NOREPLACE, or a link that fails if the name exists). fs.deleteFile and
 * fs.moveFile of a regular file hold its writer lock (fs/filelock.h) while they remove or rename
 * it, so an edit racing them either lands before (and is deleted or moved with the file) or finds
 * the file gone: it can neither bring the old name back nor report text that is gone. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/atomic.h"
#include "fs/filelock.h"
#include "verbs/handlers.h"
#include "fs/workspace.h"

static void fail_msg(void *result, hermes_errcode_t code, const char *action, const char *path,
                     const char *why)
{
	char shown[256];
	hermes_result_fail(result, code, "cannot %s '%s': %s", action,
	                   hermes_ws_shown(path, shown, sizeof shown), why);
}

static int sync_dir(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fsync(fd) < 0 && errno != EINVAL ? -errno : 0;
	close(fd);
	return rc;
}

/* "cannot <verb> '<src>' to '<dst>': <reason>", with the code for rc. */
static void fail_two(void *result, int rc, const char *verb, const char *src, const char *dst)
{
	char s1[256], s2[256], why[192];
	hermes_result_fail(result, hermes_ws_errcode(rc), "cannot %s '%s' to '%s': %s", verb,
	                   hermes_ws_shown(src, s1, sizeof s1), hermes_ws_shown(dst, s2, sizeof s2),
	                   hermes_ws_strerror(rc, why, sizeof why));
}

/* Takes the writer lock of the regular file name in dirfd (st: what was located there) before it
 * is removed or renamed: *fd is the lock (-1 if name is not a regular file: nothing to lock).
 * 0 or an error code (-ENOENT: removed meanwhile). */
static int lock_victim(const hermes_call_t *call, int dirfd, const char *name,
                       const struct stat *st, int *fd)
{
	*fd = -1;
	if (!S_ISREG(st->st_mode))
		return 0;
	struct stat now;
	int rc = hermes_file_lock(dirfd, name, call->cancel, fd, &now);
	if (rc == 0 && !S_ISREG(now.st_mode)) {
		close(*fd);
		*fd = -1; /* replaced by something else meanwhile: acted on as it is now */
	}
	return rc;
}

/* ---- fs.deleteFile ------------------------------------------------------------------------ */

void hermes_verb_fs_delete_file(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_delete_file_args_t *args = args_;
	void *result = result_;
	const char *action = "delete";
	hermes_ws_loc_t loc;
	if (hermes_verbs_recover(call, result) < 0)
		return;
	int rc = hermes_ws_locate(call->host, args->path, 0, &loc);
	if (rc) {
		hermes_ws_fail(result, rc, action, args->path);
		return;
	}
	if (loc.is_root || (loc.exists && S_ISDIR(loc.st.st_mode))) {
		fail_msg(result, HERMES_E_IS_A_DIRECTORY, action, args->path,
		         "it is a directory (use fs.deleteDirectory)");
	} else if (!loc.exists) {
		hermes_ws_fail(result, -ENOENT, action, args->path);
	} else if (loc.trailing_slash) {
		hermes_ws_fail(result, -ENOTDIR, action, args->path);
	} else {
		int fd;
		rc = lock_victim(call, loc.dirfd, loc.name, &loc.st, &fd);
		if (rc == 0 && unlinkat(loc.dirfd, loc.name, 0) < 0)
			rc = -errno;
		if (rc)
			hermes_ws_fail(result, rc, action, args->path);
		if (fd >= 0)
			close(fd); /* after the unlink: a waiting edit then finds the name gone */
	}
	hermes_ws_loc_close(&loc);
}

/* ---- fs.moveFile / fs.copyFile ------------------------------------------------------------ */

/* Locates a destination (for `verb`ing src there): missing parents created, and it must not
 * exist yet. */
static int locate_destination(const hermes_call_t *call, const char *verb, const char *src,
                              const char *path, void *result, hermes_ws_loc_t *loc)
{
	int rc = hermes_ws_locate(call->host, path, HERMES_WS_MKDIRS, loc);
	const char *why = NULL;
	hermes_errcode_t code = HERMES_E_ALREADY_EXISTS;
	if (rc) {
		fail_two(result, rc, verb, src, path);
		return -1;
	}
	if (loc->is_root || (loc->exists && S_ISDIR(loc->st.st_mode))) {
		why = "a directory already exists there";
	} else if (loc->exists) {
		why = "the destination already exists";
	} else if (loc->trailing_slash) {
		why = "a file's path cannot end with '/'";
		code = HERMES_E_INVALID_ARGUMENT;
	}
	if (why) {
		char s1[256], s2[256];
		hermes_result_fail(result, code, "cannot %s '%s' to '%s': %s", verb,
		                   hermes_ws_shown(src, s1, sizeof s1), hermes_ws_shown(path, s2, sizeof s2),
		                   why);
		hermes_ws_loc_close(loc);
		return -1;
	}
	return 0;
}

/* Copies the regular file open as in into a new file name in dirfd, never replacing an existing
 * one and never exposing it half-written (temporary file, fsync, no-replace rename). */
static int copy_into(int in, const struct stat *st, int dirfd, const char *name,
                     const hermes_call_t *call)
{
	hermes_atomic_t at;
	int rc = hermes_atomic_begin(&at, dirfd, name, st);
	if (rc)
		return rc;
	rc = hermes_copy_data(in, at.fd, (int64_t)st->st_size, call);
	if (rc) {
		hermes_atomic_abort(&at);
		return rc;
	}
	return hermes_atomic_commit(&at, false);
}

void hermes_verb_fs_move_file(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_move_file_args_t *args = args_;
	void *result = result_;
	hermes_ws_loc_t src, dst;
	if (hermes_verbs_recover(call, result) < 0)
		return;
	int rc = hermes_ws_locate(call->host, args->source_path, 0, &src);
	if (rc) {
		hermes_ws_fail(result, rc, "move", args->source_path);
		return;
	}
	if (!src.exists && !src.is_root) {
		hermes_ws_fail(result, -ENOENT, "move", args->source_path);
		hermes_ws_loc_close(&src);
		return;
	}
	if (src.is_root || S_ISDIR(src.st.st_mode)) {
		fail_msg(result, HERMES_E_IS_A_DIRECTORY, "move", args->source_path,
		         "it is a directory (fs.moveFile moves files and symlinks)");
		hermes_ws_loc_close(&src);
		return;
	}
	if (locate_destination(call, "move", args->source_path, args->destination_path, result, &dst) < 0) {
		hermes_ws_loc_close(&src);
		return;
	}
	int lockfd;
	rc = lock_victim(call, src.dirfd, src.name, &src.st, &lockfd);
	if (rc) {
		hermes_ws_fail(result, rc, "move", args->source_path);
		hermes_ws_loc_close(&src);
		hermes_ws_loc_close(&dst);
		return;
	}
	rc = renameat2(src.dirfd, src.name, dst.dirfd, dst.name, RENAME_NOREPLACE) < 0 ? -errno : 0;
	if (rc == -EINVAL && !S_ISLNK(src.st.st_mode)) {
		/* The file system lacks RENAME_NOREPLACE: link (never replaces), then unlink. */
		rc = linkat(src.dirfd, src.name, dst.dirfd, dst.name, 0) < 0 ? -errno : 0;
		if (rc == 0 && unlinkat(src.dirfd, src.name, 0) < 0)
			rc = -errno;
	}
	if (rc == -EXDEV) {
		/* Another file system: copy (durably), then remove the source. */
		if (S_ISLNK(src.st.st_mode)) {
			char target[PATH_MAX + 1];
			ssize_t tn = readlinkat(src.dirfd, src.name, target, sizeof target - 1);
			if (tn < 0) {
				rc = -errno;
			} else {
				target[tn] = '\0';
				rc = symlinkat(target, dst.dirfd, dst.name) < 0 ? -errno : 0;
			}
		} else {
			int in = openat(src.dirfd, src.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			struct stat st;
			if (in < 0) {
				rc = -errno;
			} else {
				rc = fstat(in, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
				if (rc == 0)
					rc = copy_into(in, &st, dst.dirfd, dst.name, call);
				close(in);
			}
		}
		if (rc == 0 && unlinkat(src.dirfd, src.name, 0) < 0)
			rc = -errno;
		if (rc == 0)
			sync_dir(src.dirfd);
	} else if (rc == 0) {
		sync_dir(dst.dirfd);
		sync_dir(src.dirfd);
	}
	if (rc == -EEXIST || rc == -ENOTEMPTY)
		fail_two(result, -EEXIST, "move", args->source_path, args->destination_path);
	else if (rc)
		fail_two(result, rc, "move", args->source_path, args->destination_path);
	if (lockfd >= 0)
		close(lockfd); /* after the rename: a waiting edit then finds the old name gone */
	hermes_ws_loc_close(&src);
	hermes_ws_loc_close(&dst);
}

void hermes_verb_fs_copy_file(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_copy_file_args_t *args = args_;
	void *result = result_;
	struct stat st;
	if (hermes_verbs_recover(call, result) < 0)
		return;
	int in = hermes_verbs_open_regular(call, args->source_path, "copy", result, &st);
	if (in < 0)
		return;
	hermes_ws_loc_t dst;
	if (locate_destination(call, "copy", args->source_path, args->destination_path, result, &dst) == 0) {
		posix_fadvise(in, 0, 0, POSIX_FADV_SEQUENTIAL);
		int rc = copy_into(in, &st, dst.dirfd, dst.name, call);
		if (rc)
			fail_two(result, rc, "copy", args->source_path, args->destination_path);
		hermes_ws_loc_close(&dst);
	}
	close(in);
}

/* ---- fs.createDirectory ------------------------------------------------------------------- */

void hermes_verb_fs_create_directory(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_create_directory_args_t *args = args_;
	void *result = result_;
	const char *action = "create the directory";
	hermes_ws_loc_t loc;
	int rc = hermes_ws_locate(call->host, args->path, HERMES_WS_MKDIRS, &loc);
	if (rc) {
		hermes_ws_fail(result, rc, action, args->path);
		return;
	}
	if (!loc.is_root) {
		if (!loc.exists && mkdirat(loc.dirfd, loc.name, 0777) < 0 && errno != EEXIST)
			hermes_ws_fail(result, -errno, action, args->path);
		else {
			/* It exists now: fine if it is a directory (or an in-root symlink to one). */
			int fd;
			rc = hermes_ws_open_path(call->host, args->path, O_PATH | O_DIRECTORY, &fd);
			if (rc == 0)
				close(fd);
			else if (rc == -ENOTDIR || rc == -ENOENT)
				fail_msg(result, HERMES_E_ALREADY_EXISTS, action, args->path,
				         "something that is not a directory already exists there");
			else
				hermes_ws_fail(result, rc, action, args->path);
		}
	}
	hermes_ws_loc_close(&loc);
}

/* ---- fs.deleteDirectory ------------------------------------------------------------------- */

/* Entries removed so far by one fs.deleteDirectory, for its progress reports. */
typedef struct removal {
	const hermes_call_t *call;
	int64_t removed;
} removal_t;

static void removed_one(removal_t *r)
{
	r->removed++;
	hermes_call_progress(r->call, (double)r->removed, 0, "%lld entries removed",
	                     (long long)r->removed);
}

/* One directory on the way down from the one being deleted. */
typedef struct level {
	DIR *dir;      /* NULL while closed (deep levels, see below) */
	dev_t dev;
	ino_t ino;
	char *name;    /* its name in the level above (NULL for the top) */
} level_t;

/* Levels below this many keep no descriptor while their subdirectories are emptied: a level is
 * closed on the way down and opened again from its child's ".." on the way up (checked to be the
 * same directory, so that a tree moved meanwhile is not followed). So any depth the file system
 * allows is deleted with at most KEEP_OPEN + 2 descriptors (a 2,040-deep tree failed under
 * ulimit -n 1024 with one per level), and the re-reading this costs stays off the usual trees. */
#define KEEP_OPEN 32

/* Comes back up from the empty directory at levels[*depth] to its parent and removes it.
 * 0, or -errno. */
static int climb(level_t *levels, size_t *depth, removal_t *r)
{
	level_t *child = &levels[*depth], *parent = &levels[*depth - 1];
	if (!parent->dir) {
		int fd = openat(dirfd(child->dir), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			return -errno;
		if (fstat(fd, &st) != 0 || st.st_dev != parent->dev || st.st_ino != parent->ino) {
			close(fd);
			return HERMES_WS_EMOVED; /* not followed wherever it went */
		}
		if (!(parent->dir = fdopendir(fd))) {
			close(fd);
			return -errno;
		}
	}
	closedir(child->dir);
	child->dir = NULL;
	int rc = 0;
	if (unlinkat(dirfd(parent->dir), child->name, AT_REMOVEDIR) == 0)
		removed_one(r);
	else if (errno != ENOENT)
		rc = -errno;
	free(child->name);
	child->name = NULL;
	(*depth)--;
	return rc;
}

/* Empties the directory open as fd (consumed), depth first, never following a symlink, with a
 * bounded number of descriptors whatever its depth. */
static int empty_tree(int fd, removal_t *r)
{
	const hermes_cancel_t *cancel = r->call->cancel;
	size_t cap = 64, depth = 0;
	level_t *levels = calloc(cap, sizeof *levels);
	struct stat st;
	int rc = 0;
	if (!levels || fstat(fd, &st) != 0 || !(levels[0].dir = fdopendir(fd))) {
		rc = levels ? -errno : -ENOMEM;
		close(fd);
		free(levels);
		return rc;
	}
	levels[0].dev = st.st_dev;
	levels[0].ino = st.st_ino;
	while (rc == 0) {
		DIR *dir = levels[depth].dir;
		errno = 0;
		struct dirent *de = readdir(dir);
		if (!de) {
			if (errno)
				rc = -errno;
			else if (depth == 0)
				break; /* all done: the caller removes the top */
			else
				rc = climb(levels, &depth, r);
			continue;
		}
		const char *name = de->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (hermes_cancel_requested(cancel)) {
			rc = HERMES_WS_ECANCELLED;
			break;
		}
		/* Anything but a directory is unlinked as itself: unlinkat never follows a symlink. */
		if (de->d_type != DT_DIR) {
			if (unlinkat(dirfd(dir), name, 0) == 0) {
				removed_one(r);
				continue;
			}
			if (errno == ENOENT)
				continue;
			if (errno != EISDIR && errno != EPERM) {
				rc = -errno;
				break;
			}
		}
		int sub = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			if (errno != ENOENT)
				rc = -errno;
			continue;
		}
		if (depth + 1 == cap) {
			level_t *more = realloc(levels, 2 * cap * sizeof *levels);
			if (!more) {
				close(sub);
				rc = -ENOMEM;
				break;
			}
			memset(more + cap, 0, cap * sizeof *more);
			levels = more;
			cap *= 2;
		}
		level_t *next = &levels[depth + 1];
		if (fstat(sub, &st) != 0 || !(next->name = strdup(name)) || !(next->dir = fdopendir(sub))) {
			rc = next->name ? -errno : -ENOMEM;
			free(next->name);
			next->name = NULL;
			close(sub);
			break;
		}
		next->dev = st.st_dev;
		next->ino = st.st_ino;
		if (depth + 1 >= KEEP_OPEN) { /* deep: the parent is opened again on the way up */
			closedir(dir);
			levels[depth].dir = NULL;
		}
		depth++;
	}
	for (size_t i = 0; i <= depth; i++) {
		if (levels[i].dir)
			closedir(levels[i].dir);
		free(levels[i].name);
	}
	free(levels);
	return rc;
}

void hermes_verb_fs_delete_directory(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_delete_directory_args_t *args = args_;
	void *result = result_;
	const char *action = "delete the directory";
	hermes_ws_loc_t loc;
	int rc = hermes_ws_locate(call->host, args->path, 0, &loc);
	if (rc) {
		hermes_ws_fail(result, rc, action, args->path);
		return;
	}
	if (loc.is_root) {
		fail_msg(result, HERMES_E_INVALID_ARGUMENT, action, args->path,
		         "it is the workspace root, which cannot be deleted");
	} else if (!loc.exists) {
		hermes_ws_fail(result, -ENOENT, action, args->path);
	} else if (!S_ISDIR(loc.st.st_mode)) {
		fail_msg(result, HERMES_E_NOT_A_DIRECTORY, action, args->path,
		         S_ISLNK(loc.st.st_mode) ? "it is a symlink, not a directory (use fs.deleteFile)"
		                                 : "it is not a directory (use fs.deleteFile)");
	} else {
		int fd = openat(loc.dirfd, loc.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		removal_t removal = {call, 0};
		rc = fd < 0 ? -errno : empty_tree(fd, &removal);
		if (rc == 0 && unlinkat(loc.dirfd, loc.name, AT_REMOVEDIR) < 0)
			rc = -errno;
		if (rc)
			hermes_ws_fail(result, rc, action, args->path);
	}
	hermes_ws_loc_close(&loc);
}
