/* proc/cgroup.c: a cgroup v2 per run (cgroup.h), beneath the cgroup Hermes runs in. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proc/cgroup.h"
#include "proc/leftovers.h"

/* Where cgroup v2 is mounted: /proc/self/mountinfo's "cgroup2" line (/sys/fs/cgroup, or
 * /sys/fs/cgroup/unified on a hybrid machine). 0 or -ENOENT. */
static int cgroup2_mount(char *out, size_t n)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	char line[4096];
	int rc = -ENOENT;
	while (rc != 0 && fgets(line, sizeof line, f)) {
		/* "id parent maj:min root mountpoint options ... - fstype source superopts" */
		char *dash = strstr(line, " - cgroup2 ");
		char root[1024], point[1024];
		if (dash && sscanf(line, "%*s %*s %*s %1023s %1023s", root, point) == 2 &&
		    strcmp(root, "/") == 0 && strlen(point) < n) {
			snprintf(out, n, "%s", point);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* Hermes's own cgroup v2 path ("0::/path" of /proc/self/cgroup). 0 or -ENOENT. */
static int own_cgroup(char *out, size_t n)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -errno;
	char line[4096];
	int rc = -ENOENT;
	while (rc != 0 && fgets(line, sizeof line, f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strlen(line + 3) < n && !strstr(line + 3, "(deleted)")) {
			snprintf(out, n, "%s", line + 3);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* An empty cgroup that a Hermes process gone left beside ours (removing one that still holds a
 * process fails, harmlessly). */
static void remove_empty(const char *path)
{
	rmdir(path);
}

int hermes_cgroup_make(hermes_cgroup_t *cg)
{
	static atomic_bool swept;
	static atomic_uint seq;
	cg->dir = cg->procs = -1;
	cg->path = NULL;
	char mount[1024], own[2048], path[4096];
	const char *knob = getenv("HERMES_PROC_CGROUP"); /* "off": as on a machine without (tests) */
	if (knob && strcmp(knob, "off") == 0)
		return -ENOTSUP;
	int rc = cgroup2_mount(mount, sizeof mount);
	if (rc == 0)
		rc = own_cgroup(own, sizeof own);
	if (rc)
		return rc;
	int len = snprintf(path, sizeof path, "%s%s/hermes-%ld-%u", mount,
	                   strcmp(own, "/") == 0 ? "" : own, (long)getpid(), atomic_fetch_add(&seq, 1));
	if (len < 0 || (size_t)len >= sizeof path)
		return -ENAMETOOLONG;
	if (!atomic_exchange(&swept, true)) {
		*strrchr(path, '/') = '\0';
		hermes_leftovers_sweep(path, "hermes-", remove_empty);
		path[strlen(path)] = '/';
	}
	if (mkdir(path, 0755) != 0)
		return -errno;
	cg->dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->dir >= 0)
		cg->procs = openat(cg->dir, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	cg->path = strdup(path);
	if (cg->dir < 0 || cg->procs < 0 || !cg->path) {
		rc = cg->path ? -errno : -ENOMEM;
		hermes_cgroup_remove(cg);
		return rc ? rc : -EIO;
	}
	return 0;
}

int hermes_cgroup_pids(const hermes_cgroup_t *cg, int *pids, int n)
{
	if (cg->dir < 0)
		return 0;
	int fd = openat(cg->dir, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[4096];
	int count = 0;
	long pid = 0;
	bool digits = false;
	ssize_t r;
	while (count < n && (r = read(fd, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < r && count < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				pid = pid * 10 + (buf[i] - '0');
				digits = true;
			} else {
				if (digits && pid > 0)
					pids[count++] = (int)pid;
				pid = 0;
				digits = false;
			}
		}
	}
	close(fd);
	return count;
}

/* Is it empty? cgroup.events says "populated 0". */
static bool empty(const hermes_cgroup_t *cg)
{
	int fd = openat(cg->dir, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* gone */
	char buf[256];
	ssize_t r = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (r <= 0)
		return true;
	buf[r] = '\0';
	const char *p = strstr(buf, "populated ");
	return p && p[10] == '0';
}

bool hermes_cgroup_kill(const hermes_cgroup_t *cg, int ms)
{
	if (cg->dir < 0)
		return true;
	int fd = openat(cg->dir, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	bool killed = fd >= 0 && write(fd, "1", 1) == 1;
	if (fd >= 0)
		close(fd);
	for (int waited = 0;; waited += 5) {
		if (!killed) { /* before Linux 5.14: each process, until none is left */
			int pids[256];
			int n = hermes_cgroup_pids(cg, pids, 256);
			for (int i = 0; i < n; i++)
				kill(pids[i], SIGKILL);
		}
		if (empty(cg))
			return true;
		if (waited >= ms)
			return false;
		struct timespec five = {0, 5 * 1000 * 1000};
		nanosleep(&five, NULL);
	}
}

void hermes_cgroup_remove(hermes_cgroup_t *cg)
{
	if (cg->procs >= 0)
		close(cg->procs);
	if (cg->dir >= 0)
		close(cg->dir);
	if (cg->path)
		rmdir(cg->path);
	free(cg->path);
	cg->dir = cg->procs = -1;
	cg->path = NULL;
}
