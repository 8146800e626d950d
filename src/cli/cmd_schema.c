/* cli/cmd_schema.c: hermes schema and hermes verbs: the verb table, described. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/buf.h"
#include "core/decode.h"
#include "core/desc.h"
#include "core/executor.h"
#include "core/idl.h"
#include "core/json_schema.h"

/* The table's verbs sorted by name. */
static void sorted_verbs(const hermes_verb_desc_t **out)
{
	size_t n = hermes_verb_desc_count;
	for (size_t i = 0; i < n; i++) {
		size_t at = i;
		while (at > 0 && strcasecmp(out[at - 1]->name, hermes_verb_descs[i].name) > 0) {
			out[at] = out[at - 1];
			at--;
		}
		out[at] = &hermes_verb_descs[i];
	}
}

/* One verb's JSON Schemas: {"name", "inputSchema", "outputSchema"}, the very texts MCP's
 * tools/list serves. */
static void json_schemas(hermes_buf_t *b, const hermes_verb_desc_t *verb)
{
	hermes_buf_puts(b, "{\"name\":");
	hermes_buf_json_string(b, verb->name, strlen(verb->name));
	hermes_buf_puts(b, ",\"inputSchema\":");
	hermes_buf_puts(b, hermes_verb_input_schema(verb->name));
	hermes_buf_puts(b, ",\"outputSchema\":");
	hermes_buf_puts(b, hermes_verb_output_schema(verb->name));
	hermes_buf_puts(b, "}");
}

static int print_json_schemas(const hermes_verb_desc_t **verbs, size_t n, bool array)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	if (array)
		hermes_buf_puts(&b, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			hermes_buf_puts(&b, ",");
		json_schemas(&b, verbs[i]);
	}
	if (array)
		hermes_buf_puts(&b, "]");
	hermes_buf_puts(&b, "\n");
	size_t len = b.len;
	char *text = hermes_buf_finish(&b);
	if (!text) {
		fprintf(stderr, "hermes: out of memory\n");
		return -1;
	}
	fwrite(text, 1, len, stdout);
	free(text);
	return 0;
}

static int print_schema(const hermes_verb_desc_t *verb, bool separate)
{
	char *idl = hermes_idl_for_verb(verb);
	if (!idl) {
		fprintf(stderr, "hermes: out of memory\n");
		return -1;
	}
	if (separate)
		fputc('\n', stdout);
	fputs(idl, stdout);
	free(idl);
	return 0;
}

static void schema_help(void)
{
	printf("Usage: hermes schema [--format=FORMAT] [VERB]...\n"
	       "Print the argument type and then the result type of each VERB (matched\n"
	       "case-insensitively); with no VERB, of every verb.\n"
	       "\n"
	       "      --format=FORMAT   idl (default): the Hermes IDL; json-schema: the JSON\n"
	       "                        Schemas (draft 2020-12) of the arguments and the\n"
	       "                        result, as MCP's tools/list serves them: one object\n"
	       "                        {name, inputSchema, outputSchema} for one VERB, else\n"
	       "                        an array of them\n"
	       "  -h, --help            display this help and exit\n"
	       "\n"
	       "Example: hermes schema fs.readRange\n");
}

int hermes_cmd_schema(int argc, char **argv)
{
	enum { OPT_FORMAT = HERMES_OPT_COMMAND };
	static const struct option longopts[] = {
		{"format", required_argument, NULL, OPT_FORMAT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const hermes_verb_desc_t *verbs[HERMES_VERB_COUNT];
	const hermes_verb_desc_t *asked[HERMES_VERB_COUNT];
	int status = HERMES_EXIT_OK, printed = 0, operands = 0, c;
	bool json = false;
	hermes_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			schema_help();
			return HERMES_EXIT_OK;
		} else if (c == OPT_FORMAT) {
			if (strcmp(optarg, "idl") == 0)
				json = false;
			else if (strcmp(optarg, "json-schema") == 0)
				json = true;
			else
				return hermes_usage_error("schema", "invalid --format '%s' (expected idl or "
				                          "json-schema)", optarg);
		} else {
			return hermes_getopt_error("schema", c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		const hermes_verb_desc_t *verb = hermes_verb_desc_find(argv[i]);
		if (!verb) {
			hermes_error_t err;
			hermes_decode_err_unknown_verb(&err, argv[i]);
			fprintf(stderr, "hermes: %s\n", err.message);
			status = HERMES_EXIT_USAGE;
		} else if (operands < HERMES_VERB_COUNT) {
			asked[operands++] = verb;
		}
	}
	bool all = optind == argc;
	if (all) {
		sorted_verbs(verbs);
		for (size_t i = 0; i < hermes_verb_desc_count; i++)
			asked[operands++] = verbs[i];
	}
	if (json && operands)
		return print_json_schemas(asked, (size_t)operands, all || operands > 1) ? HERMES_EXIT_USAGE
		                                                                        : status;
	for (int i = 0; i < operands; i++)
		if (print_schema(asked[i], printed++ > 0))
			return HERMES_EXIT_USAGE;
	return status;
}

int hermes_cmd_verbs(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		HERMES_POLICY_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const hermes_verb_desc_t *verbs[HERMES_VERB_COUNT];
	hermes_config_t policy = {0};
	int c, r;
	hermes_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			printf("Usage: hermes verbs [OPTION]...\n"
			       "List every verb, one per line, with a one-line description; with the options\n"
			       "that turn verbs off, those are marked \"(off)\".\n"
			       "\n"
			       "      --read-only      mark the verbs that change something\n"
			       "      --allow=GLOBS    mark the verbs not among these\n"
			       "      --deny=GLOBS     mark these verbs\n"
			       "  -h, --help           display this help and exit\n");
			return HERMES_EXIT_OK;
		}
		if ((r = hermes_executor_option("verbs", c, optarg, &policy)) < 0)
			return HERMES_EXIT_USAGE;
		if (r == 0)
			return hermes_getopt_error("verbs", c, argv);
	}
	if (optind < argc)
		return hermes_usage_error("verbs", "unexpected argument '%s'", argv[optind]);
	size_t width = 0;
	sorted_verbs(verbs);
	for (size_t i = 0; i < hermes_verb_desc_count; i++)
		if (strlen(verbs[i]->name) > width)
			width = strlen(verbs[i]->name);
	for (size_t i = 0; i < hermes_verb_desc_count; i++)
		printf("%-*s  %s%s\n", (int)width, verbs[i]->name,
		       hermes_config_allows(&policy, verbs[i]) ? "" : "(off) ", verbs[i]->description);
	return HERMES_EXIT_OK;
}
