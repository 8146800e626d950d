/* fs/sweep.h: what a killed Hermes can leave behind, removed by the next one. Hermes's own
 * files only, by their exact name patterns, and never one a live process may still be writing:
 * a file goes only if the process named in it is gone (or cannot be told apart from one that
 * is, in another PID namespace) and it has not been touched for a while. */
#ifndef HERMES_FS_SWEEP_H
#define HERMES_FS_SWEEP_H

#include <stddef.h>

/* Temporary files of atomic writes: ".<name>.<pid>.<8 hex>.hermes-tmp" (see atomic.c), left when a
 * write was killed between creating its temporary file and renaming it into place. Removes those
 * in the directory dirfd over HERMES_SWEEP_TMP_AGE seconds old whose process is gone. Reads a
 * directory at most once every HERMES_SWEEP_INTERVAL seconds per process. */
#define HERMES_SWEEP_TMP_AGE 60
#define HERMES_SWEEP_INTERVAL 600
void hermes_sweep_temp_files(int dirfd);

/* The output files of proc.run in .hermes/runs ("<UTC time>-<pid>-<n>.stdout" and ".stderr"):
 * keeps the newest HERMES_RUNS_KEEP runs and none older than HERMES_RUNS_MAX_AGE seconds, except
 * the runs of a Hermes still alive, and anything touched in the last hour. dirfd: the runs
 * directory (any open flags). */
#define HERMES_RUNS_KEEP 100
#define HERMES_RUNS_MAX_AGE (7 * 24 * 3600)
void hermes_sweep_runs(int dirfd);

#endif
