/* fs/sweep.h: what a killed Hermes can leave behind, removed by the next one. Hermes's own
 * files only, by their exact name patterns, and never one a live process may still be writing:
 * a file goes only if the process named in it is gone (or cannot be told apart from one that
 * is, in another PID namespace) and it has not been touched for a while. */
#ifndef HERMES_FS_SWEEP_H
#define HERMES_FS_SWEEP_H

#include <stddef.h>
#include <stdint.h>

/* Temporary files of atomic writes: ".<name>.<pid>.<8 hex>.hermes-tmp" (see atomic.c), left when a
 * write was killed between creating its temporary file and renaming it into place. Removes those
 * in the directory dirfd over HERMES_SWEEP_TMP_AGE seconds old whose process is gone. Reads a
 * directory at most once every HERMES_SWEEP_INTERVAL seconds per process. */
#define HERMES_SWEEP_TMP_AGE 60
#define HERMES_SWEEP_INTERVAL 600
void hermes_sweep_temp_files(int dirfd);

/* The output files of proc.run in .hermes/runs ("<UTC time>-<pid>-<n>.stdout" and ".stderr").
 * A run is running while its stdout file is held (hermes_sweep_hold: an open-file-description
 * lock, which the program's own copy of the descriptor keeps too, and which any process can see);
 * the files of a running run are never removed. Of the others, oldest first, removes those
 * beyond the newest HERMES_RUNS_KEEP - 1 runs (room for the one about to start), those older than HERMES_RUNS_MAX_AGE seconds, and
 * those that make all the runs' sizes add up to more than max_bytes (0: no such bound), but never
 * the newest run. A run another live process started in the last HERMES_RUNS_FRESH seconds stays
 * too (it may not be held yet). dirfd: the runs directory (any open flags). Run it where no other
 * thread of this process is between creating a run's files and holding them. */
#define HERMES_RUNS_KEEP 100
#define HERMES_RUNS_MAX_AGE (7 * 24 * 3600)
#define HERMES_RUNS_FRESH 2
void hermes_sweep_runs(int dirfd, int64_t max_bytes);

/* Holds the file fd (open for writing) as the output of a running program until every
 * descriptor of its open file description is closed. 0 or -errno. */
int hermes_sweep_hold(int fd);

#endif
