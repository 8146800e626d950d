/* proc/spawn.c: a program run under a supervisor of its own (see spawn.h). Between fork and
 * exit, the supervisor and the program's child side run in a copy of a multithreaded process, so
 * they call only async-signal-safe functions: system calls, no malloc, no stdio. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hermes/hermes.h>

#include "proc/spawn.h"

#ifdef HAVE_LINUX_LANDLOCK_H
#include <linux/landlock.h>
#endif

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

/* A record of the report pipe: 'P' the program's pid (first, once it is forked), 'E' errno (it
 * could not be executed), 'L' (the sandbox could not be set up) or 'S' its wait status. */
static void report(int fd, char tag, int value)
{
	char buf[1 + sizeof value];
	buf[0] = tag;
	memcpy(buf + 1, &value, sizeof value);
	ssize_t w;
	do
		w = write(fd, buf, sizeof buf);
	while (w < 0 && errno == EINTR);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Calls fn on every child of parent (-1: every process), found in /proc (as a subreaper, the
 * orphans of the run are our children). Returns how many calls returned true. Async-signal-safe. */
static int each_child(pid_t parent, bool (*fn)(pid_t pid, pid_t ppid, void *arg), void *arg)
{
	struct dirent64 {
		uint64_t ino;
		int64_t off;
		unsigned short reclen;
		unsigned char type;
		char name[];
	};
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc < 0)
		return 0;
	int n = 0;
	char buf[8192];
	long got;
	while ((got = syscall(SYS_getdents64, proc, buf, sizeof buf)) > 0) {
		for (long off = 0; off < got;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			off += d->reclen;
			long pid = 0;
			const char *c = d->name;
			for (; *c >= '0' && *c <= '9'; c++)
				pid = pid * 10 + (*c - '0');
			if (*c != '\0' || pid <= 0)
				continue;
			char path[40], stat[512];
			size_t len = (size_t)(c - d->name);
			if (len > 20)
				continue;
			memcpy(path, d->name, len);
			memcpy(path + len, "/stat", 6);
			int fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			ssize_t r = read(fd, stat, sizeof stat - 1);
			close(fd);
			if (r <= 0)
				continue;
			stat[r] = '\0';
			/* "pid (comm) state ppid ...": comm may hold anything, so read after the last ')' */
			char *p = strrchr(stat, ')');
			if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
				continue;
			long ppid = 0;
			for (p += 4; *p >= '0' && *p <= '9'; p++)
				ppid = ppid * 10 + (*p - '0');
			if ((parent < 0 || ppid == (long)parent) && fn((pid_t)pid, (pid_t)ppid, arg))
				n++;
		}
	}
	close(proc);
	return n;
}

static bool signal_one(pid_t pid, pid_t ppid, void *arg)
{
	(void)ppid;
	return kill(pid, *(int *)arg) == 0;
}

/* Sends sig to every child of this process. Returns how many were signalled. */
static int signal_children(int sig)
{
	return each_child(getpid(), signal_one, &sig);
}

int hermes_sandbox_abi(void)
{
#if defined(HAVE_LINUX_LANDLOCK_H) && defined(SYS_landlock_create_ruleset)
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	return v > 0 ? (int)v : 0;
#else
	return 0;
#endif
}

#if defined(HAVE_LINUX_LANDLOCK_H) && defined(SYS_landlock_create_ruleset)
/* Rights of the Landlock ABI versions (older headers lack the newer names). */
#define LL_REFER    (1ULL << 13) /* ABI 2 */
#define LL_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_READ     (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
                     LANDLOCK_ACCESS_FS_EXECUTE)
#define LL_WRITE_V1 (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
                     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
                     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
                     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
                     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)
#define LL_FILE     (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
                     LANDLOCK_ACCESS_FS_EXECUTE | LL_TRUNCATE)

/* Allows rights beneath the directory or file at path (or the open fd, if path is NULL); a path
 * that does not exist here is skipped. */
static int allow_beneath(int ruleset, int fd, const char *path, uint64_t rights, uint64_t handled)
{
	int own = -1;
	if (path) {
		own = fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT ? 0 : -1;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		rights &= LL_FILE; /* a file takes file rights only */
	struct landlock_path_beneath_attr attr = {.allowed_access = rights & handled, .parent_fd = fd};
	long rc = attr.allowed_access
	          ? syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) : 0;
	if (own >= 0)
		close(own);
	return rc == 0 ? 0 : -1;
}

/* Confines the calling process (the program, just before its exec): writes only beneath the
 * workspace, /tmp and a few devices; in strict mode reads only there and beneath the system's
 * directories. 0, or -1 with errno (ENOSYS/EOPNOTSUPP: no Landlock). */
static int confine(const hermes_spawn_t *s)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi <= 0)
		return -1;
	uint64_t write = LL_WRITE_V1 | (abi >= 2 ? LL_REFER : 0) | (abi >= 3 ? LL_TRUNCATE : 0);
	uint64_t handled = write | (s->sandbox == HERMES_SANDBOX_STRICT ? LL_READ : 0);
	struct landlock_ruleset_attr attr = {.handled_access_fs = handled};
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (ruleset < 0)
		return -1;
	static const char *const writable[] = {"/tmp", "/var/tmp", "/dev/null", "/dev/zero",
	                                        "/dev/tty", "/dev/full", NULL};
	static const char *const readable[] = {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
	                                        "/bin", "/sbin", "/dev", "/proc", "/sys", "/opt", NULL};
	int rc = allow_beneath(ruleset, s->root_fd, NULL, handled, handled);
	for (int i = 0; rc == 0 && writable[i]; i++)
		rc = allow_beneath(ruleset, -1, writable[i], handled, handled);
	for (int i = 0; rc == 0 && s->sandbox == HERMES_SANDBOX_STRICT && readable[i]; i++)
		rc = allow_beneath(ruleset, -1, readable[i], LL_READ, handled);
	if (rc == 0 && s->exe_fd >= 0)
		rc = allow_beneath(ruleset, s->exe_fd, NULL, LL_READ, handled);
	if (rc == 0)
		rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : -1;
	if (rc == 0)
		rc = syscall(SYS_landlock_restrict_self, ruleset, 0) == 0 ? 0 : -1;
	int saved = errno;
	close(ruleset);
	errno = saved;
	return rc;
}
#else
static int confine(const hermes_spawn_t *s)
{
	(void)s;
	errno = ENOSYS;
	return -1;
}
#endif

/* The program's side of the fork: its process group, descriptors, directory and signals, then
 * the exec of exactly the checked file. Never returns. */
static void program(const hermes_spawn_t *s, int rep, int cg_procs)
{
	/* Into the run's cgroup first, before it can start anything. No death signal follows the
	 * supervisor: a program that kills it goes on under Hermes, which reports its real status. */
	if (cg_procs >= 0)
		(void)!write(cg_procs, "0", 1);
	if (s->tty)
		setsid(); /* a session (and process group) of its own, to take the terminal */
	else
		setpgid(0, 0);
	if (dup2(s->in_fd, 0) < 0 || dup2(s->out_fd, 1) < 0 || dup2(s->err_fd, 2) < 0 ||
	    fchdir(s->cwd_fd) < 0 || (s->tty && ioctl(0, TIOCSCTTY, 0) < 0)) {
		report(rep, 'E', errno);
		_exit(127);
	}
	/* Nothing of Hermes's is inherited (its own descriptors are close-on-exec already; this
	 * covers any a host left open). */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
		for (int fd = 3; fd < 1024; fd++)
			if (fd != rep)
				fcntl(fd, F_SETFD, FD_CLOEXEC);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	if (s->sandbox != HERMES_SANDBOX_OFF && confine(s) != 0 &&
	    (s->sandbox == HERMES_SANDBOX_STRICT || (errno != ENOSYS && errno != EOPNOTSUPP))) {
		/* strict needs the sandbox; on runs unconfined only where the kernel has none */
		report(rep, 'L', errno);
		_exit(127);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (s->exe_fd >= 0) {
		syscall(SYS_execveat, s->exe_fd, "", s->argv, s->envp, AT_EMPTY_PATH);
		if (errno == ENOENT) {
			/* A #! script is read by its interpreter through /dev/fd/N, which a close-on-exec
			 * descriptor no longer is: the script gets that one descriptor open. */
			fcntl(s->exe_fd, F_SETFD, 0);
			syscall(SYS_execveat, s->exe_fd, "", s->argv, s->envp, AT_EMPTY_PATH);
		}
	} else {
		execve(s->exe_path, s->argv, s->envp);
	}
	report(rep, 'E', errno);
	_exit(127);
}

/* Kills and reaps everything left of the run. As a subreaper, no descendant can leave: once
 * waitpid says there is no child, there is no descendant. */
static void end_all(pid_t group)
{
	for (;;) {
		kill(-group, SIGKILL);
		signal_children(SIGKILL);
		pid_t w = waitpid(-1, NULL, 0);
		if (w < 0 && errno == ECHILD)
			return;
	}
}

/* The supervisor: runs the program, reports how it ended, and leaves nothing of it behind. */
static void supervise(const hermes_spawn_t *s, int rep, pid_t hermes, const hermes_cgroup_t *cg)
{
	int cg_procs = cg->procs;
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0); /* Hermes gone (even by SIGKILL): stop the run */
	if (getppid() != hermes)
		_exit(0);
	/* The program waits at this gate until its pid is reported: one that kills its supervisor
	 * at once must not leave Hermes without the pid whose status it is to report. */
	int gate[2];
	if (pipe2(gate, O_CLOEXEC) != 0) {
		report(rep, 'E', errno);
		_exit(0);
	}
	pid_t prog = fork();
	if (prog < 0) {
		report(rep, 'E', errno);
		_exit(0);
	}
	if (prog == 0) {
		close(gate[1]);
		char go;
		ssize_t r;
		while ((r = read(gate[0], &go, 1)) < 0 && errno == EINTR)
			;
		if (r != 1)
			_exit(127); /* the supervisor died before saying the pid: nothing may run */
		close(gate[0]);
		program(s, rep, cg_procs);
	}
	close(gate[0]);
	if (!s->tty)
		setpgid(prog, prog); /* (a tty's program makes its own session: setpgid would race it) */
	/* Hold nothing of Hermes's open (its protocol pipes, its files, the program's standard
	 * input): only the report. Before the pid is reported, since Hermes returns from
	 * hermes_run_start on it: a program that closes its input must then have no reader left
	 * (its writer gets EPIPE), whatever the supervisor's scheduling. */
	int lo = rep < gate[1] ? rep : gate[1], hi = rep < gate[1] ? gate[1] : rep;
	if (lo > 0)
		syscall(SYS_close_range, 0U, (unsigned)lo - 1, 0U);
	if (hi > lo + 1)
		syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0U);
	syscall(SYS_close_range, (unsigned)hi + 1, ~0U, 0U);
	report(rep, 'P', (int)prog);
	(void)!write(gate[1], "g", 1);
	close(gate[1]);

	sigset_t wanted;
	sigemptyset(&wanted);
	sigaddset(&wanted, SIGTERM);
	sigaddset(&wanted, SIGUSR1); /* an urgent stop */
	sigaddset(&wanted, SIGCHLD);
	int64_t kill_at = -1;
	for (;;) {
		int status;
		pid_t w;
		while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
			if (w == prog) {
				report(rep, 'S', status);
				end_all(prog);
				if (cg->path)
					rmdir(cg->path); /* empty now; Hermes may be gone (killed) */
				_exit(0);
			}
		}
		struct timespec tick = {0, 50 * 1000 * 1000};
		siginfo_t si;
		int sig = sigtimedwait(&wanted, &si, &tick);
		if ((sig == SIGTERM || sig == SIGUSR1) && kill_at < 0) {
			kill(-prog, SIGTERM);
			signal_children(SIGTERM);
			kill_at = now_ms() + HERMES_RUN_GRACE_MS;
		}
		if (sig == SIGUSR1 && kill_at > now_ms() + HERMES_RUN_URGENT_GRACE_MS)
			kill_at = now_ms() + HERMES_RUN_URGENT_GRACE_MS;
		if (kill_at >= 0 && now_ms() >= kill_at) {
			kill(-prog, SIGKILL);
			signal_children(SIGKILL);
		}
	}
}

/* ---- Hermes's side: the runs' processes, Hermes as subreaper, takeover ---------------------- */

/* The processes Hermes started for runs (supervisors, programs, guards): after a takeover, the
 * children of Hermes that are none of these are what escaped a run, and are killed. */
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t *known;
static size_t known_count, known_size;

/* Adds pid; known_lock held. (A fork of a run's process holds the lock from before the fork to
 * here, so that a sweep never sees a fresh child of Hermes that is not known yet.) */
static void know_locked(pid_t pid)
{
	if (pid <= 0)
		return;
	if (known_count == known_size) {
		size_t size = known_size ? known_size * 2 : 16;
		pid_t *more = realloc(known, size * sizeof *more);
		if (more) {
			known = more;
			known_size = size;
		}
	}
	if (known_count < known_size)
		known[known_count++] = pid;
}

static void know(pid_t pid)
{
	pthread_mutex_lock(&known_lock);
	know_locked(pid);
	pthread_mutex_unlock(&known_lock);
}

static void forget(pid_t pid)
{
	pthread_mutex_lock(&known_lock);
	for (size_t i = 0; i < known_count; i++) {
		if (known[i] == pid) {
			known[i] = known[--known_count];
			break;
		}
	}
	pthread_mutex_unlock(&known_lock);
}

static bool is_known(pid_t pid)
{
	pthread_mutex_lock(&known_lock);
	bool found = false;
	for (size_t i = 0; !found && i < known_count; i++)
		found = known[i] == pid;
	pthread_mutex_unlock(&known_lock);
	return found;
}

/* Kills and reaps one child of Hermes that no run owns: an escapee of a run taken over. */
static bool end_escapee(pid_t pid, pid_t ppid, void *arg)
{
	(void)ppid, (void)arg;
	if (is_known(pid))
		return false;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return true;
}

static pthread_once_t subreaper_once = PTHREAD_ONCE_INIT;

static void become_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
#else
	(void)pid;
	return -1;
#endif
}

int hermes_run_start(const hermes_spawn_t *spec, hermes_run_t *run)
{
	pthread_once(&subreaper_once, become_subreaper);
	memset(run, 0, sizeof *run);
	run->pidfd = run->prog_pidfd = -1;
	if (hermes_cgroup_make(&run->cg) != 0)
		run->cg.dir = run->cg.procs = -1; /* no cgroup here: the supervisor and the subreaper */
	int rep[2];
	if (pipe2(rep, O_CLOEXEC) != 0) {
		int err = errno;
		hermes_cgroup_remove(&run->cg);
		return -err;
	}
	/* Every signal blocked across the fork: the supervisor takes SIGTERM and SIGCHLD with
	 * sigtimedwait, and no handler of Hermes's runs in it. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t hermes = getpid();
	pthread_mutex_lock(&known_lock);
	pid_t pid = fork();
	if (pid == 0) {
		close(rep[0]);
		supervise(spec, rep[1], hermes, &run->cg);
		_exit(0);
	}
	int err = errno;
	know_locked(pid);
	pthread_mutex_unlock(&known_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(rep[1]);
	if (pid < 0) {
		close(rep[0]);
		hermes_cgroup_remove(&run->cg);
		return -err;
	}
	run->pid = pid;
	run->report = rep[0];
	/* The first record: the program's pid, or why it could not be forked (or nothing: Hermes's
	 * thread is gone already). */
	char rec[1 + sizeof(int)];
	size_t have = 0;
	while (have < sizeof rec) {
		ssize_t r = read(rep[0], rec + have, sizeof rec - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	if (have == sizeof rec) {
		int v;
		memcpy(&v, rec + 1, sizeof v);
		if (rec[0] == 'P')
			run->program = (pid_t)v;
		else if (rec[0] == 'E')
			run->fork_errno = v;
	}
	fcntl(rep[0], F_SETFL, O_NONBLOCK); /* the rest is read as it comes (hermes_run_ended) */
	know(run->program);
	run->pidfd = pidfd_of(pid);
	/* The program is the supervisor's child and not reaped before the supervisor reports it:
	 * its pid cannot have been reused yet. */
	run->prog_pidfd = pidfd_of(run->program);
	return 0;
}

/* Reads the supervisor's records that have come: 'E', 'L' and 'S'. */
static void read_reports(hermes_run_t *run)
{
	char rec[1 + sizeof(int)];
	for (;;) {
		ssize_t r = read(run->report, rec, sizeof rec); /* records are written whole */
		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof rec)
			return;
		int v;
		memcpy(&v, rec + 1, sizeof v);
		if (rec[0] == 'E')
			run->exec_errno = v;
		else if (rec[0] == 'L')
			run->exec_errno = HERMES_RUN_ESANDBOX;
		else if (rec[0] == 'S') {
			run->status = v;
			run->have_status = true;
		}
	}
}

/* Has the process of pidfd (or, without one, our child pid) exited? */
static bool exited(int pidfd, pid_t pid)
{
	if (pidfd >= 0) {
		struct pollfd pf = {.fd = pidfd, .events = POLLIN};
		return poll(&pf, 1, 0) > 0;
	}
	siginfo_t si;
	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* What the guard holds: a pidfd for each descendant of Hermes it has seen. */
#define GUARD_HELD 256
typedef struct guard_seen {
	pid_t hermes;
	pid_t pid[GUARD_HELD];
	int fd[GUARD_HELD];
	int n;
} guard_seen_t;

static bool guard_hold(pid_t pid, pid_t ppid, void *arg)
{
	guard_seen_t *g = arg;
	bool parent_held = ppid == g->hermes;
	for (int i = 0; i < g->n; i++) {
		if (g->pid[i] == pid)
			return false;
		parent_held |= g->pid[i] == ppid;
	}
	if (!parent_held || g->n == GUARD_HELD || pid == getpid())
		return false;
	int fd = pidfd_of(pid);
	if (fd < 0)
		return false;
	g->pid[g->n] = pid;
	g->fd[g->n++] = fd;
	return true;
}

/* A run taken over: a process that ends it if Hermes dies before it has ended: the program's
 * group, the run's cgroup, and (without a cgroup) every descendant of Hermes it has seen, by pidfd,
 * looked for every 200 ms (once Hermes is gone, its orphans can no longer be told by their parent).
 * Forked from the thread that watches the run, whose death it follows. */
static void start_guard(hermes_run_t *run)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t hermes = getpid();
	pthread_mutex_lock(&known_lock);
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
		int keep = run->cg.dir;
		if (keep > 0)
			syscall(SYS_close_range, 0U, (unsigned)keep - 1, 0U);
		syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0U);
		static guard_seen_t seen; /* (static: not on the stack of a thread's copy) */
		sigset_t term;
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		struct timespec tick = {0, 200 * 1000 * 1000};
		seen.hermes = hermes;
		while (getppid() == hermes && sigtimedwait(&term, NULL, &tick) < 0)
			for (int pass = 0; run->cg.dir < 0 && pass < 8; pass++)
				if (each_child(-1, guard_hold, &seen) == 0)
					break; /* (a pass finds the children of those the last one found) */
		kill(-run->program, SIGKILL);
		for (int i = 0; i < seen.n; i++)
			syscall(SYS_pidfd_send_signal, seen.fd[i], SIGKILL, NULL, 0);
		hermes_cgroup_kill(&run->cg, 2000);
		if (run->cg.path)
			rmdir(run->cg.path);
		_exit(0);
	}
	if (pid > 0) {
		run->guard = pid;
		know_locked(pid);
	}
	pthread_mutex_unlock(&known_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

bool hermes_run_ended(hermes_run_t *run)
{
	read_reports(run);
	if (!run->sup_gone)
		run->sup_gone = exited(run->pidfd, run->pid);
	if (!run->prog_gone && run->program > 0 && (run->prog_pidfd >= 0 || run->orphaned))
		run->prog_gone = exited(run->prog_pidfd, run->program);
	if (run->sup_gone) {
		read_reports(run); /* all of them are in the pipe now */
		if (run->have_status || run->exec_errno || run->program <= 0)
			return true;
		if (!run->orphaned) {
			/* The supervisor died without a word: the program (and what it started) is
			 * Hermes's now, as subreaper. */
			run->orphaned = true;
			start_guard(run);
			if (!run->prog_gone)
				run->prog_gone = exited(run->prog_pidfd, run->program);
		}
		return run->prog_gone;
	}
	if (run->prog_gone) {
		/* The program ended and its supervisor has not said so: stopped, or stuck. */
		int64_t now = now_ms();
		if (run->stuck_since == 0)
			run->stuck_since = now;
		else if (now - run->stuck_since >= HERMES_RUN_STUCK_MS)
			kill(run->pid, SIGKILL);
	}
	return false;
}

int hermes_run_pollfds(const hermes_run_t *run, int fds[2], int *every_ms)
{
	int n = 0;
	*every_ms = -1;
	if (!run->sup_gone && run->pidfd >= 0)
		fds[n++] = run->pidfd;
	if (!run->prog_gone && run->prog_pidfd >= 0)
		fds[n++] = run->prog_pidfd;
	if ((!run->sup_gone && run->pidfd < 0) || (run->orphaned && run->prog_pidfd < 0))
		*every_ms = 10; /* no pidfd (old kernel): look now and then */
	if (run->prog_gone && !run->sup_gone)
		*every_ms = 50; /* waiting for the supervisor's report, or to kill it */
	return n;
}

void hermes_run_stop(hermes_run_t *run, bool urgent)
{
	if (!exited(run->pidfd, run->pid)) {
		kill(run->pid, SIGCONT); /* a supervisor the program stopped */
		kill(run->pid, urgent ? SIGUSR1 : SIGTERM);
		return;
	}
	/* Taken over: Hermes stops the run itself, without a grace. */
	if (run->program > 0)
		kill(-run->program, SIGKILL), kill(run->program, SIGKILL);
	hermes_cgroup_kill(&run->cg, 0);
}

bool hermes_run_wait(hermes_run_t *run, int cancelfd, int ms, bool *cancelled)
{
	int64_t until = now_ms() + ms;
	for (;;) {
		if (hermes_run_ended(run))
			return true;
		int64_t left = until - now_ms();
		if (left <= 0)
			return false;
		struct pollfd pf[3];
		int fds[2], every;
		int n = hermes_run_pollfds(run, fds, &every);
		for (int i = 0; i < n; i++)
			pf[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
		int c = -1;
		if (cancelfd >= 0)
			pf[c = n++] = (struct pollfd){.fd = cancelfd, .events = POLLIN};
		int timeout = every >= 0 && every < left ? every : (int)left;
		if (poll(pf, (nfds_t)n, timeout) > 0 && c >= 0 && (pf[c].revents & POLLIN)) {
			if (cancelled)
				*cancelled = true;
			return hermes_run_ended(run);
		}
	}
}

int hermes_run_finish(hermes_run_t *run, int *status)
{
	if (run->guard > 0) {
		kill(run->guard, SIGKILL);
		while (waitpid(run->guard, NULL, 0) < 0 && errno == EINTR)
			;
		forget(run->guard);
	}
	int st = 0;
	while (waitpid(run->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		run->orphaned = true; /* killed, perhaps after its report: what it had not ended is ours */
	forget(run->pid);
	if (run->pidfd >= 0)
		close(run->pidfd);
	read_reports(run);
	close(run->report);
	*status = run->status;
	if (!run->have_status && !run->exec_errno && !run->fork_errno && run->program > 0) {
		/* Taken over: the program is Hermes's child (a zombie if it ended; else it was to be
		 * stopped), and its own status is the one to report. */
		kill(-run->program, SIGKILL);
		kill(run->program, SIGKILL);
		pid_t w;
		while ((w = waitpid(run->program, &st, 0)) < 0 && errno == EINTR)
			;
		*status = w == run->program ? st : SIGKILL; /* (a wait status: killed) if none is had */
		run->orphaned = true;
	}
	if (run->cg.dir >= 0) {
		int pids[256];
		int n = hermes_cgroup_pids(&run->cg, pids, 256);
		hermes_cgroup_kill(&run->cg, 2000);
		for (int i = 0; i < n; i++) /* those reparented to Hermes are its to reap */
			while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
				;
	}
	forget(run->program);
	if (run->orphaned)
		while (each_child(getpid(), end_escapee, NULL) > 0)
			; /* what escaped is Hermes's child now; one killed may have started another */
	hermes_cgroup_remove(&run->cg);
	if (run->prog_pidfd >= 0)
		close(run->prog_pidfd);
	int exec_errno = run->exec_errno ? run->exec_errno : run->fork_errno;
	return exec_errno ? -exec_errno : 0;
}
