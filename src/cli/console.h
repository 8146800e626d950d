/* cli/console.h: `hermes exec --interactive` (`hermes -i`), the console where a person types
 * envelopes and reads results. On a terminal: prompts, line editing, history and completion
 * (libedit); piped: the same submission boundaries with no prompt and one JSON result per
 * envelope. */
#ifndef HERMES_CLI_CONSOLE_H
#define HERMES_CLI_CONSOLE_H

#include <stdbool.h>

#include <hermes/hermes.h>

typedef struct hermes_console_options {
	bool pretty;  /* indent results even when out_fd is not a terminal */
	int in_fd;    /* envelopes and commands are read from here */
	int out_fd;   /* results */
	int err_fd;   /* diagnostics */
} hermes_console_options_t;

/* Runs the interactive console on in_fd/out_fd (a terminal or a pipe) until end of input or
 * :quit. The executor is borrowed. Returns the exit status: on a terminal 0; piped, like
 * `hermes exec`: 0 if every envelope succeeded, 1 if a verb failed, 2 if an envelope could not be
 * decoded; 128+N if ended by signal N. */
int hermes_console_run(hermes_executor_t *ex, const hermes_console_options_t *opts);

#endif
