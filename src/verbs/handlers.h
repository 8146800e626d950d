/* verbs/handlers.h: the built-in verb handlers, registered by builtin.c. Each has the
 * hermes_verb_fn signature: call->host is the hermes_ws_t workspace. */
#ifndef HERMES_VERBS_HANDLERS_H
#define HERMES_VERBS_HANDLERS_H

#include <sys/stat.h>

#include "core/verb.h"

/* fs_read.c */
void hermes_verb_fs_exists(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_read_file(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_read_range(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_line_count(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_list_dir(const hermes_call_t *call, const void *args, void *result);
/* fs_write.c */
void hermes_verb_fs_write_file(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_write_range(const hermes_call_t *call, const void *args, void *result);
/* fs_tree.c */
void hermes_verb_fs_delete_file(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_move_file(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_copy_file(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_create_directory(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_delete_directory(const hermes_call_t *call, const void *args, void *result);
/* proc_run.c */
void hermes_verb_proc_run(const hermes_call_t *call, const void *args, void *result);
/* fs_search.c, fs_glob.c */
void hermes_verb_fs_search(const hermes_call_t *call, const void *args, void *result);
void hermes_verb_fs_glob(const hermes_call_t *call, const void *args, void *result);
/* sys_info.c */
void hermes_verb_sys_machine_info(const hermes_call_t *call, const void *args, void *result);

/* Opens path for reading as a regular file (fails the result and returns -1 otherwise, with
 * action in the message, e.g. "read"). *st receives its status. */
int hermes_verbs_open_regular(const hermes_call_t *call, const char *path, const char *action,
                              void *result, struct stat *st);

#endif
