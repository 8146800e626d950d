/* proc/program.c: which program a request names (a PATH name, a system path, or a workspace path
 * opened once and executed from that descriptor), and the environment it gets. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/program.h"

extern char **environ;

/* Looks name up in PATH like execvp, but tells "nowhere" (-ENOENT) from "only where it may not
 * be run" (-EACCES), and skips directories it may not search (execvp reports those as EACCES).
 * Relative PATH entries (and empty ones, meaning ".") are taken from the workspace root, where the
 * program will run. On success out holds the absolute path. */
static int find_in_path(const hermes_ws_t *ws, const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int rc = -ENOENT;
	for (const char *p = path;; p++) {
		size_t n = strcspn(p, ":");
		const char *root = strcmp(ws->root, "/") ? ws->root : "";
		int len;
		if (n > 0 && p[0] == '/')
			len = snprintf(out, size, "%.*s/%s", (int)n, p, name);
		else
			len = snprintf(out, size, "%s/%.*s/%s", root, (int)(n ? n : 1), n ? p : ".", name);
		struct stat st;
		if (len > 0 && (size_t)len < size && stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (faccessat(AT_FDCWD, out, X_OK, AT_EACCESS) == 0)
				return 0;
			rc = -EACCES;
		}
		p += n;
		if (*p == '\0')
			break;
	}
	return rc;
}

/* Is the absolute path written under the workspace root? Then it is a workspace path, confined
 * (a symlink or ".." in it that leads out is refused), never a program of the system. */
static bool under_root(const hermes_ws_t *ws, const char *path)
{
	size_t n = strlen(ws->root);
	if (n == 1) /* the root is "/": everything is under it */
		return true;
	return strncmp(path, ws->root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* An absolute path outside the workspace: a program of the system, checked like a PATH entry. */
static int system_program(const char *path, char *out, size_t size)
{
	struct stat st;
	if (strlen(path) >= size)
		return -ENAMETOOLONG;
	if (stat(path, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0)
		return -EACCES;
	snprintf(out, size, "%s", path);
	return 0;
}

bool hermes_program_env_ok(const char *entry)
{
	const char *eq = strchr(entry, '=');
	if (!eq || eq == entry || (entry[0] >= '0' && entry[0] <= '9'))
		return false;
	for (const char *p = entry; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return false;
	return true;
}

/* Does environment entry e set the variable that entry sets? */
static bool same_name(const char *e, const char *entry)
{
	size_t n = (size_t)(strchr(entry, '=') - entry);
	return strncmp(e, entry, n) == 0 && e[n] == '=';
}

char **hermes_program_env(const hermes_config_t *config, char **extra, size_t extra_count)
{
	static const char *const keep[] = {"PATH=", "HOME=", "LANG=", "LC_", "TERM=", "TMPDIR=", NULL};
	size_t n = 0;
	while (environ[n])
		n++;
	char **out = calloc(n + extra_count + 1, sizeof *out);
	if (!out)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool kept = config->proc_env != HERMES_PROC_ENV_MINIMAL;
		for (int j = 0; !kept && keep[j]; j++)
			kept = strncmp(environ[i], keep[j], strlen(keep[j])) == 0;
		for (size_t x = 0; kept && x < extra_count; x++)
			kept = !same_name(environ[i], extra[x]);
		if (kept)
			out[k++] = environ[i];
	}
	for (size_t x = 0; x < extra_count; x++) {
		bool later = false; /* the last entry of a name wins */
		for (size_t y = x + 1; !later && y < extra_count; y++)
			later = same_name(extra[y], extra[x]);
		if (!later)
			out[k++] = extra[x];
	}
	return out;
}

int hermes_program_find(const hermes_ws_t *ws, const char *exe, int *exe_fd, char *resolved,
                        size_t size)
{
	*exe_fd = -1;
	if (!strchr(exe, '/'))
		return find_in_path(ws, exe, resolved, size);
	/* A path with '/' is a workspace path: confined, and executed from the very descriptor that
	 * was checked (never looked up again). An absolute path outside the workspace is a program
	 * of the system, like one found in PATH (/bin/echo). */
	int rc = hermes_ws_open_path(ws, exe, O_PATH, exe_fd);
	if (rc == HERMES_WS_EOUTSIDE && exe[0] == '/' && !under_root(ws, exe)) {
		rc = system_program(exe, resolved, size);
		*exe_fd = -1;
	} else if (rc == 0) {
		struct stat st;
		if (fstat(*exe_fd, &st) != 0)
			rc = -errno;
		else if (S_ISDIR(st.st_mode))
			rc = -EISDIR;
		if (rc)
			close(*exe_fd), *exe_fd = -1;
	}
	return rc;
}
