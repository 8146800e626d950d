/* tests/fuzz/fuzz_path.c: workspace confinement on arbitrary paths, in a workspace holding
 * directories, files and symlinks that stay inside and ones that lead out. Whatever path comes in,
 * what it resolves to is inside the root: the descriptor hermes_ws_open_path returns, and the
 * directory hermes_ws_locate returns, both lie beneath it (checked through /proc/self/fd). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "fs/workspace.h"

static hermes_ws_t *ws;
static char root[PATH_MAX];
static const char *base; /* holds the workspace ws and outside (fuzz_workdir) */

/* The workspace goes when the run ends (fuzz_workdir removes its directory after this). */
static void cleanup(void)
{
	hermes_ws_free(ws); /* before fuzz_workdir removes its directory */
}

static void setup(void)
{
	base = fuzz_workdir("path");
	atexit(cleanup);
	char p[PATH_MAX * 2];
	snprintf(p, sizeof p, "%s/ws", base);
	FUZZ_ASSERT(mkdir(p, 0700) == 0);
	FUZZ_ASSERT(realpath(p, root) != NULL);
	snprintf(p, sizeof p, "%s/outside", base);
	FUZZ_ASSERT(mkdir(p, 0700) == 0);
	static const char *const dirs[] = {"a", "a/b", "c", NULL};
	for (int i = 0; dirs[i]; i++) {
		snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
		FUZZ_ASSERT(mkdir(p, 0700) == 0);
	}
	static const char *const links[][2] = {
		{"a/b", "in"}, {"..", "a/up"}, {"../..", "a/b/up2"}, {"../outside", "out"},
		{"/etc", "abs"}, {"in/../c", "c/loop1"}, {"c/loop1", "loop2"}, {"self", "self"}, {NULL, NULL}};
	for (int i = 0; links[i][0]; i++) {
		snprintf(p, sizeof p, "%s/%s", root, links[i][1]);
		FUZZ_ASSERT(symlink(links[i][0], p) == 0);
	}
	snprintf(p, sizeof p, "%s/a/file", root);
	int fd = open(p, O_WRONLY | O_CREAT, 0600);
	FUZZ_ASSERT(fd >= 0);
	close(fd);
	hermes_error_t err;
	FUZZ_ASSERT(hermes_ws_open(root, &ws, &err) == 0);
}

/* Is the descriptor's path beneath the root? */
static void assert_inside(int fd)
{
	char link[64], target[PATH_MAX + 1];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof target - 1);
	if (n <= 0)
		return; /* no /proc: nothing to check against */
	target[n] = '\0';
	size_t rl = strlen(root);
	FUZZ_ASSERT(strncmp(target, root, rl) == 0 && (target[rl] == '\0' || target[rl] == '/'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ws)
		setup();
	if (size > 4 * PATH_MAX)
		return 0;
	char *path = malloc(size + 1);
	FUZZ_ASSERT(path != NULL);
	memcpy(path, data, size);
	path[size] = '\0'; /* a NUL inside cuts it, as a C caller would */
	int fd;
	if (hermes_ws_open_path(ws, path, O_PATH, &fd) == 0) {
		assert_inside(fd);
		close(fd);
	}
	hermes_ws_loc_t loc;
	if (hermes_ws_locate(ws, path, 0, &loc) == 0) {
		if (!loc.is_root)
			assert_inside(loc.dirfd);
		hermes_ws_loc_close(&loc);
	}
	free(path);
	return 0;
}
