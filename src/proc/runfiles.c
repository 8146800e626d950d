/* proc/runfiles.c: the output files of a run in .hermes/runs: created, bounded while the program
 * writes (holes punched in the middle), compacted to head + marker + tail once it ended. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "core/fdio.h"
#include "fs/sweep.h"
#include "proc/runfiles.h"

/* Creates the directory of the output files (and a .gitignore that keeps .hermes out of git).
 * On success *dirfd is .hermes/runs (O_PATH). */
static int open_runs_dir(const hermes_ws_t *ws, int *dirfd)
{
	hermes_ws_loc_t loc;
	int rc = hermes_ws_locate(ws, ".hermes/.gitignore", HERMES_WS_MKDIRS, &loc);
	if (rc)
		return rc;
	if (!loc.exists) {
		int fd = openat(loc.dirfd, loc.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		                0666);
		if (fd >= 0) {
			static const char ignore[] = "# written by hermes: proc.run output\n*\n";
			(void)!write(fd, ignore, sizeof ignore - 1);
			close(fd);
		}
	}
	hermes_ws_loc_close(&loc);
	rc = hermes_ws_locate(ws, ".hermes/runs/.keep", HERMES_WS_MKDIRS, &loc);
	if (rc)
		return rc;
	*dirfd = loc.dirfd;
	return 0;
}

/* Creates the two output files: <UTC time>-<pid>-<counter>.stdout / .stderr. */
static int create_outputs(int dirfd, int fds[2], char names[2][96])
{
	static unsigned counter;
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	for (int tries = 0; tries < 100; tries++) {
		unsigned n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
		snprintf(names[0], 96, "%s-%ld-%u.stdout", stamp, (long)getpid(), n);
		snprintf(names[1], 96, "%s-%ld-%u.stderr", stamp, (long)getpid(), n);
		const int fl = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
		fds[0] = openat(dirfd, names[0], fl, 0666);
		if (fds[0] < 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		fds[1] = openat(dirfd, names[1], fl, 0666);
		if (fds[1] >= 0) {
			/* held from now on: the sweep of any Hermes leaves a running program's files alone
			 * (where there are no locks, it spares the runs of live processes instead) */
			int held = hermes_sweep_hold(fds[0]);
			if (held == 0 || held == -EINVAL || held == -ENOLCK || held == -EOPNOTSUPP)
				return 0;
			close(fds[1]);
			unlinkat(dirfd, names[1], 0);
			errno = -held;
		}
		int rc = -errno;
		close(fds[0]);
		unlinkat(dirfd, names[0], 0);
		if (rc != -EEXIST)
			return rc;
	}
	return -EEXIST;
}

int64_t hermes_runfiles_size(const hermes_runfiles_t *o)
{
	struct stat a, b;
	if (fstat(o->fd[0], &a) < 0 || fstat(o->fd[1], &b) < 0)
		return 0;
	return (int64_t)a.st_size + (int64_t)b.st_size;
}


int hermes_runfiles_punch(int fd, int64_t keep)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((int64_t)st.st_size <= 2 * keep + HERMES_RUNFILES_PUNCH_SLACK)
		return 0;
	int64_t blk = st.st_blksize > 0 ? st.st_blksize : 4096;
	int64_t from = (keep + blk - 1) / blk * blk, to = ((int64_t)st.st_size - keep) / blk * blk;
	if (to <= from)
		return 0;
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from, to - from) == 0 ? 0 : -errno;
}

/* Copies len bytes of in at off to out (at its current offset). 0 or -errno. */
static int copy_span(int in, int64_t off, int64_t len, int out)
{
	while (len > 0) {
		loff_t o = off;
		ssize_t n = copy_file_range(in, &o, out, NULL, (size_t)len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += n;
		len -= n;
	}
	return 0;
}

int64_t hermes_runfiles_compact(int dirfd, const char *name, int wfd, int64_t keep)
{
	struct stat st;
	if (fstat(wfd, &st) < 0)
		return -errno;
	int64_t size = st.st_size, cut = size - 2 * keep;
	if (cut <= 0)
		return 0;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char tmp[128], marker[160];
	snprintf(tmp, sizeof tmp, ".%s.compact", name);
	int out = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (out < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	int n = snprintf(marker, sizeof marker, "\n[... hermes: %lld bytes of output left out here; "
	                 "the first and the last %lld bytes are kept ...]\n", (long long)cut,
	                 (long long)keep);
	int rc = copy_span(fd, 0, keep, out);
	if (rc == 0)
		rc = hermes_write_all(out, marker, (size_t)n);
	if (rc == 0)
		rc = copy_span(fd, size - keep, keep, out);
	if (close(out) != 0 && rc == 0)
		rc = -errno;
	close(fd);
	if (rc == 0 && renameat(dirfd, tmp, dirfd, name) != 0)
		rc = -errno;
	if (rc) {
		unlinkat(dirfd, tmp, 0);
		return rc;
	}
	return cut;
}

/* The sweep and the creation of a run's files, one thread at a time, so that no sweep sees the
 * files of a run of this process before they are held. */
static pthread_mutex_t creating = PTHREAD_MUTEX_INITIALIZER;

int hermes_runfiles_open(const hermes_ws_t *ws, int64_t max_bytes, hermes_runfiles_t *o)
{
	o->runs = -1;
	o->fd[0] = o->fd[1] = -1;
	int rc = open_runs_dir(ws, &o->runs);
	if (rc == 0) {
		pthread_mutex_lock(&creating);
		hermes_sweep_runs(o->runs, max_bytes); /* bounded at every run */
		rc = create_outputs(o->runs, o->fd, o->names);
		pthread_mutex_unlock(&creating);
	}
	if (rc && o->runs >= 0)
		close(o->runs);
	return rc;
}

void hermes_runfiles_close(hermes_runfiles_t *o, bool keep)
{
	close(o->fd[0]);
	close(o->fd[1]);
	if (!keep) {
		unlinkat(o->runs, o->names[0], 0);
		unlinkat(o->runs, o->names[1], 0);
	}
	close(o->runs);
}
