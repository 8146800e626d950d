/* fs/sweep.c: removing what killed runs of Hermes left behind (see sweep.h). */
#include <config.h>

#include "fs/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Might the process pid still be running (here, or somewhere this process cannot see)? */
static bool maybe_alive(long pid)
{
	if (pid <= 0 || pid > 0x3fffffff)
		return false;
	if (pid == (long)getpid())
		return true;
	return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

static bool old_enough(int dirfd, const char *name, time_t now, time_t age)
{
	struct stat st;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_mtime + age <= now;
}

/* The directory open for reading (dirfd may be O_PATH); NULL if it cannot be. */
static DIR *open_dir(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (fd >= 0 && !d)
		close(fd);
	return d;
}

/* ---- temporary files ------------------------------------------------------------------- */

/* The pid in ".<name>.<pid>.<8 hex>.hermes-tmp", or -1 if name is not one of ours. */
static long tmp_pid(const char *name)
{
	static const char suffix[] = ".hermes-tmp";
	size_t n = strlen(name), sl = sizeof suffix - 1;
	if (name[0] != '.' || n < 1 + 1 + 1 + 1 + 8 + sl || strcmp(name + n - sl, suffix) != 0)
		return -1;
	const char *hex = name + n - sl - 8;
	for (int i = 0; i < 8; i++)
		if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f')))
			return -1;
	if (hex[-1] != '.')
		return -1;
	const char *end = hex - 1, *p = end;
	while (p > name + 1 && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == end || p[-1] != '.' || p - 1 == name)
		return -1;
	return strtol(p, NULL, 10);
}

/* Directories swept lately (by device and inode), so that a busy directory is read rarely. */
enum { RECENT = 64 };
static struct {
	dev_t dev;
	ino_t ino;
	time_t when;
} recent[RECENT];
static pthread_mutex_t recent_lock = PTHREAD_MUTEX_INITIALIZER;

static bool due(int dirfd, time_t now)
{
	struct stat st;
	if (fstat(dirfd, &st) != 0)
		return false;
	pthread_mutex_lock(&recent_lock);
	size_t oldest = 0;
	bool go = true;
	for (size_t i = 0; i < RECENT; i++) {
		if (recent[i].when && recent[i].dev == st.st_dev && recent[i].ino == st.st_ino) {
			go = recent[i].when + HERMES_SWEEP_INTERVAL <= now;
			oldest = i;
			break;
		}
		if (recent[i].when < recent[oldest].when)
			oldest = i;
	}
	if (go) {
		recent[oldest].dev = st.st_dev;
		recent[oldest].ino = st.st_ino;
		recent[oldest].when = now;
	}
	pthread_mutex_unlock(&recent_lock);
	return go;
}

void hermes_sweep_temp_files(int dir_fd)
{
	time_t now = time(NULL);
	if (!due(dir_fd, now))
		return;
	DIR *d = open_dir(dir_fd);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		long pid = tmp_pid(de->d_name);
		if (pid > 0 && !maybe_alive(pid) && old_enough(dirfd(d), de->d_name, now, HERMES_SWEEP_TMP_AGE))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

/* ---- proc.run's outputs ---------------------------------------------------------------- */

int hermes_sweep_hold(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	return fcntl(fd, F_OFD_SETLK, &fl) == 0 ? 0 : -errno;
}

/* Is the run whose stdout is name (in dirfd) still running: is its file held (hermes_sweep_hold)?
 * Where locks cannot be asked about, a run of a live process counts as running. */
static bool held(int dirfd, const char *name, long pid)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT && maybe_alive(pid);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	bool busy = fcntl(fd, F_OFD_GETLK, &fl) != 0 ? maybe_alive(pid) : fl.l_type != F_UNLCK;
	close(fd);
	return busy;
}

typedef struct run {
	char *stem;  /* "<UTC time>-<pid>-<n>" */
	long pid;
	unsigned long n;
	time_t started;
	time_t touched; /* the newest modification of its files */
	int64_t bytes;  /* their sizes */
} run_t;

/* Oldest first: by start, then process and counter (the names compare the counter as text). */
static int by_age(const void *a_, const void *b_)
{
	const run_t *a = a_, *b = b_;
	if (a->started != b->started)
		return a->started < b->started ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	return strcmp(a->stem, b->stem);
}

/* The stem, pid, counter and start of "20261124T220000Z-1234-5.stdout" (or .stderr); false if
 * it is not one. */
static bool run_name(const char *name, size_t *stem_len, long *pid, unsigned long *counter,
                     time_t *started)
{
	size_t n = strlen(name);
	const char *ext = n > 7 ? name + n - 7 : NULL;
	if (!ext || (strcmp(ext, ".stdout") != 0 && strcmp(ext, ".stderr") != 0))
		return false;
	/* 8 digits, T, 6 digits, Z */
	if (n < 16 + 7 || name[8] != 'T' || name[15] != 'Z' || name[16] != '-')
		return false;
	for (int i = 0; i < 15; i++)
		if (i != 8 && !(name[i] >= '0' && name[i] <= '9'))
			return false;
	char *end;
	*pid = strtol(name + 17, &end, 10);
	if (end == name + 17 || *end != '-')
		return false;
	*counter = strtoul(end + 1, NULL, 10);
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	end = strptime(name, "%Y%m%dT%H%M%SZ", &tm);
	if (end != name + 16)
		return false;
	*started = timegm(&tm);
	*stem_len = (size_t)(ext - name);
	return true;
}

/* Reads the runs of d: one entry per stem, with its files' sizes summed. *out is malloc'd. */
static size_t list_runs(DIR *d, run_t **out)
{
	run_t *runs = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		size_t stem_len;
		long pid;
		unsigned long counter;
		time_t started;
		struct stat st;
		if (!run_name(de->d_name, &stem_len, &pid, &counter, &started) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			run_t *more = realloc(runs, (cap = cap ? cap * 2 : 256) * sizeof *more);
			if (!more)
				break;
			runs = more;
		}
		if (!(runs[n].stem = strndup(de->d_name, stem_len)))
			break;
		runs[n].started = started;
		runs[n].pid = pid;
		runs[n].n = counter;
		runs[n].touched = st.st_mtime;
		runs[n++].bytes = st.st_size;
	}
	if (n > 1)
		qsort(runs, n, sizeof *runs, by_age);
	/* the two files of a run are neighbours now: fold them into one entry */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && strcmp(runs[k - 1].stem, runs[i].stem) == 0) {
			runs[k - 1].bytes += runs[i].bytes;
			if (runs[i].touched > runs[k - 1].touched)
				runs[k - 1].touched = runs[i].touched;
			free(runs[i].stem);
			continue;
		}
		runs[k++] = runs[i];
	}
	*out = runs;
	return k;
}

void hermes_sweep_runs(int dir_fd, int64_t max_bytes)
{
	DIR *d = open_dir(dir_fd);
	if (!d)
		return;
	run_t *runs;
	size_t n = list_runs(d, &runs);
	int64_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += runs[i].bytes;
	time_t now = time(NULL);
	size_t left = n;
	/* oldest first; the newest run stays whatever its size, so that its output can be read */
	for (size_t i = 0; i + 1 < n; i++) {
		bool too_many = left >= HERMES_RUNS_KEEP; /* and room for the one starting */
		bool too_big = max_bytes > 0 && bytes > max_bytes;
		bool too_old = runs[i].started + HERMES_RUNS_MAX_AGE <= now;
		if (!too_many && !too_big && !too_old)
			continue;
		char out[300], err[300];
		snprintf(out, sizeof out, "%s.stdout", runs[i].stem);
		snprintf(err, sizeof err, "%s.stderr", runs[i].stem);
		/* a run another Hermes is creating this very moment may not be held yet */
		bool fresh = runs[i].pid != (long)getpid() && runs[i].touched + HERMES_RUNS_FRESH > now &&
		             maybe_alive(runs[i].pid);
		if (fresh || held(dirfd(d), out, runs[i].pid))
			continue;
		unlinkat(dirfd(d), out, 0);
		unlinkat(dirfd(d), err, 0);
		bytes -= runs[i].bytes;
		left--;
	}
	for (size_t i = 0; i < n; i++)
		free(runs[i].stem);
	free(runs);
	closedir(d);
}
