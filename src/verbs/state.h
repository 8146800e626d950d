/* verbs/state.h: the executor's changing state the handlers share (call->state): the programs
 * proc.start started and the language servers the code.* verbs use. Owned by the executor
 * (builtin_executor.c), freed with hermes_verbs_state_free. */
#ifndef HERMES_VERBS_STATE_H
#define HERMES_VERBS_STATE_H

#include "lsp/pool.h"
#include "proc/started.h"

typedef struct hermes_verbs_state {
	hermes_started_t *started;   /* NULL if proc.start is refused (hermes exec) */
	hermes_lsp_pool_t *lsp;      /* the language servers; NULL only if out of memory */
} hermes_verbs_state_t;

/* Frees the state: stops every started program and language server. NULL is fine. */
void hermes_verbs_state_free(void *state);

#endif
