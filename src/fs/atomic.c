/* fs/atomic.c: temporary file, fsync, rename; see atomic.h. */
#include <config.h>

#include "fs/atomic.h"
#include "fs/filelock.h"
#include "fs/sweep.h"
#include "fs/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <unistd.h>
#include <linux/fs.h>

/* A fresh temporary name next to name: ".<name>.<pid>.<8 hex>.hermes-tmp", cut to fit NAME_MAX.
 * The pid tells the next write into the directory whether a file left there is stale (sweep.h),
 * which it checks first. */
static void make_tmpname(hermes_atomic_t *a, int tries)
{
	if (tries == 0)
		hermes_sweep_temp_files(a->dirfd);
	unsigned char rnd[6];
	if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
		static unsigned counter;
		unsigned v = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) ^ (unsigned)getpid();
		memcpy(rnd, &v, sizeof v);
		rnd[4] = (unsigned char)tries;
		rnd[5] = (unsigned char)(v >> 3);
	}
	int keep = NAME_MAX - 1 - 1 - 10 - 1 - 8 - 11;
	snprintf(a->tmpname, sizeof a->tmpname, ".%.*s.%ld.%02x%02x%02x%02x.hermes-tmp", keep,
	         a->name, (long)getpid(), rnd[0], rnd[1], rnd[2], rnd[3]);
}

int hermes_atomic_begin(hermes_atomic_t *a, int dirfd, const char *name, const struct stat *like)
{
	a->dirfd = dirfd;
	a->fd = -1;
	a->tmpname[0] = '\0';
	a->expect = NULL;
	snprintf(a->name, sizeof a->name, "%s", name);
	/* Preferably an unnamed file (O_TMPFILE): a crash before the commit leaves nothing behind. */
	a->fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, like ? 0600 : 0666);
	for (int tries = 0; a->fd < 0 && tries < 16; tries++) {
		make_tmpname(a, tries);
		a->fd = openat(dirfd, a->tmpname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		               like ? 0600 : 0666);
		if (a->fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (a->fd < 0)
		return -EEXIST;
	if (like) {
		/* Keep the owner where we may (as root, a replaced file must not become root's), then
		 * the exact permission bits (after chown, which would clear set-id bits). */
		struct stat now;
		if (fstat(a->fd, &now) == 0 && (now.st_uid != like->st_uid || now.st_gid != like->st_gid))
			(void)!fchown(a->fd, like->st_uid, like->st_gid);
		if (fchmod(a->fd, like->st_mode & 07777) < 0) {
			int rc = -errno;
			hermes_atomic_abort(a);
			return rc;
		}
	}
	return 0;
}

int hermes_atomic_write(hermes_atomic_t *a, const void *buf, size_t len)
{
	return hermes_write_all(a->fd, buf, len);
}

void hermes_atomic_abort(hermes_atomic_t *a)
{
	if (a->fd >= 0) {
		close(a->fd);
		a->fd = -1;
		if (a->tmpname[0])
			unlinkat(a->dirfd, a->tmpname, 0);
	}
}

/* Gives the unnamed temporary file the name `to` in the directory (never replacing). */
static int link_unnamed(hermes_atomic_t *a, const char *to)
{
	if (linkat(a->fd, "", a->dirfd, to, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	/* AT_EMPTY_PATH needs privileges on older kernels; the /proc link does not. */
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", a->fd);
	return linkat(AT_FDCWD, proc, a->dirfd, to, AT_SYMLINK_FOLLOW) == 0 ? 0 : -errno;
}

/* Puts the new file in place only over the file a->expect describes, unchanged. The files are
 * exchanged first and what came out is checked afterwards, so that a writer that takes no lock
 * cannot slip a change in between the check and the rename: if what came out is not the file
 * that was read, it goes back (HERMES_WS_ECHANGED, the new file at a->tmpname). Where the file
 * system cannot exchange, the check comes just before a plain rename. 0 or an error code. */
static int exchange_checked(hermes_atomic_t *a, ino_t ours)
{
	int section = hermes_dir_section_enter(a->dirfd);
	int rc;
	if (renameat2(a->dirfd, a->tmpname, a->dirfd, a->name, RENAME_EXCHANGE) == 0) {
		if (hermes_file_unchanged(a->dirfd, a->tmpname, a->expect)) {
			rc = unlinkat(a->dirfd, a->tmpname, 0) < 0 && errno != ENOENT ? -errno : 0;
		} else {
			renameat2(a->dirfd, a->tmpname, a->dirfd, a->name, RENAME_EXCHANGE); /* theirs back */
			/* If another write replaced ours at the name meanwhile, what came back out is
			 * that newer file: it goes back in, and the older one is removed as the temporary. */
			struct stat out;
			if (fstatat(a->dirfd, a->tmpname, &out, AT_SYMLINK_NOFOLLOW) == 0 &&
			    out.st_ino != ours)
				renameat2(a->dirfd, a->tmpname, a->dirfd, a->name, RENAME_EXCHANGE);
			rc = HERMES_WS_ECHANGED;
		}
	} else if (errno == ENOENT) {
		rc = HERMES_WS_ECHANGED; /* removed meanwhile */
	} else if (errno != EINVAL && errno != ENOSYS) {
		rc = -errno;
	} else if (!hermes_file_unchanged(a->dirfd, a->name, a->expect)) {
		rc = HERMES_WS_ECHANGED;
	} else {
		rc = renameat(a->dirfd, a->tmpname, a->dirfd, a->name) < 0 ? -errno : 0;
	}
	hermes_dir_section_leave(section);
	return rc;
}

int hermes_atomic_commit(hermes_atomic_t *a, bool replace)
{
	int rc = 0;
	struct stat ours;
	if (fsync(a->fd) < 0 || fstat(a->fd, &ours) < 0) {
		rc = -errno;
		hermes_atomic_abort(a);
		return rc;
	}
	if (!a->tmpname[0]) {
		/* Unnamed: link it in place (no-replace), or under a temporary name to rename over. */
		if (!replace) {
			rc = link_unnamed(a, a->name);
		} else {
			for (int tries = 0; tries < 16; tries++) {
				make_tmpname(a, tries);
				rc = link_unnamed(a, a->tmpname);
				if (rc != -EEXIST)
					break;
			}
			if (rc)
				a->tmpname[0] = '\0';
		}
		if (rc) {
			hermes_atomic_abort(a);
			return rc;
		}
		if (!replace)
			a->tmpname[0] = '\0'; /* already in place under its final name */
	}
	if (close(a->fd) < 0)
		rc = -errno;
	a->fd = -1;
	if (rc == 0 && a->tmpname[0]) {
		if (replace) {
			/* The last look before the rename: a writer that does not lock may have changed
			 * the file since it was read (filelock.h). */
			if (a->expect)
				rc = exchange_checked(a, ours.st_ino);
			else if (renameat(a->dirfd, a->tmpname, a->dirfd, a->name) < 0)
				rc = -errno;
		} else if (renameat2(a->dirfd, a->tmpname, a->dirfd, a->name, RENAME_NOREPLACE) < 0) {
			rc = -errno;
			if (rc == -EINVAL) {
				/* No RENAME_NOREPLACE on this file system: a hard link never replaces either. */
				rc = linkat(a->dirfd, a->tmpname, a->dirfd, a->name, 0) < 0 ? -errno : 0;
				if (rc == 0)
					unlinkat(a->dirfd, a->tmpname, 0);
			}
		}
	}
	if (rc) {
		if (a->tmpname[0])
			unlinkat(a->dirfd, a->tmpname, 0);
		return rc;
	}
	int dfd = openat(a->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) < 0 && errno != EINVAL)
			rc = -errno; /* the rename is done; report that it may not be durable */
		close(dfd);
	}
	return rc;
}

static void copy_progress(const hermes_call_t *call, int64_t done, int64_t total)
{
	hermes_call_progress(call, (double)done, (double)total, "copied %lld of %lld bytes",
	                     (long long)done, (long long)total);
}

int hermes_atomic_replace(int dirfd, const char *name, const struct stat *like,
                          const struct stat *expect, const void *data, size_t len,
                          struct stat *now)
{
	hermes_atomic_t at;
	int rc = hermes_atomic_begin(&at, dirfd, name, like);
	if (rc)
		return rc;
	at.expect = expect;
	rc = hermes_atomic_write(&at, data, len);
	if (rc == 0 && now && fstat(at.fd, now) < 0)
		rc = -errno;
	if (rc) {
		hermes_atomic_abort(&at);
		return rc;
	}
	return hermes_atomic_commit(&at, true);
}

int hermes_copy_data(int in, int out, int64_t total, const hermes_call_t *call)
{
	const hermes_cancel_t *cancel = call ? call->cancel : NULL;
	int64_t done = 0;
	if (hermes_cancel_requested(cancel))
		return HERMES_WS_ECANCELLED;
#ifdef FICLONE
	struct stat st;
	if (fstat(in, &st) == 0 && lseek(in, 0, SEEK_CUR) == 0 && ioctl(out, FICLONE, in) == 0)
		return 0;
#endif
	bool cfr = true;
	for (;;) {
#ifdef HAVE_COPY_FILE_RANGE
		if (cfr) {
			if (hermes_cancel_requested(cancel))
				return HERMES_WS_ECANCELLED;
			ssize_t n = copy_file_range(in, NULL, out, NULL, 64u << 20, 0);
			if (n > 0) {
				copy_progress(call, done += n, total);
				continue;
			}
			if (n == 0)
				return 0;
			if (errno == EINTR)
				continue;
			if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP &&
			    errno != EBADF && errno != EPERM)
				return -errno;
			cfr = false;
		}
#else
		(void)cfr;
#endif
		break;
	}
	/* Plain read/write, with a heap buffer (handlers may run on small worker-thread stacks). */
	const size_t bufsize = 256 * 1024;
	char *buf = malloc(bufsize);
	if (!buf)
		return -ENOMEM;
	int rc = 0;
	for (;;) {
		if (hermes_cancel_requested(cancel)) {
			rc = HERMES_WS_ECANCELLED;
			break;
		}
		ssize_t n = read(in, buf, bufsize);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		rc = hermes_write_all(out, buf, (size_t)n);
		if (rc)
			break;
		copy_progress(call, done += n, total);
	}
	free(buf);
	return rc;
}
