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
	{"fs.exists", hermes_verb_fs_exists},
	{"fs.readFile", hermes_verb_fs_read_file},
	{"fs.readRange", hermes_verb_fs_read_range},
	{"fs.writeFile", hermes_verb_fs_write_file},
	{"fs.writeRange", hermes_verb_fs_write_range},
	{"fs.deleteFile", hermes_verb_fs_delete_file},
	{"fs.moveFile", hermes_verb_fs_move_file},
	{"fs.copyFile", hermes_verb_fs_copy_file},
	{"fs.createDirectory", hermes_verb_fs_create_directory},
	{"fs.deleteDirectory", hermes_verb_fs_delete_directory},
	{"fs.lineCount", hermes_verb_fs_line_count},
	{"fs.listDir", hermes_verb_fs_list_dir},
	{"proc.run", hermes_verb_proc_run},
	{"sys.machineInfo", hermes_verb_sys_machine_info},
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
	for (size_t i = 0; i < sizeof builtin_verbs / sizeof *builtin_verbs; i++) {
		if (hermes_executor_register(ex, builtin_verbs[i].name, builtin_verbs[i].fn, err) < 0) {
			hermes_executor_free(ex); /* releases ws too */
			return -1;
		}
	}
	*out = ex;
	return 0;
}
