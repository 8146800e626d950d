/* verbs/fs_glob.c: fs.glob, the paths below a directory that match a glob, on the walk of
 * fs.search (same ignore rules, same confinement). The glob also prunes the walk: a directory is
 * entered only if something below it could match, so a pattern for the .c
 * files of src reads one directory. */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs/glob.h"
#include "verbs/handlers.h"
#include "fs/walk.h"
#include "fs/workspace.h"

#define GLOB_MAX_RESULTS 100000

typedef struct globber {
	const hermes_glob_t *glob;
	bool dirs_only;
	size_t root_skip;
	size_t max;
	pthread_mutex_t mu;
	char **heap; /* the max smallest paths so far, a max-heap */
	size_t n;
	bool truncated;
} globber_t;

static void sift_down(char **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, big = i;
		if (l < n && strcmp(h[l], h[big]) > 0)
			big = l;
		if (r < n && strcmp(h[r], h[big]) > 0)
			big = r;
		if (big == i)
			return;
		char *t = h[i];
		h[i] = h[big];
		h[big] = t;
		i = big;
	}
}

/* Keeps a copy of path (with suffix) if it is among the max smallest. 0, or -ENOMEM. */
static int offer(globber_t *g, const char *path, size_t len, const char *suffix)
{
	pthread_mutex_lock(&g->mu);
	int rc = 0;
	if (g->n == g->max) {
		g->truncated = true;
		/* Compare without copying: path+suffix against the largest kept. */
		const char *top = g->heap[0];
		int c = strncmp(path, top, len);
		if (c == 0)
			c = strcmp(suffix, top + len);
		if (c >= 0)
			goto out;
	}
	size_t sl = strlen(suffix);
	char *copy = malloc(len + sl + 1);
	if (!copy) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(copy, path, len);
	memcpy(copy + len, suffix, sl + 1);
	if (g->n == g->max) {
		free(g->heap[0]);
		g->heap[0] = copy;
		sift_down(g->heap, g->n, 0);
	} else {
		size_t i = g->n++;
		g->heap[i] = copy;
		while (i > 0 && strcmp(g->heap[(i - 1) / 2], g->heap[i]) < 0) {
			char *t = g->heap[i];
			g->heap[i] = g->heap[(i - 1) / 2];
			g->heap[(i - 1) / 2] = t;
			i = (i - 1) / 2;
		}
	}
out:
	pthread_mutex_unlock(&g->mu);
	return rc;
}

static int on_file(void *ctx, int worker, int dirfd, const char *name, const char *path, size_t len)
{
	(void)worker;
	(void)dirfd;
	(void)name;
	globber_t *g = ctx;
	if (g->dirs_only || !hermes_glob_match(g->glob, path + g->root_skip, len - g->root_skip))
		return 0;
	return offer(g, path, len, "");
}

static int on_dir(void *ctx, int worker, const char *path, size_t len)
{
	(void)worker;
	globber_t *g = ctx;
	if (!hermes_glob_match(g->glob, path + g->root_skip, len - g->root_skip))
		return 0;
	return offer(g, path, len, "/");
}

static int cmp_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void hermes_verb_fs_glob(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_glob_args_t *args = args_;
	hermes_fs_glob_result_t *result = result_;
	char shown[256], why[200];
	const char *path = args->path ? args->path : ".";
	if (args->max_results < 1 || args->max_results > GLOB_MAX_RESULTS) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot glob: maxResults must be 1 to %d (got %d)", GLOB_MAX_RESULTS,
		                   (int)args->max_results);
		return;
	}
	/* "./x" is "x"; a final '/' asks for directories only. */
	const char *pat = args->pattern;
	while (pat[0] == '.' && pat[1] == '/') {
		pat += 2;
		while (*pat == '/')
			pat++;
	}
	size_t plen = strlen(pat);
	bool dirs_only = false;
	while (plen > 0 && pat[plen - 1] == '/' && !(plen >= 2 && pat[plen - 2] == '\\')) {
		plen--;
		dirs_only = true;
	}
	if (pat[0] == '/') {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot glob: the pattern '%s' is absolute; write it relative to path",
		                   hermes_ws_shown(args->pattern, shown, sizeof shown));
		return;
	}
	if (plen == 0) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "cannot glob: the pattern is empty");
		return;
	}
	hermes_glob_t *glob;
	int rc = hermes_glob_compile(pat, plen, args->include_hidden ? 0 : HERMES_GLOB_PERIOD, &glob,
	                             why, sizeof why);
	if (rc == -2) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot glob: out of memory");
		return;
	}
	if (rc) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "cannot glob: invalid pattern '%s': %s",
		                   hermes_ws_shown(args->pattern, shown, sizeof shown), why);
		return;
	}
	char *canon = NULL;
	mode_t mode;
	globber_t g = {glob, dirs_only, 0, (size_t)args->max_results, PTHREAD_MUTEX_INITIALIZER,
	               NULL, 0, false};
	rc = hermes_walk_resolve(call->host, path, &canon, &mode);
	if (rc) {
		hermes_ws_fail(result, rc, "glob in", path);
		goto out;
	}
	if (!S_ISDIR(mode)) {
		hermes_result_fail(result, HERMES_E_NOT_A_DIRECTORY, "cannot glob in '%s': it is not a directory",
		                   hermes_ws_shown(path, shown, sizeof shown));
		goto out;
	}
	g.root_skip = canon[0] ? strlen(canon) + 1 : 0;
	g.heap = calloc(g.max, sizeof *g.heap);
	if (!g.heap) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot glob: out of memory");
		goto out;
	}
	hermes_walk_opts_t o = {
		.ws = call->host,
		.root = canon,
		/* Hidden names are the glob's business (HERMES_GLOB_PERIOD), not the walk's. */
		.filter = {.respect_ignore = args->respect_ignore, .include_hidden = true},
		.prune = glob,
		.cancel = call->cancel,
		.on_file = on_file,
		.on_dir = on_dir,
		.ctx = &g,
	};
	rc = hermes_walk_run(&o);
	if (rc) {
		hermes_ws_fail(result, rc, "glob in", path);
		goto out;
	}
	qsort(g.heap, g.n, sizeof *g.heap, cmp_paths);
	result->paths = g.heap;
	result->paths_count = g.n;
	result->truncated = g.truncated;
	g.heap = NULL;
	g.n = 0;
out:
	for (size_t i = 0; g.heap && i < g.n; i++)
		free(g.heap[i]);
	free(g.heap);
	free(canon);
	hermes_glob_free(glob);
	pthread_mutex_destroy(&g.mu);
}
