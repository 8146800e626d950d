/* cli/options.c: command-line parsing shared by the subcommands. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"

int hermes_usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;
	fputs("hermes: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'hermes %s%s--help' for more information.\n", command ? command : "",
	        command ? " " : "");
	return HERMES_EXIT_USAGE;
}

bool hermes_is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int hermes_parse_size(const char *text, int64_t *out)
{
	char *end;
	if (!*text || *text == '-' || *text == '+')
		return -1;
	unsigned long long v = strtoull(text, &end, 10);
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || end == text || v > (unsigned long long)(INT64_MAX >> shift))
		return -1;
	*out = (int64_t)(v << shift);
	return 0;
}

const char hermes_executor_options_help[] =
	"      --root=DIR              workspace root (default: the current directory);\n"
	"                              no request reaches outside it\n"
	"      --max-read-bytes=N      largest file fs.readFile returns (default 64M)\n"
	"      --proc-timeout=SECONDS  default proc.run time limit (default 600)\n"
	"      --proc-output-limit=N   largest proc.run output (default 1G)\n"
	"      --max-envelope-bytes=N  largest envelope accepted (default 64M)\n";

int hermes_executor_option(const char *command, int key, const char *value,
                           hermes_config_t *config)
{
	static const char *const names[] = { "--root", "--max-read-bytes", "--proc-timeout",
	                                     "--proc-output-limit", "--max-envelope-bytes" };
	if (key < HERMES_OPT_ROOT || key > HERMES_OPT_MAX_ENVELOPE_BYTES)
		return 0;
	const char *name = names[key - HERMES_OPT_ROOT];
	int64_t v;
	switch (key) {
	case HERMES_OPT_ROOT:
		if (!*value) {
			hermes_usage_error(command, "--root needs a directory");
			return -1;
		}
		config->root = value;
		return 1;
	case HERMES_OPT_PROC_TIMEOUT:
		if (hermes_parse_count(value, 1, INT32_MAX, &v)) {
			hermes_usage_error(command, "invalid value '%s' for %s (expected a number of seconds, "
			                   "1 or more)", value, name);
			return -1;
		}
		config->proc_timeout_seconds = (int32_t)v;
		return 1;
	default:
		if (hermes_parse_size(value, &v) || v == 0) {
			hermes_usage_error(command, "invalid value '%s' for %s (expected a positive number, "
			                   "e.g. 64M)", value, name);
			return -1;
		}
		if (key == HERMES_OPT_MAX_READ_BYTES)
			config->max_read_bytes = v;
		else if (key == HERMES_OPT_PROC_OUTPUT_LIMIT)
			config->proc_output_limit = v;
		else
			config->max_envelope_bytes = v;
		return 1;
	}
}

int hermes_parse_count(const char *text, int64_t min, int64_t max, int64_t *out)
{
	int64_t v = 0;
	if (!*text)
		return -1;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

void hermes_getopt_begin(void)
{
	optind = 0; /* glibc: a full reset, also of the permutation state */
	opterr = 0; /* the messages are ours */
}

int hermes_getopt_error(const char *command, int c, char **argv)
{
	const char *arg = argv[optind - 1];
	if (c == ':')
		return hermes_usage_error(command, "option '%s' requires an argument", arg);
	if (optopt && strncmp(arg, "--", 2) != 0)
		return hermes_usage_error(command, "unrecognized option '-%c'", optopt);
	return hermes_usage_error(command, "unrecognized option '%s'", arg);
}

hermes_executor_t *hermes_cli_executor(const hermes_config_t *config)
{
	hermes_executor_t *ex = NULL;
	hermes_error_t err;
	if (hermes_executor_new(config, &ex, &err) != 0) {
		fprintf(stderr, "hermes: %s\n", err.message);
		return NULL;
	}
	return ex;
}
