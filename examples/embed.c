/* examples/embed.c: embedding the Hermes executor in a program with libhermes.
 *
 *   cc -o embed embed.c $(pkg-config --cflags --libs hermes)
 *   ./embed [ROOT [ENVELOPE]]
 *
 * Creates an executor confined to ROOT (default: the current directory), runs ENVELOPE (YAML or
 * JSON; default: list the root) and prints the JSON result. Exits like `hermes exec`: 0 if the
 * verb succeeded, 1 if it failed, 2 if the envelope could not be decoded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hermes/hermes.h>

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : ".";
	const char *envelope = argc > 2 ? argv[2] : "verb: fs.listDir\narguments: {path: .}\n";

	/* Zero means "the default" for every setting. */
	hermes_config_t config = { 0 };
	config.root = root;
	config.proc_timeout_seconds = 60;

	hermes_executor_t *ex = NULL;
	hermes_error_t err;
	if (hermes_executor_new(&config, &ex, &err) != 0) {
		fprintf(stderr, "embed: %s\n", err.message);
		return 2;
	}

	/* The result is always a JSON object owned by us, even when the envelope is bad; err then
	 * says where. */
	char *result = NULL;
	hermes_outcome_t outcome = hermes_execute(ex, envelope, strlen(envelope), HERMES_JSON_PRETTY,
	                                          NULL, &result, &err);
	if (!result) {
		fprintf(stderr, "embed: out of memory\n");
		hermes_executor_free(ex);
		return 2;
	}
	if (outcome == HERMES_OUTCOME_INVALID)
		fprintf(stderr, "embed: %s (%s, line %d)\n", err.message,
		        hermes_errcode_name(err.code) ? hermes_errcode_name(err.code) : "?", err.line);
	printf("%s\n", result);
	printf("(libhermes %s, workspace %s)\n", hermes_version(), hermes_executor_root(ex));

	free(result);
	hermes_executor_free(ex);
	return (int)outcome;
}
