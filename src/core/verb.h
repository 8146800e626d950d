/* core/verb.h: what a verb handler sees, and how handlers are registered with an executor.
 * Used by src/verbs (which implements the handlers); nothing here touches the system. */
#ifndef HERMES_CORE_VERB_H
#define HERMES_CORE_VERB_H

#include <hermes/hermes.h>

#include "core/desc.h"
#include "core/encode.h"

/* One call of a verb. */
typedef struct hermes_call {
	const hermes_config_t *config; /* the executor's settings, defaults filled in */
	void *host;                    /* the registrant's state (src/verbs: the workspace) */
	hermes_cancel_t *cancel;       /* may be NULL */
	void *state;                   /* the registrant's changing state, locked by its owner
	                                  (src/verbs: the table of started programs); may be NULL */
	hermes_string_stream_t *stream; /* set if the result is written out as it is encoded
	                                   (hermes exec): see hermes_call_stream_string(); else NULL */
} hermes_call_t;

/* Leaves the string field *field of call's result to source, which the writer reads from when it
 * reaches the field: a handler may do so only where call->stream is set, once, as the last thing
 * it does, leaving *field NULL. The executor calls source->release after the result is written
 * (or dropped, if the result failed meanwhile), whatever happened. */
static inline void hermes_call_stream_string(const hermes_call_t *call, char **field,
                                             const hermes_string_source_t *source)
{
	call->stream->field = field;
	call->stream->source = *source;
}

/* A handler. args points to the verb's decoded argument struct (e.g.
 * hermes_fs_read_range_args_t), result to a zeroed result struct with common.succeeded = true.
 * The handler fills result; on failure it calls hermes_result_fail() and leaves the result's own
 * fields unset (or sets common.keep_fields if they still mean something, as proc.run's do on
 * Timeout). Handlers run concurrently and must be thread-safe. */
typedef void (*hermes_verb_fn)(const hermes_call_t *call, const void *args, void *result);

/* Creates an executor with an empty registry. config is copied (root is resolved by the caller and
 * passed in resolved_root, copied too). host is passed to every handler and released with
 * host_free (may be NULL) by hermes_executor_free. Returns NULL if out of memory. */
hermes_executor_t *hermes_executor_create(const hermes_config_t *config, const char *resolved_root,
                                          void *host, void (*host_free)(void *));

/* Gives the executor state that changes between calls (passed to every handler as call->state),
 * released with state_free by hermes_executor_free before the host is (by the last executor
 * that shares it). 0, or -1 if out of memory (then the caller still owns state). */
int hermes_executor_set_state(hermes_executor_t *executor, void *state, void (*state_free)(void *));

/* Registers the handler of a verb of the table, by its table name (matched case-insensitively).
 * Returns 0, or -1 (err filled) if the verb is not in the table or already registered. */
int hermes_executor_register(hermes_executor_t *executor, const char *verb, hermes_verb_fn fn,
                             hermes_error_t *err);

/* Marks a result as failed: succeeded = false, error_code = code, error_message = the formatted
 * sentence (which should name the path). result is any result struct. */
void hermes_result_fail(void *result, hermes_errcode_t code, const char *fmt, ...)
	HERMES_PRINTF(3, 4);

/* Reports a call's progress to its host, if the host asked for it (hermes_cancel_set_progress);
 * rate-limited to 10 a second and to rising values, so a handler may call it as often as it
 * likes. message: printf-style, formatted only when the report is sent. */
void hermes_call_progress(const hermes_call_t *call, double progress, double total,
                          const char *fmt, ...) HERMES_PRINTF(4, 5);

/* A host that bounds its memory (hermes serve) learns from fn(ctx, bytes), on the verb's thread,
 * that the call is about to hold about bytes of content for its result, and may wait there
 * until it has room for them (and what its reply will make of them) or the call is cancelled.
 * Set before the call, like the progress callback. */
typedef void (*hermes_memory_fn)(void *ctx, size_t bytes);
void hermes_cancel_set_memory(hermes_cancel_t *cancel, hermes_memory_fn fn, void *ctx);
/* Called by a handler before it builds a big result (fs.readFile: the file's size): tells the
 * host, which may make it wait. False if the call was cancelled meanwhile (then fail it). */
bool hermes_call_hold_memory(const hermes_call_t *call, size_t bytes);

/* Cancels like hermes_cancel_request(), and says there is no time left: a running program gets
 * HERMES_RUN_URGENT_GRACE_MS between SIGTERM and SIGKILL instead of the usual grace. The server
 * uses it once its own grace period after shutdown, a signal or the end of input is over. */
void hermes_cancel_request_urgent(hermes_cancel_t *cancel);
bool hermes_cancel_urgent(const hermes_cancel_t *cancel);

/* Empties err: no code, no position, empty field and message. Cheaper than a memset of its 5 KB
 * (three of those were a fifth of an fs.exists on the server's reading thread). */
static inline void hermes_error_clear(hermes_error_t *err)
{
	err->code = HERMES_E_NONE;
	err->line = err->column = 0;
	err->field[0] = err->message[0] = '\0';
}

/* Sets err (if not NULL): code and formatted message; line, column and field cleared. */
void hermes_error_set(hermes_error_t *err, hermes_errcode_t code, const char *fmt, ...)
	HERMES_PRINTF(3, 4);

#endif
