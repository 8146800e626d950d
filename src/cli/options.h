/* cli/options.h: command-line parsing shared by the subcommands (GNU-style long options). */
#ifndef HERMES_CLI_OPTIONS_H
#define HERMES_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include <hermes/hermes.h>

/* Prints "hermes: <message>" and a hint to stderr; returns HERMES_EXIT_USAGE. */
int hermes_usage_error(const char *command, const char *fmt, ...) HERMES_PRINTF(2, 3);

/* Parses a non-negative decimal integer with an optional K/M/G (binary) suffix. 0 or -1. */
int hermes_parse_size(const char *text, int64_t *out);

/* If arg is one of the executor options (--root, --max-read-bytes, --proc-timeout,
 * --proc-output-limit, --max-envelope-bytes), as "--opt=value" or "--opt value" (taking
 * argv[*i + 1]), stores it in config and returns 1; returns 0 if arg is not one of them; returns
 * -1 after printing a usage error. */
int hermes_parse_executor_option(const char *command, int argc, char **argv, int *i,
                                 hermes_config_t *config);

/* The help text lines for those options. */
extern const char hermes_executor_options_help[];

/* Creates the executor for config, printing "hermes: <message>" on failure. */
hermes_executor_t *hermes_cli_executor(const hermes_config_t *config);

/* True if arg is exactly --help or -h. */
bool hermes_is_help(const char *arg);

#endif
