/* verbs/sys_info.c: sys.machineInfo: the kernel, the processors this process may use, physical
 * memory, and the real file systems (from /proc/self/mountinfo, one entry per file system). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/processors.h"
#include "verbs/handlers.h"
#include "fs/lines.h"
#include "fs/workspace.h"

/* File system types that hold no user data of their own (kernel interfaces) or only memory
 * (tmpfs and friends), and read-only package images (squashfs: snaps). Left out of disks unless the
 * workspace is on one. */
static const char *const pseudo_types[] = {
	"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "mqueue", "debugfs", "tracefs",
	"securityfs", "pstore", "bpf", "configfs", "fusectl", "hugetlbfs", "autofs", "binfmt_misc",
	"nsfs", "efivarfs", "rpc_pipefs", "selinuxfs", "tmpfs", "ramfs", "squashfs",
	"fuse.gvfsd-fuse", "fuse.portal", "fuse.lxcfs", "nfsd", "rootfs",
};

static bool is_pseudo(const char *type)
{
	for (size_t i = 0; i < sizeof pseudo_types / sizeof *pseudo_types; i++)
		if (strcmp(type, pseudo_types[i]) == 0)
			return true;
	return false;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. In place. */
static void unescape(char *s)
{
	char *o = s;
	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

/* Is dir (a mount point) an ancestor-or-self of path? Component-wise. */
static size_t prefix_len(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	if (strcmp(dir, "/") == 0)
		return 1;
	if (strncmp(dir, path, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		return n;
	return 0;
}

typedef struct mount {
	char *dir;
	char *dev;    /* "major:minor" */
	bool pseudo;
	bool keep;
} mount_t;

static int cmp_disks(const void *a, const void *b)
{
	return strcmp(((const hermes_disk_info_t *)a)->name, ((const hermes_disk_info_t *)b)->name);
}

static size_t read_mounts(mount_t **out)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	mount_t *m = NULL;
	size_t count = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	while (getline(&line, &lcap, f) > 0) {
		char *fields[64];
		int nf = 0;
		char *save = NULL;
		for (char *t = strtok_r(line, " \n", &save); t && nf < 64; t = strtok_r(NULL, " \n", &save))
			fields[nf++] = t;
		int dash = -1;
		for (int i = 6; i < nf; i++)
			if (strcmp(fields[i], "-") == 0) {
				dash = i;
				break;
			}
		if (nf < 5 || dash < 0 || dash + 1 >= nf)
			continue;
		if (count == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			mount_t *nm = realloc(m, ncap * sizeof *nm);
			if (!nm)
				break;
			m = nm;
			cap = ncap;
		}
		unescape(fields[4]);
		m[count].dir = strdup(fields[4]);
		m[count].dev = strdup(fields[2]);
		m[count].pseudo = is_pseudo(fields[dash + 1]);
		m[count].keep = false;
		if (!m[count].dir || !m[count].dev) {
			free(m[count].dir);
			free(m[count].dev);
			break;
		}
		count++;
	}
	free(line);
	fclose(f);
	*out = m;
	return count;
}

static void list_disks(const hermes_ws_t *ws, hermes_sys_machine_info_result_t *result)
{
	mount_t *m = NULL;
	size_t count = read_mounts(&m);
	/* The workspace's mount: the deepest mount point containing the root (the last one mounted
	 * there, if several were stacked). */
	ssize_t wsm = -1;
	size_t best = 0;
	for (size_t i = 0; i < count; i++) {
		size_t n = prefix_len(m[i].dir, ws->root);
		if (n && n >= best) {
			best = n;
			wsm = (ssize_t)i;
		}
	}
	for (size_t i = 0; i < count; i++) {
		if ((ssize_t)i == wsm) {
			m[i].keep = true;
			continue;
		}
		if (m[i].pseudo)
			continue;
		bool keep = true;
		for (size_t j = 0; j < count && keep; j++) {
			if (j == i)
				continue;
			/* A later mount on the same point hides this one. */
			if (j > i && strcmp(m[j].dir, m[i].dir) == 0)
				keep = false;
			/* The same file system mounted elsewhere too (bind mounts): one entry, at the
			 * workspace's mount if it is that one, else at the shortest mount point. */
			if (strcmp(m[j].dev, m[i].dev) == 0 && !m[j].pseudo) {
				if ((ssize_t)j == wsm)
					keep = false;
				else if (strlen(m[j].dir) < strlen(m[i].dir) ||
				         (strlen(m[j].dir) == strlen(m[i].dir) && j < i))
					keep = false;
			}
		}
		m[i].keep = keep;
	}
	hermes_disk_info_t *disks = calloc(count + 1, sizeof *disks);
	size_t nd = 0;
	for (size_t i = 0; disks && i < count; i++) {
		if (!m[i].keep)
			continue;
		struct statvfs sv;
		struct stat st;
		if (statvfs(m[i].dir, &sv) < 0 || stat(m[i].dir, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (sv.f_blocks == 0 && (ssize_t)i != wsm)
			continue;
		disks[nd].name = hermes_text_lossy(m[i].dir);
		if (!disks[nd].name)
			continue;
		disks[nd].total_bytes = (int64_t)sv.f_blocks * (int64_t)sv.f_frsize;
		disks[nd].free_bytes = (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;
		nd++;
	}
	if (disks && wsm < 0) {
		/* No mount table: at least the workspace's file system, named by the root. */
		struct statvfs sv;
		if (fstatvfs(ws->root_fd, &sv) == 0 && (disks[nd].name = hermes_text_lossy(ws->root))) {
			disks[nd].total_bytes = (int64_t)sv.f_blocks * (int64_t)sv.f_frsize;
			disks[nd].free_bytes = (int64_t)sv.f_bavail * (int64_t)sv.f_frsize;
			nd++;
		}
	}
	for (size_t i = 0; i < count; i++) {
		free(m[i].dir);
		free(m[i].dev);
	}
	free(m);
	if (disks)
		qsort(disks, nd, sizeof *disks, cmp_disks);
	result->disks = disks;
	result->disks_count = nd;
}

/* The PRETTY_NAME of /etc/os-release (or /usr/lib/os-release), unquoted; "" if none. */
static void os_release(char *buf, size_t size)
{
	buf[0] = '\0';
	FILE *f = fopen("/etc/os-release", "re");
	if (!f)
		f = fopen("/usr/lib/os-release", "re");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "PRETTY_NAME=", 12) != 0)
			continue;
		char *v = line + 12;
		v[strcspn(v, "\n")] = '\0';
		size_t n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		snprintf(buf, size, "%s", v);
		break;
	}
	fclose(f);
}

void hermes_verb_sys_machine_info(const hermes_call_t *call, const void *args, void *result_)
{
	(void)args;
	hermes_sys_machine_info_result_t *result = result_;
	struct utsname u;
	char os[1024], pretty[512];
	if (uname(&u) < 0) {
		hermes_result_fail(result, HERMES_E_IO_ERROR, "cannot describe the machine: uname: %s",
		                   strerror(errno));
		return;
	}
	os_release(pretty, sizeof pretty);
	if (pretty[0])
		snprintf(os, sizeof os, "%s %s %s (%s)", u.sysname, u.release, u.machine, pretty);
	else
		snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
	result->operating_system = hermes_text_lossy(os);
	result->cpu_count = hermes_processor_count();
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	result->total_memory_bytes = pages > 0 && psize > 0 ? (int64_t)pages * psize : 0;
	list_disks(call->host, result);
	if (!result->operating_system || !result->disks) {
		free(result->operating_system);
		result->operating_system = NULL;
		if (result->disks) {
			for (size_t i = 0; i < result->disks_count; i++)
				free(result->disks[i].name);
			free(result->disks);
		}
		result->disks = NULL;
		result->disks_count = 0;
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot describe the machine: out of memory");
	}
}
