/* proc/cgroup.h: a cgroup v2 per run, where the machine lets Hermes make one: every process of the
 * program, whatever session or parent it takes, stays in it, and `cgroup.kill` ends them all at
 * once. Where cgroup v2 is not mounted or Hermes's own cgroup is not writable (no delegation), no
 * cgroup is made and runs rely on the supervisor and on Hermes as subreaper (spawn.h). */
#ifndef HERMES_PROC_CGROUP_H
#define HERMES_PROC_CGROUP_H

#include <stdbool.h>

/* A run's cgroup. dir is -1 when there is none. */
typedef struct hermes_cgroup {
	int dir;      /* the cgroup's directory */
	int procs;    /* its cgroup.procs, open for writing: the program writes "0" to it to enter */
	char *path;   /* malloc'd absolute path, to remove it */
} hermes_cgroup_t;

/* Makes a fresh cgroup beneath Hermes's own. 0, or -errno (cg->dir is -1 then: run without one). */
int hermes_cgroup_make(hermes_cgroup_t *cg);

/* Ends every process in it (cgroup.kill, or SIGKILL to each listed process on kernels before
 * 5.14) and waits up to ms for it to be empty. Async-signal-safe (no malloc): usable by a forked
 * guard. True once empty. */
bool hermes_cgroup_kill(const hermes_cgroup_t *cg, int ms);

/* The pids in it (at most n), for a caller that reaps those that are its children. */
int hermes_cgroup_pids(const hermes_cgroup_t *cg, int *pids, int n);

/* Closes and removes it (it must be empty; a leftover is said nowhere, the kernel keeps it until
 * its last process ends). */
void hermes_cgroup_remove(hermes_cgroup_t *cg);

#endif
