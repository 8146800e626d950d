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
#include "core/buf.h"
#include "core/document.h"
#include "core/fdio.h"
#include "core/executor.h"
#include "fs/mapguard.h"

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

/* Set once standard output failed: nothing more is run, since nobody would see the results. */
static bool output_lost;

/* Once the output passes WIDEN_AFTER (a big result, written in pieces as it is made), a standard
 * output that is a pipe of the default 64 KiB is widened to 1 MiB (pipe-max-size, what anyone
 * may ask for) or as near as allowed. Through 64 KiB, each piece waited for the reader to take
 * four pipefuls, and the next piece was made only after: 50 MB of C source took 75 ms to reach a
 * reader where 1 MiB let the escaping go on while the reader read, 38 ms (`cat` 34). */
#define WIDEN_AFTER ((size_t)256 << 10)

static void widen_output(void)
{
	int now = fcntl(STDOUT_FILENO, F_GETPIPE_SZ);
	for (int want = 1 << 20; now > 0 && want > now; want /= 2)
		if (fcntl(STDOUT_FILENO, F_SETPIPE_SZ, want) >= 0)
			break;
}

/* Takes one piece of a result for standard output: the result is written as it is encoded, in
 * large writes, so that a 50 MB file's JSON is never built in memory whole. False (and said on
 * stderr once) if standard output cannot take it (a full disk, a closed pipe). */
static bool write_piece(void *ctx, const char *data, size_t len)
{
	(void)ctx;
	static size_t total; /* written so far, up to past WIDEN_AFTER: the widening is tried once */
	if (total <= WIDEN_AFTER && (total += len) > WIDEN_AFTER)
		widen_output();
	int rc = fflush(stdout) == 0 ? hermes_write_all(STDOUT_FILENO, data, len) : -errno;
	if (rc == 0)
		return true;
	fprintf(stderr, "hermes: cannot write the result to standard output: %s\n", strerror(-rc));
	output_lost = true;
	return false;
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
		int sent;
		hermes_error_t err;
		/* A JSON envelope was read by the splitter already: run its tree, do not read it again. */
		hermes_outcome_t outcome =
			json ? hermes_execute_json_to(ex, NULL, hermes_json_root(json), doc, flags, NULL,
			                              write_piece, NULL, &sent, &err)
			     : hermes_execute_to(ex, doc, doc_len, flags, NULL, write_piece, NULL, &sent,
			                         &err);
		hermes_json_doc_free(json);
		count++;
		if (sent == -1) {
			fprintf(stderr, "hermes: %s:%d: out of memory\n", name, line);
			return HERMES_EXIT_USAGE;
		}
		if (sent != 0 || !write_piece(NULL, "\n", 1))
			return status == HERMES_EXIT_USAGE ? status : HERMES_EXIT_FAILED;
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
	enum { OPT_PRETTY = HERMES_OPT_COMMAND };
	static const struct option longopts[] = {
		{"pretty", no_argument, NULL, OPT_PRETTY},
		{"interactive", no_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'},
		HERMES_EXECUTOR_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	hermes_config_t config = { 0 };
	unsigned flags = 0;
	bool interactive = false;
	int c;
	/* fs.readFile streams a big file from a mapping (no copy from the page cache) once SIGBUS on
	 * it, from a file cut short meanwhile, fails the call instead of killing Hermes; if the
	 * handler cannot be set, it reads with read(2). */
	(void)hermes_map_guard_install();
	hermes_getopt_begin();
	while ((c = getopt_long(argc, argv, ":ih", longopts, NULL)) != -1) {
		if (c == 'h') {
			help();
			return HERMES_EXIT_OK;
		} else if (c == OPT_PRETTY) {
			flags |= HERMES_JSON_PRETTY;
		} else if (c == 'i') {
			interactive = true;
		} else {
			int r = hermes_executor_option("exec", c, optarg, &config);
			if (r < 0)
				return HERMES_EXIT_USAGE;
			if (r == 0)
				return hermes_getopt_error("exec", c, argv);
		}
	}
	int first_file = optind; /* getopt_long moved the operands (FILEs) after the options */

	if (interactive && first_file < argc)
		return hermes_usage_error("exec", "--interactive reads standard input and takes no FILE");

	/* One batch, then exit: a program proc.start left running would end with it, so proc.start is
	 * refused here (the console keeps its programs until it exits). */
	if (!interactive)
		config.max_processes = HERMES_NO_STARTED_PROGRAMS;
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
	const int64_t limit = hermes_executor_config(ex)->max_envelope_bytes;
	char *stdin_only[] = { "-" };
	char **files = first_file < argc ? argv + first_file : stdin_only;
	int nfiles = first_file < argc ? argc - first_file : 1;
	for (int f = 0; f < nfiles && !output_lost; f++) {
		const char *path = files[f];
		bool is_stdin = strcmp(path, "-") == 0;
		const char *name = is_stdin ? "<stdin>" : path;
		int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
		hermes_buf_t in = HERMES_BUF_INIT;
		/* An input is never bigger than the largest envelope: it is refused as soon as it
		 * passes that, not read to its end first. */
		int rc = fd < 0 ? -errno : hermes_read_all(fd, (size_t)limit, &in);
		if (rc == -EFBIG) {
			fprintf(stderr, "hermes: %s: more than %lld bytes, the largest envelope accepted "
			        "(--max-envelope-bytes); nothing was run\n", name, (long long)limit);
			status = HERMES_EXIT_USAGE;
		} else if (rc) {
			fprintf(stderr, "hermes: cannot read '%s': %s\n", name, strerror(-rc));
			status = HERMES_EXIT_USAGE;
		} else {
			status = worse(status, run_input(ex, name, in.data ? in.data : "", in.len, flags));
		}
		hermes_buf_free(&in);
		if (fd >= 0 && !is_stdin)
			close(fd);
	}
	hermes_executor_free(ex);
	return status;
}
