/* proc/program.h: the program a request names and the environment it runs with, checked before
 * anything is started. No shell is ever involved. */
#ifndef HERMES_PROC_PROGRAM_H
#define HERMES_PROC_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include <hermes/hermes.h>

#include "fs/workspace.h"

/* Finds the program exe. A name without '/' is looked up in PATH like execvp (relative PATH
 * entries from the workspace root), telling "nowhere" (-ENOENT) from "only where it may not be
 * run" (-EACCES); its absolute path goes to resolved. A path with '/' is a workspace path,
 * confined and opened (O_PATH) into *exe_fd, to be executed from that descriptor; an absolute path
 * outside the workspace is a program of the system, checked like a PATH entry (its path in
 * resolved, *exe_fd -1). 0, or -errno (-EISDIR for a directory) / HERMES_WS_*. */
int hermes_program_find(const hermes_ws_t *ws, const char *exe, int *exe_fd, char *resolved,
                        size_t size);

/* Is entry "NAME=value" with NAME a shell identifier? */
bool hermes_program_env_ok(const char *entry);

/* The environment of the program: Hermes's own, or with --proc-env=minimal only the variables a
 * program needs to find its tools and speak the user's language; then the request's own entries,
 * which replace those of the same name (the last of a name wins). An array of pointers (malloc'd;
 * free the array only) into environ and extra. NULL if out of memory. */
char **hermes_program_env(const hermes_config_t *config, char **extra, size_t extra_count);

#endif
