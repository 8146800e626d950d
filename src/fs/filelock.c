/* fs/filelock.c: the per-file writer lock (flock, re-taken if the file was replaced meanwhile)
 * and the version token; see filelock.h. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "fs/filelock.h"
#include "fs/workspace.h"

static void nap(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Polling (so that a cancel is seen, and a writer that never lets go cannot hold a worker
 * forever): a short nap first, longer ones while it stays taken. */
int hermes_file_lock_fd(int fd, const hermes_cancel_t *cancel)
{
	int64_t deadline = -1;
	long wait_us = 50;
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return -errno;
		if (hermes_cancel_requested(cancel))
			return HERMES_WS_ECANCELLED;
		int64_t now = now_ms();
		if (deadline < 0)
			deadline = now + HERMES_FILE_LOCK_WAIT_MS;
		else if (now >= deadline)
			return HERMES_WS_ELOCKED;
		nap(wait_us);
		if (wait_us < 2000)
			wait_us *= 2;
	}
}

int hermes_file_lock(int dirfd, const char *name, const hermes_cancel_t *cancel, int *fd,
                     struct stat *st)
{
	/* Each turn either returns or finds that another writer replaced the file meanwhile: a
	 * writer that replaces it many thousand times while we wait is not a case to serve. */
	for (int turn = 0; turn < 10000; turn++) {
		int f = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (f < 0)
			return -errno;
		if (fstat(f, st) < 0) {
			int rc = -errno;
			close(f);
			return rc;
		}
		if (!S_ISREG(st->st_mode)) {
			*fd = f;
			return 0;
		}
		int rc = hermes_file_lock_fd(f, cancel);
		if (rc) {
			close(f);
			return rc;
		}
		struct stat now;
		if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
		    now.st_ino == st->st_ino && fstat(f, st) == 0) {
			*fd = f;
			return 0;
		}
		close(f); /* replaced (or removed) while we waited: lock what is there now */
	}
	return HERMES_WS_ELOCKED;
}

int hermes_dir_section_enter(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

void hermes_dir_section_leave(int fd)
{
	if (fd >= 0)
		close(fd);
}

bool hermes_file_unchanged(int dirfd, const char *name, const struct stat *st)
{
	struct stat now;
	return fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
	       now.st_ino == st->st_ino && now.st_size == st->st_size &&
	       now.st_mtim.tv_sec == st->st_mtim.tv_sec && now.st_mtim.tv_nsec == st->st_mtim.tv_nsec;
}

void hermes_file_version(const struct stat *st, char out[HERMES_FILE_VERSION_MAX])
{
	snprintf(out, HERMES_FILE_VERSION_MAX, "%lld.%09ld-%lld-%llx", (long long)st->st_mtim.tv_sec,
	         (long)st->st_mtim.tv_nsec, (long long)st->st_size, (unsigned long long)st->st_ino);
}

char *hermes_file_version_dup(const struct stat *st)
{
	char v[HERMES_FILE_VERSION_MAX];
	hermes_file_version(st, v);
	return strdup(v);
}
