/* cli/cmd_serve.c: hermes serve and hermes mcp: parse their options and hand over to the JSON-RPC
 * server (hermes mcp is hermes serve speaking the Model Context Protocol from the start). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/instance.h"
#include "session/server.h"
#ifdef HAVE_HTTP
#include "transport/http/http.h"
#endif

static void help_mcp(void)
{
	printf("Usage: hermes mcp [OPTION]...\n"
	       "Serve the Model Context Protocol (revision 2026-07-28 per request, and 2025-11-25,\n"
	       "2025-06-18, 2025-03-26, 2024-11-05 after initialize) on standard input and output,\n"
	       "one JSON message per line, or with --listen over Streamable HTTP: one tool per verb\n"
	       "(fs_readRange, proc_run, ...), with JSON Schemas, progress and cancellation.\n"
	       "Diagnostics go to standard error.\n"
	       "\n"
	       "Options:\n"
	       "      --listen=ADDRESS        serve Streamable HTTP at http://ADDRESS/mcp instead:\n"
	       "                              HOST:PORT, [IPV6]:PORT, unix:PATH (a Unix socket),\n"
	       "                              or systemd (the socket systemd socket activation\n"
	       "                              passes: LISTEN_FDS)\n"
	       "      --auth-token-file=FILE  require Authorization: Bearer <a token of FILE>: one\n"
	       "                              per line, each optionally followed by read-only,\n"
	       "                              allow=GLOBS, deny=GLOBS (needed unless ADDRESS is\n"
	       "                              loopback or a Unix socket, or OAuth is on)\n"
	       "      --oauth-issuer=URL      accept OAuth 2.1 JWT access tokens of this issuer\n"
	       "      --oauth-audience=URI    (with it) this endpoint's URL, the tokens' audience\n"
	       "      --allow-origin=ORIGIN   also serve browsers from ORIGIN (repeatable; loopback\n"
	       "                              origins always are)\n"
	       "      --http-timeout=SECONDS  for a whole request (line, headers, body), and an idle\n"
	       "                              connection (default 30)\n"
	       "      --max-connections=N     connections at once (default 64)\n"
	       "      --jobs=N                tool calls run in parallel (default: processor count)\n"
	       "      --grace-seconds=N       at the end of the session, work still running gets N\n"
	       "                              seconds (default 5), then it is cancelled\n"
	       "      --max-message-bytes=N   largest message accepted (default 64M; 4M over HTTP)\n"
	       "      --log-level=LEVEL       error, warn (default), info or debug\n"
	       "      --instance=NAME         this Hermes's name in the handles it makes, for a load\n"
	       "                              balancer ([a-z0-9-]; default: host name and port)\n"
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
	       "      --instance=NAME         this Hermes's name in the handles it makes ([a-z0-9-];\n"
	       "                              default: the host name)\n"
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

/* --listen=systemd: the TCP port of the first socket systemd passed (fd 3), for the default
 * instance name; 0 when there is none (the listener says what is wrong with the sockets). */
static int systemd_port(void)
{
	const char *pid = getenv("LISTEN_PID");
	if (pid == NULL || atol(pid) != (long)getpid() || getenv("LISTEN_FDS") == NULL)
		return 0;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	if (getsockname(3, (struct sockaddr *)&ss, &sl) != 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

static int serve(const char *cmd, int argc, char **argv, hermes_protocol_t protocol)
{
	enum {
		OPT_FRAMING = HERMES_OPT_COMMAND, OPT_PROTOCOL, OPT_MAX_MESSAGE_BYTES, OPT_JOBS,
		OPT_LOG_LEVEL, OPT_GRACE, OPT_INSTANCE, OPT_LISTEN, OPT_TOKEN_FILE, OPT_OAUTH_ISSUER, OPT_OAUTH_AUDIENCE,
		OPT_ALLOW_ORIGIN, OPT_HTTP_TIMEOUT,
		OPT_MAX_CONNECTIONS
	};
	static const struct option serve_opts[] = {
		{"framing", required_argument, NULL, OPT_FRAMING},
		{"protocol", required_argument, NULL, OPT_PROTOCOL},
		{"max-message-bytes", required_argument, NULL, OPT_MAX_MESSAGE_BYTES},
		{"jobs", required_argument, NULL, OPT_JOBS},
		{"grace-seconds", required_argument, NULL, OPT_GRACE},
		{"log-level", required_argument, NULL, OPT_LOG_LEVEL},
		{"instance", required_argument, NULL, OPT_INSTANCE},
		{"help", no_argument, NULL, 'h'},
		HERMES_EXECUTOR_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	/* hermes mcp: the same but --framing and --protocol (MCP's stdio is one message per line) */
	static const struct option mcp_opts[] = {
		{"listen", required_argument, NULL, OPT_LISTEN},
		{"auth-token-file", required_argument, NULL, OPT_TOKEN_FILE},
		{"oauth-issuer", required_argument, NULL, OPT_OAUTH_ISSUER},
		{"oauth-audience", required_argument, NULL, OPT_OAUTH_AUDIENCE},
		{"allow-origin", required_argument, NULL, OPT_ALLOW_ORIGIN},
		{"http-timeout", required_argument, NULL, OPT_HTTP_TIMEOUT},
		{"max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS},
		{"max-message-bytes", required_argument, NULL, OPT_MAX_MESSAGE_BYTES},
		{"jobs", required_argument, NULL, OPT_JOBS},
		{"grace-seconds", required_argument, NULL, OPT_GRACE},
		{"log-level", required_argument, NULL, OPT_LOG_LEVEL},
		{"instance", required_argument, NULL, OPT_INSTANCE},
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

	/* hermes mcp --listen */
	const char *listen = NULL, *token_file = NULL, *origins[16];
	const char *oauth_issuer = NULL, *oauth_audience = NULL;
	size_t n_origins = 0;
	int http_timeout = 0, max_connections = 0;
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
		case OPT_LISTEN:
			listen = v;
			break;
		case OPT_INSTANCE:
			if (!hermes_instance_valid(v))
				return hermes_usage_error(cmd, "invalid --instance '%s' (expected 1 to 63 of "
				                          "a-z, 0-9 and '-')", v);
			opts.config.instance = v;
			break;
		case OPT_TOKEN_FILE:
			token_file = v;
			break;
		case OPT_OAUTH_ISSUER:
			oauth_issuer = v;
			break;
		case OPT_OAUTH_AUDIENCE:
			oauth_audience = v;
			break;
		case OPT_ALLOW_ORIGIN:
			if (n_origins == sizeof origins / sizeof origins[0] || strstr(v, "://") == NULL)
				return hermes_usage_error(cmd, "invalid --allow-origin '%s' (expected an origin "
				                          "such as https://app.example, at most 16 of them)", v);
			origins[n_origins++] = v;
			break;
		case OPT_HTTP_TIMEOUT:
			if (hermes_parse_count(v, 1, 3600, &n))
				return hermes_usage_error(cmd, "invalid --http-timeout '%s' (expected seconds "
				                          "from 1 to 3600)", v);
			http_timeout = (int)n;
			break;
		case OPT_MAX_CONNECTIONS:
			if (hermes_parse_count(v, 1, 4096, &n))
				return hermes_usage_error(cmd, "invalid --max-connections '%s' (expected a "
				                          "number from 1 to 4096)", v);
			max_connections = (int)n;
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
	if (listen == NULL && (token_file || n_origins || http_timeout || max_connections ||
	                       oauth_issuer || oauth_audience))
		return hermes_usage_error(cmd, "--auth-token-file, --oauth-issuer, --oauth-audience, "
		                          "--allow-origin, --http-timeout and --max-connections go with "
		                          "--listen");
	if (!oauth_issuer != !oauth_audience)
		return hermes_usage_error(cmd, "--oauth-issuer and --oauth-audience go together (the "
		                          "issuer whose tokens are accepted, and this endpoint's URL)");
	static char default_instance[HERMES_INSTANCE_MAX + 1];
	if (!opts.config.instance) {
		/* the host's name, and the port where there is one: unique among a host's servers */
		const char *colon = listen && strncmp(listen, "unix:", 5) ? strrchr(listen, ':') : NULL;
		int port = colon ? atoi(colon + 1) : 0;
		if (listen && strcmp(listen, "systemd") == 0)
			port = systemd_port();
		hermes_instance_default(default_instance, sizeof default_instance, port);
		opts.config.instance = default_instance;
	}
	if (listen) {
#ifdef HAVE_HTTP
		hermes_http_options_t http = {listen, token_file, oauth_issuer, oauth_audience, origins,
		                              n_origins, http_timeout, max_connections};
		return hermes_http_run(&opts, &http);
#else
		return hermes_usage_error(cmd, "--listen: this hermes was built without Streamable HTTP "
		                          "(configure --without-http); rebuild with libmicrohttpd");
#endif
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
