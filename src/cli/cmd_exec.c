/* cli/cmd_exec.c: hermes exec: run the envelopes of files or standard input, one JSON result per
 * envelope on stdout, in order. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hermes/hermes.h>

#include "cli/commands.h"
#include "cli/console.h"
#include "cli/options.h"
#include "core/document.h"
#include "core/executor.h"

static void help(void)
{
	printf("Usage: hermes exec [OPTION]... [FILE|-]...\n"
	       "Run the envelopes in each FILE (standard input if none, or for -), in order, and\n"
	       "print one JSON result per envelope. A YAML stream may hold several documents\n"
	       "separated by '---'; JSON input may hold several envelopes one after another.\n"
	       "\n"
	       "Options:\n"
	       "      --pretty                indent the results\n"
	       "  -i, --interactive           type envelopes at a prompt, one result each\n"
	       "                              (the console; see hermes(1))\n"
	       "%s"
	       "  -h, --help                  display this help and exit\n"
	       "\n"
	       "Exit status: 0 if every verb succeeded, 1 if some verb failed, 2 for bad usage or\n"
	       "an envelope that could not be decoded (its result still appears on stdout).\n"
	       "\n"
	       "Example:\n"
	       "  printf 'verb: fs.readRange\\narguments: {path: src/main.c, startLine: 1, endLine: 5}\\n'"
	       " | hermes exec\n",
	       hermes_executor_options_help);
}

/* Reads all of fd. Returns 0, or -1 with errno set. */
static int read_all(int fd, char **data, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -1;
	for (;;) {
		if (cap - n < 65536) {
			char *p = cap > ((size_t)-1) / 2 ? NULL : realloc(buf, cap * 2);
			if (!p) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			buf = p;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int saved = errno;
			free(buf);
			errno = saved;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

static void print_result(const char *json)
{
	fputs(json, stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

/* Runs every envelope of one input; returns the worst exit status. */
static int run_input(hermes_executor_t *ex, const char *name, const char *text, size_t len,
                     unsigned flags)
{
	hermes_doc_splitter_t split;
	const char *doc;
	size_t doc_len;
	int line, status = HERMES_EXIT_OK, count = 0;

	hermes_doc_splitter_init(&split, text, len);
	hermes_json_doc_t *json;
	while (hermes_doc_next(&split, &doc, &doc_len, &line, &json)) {
		char *result = NULL;
		hermes_error_t err;
		/* A JSON envelope was read by the splitter already: run its tree, do not read it again. */
		hermes_outcome_t outcome =
			json ? hermes_execute_json(ex, NULL, hermes_json_root(json), doc, flags, NULL,
			                           &result, &err)
			     : hermes_execute(ex, doc, doc_len, flags, NULL, &result, &err);
		hermes_json_doc_free(json);
		count++;
		if (!result) {
			fprintf(stderr, "hermes: %s:%d: out of memory\n", name, line);
			return HERMES_EXIT_USAGE;
		}
		print_result(result);
		free(result);
		if (outcome == HERMES_OUTCOME_INVALID) {
			fprintf(stderr, "hermes: %s:%d: %s\n", name, err.line ? line + err.line - 1 : line,
			        err.message);
			status = HERMES_EXIT_USAGE;
		} else if (outcome == HERMES_OUTCOME_FAILED && status == HERMES_EXIT_OK) {
			status = HERMES_EXIT_FAILED;
		}
	}
	if (count == 0) {
		fprintf(stderr, "hermes: %s: no envelope found\n", name);
		return HERMES_EXIT_USAGE;
	}
	return status;
}

static int worse(int a, int b)
{
	return a == HERMES_EXIT_USAGE || b == HERMES_EXIT_USAGE ? HERMES_EXIT_USAGE : (a > b ? a : b);
}

int hermes_cmd_exec(int argc, char **argv)
{
	hermes_config_t config = { 0 };
	unsigned flags = 0;
	bool interactive = false;
	int first_file = argc;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (strcmp(arg, "--") == 0) {
			first_file = i + 1;
			break;
		}
		if (arg[0] != '-' || strcmp(arg, "-") == 0) {
			first_file = i;
			break;
		}
		if (hermes_is_help(arg)) {
			help();
			return HERMES_EXIT_OK;
		}
		if (strcmp(arg, "--pretty") == 0) {
			flags |= HERMES_JSON_PRETTY;
			continue;
		}
		if (strcmp(arg, "--interactive") == 0 || strcmp(arg, "-i") == 0) {
			interactive = true;
			continue;
		}
		int r = hermes_parse_executor_option("exec", argc, argv, &i, &config);
		if (r < 0)
			return HERMES_EXIT_USAGE;
		if (r == 0)
			return hermes_usage_error("exec", "unrecognized option '%s'", arg);
	}

	if (interactive && first_file < argc)
		return hermes_usage_error("exec", "--interactive reads standard input and takes no FILE");

	hermes_executor_t *ex = hermes_cli_executor(&config);
	if (!ex)
		return HERMES_EXIT_USAGE;
	if (interactive) {
		hermes_console_options_t console = { (flags & HERMES_JSON_PRETTY) != 0, STDIN_FILENO,
		                                      STDOUT_FILENO, STDERR_FILENO };
		int console_status = hermes_console_run(ex, &console);
		hermes_executor_free(ex);
		return console_status;
	}
	int status = HERMES_EXIT_OK;
	char *stdin_only[] = { "-" };
	char **files = first_file < argc ? argv + first_file : stdin_only;
	int nfiles = first_file < argc ? argc - first_file : 1;
	for (int f = 0; f < nfiles; f++) {
		const char *path = files[f];
		bool is_stdin = strcmp(path, "-") == 0;
		const char *name = is_stdin ? "<stdin>" : path;
		int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
		char *text = NULL;
		size_t len = 0;
		if (fd < 0 || read_all(fd, &text, &len) != 0) {
			fprintf(stderr, "hermes: cannot read '%s': %s\n", name, strerror(errno));
			status = HERMES_EXIT_USAGE;
		} else {
			status = worse(status, run_input(ex, name, text, len, flags));
		}
		free(text);
		if (fd >= 0 && !is_stdin)
			close(fd);
	}
	hermes_executor_free(ex);
	return status;
}
