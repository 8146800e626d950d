/* rpc/log.h: diagnostics of `hermes serve` on stderr (stdout carries only protocol messages). */
#ifndef HERMES_SERVER_LOG_H
#define HERMES_SERVER_LOG_H

#include <stdbool.h>

#include <hermes/hermes.h>

#include "session/server.h"

/* Sets the most detailed level written; called once before any thread starts. */
void hermes_log_set_level(hermes_log_level_t level);
bool hermes_log_enabled(hermes_log_level_t level);
/* Writes "hermes serve: <level>: <message>\n" to stderr in one write, if level is enabled. */
void hermes_log(hermes_log_level_t level, const char *fmt, ...) HERMES_PRINTF(2, 3);

/* A second destination for warnings and errors (MCP's notifications/message): hook(ctx, level,
 * message) is called from the logging thread for every warning or error, whatever the level of
 * stderr. Set it before the threads that log start, clear it (NULL) after they stop. */
void hermes_log_set_hook(void (*hook)(void *ctx, hermes_log_level_t level, const char *message),
                         void *ctx);

#endif
