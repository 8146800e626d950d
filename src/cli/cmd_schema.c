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

int hermes_cmd_schema(int argc, char **argv)
{
	const hermes_verb_desc_t *verbs[HERMES_VERB_COUNT];
	const hermes_verb_desc_t *asked[HERMES_VERB_COUNT];
	int status = HERMES_EXIT_OK, printed = 0, operands = 0;
	bool json = false;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (hermes_is_help(arg)) {
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
			return HERMES_EXIT_OK;
		}
		if (strncmp(arg, "--format", 8) == 0 && (arg[8] == '=' || arg[8] == '\0')) {
			const char *v = arg[8] == '=' ? arg + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (v == NULL)
				return hermes_usage_error("schema", "option '--format' requires an argument");
			if (strcmp(v, "idl") == 0)
				json = false;
			else if (strcmp(v, "json-schema") == 0)
				json = true;
			else
				return hermes_usage_error("schema", "invalid --format '%s' (expected idl or "
				                          "json-schema)", v);
			continue;
		}
		if (arg[0] == '-' && arg[1])
			return hermes_usage_error("schema", "unrecognized option '%s'", arg);
		const hermes_verb_desc_t *verb = hermes_verb_desc_find(arg);
		if (!verb) {
			hermes_error_t err;
			hermes_decode_err_unknown_verb(&err, arg);
			fprintf(stderr, "hermes: %s\n", err.message);
			status = HERMES_EXIT_USAGE;
		} else if (operands < HERMES_VERB_COUNT) {
			asked[operands++] = verb;
		}
	}
	if (operands == 0 && status == HERMES_EXIT_OK) {
		sorted_verbs(verbs);
		for (size_t i = 0; i < hermes_verb_desc_count; i++)
			asked[operands++] = verbs[i];
		if (json)
			return print_json_schemas(asked, (size_t)operands, true) ? HERMES_EXIT_USAGE : status;
	}
	if (json && operands)
		return print_json_schemas(asked, (size_t)operands, operands > 1) ? HERMES_EXIT_USAGE : status;
	for (int i = 0; i < operands; i++)
		if (print_schema(asked[i], printed++ > 0))
			return HERMES_EXIT_USAGE;
	return status;
}

int hermes_cmd_verbs(int argc, char **argv)
{
	const hermes_verb_desc_t *verbs[HERMES_VERB_COUNT];
	for (int i = 1; i < argc; i++) {
		if (hermes_is_help(argv[i])) {
			printf("Usage: hermes verbs\n"
			       "List every verb, one per line, with a one-line description.\n"
			       "\n"
			       "  -h, --help   display this help and exit\n");
			return HERMES_EXIT_OK;
		}
		return hermes_usage_error("verbs", "unexpected argument '%s'", argv[i]);
	}
	size_t width = 0;
	sorted_verbs(verbs);
	for (size_t i = 0; i < hermes_verb_desc_count; i++)
		if (strlen(verbs[i]->name) > width)
			width = strlen(verbs[i]->name);
	for (size_t i = 0; i < hermes_verb_desc_count; i++)
		printf("%-*s  %s\n", (int)width, verbs[i]->name, verbs[i]->description);
	return HERMES_EXIT_OK;
}
