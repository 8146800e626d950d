/* verbs/builtin.c: hermes_executor_new(): an executor confined to a workspace root, with every
 * built-in verb registered. */
#include <config.h>

#include <stdlib.h>

#include "core/verb.h"
#include "verbs/handlers.h"
#include "verbs/workspace.h"

static const struct {
	const char *name;
	hermes_verb_fn fn;
} builtin_verbs[] = {
	{HERMES_VERB_FS_EXISTS, hermes_verb_fs_exists},
	{HERMES_VERB_FS_READ_FILE, hermes_verb_fs_read_file},
	{HERMES_VERB_FS_READ_RANGE, hermes_verb_fs_read_range},
	{HERMES_VERB_FS_WRITE_FILE, hermes_verb_fs_write_file},
	{HERMES_VERB_FS_WRITE_RANGE, hermes_verb_fs_write_range},
	{HERMES_VERB_FS_DELETE_FILE, hermes_verb_fs_delete_file},
	{HERMES_VERB_FS_MOVE_FILE, hermes_verb_fs_move_file},
	{HERMES_VERB_FS_COPY_FILE, hermes_verb_fs_copy_file},
	{HERMES_VERB_FS_CREATE_DIRECTORY, hermes_verb_fs_create_directory},
	{HERMES_VERB_FS_DELETE_DIRECTORY, hermes_verb_fs_delete_directory},
	{HERMES_VERB_FS_LINE_COUNT, hermes_verb_fs_line_count},
	{HERMES_VERB_FS_LIST_DIR, hermes_verb_fs_list_dir},
	{HERMES_VERB_PROC_RUN, hermes_verb_proc_run},
	{HERMES_VERB_SYS_MACHINE_INFO, hermes_verb_sys_machine_info},
	{HERMES_VERB_FS_SEARCH, hermes_verb_fs_search},
	{HERMES_VERB_FS_GLOB, hermes_verb_fs_glob},
};

int hermes_executor_new(const hermes_config_t *config, hermes_executor_t **out, hermes_error_t *err)
{
	hermes_config_t defaults = {0};
	if (!config)
		config = &defaults;
	hermes_ws_t *ws;
	if (hermes_ws_open(config->root, &ws, err) < 0)
		return -1;
	hermes_executor_t *ex = hermes_executor_create(config, ws->root, ws, hermes_ws_free);
	if (!ex) {
		hermes_ws_free(ws);
		hermes_error_set(err, HERMES_E_INTERNAL, "cannot create the executor: out of memory");
		return -1;
	}
	_Static_assert(sizeof builtin_verbs / sizeof *builtin_verbs == HERMES_VERB_COUNT,
	               "every verb of the table has a handler");
	for (size_t i = 0; i < sizeof builtin_verbs / sizeof *builtin_verbs; i++) {
		if (hermes_executor_register(ex, builtin_verbs[i].name, builtin_verbs[i].fn, err) < 0) {
			hermes_executor_free(ex); /* releases ws too */
			return -1;
		}
	}
	*out = ex;
	return 0;
}
