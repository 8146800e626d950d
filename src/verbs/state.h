/* verbs/state.h: the executor's changing state the handlers share (call->state): the programs
 * proc.start started, the trees fs.watch watches and the language servers the code.* verbs use.
 * Owned by the executor (builtin_executor.c), freed with hermes_verbs_state_free. */
#ifndef HERMES_VERBS_STATE_H
#define HERMES_VERBS_STATE_H

#include "core/verb.h"
#include "fs/watches.h"
#include "lsp/pool.h"
#include "proc/started.h"

typedef struct hermes_verbs_state {
	hermes_started_t *started;   /* NULL if proc.start is refused (hermes exec) */
	hermes_watches_t *watches;   /* the trees fs.watch watches */
	hermes_lsp_pool_t *lsp;      /* the language servers; NULL only if out of memory */
} hermes_verbs_state_t;

static inline hermes_started_t *hermes_verbs_started(const hermes_call_t *call)
{
	return call->state ? ((const hermes_verbs_state_t *)call->state)->started : NULL;
}

static inline hermes_watches_t *hermes_verbs_watches(const hermes_call_t *call)
{
	return call->state ? ((const hermes_verbs_state_t *)call->state)->watches : NULL;
}

/* Frees the state: stops every started program and language server. NULL is fine. */
void hermes_verbs_state_free(void *state);

#endif
