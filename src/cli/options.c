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
	"                              every path is confined to it (proc.run's programs:\n"
	"                              see --sandbox)\n"
	"      --max-read-bytes=N      largest file fs.readFile returns (default 64M)\n"
	"      --proc-timeout=SECONDS  default proc.run time limit (default 600)\n"
	"      --proc-output-limit=N   proc.run output kept (default 1G): past it, the\n"
	"                              first and last quarter of each stream\n"
	"      --runs-max-bytes=N      output of finished runs kept in .hermes/runs\n"
	"                              (default 2G; besides: the newest 100 runs)\n"
	"      --max-envelope-bytes=N  largest envelope accepted (default 64M)\n"
	"      --read-only             only verbs that change nothing run (and are listed)\n"
	"      --allow=GLOBS           only these verbs run, e.g. --allow='fs.*,sys.*'\n"
	"      --deny=GLOBS            these verbs do not run, e.g. --deny='proc.*'\n"
	"      --sandbox=MODE          on (default): proc.run's programs may write only in the\n"
	"                              workspace, /tmp and /dev/null; strict: read only there\n"
	"                              and in the system's directories too; off\n"
	"      --proc-env=ENV          inherit (default) or minimal: PATH, HOME, LANG, LC_*,\n"
	"                              TERM and TMPDIR only, for proc.run's programs\n"
	"      --max-processes=N       programs proc.start may keep running at once\n"
	"                              (default 16; hermes exec refuses proc.start)\n"
	"      --max-watches=N         directory trees fs.watch may watch at once (default 16)\n"
	"      --max-watch-events=N    changes kept per watch for fs.changes (default 10000;\n"
	"                              past it the oldest go, and a reader is told overflow)\n"
	"      --lsp-server=LANG=CMD   the language server of LANG (c, cpp, python,\n"
	"                              javascript, typescript, go) for the code.* verbs,\n"
	"                              e.g. --lsp-server='python=pylsp' (repeatable)\n";

int hermes_executor_option(const char *command, int key, const char *value,
                           hermes_config_t *config)
{
	static const char *const names[] = { "--root", "--max-read-bytes", "--proc-timeout",
	                                     "--proc-output-limit", "--max-envelope-bytes",
	                                     "--read-only", "--allow", "--deny", "--sandbox",
	                                     "--proc-env", "--runs-max-bytes",
	                                     "--max-processes", "--max-watches",
	                                     "--max-watch-events", "--lsp-server" };
	if (key < HERMES_OPT_ROOT || key > HERMES_OPT_LSP_SERVER)
		return 0;
	const char *name = names[key - HERMES_OPT_ROOT];
	int64_t v;
	switch (key) {
	case HERMES_OPT_READ_ONLY:
		config->read_only = true;
		return 1;
	case HERMES_OPT_ALLOW:
	case HERMES_OPT_DENY:
		if (!*value) {
			hermes_usage_error(command, "%s needs verb names or globs, e.g. %s='fs.*'", name, name);
			return -1;
		}
		if (key == HERMES_OPT_ALLOW)
			config->allow = value;
		else
			config->deny = value;
		return 1;
	case HERMES_OPT_SANDBOX:
		if (strcmp(value, "on") == 0)
			config->sandbox = HERMES_SANDBOX_ON;
		else if (strcmp(value, "off") == 0)
			config->sandbox = HERMES_SANDBOX_OFF;
		else if (strcmp(value, "strict") == 0)
			config->sandbox = HERMES_SANDBOX_STRICT;
		else {
			hermes_usage_error(command, "invalid --sandbox '%s' (expected on, off or strict)", value);
			return -1;
		}
		return 1;
	case HERMES_OPT_PROC_ENV:
		if (strcmp(value, "inherit") == 0)
			config->proc_env = HERMES_PROC_ENV_INHERIT;
		else if (strcmp(value, "minimal") == 0)
			config->proc_env = HERMES_PROC_ENV_MINIMAL;
		else {
			hermes_usage_error(command, "invalid --proc-env '%s' (expected inherit or minimal)", value);
			return -1;
		}
		return 1;
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
	case HERMES_OPT_LSP_SERVER: {
		/* Repeated: the entries are joined by '\n' (kept for the life of the program). */
		static char *joined;
		const char *eq = strchr(value, '=');
		if (!eq || eq == value || !eq[1]) {
			hermes_usage_error(command, "invalid --lsp-server '%s' (expected LANGUAGE=COMMAND, "
			                   "e.g. python=pylsp)", value);
			return -1;
		}
		size_t old = joined ? strlen(joined) : 0;
		char *grown = realloc(joined, old + strlen(value) + 2);
		if (!grown) {
			hermes_usage_error(command, "out of memory");
			return -1;
		}
		joined = grown;
		if (old)
			joined[old++] = '\n';
		strcpy(joined + old, value);
		config->lsp_servers = joined;
		return 1;
	}
	case HERMES_OPT_MAX_PROCESSES:
		if (hermes_parse_count(value, 1, 4096, &v)) {
			hermes_usage_error(command, "invalid value '%s' for %s (expected a number of programs, "
			                   "1 to 4096)", value, name);
			return -1;
		}
		config->max_processes = (int32_t)v;
		return 1;
	case HERMES_OPT_MAX_WATCHES:
		if (hermes_parse_count(value, 1, 1024, &v)) {
			hermes_usage_error(command, "invalid value '%s' for %s (expected a number of watches, "
			                   "1 to 1024)", value, name);
			return -1;
		}
		config->max_watches = (int32_t)v;
		return 1;
	case HERMES_OPT_MAX_WATCH_EVENTS:
		if (hermes_parse_count(value, 16, 1000000, &v)) {
			hermes_usage_error(command, "invalid value '%s' for %s (expected a number of events, "
			                   "16 to 1000000)", value, name);
			return -1;
		}
		config->max_watch_events = (int32_t)v;
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
		else if (key == HERMES_OPT_RUNS_MAX_BYTES)
			config->runs_max_bytes = v;
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
