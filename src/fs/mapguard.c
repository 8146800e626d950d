/* fs/mapguard.c: SIGBUS on a file mapping turned into a failed call (see mapguard.h). */
#include <config.h>

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "fs/mapguard.h"

/* What this thread has armed: the mapping, and where to jump back to. */
typedef struct armed {
	uintptr_t start, end; /* end: 0 when nothing is armed */
	sigjmp_buf back;
} armed_t;

static _Thread_local armed_t armed;
static struct sigaction previous;
static bool installed;

static void on_sigbus(int sig, siginfo_t *info, void *uctx)
{
	uintptr_t at = (uintptr_t)info->si_addr;
	if (armed.end && at >= armed.start && at < armed.end) {
		armed.end = 0;
		siglongjmp(armed.back, 1);
	}
	/* Not ours: what would have happened without us. */
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, info, uctx);
		return;
	}
	if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
		return;
	}
	/* The default action: a fault re-raises it as the instruction runs again on return; a
	 * SIGBUS sent (kill, raise) is raised again here, delivered once the handler returns. */
	signal(SIGBUS, SIG_DFL);
	if (info->si_code <= 0)
		raise(SIGBUS);
}

int hermes_map_guard_install(void)
{
	if (installed)
		return 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &previous) < 0)
		return -errno;
	installed = true;
	return 0;
}

bool hermes_map_guard_on(void)
{
	return installed;
}

bool hermes_map_guard_run(const void *map, size_t len, void (*fn)(void *arg), void *arg)
{
	/* savemask: the jump leaves the handler, whose SIGBUS stays blocked otherwise */
	if (sigsetjmp(armed.back, 1))
		return false;
	armed.start = (uintptr_t)map;
	armed.end = (uintptr_t)map + len;
	fn(arg);
	armed.end = 0;
	return true;
}
