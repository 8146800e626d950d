/* proc/runfiles.h: the two output files of a run (stdout, stderr) in .hermes/runs of the
 * workspace, named "<UTC time>-<pid>-<n>.stdout"/".stderr" (the names sweep.h knows), and the bound
 * on what they hold: past the output limit each stream keeps its first and its last limit/4
 * bytes. While the program runs, the middle of a stream that grew past them is punched out (its
 * blocks freed, so the disk holds no more than the limit); once it has ended, the file is
 * rewritten as head, a line saying how much was left out, and tail. */
#ifndef HERMES_PROC_RUNFILES_H
#define HERMES_PROC_RUNFILES_H

#include <stdbool.h>
#include <stdint.h>

#include "fs/workspace.h"

/* How far past head + tail a stream grows between two punches. */
#define HERMES_RUNFILES_PUNCH_SLACK (1 << 20)

typedef struct hermes_runfiles {
	int runs;        /* .hermes/runs */
	int fd[2];       /* stdout, stderr, open for writing */
	char names[2][96];
} hermes_runfiles_t;

/* Creates .hermes/runs (with a .gitignore in .hermes), removes the runs past the bounds (sweep.h:
 * the newest 100, none older than a week, all of them under max_bytes; never a running one), and
 * creates the two files, held as running (sweep.h) until both are closed here and by the program.
 * 0, or -errno / HERMES_WS_* (nothing is left open then). */
int hermes_runfiles_open(const hermes_ws_t *ws, int64_t max_bytes, hermes_runfiles_t *o);

/* Closes them; keep false removes them too (the program never ran). */
void hermes_runfiles_close(hermes_runfiles_t *o, bool keep);

/* Their total size now. */
int64_t hermes_runfiles_size(const hermes_runfiles_t *o);

/* Frees the blocks of fd between its head and tail (keep bytes each). 0, or -errno (the file
 * system cannot punch holes: the caller falls back to stopping the program). */
int hermes_runfiles_punch(int fd, int64_t keep);

/* Rewrites the output file name of dirfd (open for writing as wfd) as its head, a marker and its
 * tail, if it is longer than both. Returns the bytes left out (0 if none), or -errno (then the
 * file is left whole). */
int64_t hermes_runfiles_compact(int dirfd, const char *name, int wfd, int64_t keep);

#endif
