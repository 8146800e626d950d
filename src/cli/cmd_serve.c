/* cli/cmd_serve.c: hermes serve and hermes mcp: parse their options and hand over to the JSON-RPC
 * server (hermes mcp is hermes serve speaking the Model Context Protocol from the start). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "server/server.h"

static void help_mcp(void)
{
	printf("Usage: hermes mcp [OPTION]...\n"
	       "Serve the Model Context Protocol (revisions 2025-11-25, 2025-06-18, 2025-03-26 and\n"
	       "2024-11-05) on standard input and output, one JSON message per line: one tool per\n"
	       "verb (fs_readRange, proc_run, ...), with JSON Schemas, progress and cancellation.\n"
	       "Diagnostics go to standard error.\n"
	       "\n"
	       "Options:\n"
	       "      --jobs=N                tool calls run in parallel (default: processor count)\n"
	       "      --max-message-bytes=N   largest message accepted (default 64M)\n"
	       "      --log-level=LEVEL       error, warn (default), info or debug\n"
	       "%s"
	       "  -h, --help                  display this help and exit\n"
	       "\n"
	       "Without --root, the workspace is the client's first file:// root (roots/list) if it\n"
	       "offers roots, or else the current directory. The session ends when standard input\n"
	       "does; tool calls still running are then cancelled.\n",
	       hermes_executor_options_help);
}

static void help(void)
{
	printf("Usage: hermes serve [OPTION]...\n"
	       "Answer JSON-RPC 2.0 requests on standard input, replies on standard output;\n"
	       "diagnostics go to standard error. Methods: initialize, hermes/execute, every verb by\n"
	       "its name (params = its arguments), hermes/schema, hermes/verbs, $/cancelRequest,\n"
	       "shutdown, exit.\n"
	       "\n"
	       "Options:\n"
	       "      --framing=MODE          auto (default: decided by the first byte),\n"
	       "                              content-length (LSP style) or ndjson (one per line)\n"
	       "      --protocol=PROTOCOL     auto (default: MCP if the first initialize carries a\n"
	       "                              protocolVersion, else Hermes's), hermes or mcp\n"
	       "      --max-message-bytes=N   largest message accepted (default 64M)\n"
	       "      --jobs=N                requests run in parallel (default: processor count)\n"
	       "      --log-level=LEVEL       error, warn (default), info or debug\n"
	       "%s"
	       "  -h, --help                  display this help and exit\n"
	       "\n"
	       "Without --root, the workspace is the initialize request's workspaceRoot, or else the\n"
	       "current directory. SIGTERM and SIGINT finish the requests in flight, then exit.\n",
	       hermes_executor_options_help);
}

/* The value of "--name=value" or "--name value"; NULL (after a usage error) if missing. */
static const char *option_value(const char *cmd, int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *arg = argv[*i];
	if (arg[n] == '=')
		return arg + n + 1;
	if (*i + 1 < argc)
		return argv[++*i];
	hermes_usage_error(cmd, "option '%s' requires an argument", name);
	return NULL;
}

static bool is_option(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static int serve(const char *cmd, int argc, char **argv, hermes_protocol_t protocol)
{
	bool mcp = protocol == HERMES_PROTOCOL_MCP;
	hermes_server_options_t opts;
	memset(&opts, 0, sizeof opts);
	opts.protocol = protocol;
	opts.framing = mcp ? HERMES_FRAMING_NDJSON : HERMES_FRAMING_AUTO; /* MCP's stdio transport */
	opts.log_level = HERMES_LOG_WARN;
	opts.in_fd = STDIN_FILENO;
	opts.out_fd = STDOUT_FILENO;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v;
		int64_t n;
		if (hermes_is_help(arg)) {
			if (mcp)
				help_mcp();
			else
				help();
			return HERMES_EXIT_OK;
		} else if (!mcp && is_option(arg, "--protocol")) {
			if (!(v = option_value(cmd, argc, argv, &i, "--protocol")))
				return HERMES_EXIT_USAGE;
			if (strcmp(v, "auto") == 0)
				opts.protocol = HERMES_PROTOCOL_AUTO;
			else if (strcmp(v, "hermes") == 0)
				opts.protocol = HERMES_PROTOCOL_HERMES;
			else if (strcmp(v, "mcp") == 0)
				opts.protocol = HERMES_PROTOCOL_MCP;
			else
				return hermes_usage_error(cmd, "invalid --protocol '%s' (expected auto, hermes "
				                          "or mcp)", v);
		} else if (!mcp && is_option(arg, "--framing")) {
			if (!(v = option_value(cmd, argc, argv, &i, "--framing")))
				return HERMES_EXIT_USAGE;
			if (strcmp(v, "auto") == 0)
				opts.framing = HERMES_FRAMING_AUTO;
			else if (strcmp(v, "content-length") == 0)
				opts.framing = HERMES_FRAMING_CONTENT_LENGTH;
			else if (strcmp(v, "ndjson") == 0)
				opts.framing = HERMES_FRAMING_NDJSON;
			else
				return hermes_usage_error(cmd, "invalid --framing '%s' (expected auto, "
				                          "content-length or ndjson)", v);
		} else if (is_option(arg, "--max-message-bytes")) {
			if (!(v = option_value(cmd, argc, argv, &i, "--max-message-bytes")))
				return HERMES_EXIT_USAGE;
			if (hermes_parse_size(v, &n) || n == 0)
				return hermes_usage_error(cmd, "invalid --max-message-bytes '%s' (expected a "
				                          "positive number, e.g. 64M)", v);
			opts.max_message_bytes = n;
		} else if (is_option(arg, "--jobs")) {
			if (!(v = option_value(cmd, argc, argv, &i, "--jobs")))
				return HERMES_EXIT_USAGE;
			if (hermes_parse_size(v, &n) || n == 0 || n > 1024)
				return hermes_usage_error(cmd, "invalid --jobs '%s' (expected 1 to 1024)", v);
			opts.jobs = (int)n;
		} else if (is_option(arg, "--log-level")) {
			if (!(v = option_value(cmd, argc, argv, &i, "--log-level")))
				return HERMES_EXIT_USAGE;
			if (strcmp(v, "error") == 0)
				opts.log_level = HERMES_LOG_ERROR;
			else if (strcmp(v, "warn") == 0)
				opts.log_level = HERMES_LOG_WARN;
			else if (strcmp(v, "info") == 0)
				opts.log_level = HERMES_LOG_INFO;
			else if (strcmp(v, "debug") == 0)
				opts.log_level = HERMES_LOG_DEBUG;
			else
				return hermes_usage_error(cmd, "invalid --log-level '%s' (expected error, "
				                          "warn, info or debug)", v);
		} else {
			int r = hermes_parse_executor_option(cmd, argc, argv, &i, &opts.config);
			if (r < 0)
				return HERMES_EXIT_USAGE;
			if (r == 0)
				return hermes_usage_error(cmd, arg[0] == '-' ? "unrecognized option '%s'"
				                                                 : "unexpected argument '%s'", arg);
			if (opts.config.root)
				opts.root_given = true;
		}
	}
	return hermes_server_run(&opts);
}

int hermes_cmd_serve(int argc, char **argv)
{
	return serve("serve", argc, argv, HERMES_PROTOCOL_AUTO);
}

int hermes_cmd_mcp(int argc, char **argv)
{
	return serve("mcp", argc, argv, HERMES_PROTOCOL_MCP);
}
