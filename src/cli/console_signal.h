/* cli/console_signal.h: the console's signal handling. Ctrl-C abandons the envelope being typed
 * or cancels the running verb (through its cancellation token, async-signal-safely); SIGTERM and
 * SIGHUP cancel the running verb and end the console; window size changes and Ctrl-Z are passed
 * on to the line editor. The handler only sets these flags. */
#ifndef HERMES_CLI_CONSOLE_SIGNAL_H
#define HERMES_CLI_CONSOLE_SIGNAL_H

#include <signal.h>
#include <stdbool.h>

#include <hermes/hermes.h>

extern volatile sig_atomic_t hermes_console_sigint;   /* SIGINTs not yet handled */
extern volatile sig_atomic_t hermes_console_sigend;   /* SIGTERM or SIGHUP received (its number) */
extern volatile sig_atomic_t hermes_console_sigwinch; /* the window size changed */
extern volatile sig_atomic_t hermes_console_sigtstp;  /* Ctrl-Z while reading */

typedef enum hermes_console_sigmode {
	HERMES_SIGMODE_READ,    /* reading: interrupt the read (no SA_RESTART) */
	HERMES_SIGMODE_EXECUTE, /* running a verb: cancel it, let system calls restart */
	HERMES_SIGMODE_DEFAULT  /* the dispositions found at start */
} hermes_console_sigmode_t;

/* Installs the handlers for a mode. interactive: also SIGWINCH and SIGTSTP while reading. */
void hermes_console_signals(hermes_console_sigmode_t mode, bool interactive);
/* Sets the token that a signal cancels (NULL: none). */
void hermes_console_set_running(hermes_cancel_t *cancel);

/* Waits until fd has input or a signal the reader must act on came: 1 readable, 0 a flag is set
 * (SIGINT, SIGTERM, SIGHUP; with job_flags also SIGWINCH and SIGTSTP), -1 an error (errno). The
 * flags are looked at with the signals blocked and the wait unblocks them atomically (ppoll), so
 * a signal that comes just before the wait is never left unseen while it blocks. */
int hermes_console_wait_input(int fd, bool job_flags);

#endif
