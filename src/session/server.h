/* session/server.h: `hermes serve` and `hermes mcp` over stdio: the entry point the CLI calls, and
 * the enums the session shares with it. The stdio transport is stdio.c; the session it drives,
 * and the order of the rooms of the server, are in session/session.h. */
#ifndef HERMES_SERVER_SERVER_H
#define HERMES_SERVER_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include <hermes/hermes.h>

typedef enum { HERMES_FRAMING_AUTO, HERMES_FRAMING_CONTENT_LENGTH, HERMES_FRAMING_NDJSON } hermes_framing_t;
typedef enum { HERMES_PROTOCOL_AUTO, HERMES_PROTOCOL_HERMES, HERMES_PROTOCOL_MCP } hermes_protocol_t;
typedef enum { HERMES_LOG_ERROR, HERMES_LOG_WARN, HERMES_LOG_INFO, HERMES_LOG_DEBUG } hermes_log_level_t;

typedef struct hermes_server_options {
	hermes_config_t config;   /* root NULL unless --root was given */
	bool root_given;          /* --root was on the command line: initialize may not change it */
	hermes_framing_t framing;
	hermes_protocol_t protocol; /* AUTO: MCP if the first initialize has params.protocolVersion */
	int64_t max_message_bytes;/* 0 = 64 MiB */
	int jobs;                 /* 0 = processor count */
	int grace_seconds;        /* after shutdown, a signal or the end of input, work still running
	                           * gets this long, then is cancelled (the CLI's default: 5) */
	hermes_log_level_t log_level;
	int in_fd, out_fd;        /* normally 0 and 1 */
} hermes_server_options_t;

#define HERMES_SERVER_DEFAULT_MAX_MESSAGE_BYTES (64LL * 1024 * 1024)

/* Runs the server until EOF, exit or a signal; returns the process exit status. */
int hermes_server_run(const hermes_server_options_t *opts);

#endif
