/* cli/main.c: the hermes program: global options and subcommand dispatch. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <hermes/hermes.h>

#include "cli/commands.h"
#ifdef HAVE_LIBEDIT
#include "cli/console_libedit.h"
#endif
#include "core/yaml_lib.h"
#include "fs/pcre2_lib.h"
#include "proc/spawn.h"
#include "cli/options.h"

static void usage(FILE *out)
{
	fputs("Usage: hermes COMMAND [OPTION]... [ARG]...\n"
	      "Execute typed verbs (fs.readRange, proc.run, ...) requested as YAML or JSON envelopes,\n"
	      "confined to a workspace directory.\n"
	      "\n"
	      "Commands:\n"
	      "  exec [FILE|-]...     run the envelopes in FILEs (default: standard input)\n"
	      "  schema [VERB]...     print the argument and result types of verbs\n"
	      "  verbs                list the verbs with a one-line description\n"
	      "  serve                answer JSON-RPC 2.0 requests on standard input/output\n"
	      "  mcp                  serve the Model Context Protocol on standard input/output\n"
	      "\n"
	      "Options:\n"
	      "  -i, --interactive    same as exec --interactive: type envelopes at a prompt\n"
	      "  -h, --help           display this help and exit\n"
	      "      --version        output version information and exit\n"
	      "\n"
	      "Run 'hermes COMMAND --help' for the options of a command.\n"
	      "Example: echo '{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"README.md\"}}' | hermes exec\n",
	      out);
}

static int version(void)
{
	printf("hermes %s\n", hermes_version());
	char why[300];
	if (hermes_yaml_lib_load(why, sizeof why))
		printf("YAML envelopes: libcyaml %s, libyaml %s (loaded when the first one comes)\n",
		       *hermes_yaml_lib.cyaml_version_str, yaml_get_version_string());
	else
		printf("YAML envelopes: none (%s)\n", why);
	if (hermes_pcre2_lib_load(why, sizeof why))
		printf("fs.search: PCRE2 %s (loaded when the first search comes)\n", hermes_pcre2_lib_version());
	else
		printf("fs.search: literal text only (%s)\n", why);
	int abi = hermes_sandbox_abi();
	if (abi > 0)
		printf("proc.run sandbox: Landlock (ABI %d)\n", abi);
	else
		printf("proc.run sandbox: none (this kernel has no Landlock)\n");
#ifdef HAVE_LIBEDIT
	if (hermes_libedit_load(why, sizeof why))
		printf("console line editing: libedit (%s, loaded when the console starts)\n",
		       HERMES_LIBEDIT_SONAME);
	else
		printf("console line editing: none (plain lines: %s)\n", why);
#else
	printf("console line editing: none (plain lines: built without libedit)\n");
#endif
	printf("Copyright (C) 2026 the Hermes authors.\n"
	       "This is free software; there is NO warranty.\n");
	return HERMES_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return HERMES_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (hermes_is_help(cmd)) {
		usage(stdout);
		return HERMES_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0)
		return version();
	if (strcmp(cmd, "-i") == 0 || strcmp(cmd, "--interactive") == 0)
		return hermes_cmd_exec(argc, argv); /* exec sees -i as its own option */
	if (strcmp(cmd, "exec") == 0)
		return hermes_cmd_exec(argc - 1, argv + 1);
	if (strcmp(cmd, "schema") == 0)
		return hermes_cmd_schema(argc - 1, argv + 1);
	if (strcmp(cmd, "verbs") == 0)
		return hermes_cmd_verbs(argc - 1, argv + 1);
	if (strcmp(cmd, "serve") == 0)
		return hermes_cmd_serve(argc - 1, argv + 1);
	if (strcmp(cmd, "mcp") == 0)
		return hermes_cmd_mcp(argc - 1, argv + 1);
	if (cmd[0] == '-')
		return hermes_usage_error(NULL, "unrecognized option '%s'", cmd);
	return hermes_usage_error(NULL, "unknown command '%s' (expected exec, schema, verbs, serve or mcp)",
	                          cmd);
}
