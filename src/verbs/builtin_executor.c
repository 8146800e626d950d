/* verbs/builtin_executor.c: hermes_executor_new() (public, hermes.h): an executor confined to a
 * workspace root, with the handler of every verb of the table registered (gen_registry.c), and
 * its state (verbs/state.h): the table of started programs (proc/started.h), the table of
 * watches (fs/watches.h) and the pool of language servers (lsp/pool.h), which it stops when it
 * is freed. Creating one first undoes any change set a killed Hermes left unfinished
 * (fs/commit.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/executor.h"
#include "core/verb.h"
#include "verbs/gen_handlers.h"
#include "fs/commit.h"
#include "fs/workspace.h"
#include "fs/watches.h"
#include "proc/started.h"
#include "verbs/state.h"

void hermes_verbs_state_free(void *state_)
{
	hermes_verbs_state_t *state = state_;
	if (!state)
		return;
	hermes_lsp_pool_free(state->lsp);
	hermes_started_free(state->started);
	hermes_watches_free(state->watches);
	free(state);
}

int hermes_executor_new(const hermes_config_t *config, hermes_executor_t **out, hermes_error_t *err)
{
	hermes_config_t defaults = {0};
	if (!config)
		config = &defaults;
	hermes_ws_t *ws;
	if (hermes_ws_open(config->root, &ws, err) < 0)
		return -1;
	/* A change set a killed Hermes left half-done is undone before anything is answered. */
	if (hermes_commit_recover(ws, err) < 0) {
		hermes_ws_free(ws);
		return -1;
	}
	hermes_executor_t *ex = hermes_executor_create(config, ws->root, ws, hermes_ws_free);
	if (!ex) {
		hermes_ws_free(ws);
		hermes_error_set(err, HERMES_E_INTERNAL, "cannot create the executor: out of memory");
		return -1;
	}
	const hermes_config_t *cfg = hermes_executor_config(ex);
	hermes_verbs_state_t *state = calloc(1, sizeof *state);
	const char *why = "out of memory";
	bool ok = state != NULL;
	if (ok && cfg->max_processes > 0)
		ok = (state->started = hermes_started_new(cfg->max_processes, cfg->instance)) != NULL;
	if (ok)
		ok = (state->watches = hermes_watches_new(cfg->max_watches, cfg->instance)) != NULL;
	if (ok)
		ok = (state->lsp = hermes_lsp_pool_new(cfg, cfg->lsp_servers, &why)) != NULL;
	if (!ok || hermes_executor_set_state(ex, state, hermes_verbs_state_free) != 0) {
		hermes_verbs_state_free(state);
		hermes_executor_free(ex);
		hermes_error_set(err, strcmp(why, "out of memory") ? HERMES_E_INVALID_ARGUMENT
		                                                          : HERMES_E_INTERNAL,
		                 "cannot create the executor: %s", why);
		return -1;
	}
	for (size_t i = 0; i < HERMES_VERB_COUNT; i++) {
		if (hermes_executor_register(ex, hermes_verb_handlers[i].verb, hermes_verb_handlers[i].fn,
		                             err) < 0) {
			hermes_executor_free(ex); /* releases ws too */
			return -1;
		}
	}
	*out = ex;
	return 0;
}
