/* verbs/builtin.c: hermes_executor_new(): the workspace and the built-in verb handlers.
 * (Spine version: fs.exists, fs.readFile and sys.machineInfo; the verbs work replaces it.) */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/utf8.h"
#include "core/verb.h"

typedef struct workspace {
	int root_fd;
} workspace_t;

static void workspace_free(void *p)
{
	workspace_t *ws = p;
	if (ws)
		close(ws->root_fd);
	free(ws);
}

static int open_beneath(const workspace_t *ws, const char *path, int flags)
{
	struct open_how how = { .flags = (uint64_t)flags | O_CLOEXEC, .resolve = RESOLVE_BENEATH };
	const char *rel = path[0] ? path : ".";
	return (int)syscall(SYS_openat2, ws->root_fd, rel, &how, sizeof how);
}

static void fail_errno(void *result, const char *what, const char *path, int e)
{
	hermes_errcode_t code = e == ENOENT   ? HERMES_E_NOT_FOUND
	                        : e == EXDEV  ? HERMES_E_OUTSIDE_WORKSPACE
	                        : e == EISDIR ? HERMES_E_IS_A_DIRECTORY
	                        : e == EACCES ? HERMES_E_PERMISSION_DENIED
	                                      : HERMES_E_IO_ERROR;
	if (code == HERMES_E_OUTSIDE_WORKSPACE)
		hermes_result_fail(result, code, "cannot %s '%s': the path leads outside the workspace",
		                   what, path);
	else
		hermes_result_fail(result, code, "cannot %s '%s': %s", what, path, strerror(e));
}

static void fs_exists(const hermes_call_t *call, const void *a, void *r)
{
	const hermes_fs_exists_args_t *args = a;
	hermes_fs_exists_result_t *res = r;
	int fd = open_beneath(call->host, args->path, O_PATH | O_NOFOLLOW);
	if (fd >= 0) {
		close(fd);
		res->exists = true;
	} else if (errno == ENOENT || errno == ENOTDIR) {
		res->exists = false;
	} else {
		fail_errno(r, "test", args->path, errno);
	}
}

static void fs_read_file(const hermes_call_t *call, const void *a, void *r)
{
	const hermes_fs_read_file_args_t *args = a;
	hermes_fs_read_file_result_t *res = r;
	struct stat st;
	int fd = open_beneath(call->host, args->path, O_RDONLY);
	if (fd < 0) {
		fail_errno(r, "read", args->path, errno);
		return;
	}
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		fail_errno(r, "read", args->path, S_ISDIR(st.st_mode) ? EISDIR : errno);
		close(fd);
		return;
	}
	if (st.st_size > call->config->max_read_bytes) {
		hermes_result_fail(r, HERMES_E_TOO_LARGE, "cannot read '%s': %lld bytes is over the %lld-byte limit",
		                   args->path, (long long)st.st_size, (long long)call->config->max_read_bytes);
		close(fd);
		return;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	size_t n = 0;
	while (buf && n < (size_t)st.st_size) {
		ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (!buf) {
		hermes_result_fail(r, HERMES_E_INTERNAL, "cannot read '%s': out of memory", args->path);
		return;
	}
	buf[n] = '\0';
	if (!hermes_utf8_valid(buf, n) || memchr(buf, '\0', n)) {
		free(buf);
		hermes_result_fail(r, HERMES_E_NOT_TEXT, "cannot read '%s': not UTF-8 text", args->path);
		return;
	}
	res->content = buf;
}

static void sys_machine_info(const hermes_call_t *call, const void *a, void *r)
{
	hermes_sys_machine_info_result_t *res = r;
	struct utsname u;
	struct statvfs vfs;
	char os[4 * sizeof u.release];
	(void)a;
	uname(&u);
	snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
	res->operating_system = strdup(os);
	res->cpu_count = (int32_t)sysconf(_SC_NPROCESSORS_ONLN);
	res->total_memory_bytes = (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	res->disks = calloc(1, sizeof *res->disks);
	if (res->disks && statvfs(call->config->root, &vfs) == 0) {
		res->disks[0].name = strdup(call->config->root);
		res->disks[0].total_bytes = (int64_t)vfs.f_blocks * (int64_t)vfs.f_frsize;
		res->disks[0].free_bytes = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
		res->disks_count = 1;
	}
}

int hermes_executor_new(const hermes_config_t *config, hermes_executor_t **out, hermes_error_t *err)
{
	const char *root = config && config->root ? config->root : ".";
	char resolved[PATH_MAX];
	if (!realpath(root, resolved)) {
		hermes_error_set(err, HERMES_E_NOT_FOUND, "workspace root '%s': %s", root, strerror(errno));
		return -1;
	}
	workspace_t *ws = malloc(sizeof *ws);
	if (!ws) {
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory");
		return -1;
	}
	ws->root_fd = open(resolved, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ws->root_fd < 0) {
		hermes_error_set(err, HERMES_E_NOT_A_DIRECTORY, "workspace root '%s': %s", root,
		                 strerror(errno));
		free(ws);
		return -1;
	}
	hermes_executor_t *ex = hermes_executor_create(config, resolved, ws, workspace_free);
	if (!ex) {
		workspace_free(ws);
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory");
		return -1;
	}
	if (hermes_executor_register(ex, HERMES_VERB_FS_EXISTS, fs_exists, err) ||
	    hermes_executor_register(ex, HERMES_VERB_FS_READ_FILE, fs_read_file, err) ||
	    hermes_executor_register(ex, HERMES_VERB_SYS_MACHINE_INFO, sys_machine_info, err)) {
		hermes_executor_free(ex);
		return -1;
	}
	*out = ex;
	return 0;
}
