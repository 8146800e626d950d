/* cli/cmd_schema.c: hermes schema and hermes verbs: the verb table, described. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/decode.h"
#include "core/desc.h"
#include "core/idl.h"

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
	int status = HERMES_EXIT_OK, printed = 0;
	for (int i = 1; i < argc; i++) {
		if (hermes_is_help(argv[i])) {
			printf("Usage: hermes schema [VERB]...\n"
			       "Print the argument type and then the result type of each VERB (matched\n"
			       "case-insensitively) in the Hermes IDL; with no VERB, of every verb.\n"
			       "\n"
			       "  -h, --help   display this help and exit\n"
			       "\n"
			       "Example: hermes schema fs.readRange\n");
			return HERMES_EXIT_OK;
		}
		if (argv[i][0] == '-' && argv[i][1])
			return hermes_usage_error("schema", "unrecognized option '%s'", argv[i]);
	}
	if (argc < 2) {
		sorted_verbs(verbs);
		for (size_t i = 0; i < hermes_verb_desc_count; i++)
			if (print_schema(verbs[i], i > 0))
				return HERMES_EXIT_USAGE;
		return HERMES_EXIT_OK;
	}
	for (int i = 1; i < argc; i++) {
		const hermes_verb_desc_t *verb = hermes_verb_desc_find(argv[i]);
		if (!verb) {
			hermes_error_t err;
			hermes_decode_err_unknown_verb(&err, argv[i]);
			fprintf(stderr, "hermes: %s\n", err.message);
			status = HERMES_EXIT_USAGE;
			continue;
		}
		if (print_schema(verb, printed++ > 0))
			return HERMES_EXIT_USAGE;
	}
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
