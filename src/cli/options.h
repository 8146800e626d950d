/* cli/options.h: command-line parsing shared by the subcommands: every command parses its
 * arguments with getopt_long (GNU style: --opt=value or --opt value, options before or after the
 * operands, "--" ends them), with the executor's options and the error messages from here. */
#ifndef HERMES_CLI_OPTIONS_H
#define HERMES_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include <hermes/hermes.h>

/* Prints "hermes: <message>" and a hint to stderr; returns HERMES_EXIT_USAGE. */
int hermes_usage_error(const char *command, const char *fmt, ...) HERMES_PRINTF(2, 3);

/* Parses a non-negative decimal integer with an optional K/M/G (binary) suffix. 0 or -1. */
int hermes_parse_size(const char *text, int64_t *out);

/* Parses a plain decimal integer in [min, max] (no suffix, no sign, nothing after). 0 or -1. */
int hermes_parse_count(const char *text, int64_t min, int64_t max, int64_t *out);

/* The keys getopt_long returns for the executor's options, and their table entries. */
enum {
	HERMES_OPT_ROOT = 0x100,
	HERMES_OPT_MAX_READ_BYTES,
	HERMES_OPT_PROC_TIMEOUT,
	HERMES_OPT_PROC_OUTPUT_LIMIT,
	HERMES_OPT_MAX_ENVELOPE_BYTES,
	HERMES_OPT_READ_ONLY,
	HERMES_OPT_ALLOW,
	HERMES_OPT_DENY,
	HERMES_OPT_SANDBOX,
	HERMES_OPT_PROC_ENV,
	HERMES_OPT_RUNS_MAX_BYTES,
	HERMES_OPT_MAX_PROCESSES,
	HERMES_OPT_MAX_WATCHES,
	HERMES_OPT_MAX_WATCH_EVENTS,
	HERMES_OPT_LSP_SERVER,
	HERMES_OPT_COMMAND = 0x200 /* a command's own long-only options start here */
};
#define HERMES_EXECUTOR_LONGOPTS \
	{"root", required_argument, NULL, HERMES_OPT_ROOT}, \
	{"max-read-bytes", required_argument, NULL, HERMES_OPT_MAX_READ_BYTES}, \
	{"proc-timeout", required_argument, NULL, HERMES_OPT_PROC_TIMEOUT}, \
	{"proc-output-limit", required_argument, NULL, HERMES_OPT_PROC_OUTPUT_LIMIT}, \
	{"max-envelope-bytes", required_argument, NULL, HERMES_OPT_MAX_ENVELOPE_BYTES}, \
	HERMES_POLICY_LONGOPTS, \
	{"sandbox", required_argument, NULL, HERMES_OPT_SANDBOX}, \
	{"proc-env", required_argument, NULL, HERMES_OPT_PROC_ENV}, \
	{"runs-max-bytes", required_argument, NULL, HERMES_OPT_RUNS_MAX_BYTES}, \
	{"max-processes", required_argument, NULL, HERMES_OPT_MAX_PROCESSES}, \
	{"max-watches", required_argument, NULL, HERMES_OPT_MAX_WATCHES}, \
	{"max-watch-events", required_argument, NULL, HERMES_OPT_MAX_WATCH_EVENTS}, \
	{"lsp-server", required_argument, NULL, HERMES_OPT_LSP_SERVER}
/* What an agent may do (also taken by hermes verbs, which marks what they turn off). */
#define HERMES_POLICY_LONGOPTS \
	{"read-only", no_argument, NULL, HERMES_OPT_READ_ONLY}, \
	{"allow", required_argument, NULL, HERMES_OPT_ALLOW}, \
	{"deny", required_argument, NULL, HERMES_OPT_DENY}

/* Applies executor option key (HERMES_OPT_ROOT...) with its value to config. 1 if key is one of
 * them, 0 if not; -1 after printing a usage error (a bad value). */
int hermes_executor_option(const char *command, int key, const char *value,
                           hermes_config_t *config);

/* Starts a getopt_long parse of a command's arguments (resets getopt's state). */
void hermes_getopt_begin(void);

/* For what getopt_long returned that is not an option of the command ('?', ':'): prints the usage
 * error naming the argument; returns HERMES_EXIT_USAGE. Use optstring with a leading ':'. */
int hermes_getopt_error(const char *command, int c, char **argv);

/* The help text lines for those options. */
extern const char hermes_executor_options_help[];

/* Creates the executor for config, printing "hermes: <message>" on failure. */
hermes_executor_t *hermes_cli_executor(const hermes_config_t *config);

/* True if arg is exactly --help or -h. */
bool hermes_is_help(const char *arg);

#endif
