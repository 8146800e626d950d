/* core/executor.h: the executor's internal interface for the front ends (src/cli, the server):
 * execution from an already-parsed JSON value, the registry's listing, and error results. */
#ifndef HERMES_CORE_EXECUTOR_H
#define HERMES_CORE_EXECUTOR_H

#include <hermes/hermes.h>

#include "core/desc.h"
#include "core/encode.h"
#include "core/json.h"

/* Executes from a JSON value read by core/json.c from text (text may be NULL: errors then carry
 * no line). If verb is NULL, json is a whole envelope ({"verb":..., "arguments":...}); otherwise
 * json is the arguments object of that verb (NULL or a JSON null means {}). Same contract as
 * hermes_execute() (the value's text counts against max_envelope_bytes); err->field names the
 * offending field ("arguments.startLine" for an envelope, "startLine" for bare arguments). */
hermes_outcome_t hermes_execute_json(hermes_executor_t *executor, const char *verb,
                                     const hermes_json_t *json, const char *text, unsigned flags,
                                     hermes_cancel_t *cancel, char **result_json,
                                     hermes_error_t *err);

/* hermes_execute() and hermes_execute_json() that hand the result to sink in pieces, in order,
 * instead of returning it whole (`hermes exec`: a 50 MB file's JSON is never built in memory).
 * A handler may leave a big string to be read as it is written (call->stream: fs.readFile
 * streams a big file's content from the file); the outcome and err are then what the result
 * says once written (a string that could not be finished fails it). *sent: 0 once all of it
 * was sent; -1 if memory ran out before any of it was; -2 if the sink refused a piece (the sink
 * knows why). */
hermes_outcome_t hermes_execute_json_to(hermes_executor_t *executor, const char *verb,
                                        const hermes_json_t *json, const char *text,
                                        unsigned flags, hermes_cancel_t *cancel,
                                        hermes_result_sink_t sink, void *ctx, int *sent,
                                        hermes_error_t *err);
hermes_outcome_t hermes_execute_to(hermes_executor_t *executor, const char *text, size_t len,
                                   unsigned flags, hermes_cancel_t *cancel,
                                   hermes_result_sink_t sink, void *ctx, int *sent,
                                   hermes_error_t *err);

/* Whether config lets desc run (read-only, allow, deny). */
bool hermes_config_allows(const hermes_config_t *config, const hermes_verb_desc_t *desc);

/* The registered verbs that may run, sorted by name; index < hermes_executor_verb_count(). */
size_t hermes_executor_verb_count(const hermes_executor_t *executor);
const hermes_verb_desc_t *hermes_executor_verb_at(const hermes_executor_t *executor, size_t index);
/* A registered verb by name, case-insensitively; NULL if none. */
const hermes_verb_desc_t *hermes_executor_find(const hermes_executor_t *executor, const char *name);

/* Makes `to`, a new executor no call uses yet, share the changing state of `from` (releasing its
 * own): a server whose workspace changes (MCP roots) keeps the programs proc.start started, which
 * are the server's, not the workspace's. Calls running on `from` are not disturbed; the state is
 * freed with the last executor that shares it. */
void hermes_executor_share_state(hermes_executor_t *to, const hermes_executor_t *from);

/* The registrant's state every handler gets as call->host (src/verbs: the workspace, a
 * hermes_ws_t), borrowed: a transport that reaches files without a verb (HTTP /files) confines
 * them by the same wall. */
void *hermes_executor_host(const hermes_executor_t *executor);

/* The settings in force (defaults filled in). */
const hermes_config_t *hermes_executor_config(const hermes_executor_t *executor);

/* The result object for an envelope that could not be decoded:
 * {"succeeded":false,"errorMessage":err->message,"errorCode":<name of err->code>}.
 * malloc'd; NULL only if out of memory. */
char *hermes_error_result_json(const hermes_error_t *err, unsigned flags);

#endif
