/* proc/leftovers.h: what a Hermes process that is gone left behind, named after its pid: the
 * cgroups of its runs (cgroup.h) and the temporary directories of its language servers
 * (tmpdir.h), removed by the next Hermes that makes one. */
#ifndef HERMES_PROC_LEFTOVERS_H
#define HERMES_PROC_LEFTOVERS_H

/* Calls remove(path) for each directory in parent named <prefix><pid>-<anything>, of this user,
 * whose pid is no longer there. */
void hermes_leftovers_sweep(const char *parent, const char *prefix, void (*remove)(const char *path));

#endif
