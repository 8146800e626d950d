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
	       "      --grace-seconds=N       at the end of the session, work still running gets N\n"
	       "                              seconds (default 5), then it is cancelled\n"
	       "      --max-message-bytes=N   largest message accepted (default 64M)\n"
	       "      --log-level=LEVEL       error, warn (default), info or debug\n"
	       "%s"
	       "  -h, --help                  display this help and exit\n"
	       "\n"
	       "Without --root, the workspace is the client's first file:// root (roots/list) if it\n"
	       "offers roots, or else the current directory. The session ends when standard input\n"
	       "does; long tool calls still running are then cancelled, the others get the grace.\n",
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
	       "      --grace-seconds=N       at the end of the session, work still running gets N\n"
	       "                              seconds (default 5), then it is cancelled\n"
	       "      --log-level=LEVEL       error, warn (default), info or debug\n"
	       "%s"
	       "  -h, --help                  display this help and exit\n"
	       "\n"
	       "Without --root, the workspace is the initialize request's workspaceRoot, or else the\n"
	       "current directory. shutdown, the end of input, SIGTERM and SIGINT let the requests in\n"
	       "flight finish within the grace, cancel what is left, then exit.\n",
	       hermes_executor_options_help);
}

/* A value among names (values[i] stands for names[i]); -1 if none. */
static int pick(const char *v, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return (int)i;
	return -1;
}

static int serve(const char *cmd, int argc, char **argv, hermes_protocol_t protocol)
{
	enum {
		OPT_FRAMING = HERMES_OPT_COMMAND, OPT_PROTOCOL, OPT_MAX_MESSAGE_BYTES, OPT_JOBS,
		OPT_LOG_LEVEL, OPT_GRACE
	};
	static const struct option serve_opts[] = {
		{"framing", required_argument, NULL, OPT_FRAMING},
		{"protocol", required_argument, NULL, OPT_PROTOCOL},
		{"max-message-bytes", required_argument, NULL, OPT_MAX_MESSAGE_BYTES},
		{"jobs", required_argument, NULL, OPT_JOBS},
		{"grace-seconds", required_argument, NULL, OPT_GRACE},
		{"log-level", required_argument, NULL, OPT_LOG_LEVEL},
		{"help", no_argument, NULL, 'h'},
		HERMES_EXECUTOR_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	/* hermes mcp: the same but --framing and --protocol (MCP's stdio is one message per line) */
	static const struct option mcp_opts[] = {
		{"max-message-bytes", required_argument, NULL, OPT_MAX_MESSAGE_BYTES},
		{"jobs", required_argument, NULL, OPT_JOBS},
		{"grace-seconds", required_argument, NULL, OPT_GRACE},
		{"log-level", required_argument, NULL, OPT_LOG_LEVEL},
		{"help", no_argument, NULL, 'h'},
		HERMES_EXECUTOR_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	static const char *const framings[] = {"auto", "content-length", "ndjson"};
	static const char *const protocols[] = {"auto", "hermes", "mcp"};
	/* "warning" as hermes(1) says; "warn" as it always worked */
	static const char *const levels[] = {"error", "warning", "info", "debug", "warn"};
	bool mcp = protocol == HERMES_PROTOCOL_MCP;
	hermes_server_options_t opts;
	memset(&opts, 0, sizeof opts);
	opts.protocol = protocol;
	opts.framing = mcp ? HERMES_FRAMING_NDJSON : HERMES_FRAMING_AUTO;
	opts.log_level = HERMES_LOG_WARN;
	opts.grace_seconds = 5;
	opts.in_fd = STDIN_FILENO;
	opts.out_fd = STDOUT_FILENO;

	int c, k;
	int64_t n;
	hermes_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", mcp ? mcp_opts : serve_opts, NULL)) != -1) {
		const char *v = optarg;
		switch (c) {
		case 'h':
			if (mcp)
				help_mcp();
			else
				help();
			return HERMES_EXIT_OK;
		case OPT_PROTOCOL:
			if ((k = pick(v, protocols, 3)) < 0)
				return hermes_usage_error(cmd, "invalid --protocol '%s' (expected auto, hermes "
				                          "or mcp)", v);
			opts.protocol = (hermes_protocol_t)k;
			break;
		case OPT_FRAMING:
			if ((k = pick(v, framings, 3)) < 0)
				return hermes_usage_error(cmd, "invalid --framing '%s' (expected auto, "
				                          "content-length or ndjson)", v);
			opts.framing = (hermes_framing_t)k;
			break;
		case OPT_MAX_MESSAGE_BYTES:
			if (hermes_parse_size(v, &n) || n == 0)
				return hermes_usage_error(cmd, "invalid --max-message-bytes '%s' (expected a "
				                          "positive number, e.g. 64M)", v);
			opts.max_message_bytes = n;
			break;
		case OPT_JOBS:
			if (hermes_parse_count(v, 1, 1024, &n))
				return hermes_usage_error(cmd, "invalid --jobs '%s' (expected a number from 1 "
				                          "to 1024)", v);
			opts.jobs = (int)n;
			break;
		case OPT_GRACE:
			if (hermes_parse_count(v, 0, 86400, &n))
				return hermes_usage_error(cmd, "invalid --grace-seconds '%s' (expected a number "
				                          "from 0 to 86400)", v);
			opts.grace_seconds = (int)n;
			break;
		case OPT_LOG_LEVEL:
			if ((k = pick(v, levels, 5)) < 0)
				return hermes_usage_error(cmd, "invalid --log-level '%s' (expected error, "
				                          "warning, info or debug)", v);
			opts.log_level = k == 4 ? HERMES_LOG_WARN : (hermes_log_level_t)k;
			break;
		default:
			k = hermes_executor_option(cmd, c, v, &opts.config);
			if (k < 0)
				return HERMES_EXIT_USAGE;
			if (k == 0)
				return hermes_getopt_error(cmd, c, argv);
			if (c == HERMES_OPT_ROOT)
				opts.root_given = true;
		}
	}
	if (optind < argc)
		return hermes_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (opts.root_given) {
		/* a root that cannot be used fails now, as it does for exec, not at the first request */
		hermes_executor_t *ex = hermes_cli_executor(&opts.config);
		if (!ex)
			return HERMES_EXIT_USAGE;
		hermes_executor_free(ex);
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
