/* verbs/handlers.h: what every verb handler file includes: the handlers' prototypes, generated
 * from the table (gen_handlers.h), and the helpers they share. Each handler has the
 * hermes_verb_fn signature; call->host is the hermes_ws_t workspace. */
#ifndef HERMES_VERBS_HANDLERS_H
#define HERMES_VERBS_HANDLERS_H

#include <sys/stat.h>

#include "core/verb.h"
#include "fs/workspace.h"
#include "verbs/gen_handlers.h"

/* Opens path for reading as a regular file (fails the result and returns -1 otherwise, with
 * action in the message, e.g. "read"). *st receives its status. */
/* Fails result with NotText: the first byte that is not text (a NUL if nul, else invalid UTF-8)
 * is at offset bad of the content, on line line. */
void hermes_verbs_fail_not_text(void *result, const char *path, bool nul, size_t bad,
                                long long line);

int hermes_verbs_open_regular(const hermes_call_t *call, const char *path, const char *action,
                              void *result, struct stat *st);

/* Refuses a write with Conflict (fails the result and returns -1) unless expected is NULL or the
 * version token of the file st describes (fs/filelock.h). action: e.g. "edit". */
int hermes_verbs_check_version(const char *expected, const struct stat *st, const char *action,
                               const char *path, void *result);

/* Before a write: undoes the change set a killed Hermes left unfinished (fs/commit.h), so no write
 * builds on a half-changed set. Fails the result and returns -1 if that cannot be done. */
int hermes_verbs_recover(const hermes_call_t *call, void *result);


/* How many times a read-modify-write starts over when a writer that does not lock changed the
 * file under it, before it gives up with Conflict. */
#define HERMES_VERBS_WRITE_TURNS 8

/* Fails result with WrongInstance and returns true if handle names another Hermes instance than
 * mine; what says which handle, e.g. "the program", "fs.changes: the watch" (handles.c). */
bool hermes_verbs_held_elsewhere(void *result, const char *what, const char *handle,
                                 const char *mine);

/* What proc.run and proc.start share (proc_run.c). */
/* Checks a program's executable (not empty), env entries (NAME=value) and cwd (opened into
 * *cwd_fd, or -1 if NULL): false once result says what was wrong. */
bool hermes_verbs_program_args_ok(const hermes_ws_t *ws, const char *exe, char **env,
                                  size_t env_count, const char *cwd, void *result, int *cwd_fd);
/* Finds the program (proc/program.h): false once result says why it cannot run. */
bool hermes_verbs_find_program(const hermes_ws_t *ws, const char *exe, void *result, int *exe_fd,
                               char *resolved, size_t size);
/* Fails result for a program that could not be executed (hermes_run_finish's -errno). */
void hermes_verbs_exec_failed(void *result, int rc, const char *exe);

#endif
