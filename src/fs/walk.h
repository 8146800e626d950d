/* fs/walk.h: a parallel directory walk confined to the workspace, for fs.search and fs.glob.
 * Directories are opened with openat() on their parent's descriptor and O_NOFOLLOW, so the walk
 * never leaves the tree it started in: symlinks are neither followed nor reported, and neither
 * are devices, FIFOs and sockets. Entries are filtered with the ignore rules (ignore.h), and a
 * directory named .git is never entered. Several threads read directories and hand out files. */
#ifndef HERMES_FS_WALK_H
#define HERMES_FS_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fs/glob.h"
#include "fs/ignore.h"
#include "fs/workspace.h"

/* The most worker threads a walk starts (the processors the process may use, up to this). */
#define HERMES_WALK_MAX_THREADS 8

typedef struct hermes_walk_opts {
	const hermes_ws_t *ws;
	/* Canonical workspace-relative path of the directory to walk: no ".", "..", symlink or
	 * doubled '/' ("" is the root). The ignore files of the directories above it are read too. */
	const char *root;
	hermes_ignore_opts_t filter; /* root_skip is filled in by the walk */
	/* If not NULL, a directory is entered only if this glob may match below it (its path taken
	 * relative to root). */
	const hermes_glob_t *prune;
	int threads;                 /* worker threads; <= 0: one per usable processor */
	const hermes_cancel_t *cancel; /* may be NULL */
	/* Called for every regular file kept, from any worker (0 .. threads-1): dirfd is its
	 * directory, open for reading; path is workspace-relative (len bytes, NUL-terminated).
	 * Return 0 to go on; anything else stops the walk, and hermes_walk_run returns it. */
	int (*on_file)(void *ctx, int worker, int dirfd, const char *name, const char *path, size_t len);
	/* If not NULL, called the same way for every directory kept below the root. */
	int (*on_dir)(void *ctx, int worker, const char *path, size_t len);
	void *ctx;
} hermes_walk_opts_t;

/* Resolves a request's path for a walk, following symlinks that stay inside (hermes_ws_open_path
 * rules): *canon receives its canonical workspace path (malloc'd; "" for the root) and *mode its
 * st_mode. 0, or a negative errno / HERMES_WS_E* code for hermes_ws_fail. */
int hermes_walk_resolve(const hermes_ws_t *ws, const char *path, char **canon, mode_t *mode);

/* The number of workers hermes_walk_run will use for opts->threads (for per-worker state). */
int hermes_walk_threads(int requested);

/* Walks. Returns 0 when done; a callback's non-zero value; HERMES_WS_ECANCELLED if cancelled; or
 * a negative errno if the root cannot be opened (-ENOMEM if out of memory). Directories and files
 * that cannot be read (permissions, removed meanwhile) are skipped. */
int hermes_walk_run(const hermes_walk_opts_t *opts);

#endif
