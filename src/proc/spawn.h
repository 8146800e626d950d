/* proc/spawn.h: running a program so that nothing of it outlives its run. Each run has a
 * supervisor process of its own (a child subreaper): the program's orphans are reparented to it,
 * and when the program ends, is stopped, or Hermes itself dies, the supervisor kills every
 * descendant that is left before it exits. The program is executed from the descriptor that was
 * checked (execveat), never looked up again by path.
 *
 * A program may kill or stop its supervisor (same user): Hermes does not rely on it alone.
 *  - Hermes is a child subreaper too (set by the first run, for the whole process), so a run
 *    whose supervisor died is reparented to Hermes, which takes the supervisor's job over: it waits
 *    for the program itself (its real exit status is reported), stops it when asked, and, once it
 *    has ended, kills and reaps everything left of it. A guard process then ends the run if Hermes
 *    dies in its turn. A supervisor that does not report a program that has ended (stopped with
 *    SIGSTOP) is killed after HERMES_RUN_STUCK_MS, and Hermes takes over.
 *  - Where the machine allows (cgroup v2 beneath Hermes's own cgroup, cgroup.h), each run has a
 *    cgroup: no process of it can leave by changing session or parent, and it is ended with
 *    cgroup.kill. Without one, what Hermes kills after a takeover is its own children that are no
 *    run's supervisor, program or guard: a host of libhermes whose own children could be mistaken
 *    must not rely on runs whose supervisor was killed. */
#ifndef HERMES_PROC_SPAWN_H
#define HERMES_PROC_SPAWN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/cgroup.h"

/* What to run. */
typedef struct hermes_spawn {
	int exe_fd;              /* the executable, opened and checked (O_PATH is fine); or -1 */
	const char *exe_path;    /* if exe_fd is -1: its absolute path (a PATH lookup) */
	char *const *argv;       /* argv[0] is the name the program sees */
	char *const *envp;
	int cwd_fd;              /* the directory it starts in */
	int in_fd, out_fd, err_fd; /* its standard input, output and error */
	int sandbox;             /* HERMES_SANDBOX_*: Landlock rules for it (see hermes.h) */
	int root_fd;             /* the workspace root, which the sandbox lets it write */
	bool tty;                /* in_fd is a terminal's slave side: the program gets a session of
	                            its own with it as controlling terminal (else a process group) */
} hermes_spawn_t;

/* Does this kernel offer Landlock (the sandbox of proc.run)? Its ABI version, or 0. */
int hermes_sandbox_abi(void);

/* A running program, seen through its supervisor (fields are spawn.c's; read pid, program). */
typedef struct hermes_run {
	pid_t pid;       /* the supervisor */
	int pidfd;       /* readable once it has exited; -1 without pidfd_open (old kernel) */
	int report;      /* read end of the supervisor's report (non-blocking after the start) */
	pid_t program;   /* the program (and its process group); 0 if it could not be forked */
	int fork_errno;  /* why not (for hermes_run_finish) */
	int prog_pidfd;  /* the program's pidfd, or -1 */
	hermes_cgroup_t cg;
	pid_t guard;     /* after a takeover: ends the run if Hermes dies; 0 before */
	bool sup_gone, prog_gone, orphaned, have_status;
	int status, exec_errno;
	int64_t stuck_since; /* the program ended and the supervisor did not say so: since when */
} hermes_run_t;

#define HERMES_RUN_STUCK_MS 1000

/* Starts the supervisor, which starts the program in a process group of its own, and waits until
 * the program is forked (not executed: a failed exec is reported by hermes_run_finish). The
 * supervisor's death signal follows the calling thread: a program meant to outlive the call is
 * started from a thread that lives as long as it. 0, or -errno (nothing is left running then). */
int hermes_run_start(const hermes_spawn_t *spec, hermes_run_t *run);

/* Asks the run to stop: the program's group gets SIGTERM, then, after a grace of
 * HERMES_RUN_GRACE_MS (urgent: HERMES_RUN_URGENT_GRACE_MS), every descendant left gets SIGKILL.
 * Returns at once: the supervisor exits (its pidfd becomes readable) once nothing of the run is
 * left. An urgent stop after a plain one shortens the grace still running. */
#define HERMES_RUN_GRACE_MS 2000
#define HERMES_RUN_URGENT_GRACE_MS 500
void hermes_run_stop(hermes_run_t *run, bool urgent);

/* Has the run ended (the program, and the supervisor or Hermes's takeover of it)? Does not
 * block; takes over a run whose supervisor is gone, and kills one that is stuck. */
bool hermes_run_ended(hermes_run_t *run);

/* The descriptors to poll (POLLIN) for a change of hermes_run_ended (at most 2, into fds), and in
 * *every_ms how often to look again whatever they say (-1: no need). Returns how many. */
int hermes_run_pollfds(const hermes_run_t *run, int fds[2], int *every_ms);

/* Waits up to ms for the run to end (hermes_run_ended), or for cancelfd (-1: none) to become
 * readable (then *cancelled is set, if cancelled is not NULL). True once it has ended. */
bool hermes_run_wait(hermes_run_t *run, int cancelfd, int ms, bool *cancelled);

/* Reaps the supervisor (waiting for it), ends and reaps whatever is left of the run after a
 * takeover, removes its cgroup, and says how the program ended: 0 and its wait status
 * in *status; or -errno if it could not be executed (ENOENT: a missing #! interpreter or
 * library, ENOEXEC: not an executable format, ...), or -HERMES_RUN_ESANDBOX if the sandbox it
 * needed could not be set up. Frees the run. */
#define HERMES_RUN_ESANDBOX 100005
int hermes_run_finish(hermes_run_t *run, int *status);

#endif
