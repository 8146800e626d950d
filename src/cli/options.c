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

int hermes_parse_executor_option(const char *command, int argc, char **argv, int *i,
                                 hermes_config_t *config)
{
	static const char *const names[] = { "--root", "--max-read-bytes", "--proc-timeout",
	                                     "--proc-output-limit", "--max-envelope-bytes" };
	const char *arg = argv[*i];
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		size_t n = strlen(names[k]);
		if (strncmp(arg, names[k], n) != 0 || (arg[n] != '\0' && arg[n] != '='))
			continue;
		const char *value;
		if (arg[n] == '=') {
			value = arg + n + 1;
		} else if (*i + 1 < argc) {
			value = argv[++*i];
		} else {
			hermes_usage_error(command, "option '%s' requires an argument", names[k]);
			return -1;
		}
		if (k == 0) {
			if (!*value) {
				hermes_usage_error(command, "--root needs a directory");
				return -1;
			}
			config->root = value;
			return 1;
		}
		int64_t v;
		if (hermes_parse_size(value, &v) || v == 0 || (k == 2 && v > INT32_MAX)) {
			hermes_usage_error(command, "invalid value '%s' for %s (expected a positive number%s)",
			                   value, names[k], k == 2 ? " of seconds" : ", e.g. 64M");
			return -1;
		}
		if (k == 1)
			config->max_read_bytes = v;
		else if (k == 2)
			config->proc_timeout_seconds = (int32_t)v;
		else if (k == 3)
			config->proc_output_limit = v;
		else
			config->max_envelope_bytes = v;
		return 1;
	}
	return 0;
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
