/* cli/console_signal.c: the console's signal handler and dispositions (see console_signal.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "cli/console_signal.h"

volatile sig_atomic_t hermes_console_sigint;
volatile sig_atomic_t hermes_console_sigend;
volatile sig_atomic_t hermes_console_sigwinch;
volatile sig_atomic_t hermes_console_sigtstp;

static hermes_cancel_t *volatile running;

static void on_signal(int sig)
{
	switch (sig) {
	case SIGINT:
		hermes_console_sigint++;
		break;
	case SIGWINCH:
		hermes_console_sigwinch = 1;
		return;
	case SIGTSTP:
		hermes_console_sigtstp = 1;
		return;
	default:
		hermes_console_sigend = sig;
		break;
	}
	hermes_cancel_t *c = running;
	if (c)
		hermes_cancel_request(c); /* async-signal-safe by contract */
}

void hermes_console_set_running(hermes_cancel_t *cancel)
{
	running = cancel;
}

/* The dispositions found at the first call, restored by HERMES_SIGMODE_DEFAULT. A signal ignored
 * at start (nohup, a background job without job control) stays ignored. */
enum { NSIGS = 5 };
static const int handled[NSIGS] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP };
static struct sigaction original[NSIGS];
static bool saved;

static void set(int sig, void (*handler)(int), int flags)
{
	size_t i = 0;
	while (i < NSIGS && handled[i] != sig)
		i++;
	if (i < NSIGS && original[i].sa_handler == SIG_IGN)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void hermes_console_signals(hermes_console_sigmode_t mode, bool interactive)
{
	if (!saved) {
		for (size_t i = 0; i < NSIGS; i++)
			sigaction(handled[i], NULL, &original[i]);
		saved = true;
	}
	for (size_t i = 0; i < NSIGS; i++) {
		bool ending = i < 3;
		if (mode == HERMES_SIGMODE_DEFAULT || (!ending && (!interactive || mode != HERMES_SIGMODE_READ))) {
			if (original[i].sa_handler != SIG_IGN)
				sigaction(handled[i], &original[i], NULL);
		} else {
			set(handled[i], on_signal, mode == HERMES_SIGMODE_EXECUTE ? SA_RESTART : 0);
		}
	}
}

int hermes_console_wait_input(int fd, bool job_flags)
{
	sigset_t block, old;
	sigemptyset(&block);
	for (size_t i = 0; i < NSIGS; i++)
		sigaddset(&block, handled[i]);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc;
	for (;;) {
		if (hermes_console_sigint || hermes_console_sigend ||
		    (job_flags && (hermes_console_sigwinch || hermes_console_sigtstp))) {
			rc = 0;
			break;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		rc = ppoll(&p, 1, NULL, &old);
		if (rc >= 0 || errno != EINTR) {
			rc = rc > 0 ? 1 : rc;
			break;
		}
		/* interrupted: by one of ours (its flag ends the wait) or by another signal */
	}
	int saved_errno = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;
	return rc;
}
