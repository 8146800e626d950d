/* verbs/proc_run.c: proc.run. The program runs directly (no shell) in the workspace root, in its
 * own process group, with stdin from /dev/null and its output in two new files under
 * .hermes/runs/. The wait watches the program, the clock, the output size and the cancel token at
 * once (poll on a pidfd), so no signal handler is needed and concurrent runs in several threads
 * do not disturb each other. A run that must end is ended as a group: SIGTERM, a short grace,
 * SIGKILL. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verbs/handlers.h"
#include "verbs/workspace.h"

extern char **environ;

#define GRACE_MS 2000      /* between SIGTERM and SIGKILL */
#define CHECK_EVERY_MS 25  /* how often the output size is looked at (a fast writer may pass
                              * the limit by what it writes in that time) */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Creates the directory of the output files (and a .gitignore that keeps .hermes out of git).
 * On success *dirfd is .hermes/runs (O_PATH). */
static int open_runs_dir(const hermes_ws_t *ws, int *dirfd)
{
	hermes_ws_loc_t loc;
	int rc = hermes_ws_locate(ws, ".hermes/.gitignore", HERMES_WS_MKDIRS, &loc);
	if (rc)
		return rc;
	if (!loc.exists) {
		int fd = openat(loc.dirfd, loc.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		                0666);
		if (fd >= 0) {
			static const char ignore[] = "# written by hermes: proc.run output\n*\n";
			(void)!write(fd, ignore, sizeof ignore - 1);
			close(fd);
		}
	}
	hermes_ws_loc_close(&loc);
	rc = hermes_ws_locate(ws, ".hermes/runs/.keep", HERMES_WS_MKDIRS, &loc);
	if (rc)
		return rc;
	*dirfd = loc.dirfd;
	return 0;
}

/* Creates the two output files: <UTC time>-<pid>-<counter>.stdout / .stderr. */
static int create_outputs(int dirfd, int fds[2], char names[2][96])
{
	static unsigned counter;
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	for (int tries = 0; tries < 100; tries++) {
		unsigned n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
		snprintf(names[0], 96, "%s-%ld-%u.stdout", stamp, (long)getpid(), n);
		snprintf(names[1], 96, "%s-%ld-%u.stderr", stamp, (long)getpid(), n);
		const int fl = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
		fds[0] = openat(dirfd, names[0], fl, 0666);
		if (fds[0] < 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		fds[1] = openat(dirfd, names[1], fl, 0666);
		if (fds[1] >= 0)
			return 0;
		int rc = -errno;
		close(fds[0]);
		unlinkat(dirfd, names[0], 0);
		if (rc != -EEXIST)
			return rc;
	}
	return -EEXIST;
}

static int64_t output_size(const int fds[2])
{
	struct stat a, b;
	if (fstat(fds[0], &a) < 0 || fstat(fds[1], &b) < 0)
		return 0;
	return (int64_t)a.st_size + (int64_t)b.st_size;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

/* Does the process group pgid still have a member that is not a zombie? (Orphaned members are
 * reaped by init, which may take its time: a zombie has stopped, and counts as gone.) */
static bool group_alive(pid_t pgid)
{
	if (kill(-pgid, 0) < 0 && errno == ESRCH)
		return false;
	DIR *proc = opendir("/proc");
	if (!proc)
		return true;
	bool alive = false;
	struct dirent *de;
	while (!alive && (de = readdir(proc))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		char path[64], stat[512];
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, stat, sizeof stat - 1);
		close(fd);
		if (n <= 0)
			continue;
		stat[n] = '\0';
		/* "pid (comm) state ppid pgrp ...": comm may hold anything, so parse after the last ')'. */
		const char *p = strrchr(stat, ')');
		char state;
		long ppid, pgrp;
		if (p && sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3 && pgrp == (long)pgid &&
		    state != 'Z' && state != 'X')
			alive = true;
	}
	closedir(proc);
	return alive;
}

/* Looks name up in PATH like execvp, but tells "nowhere" (-ENOENT) from "only where it may not
 * be run" (-EACCES), and skips directories it may not search (execvp reports those as EACCES).
 * Relative PATH entries (and empty ones, meaning ".") are taken from the workspace root, where the
 * program will run. On success out holds the absolute path. */
static int find_in_path(const hermes_ws_t *ws, const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int rc = -ENOENT;
	for (const char *p = path;; p++) {
		size_t n = strcspn(p, ":");
		const char *root = strcmp(ws->root, "/") ? ws->root : "";
		int len;
		if (n > 0 && p[0] == '/')
			len = snprintf(out, size, "%.*s/%s", (int)n, p, name);
		else
			len = snprintf(out, size, "%s/%.*s/%s", root, (int)(n ? n : 1), n ? p : ".", name);
		struct stat st;
		if (len > 0 && (size_t)len < size && stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (faccessat(AT_FDCWD, out, X_OK, AT_EACCESS) == 0)
				return 0;
			rc = -EACCES;
		}
		p += n;
		if (*p == '\0')
			break;
	}
	return rc;
}

/* Waits up to ms for the child to exit (without reaping it); true if it has. */
static bool wait_exit(pid_t pid, int pidfd, int cancelfd, int ms, bool *cancelled)
{
	if (pidfd >= 0) {
		struct pollfd pf[2] = {{.fd = pidfd, .events = POLLIN}, {.fd = cancelfd, .events = POLLIN}};
		int r = poll(pf, cancelfd >= 0 ? 2 : 1, ms);
		if (r > 0 && cancelfd >= 0 && (pf[1].revents & POLLIN) && cancelled)
			*cancelled = true;
		return r > 0 && (pf[0].revents & (POLLIN | POLLHUP));
	}
	/* No pidfd (old kernel): look every 10 ms without reaping. */
	int64_t until = now_ms() + ms;
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
			return true;
		int left = (int)(until - now_ms());
		if (left <= 0)
			return false;
		struct pollfd pf = {.fd = cancelfd, .events = POLLIN};
		if (poll(&pf, cancelfd >= 0 ? 1 : 0, left < 10 ? left : 10) > 0 && cancelled) {
			*cancelled = true;
			return false;
		}
	}
}

void hermes_verb_proc_run(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_proc_run_args_t *args = args_;
	hermes_proc_run_result_t *result = result_;
	const hermes_ws_t *ws = call->host;
	const char *exe = args->executable;
	char shown[256];
	int32_t timeout = args->has_timeout_seconds ? args->timeout_seconds
	                                            : call->config->proc_timeout_seconds;
	if (args->has_timeout_seconds && timeout <= 0) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot run '%s': timeoutSeconds must be 1 or more (got %d)",
		                   hermes_ws_shown(exe, shown, sizeof shown), (int)timeout);
		return;
	}
	if (exe[0] == '\0') {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "cannot run '': the executable is empty");
		return;
	}

	/* A path with '/' is a workspace path: confined, and run by its resolved name. */
	char resolved[PATH_MAX + 1] = "";
	if (strchr(exe, '/')) {
		int fd;
		int rc = hermes_ws_open_path(ws, exe, O_PATH, &fd);
		if (rc) {
			hermes_ws_fail(result, rc, "run", exe);
			return;
		}
		struct stat st;
		memset(&st, 0, sizeof st);
		char link[64];
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		ssize_t n = fstat(fd, &st) == 0 ? readlink(link, resolved, sizeof resolved - 1) : -1;
		close(fd);
		if (S_ISDIR(st.st_mode)) {
			hermes_result_fail(result, HERMES_E_IS_A_DIRECTORY, "cannot run '%s': it is a directory",
			                   hermes_ws_shown(exe, shown, sizeof shown));
			return;
		}
		if (n <= 0 || resolved[0] != '/') {
			/* No /proc: run it by its path under the root (it was just checked to be inside). */
			if (exe[0] == '/')
				snprintf(resolved, sizeof resolved, "%s", exe);
			else
				snprintf(resolved, sizeof resolved, "%s/%s", strcmp(ws->root, "/") ? ws->root : "",
				         exe);
		} else {
			resolved[n] = '\0';
		}
	} else {
		int rc = find_in_path(ws, exe, resolved, sizeof resolved);
		if (rc == -ENOENT) {
			hermes_result_fail(result, HERMES_E_NOT_FOUND, "cannot run '%s': no such program in PATH",
			                   hermes_ws_shown(exe, shown, sizeof shown));
			return;
		}
		if (rc) {
			hermes_result_fail(result, HERMES_E_PERMISSION_DENIED,
			                   "cannot run '%s': found in PATH, but not executable",
			                   hermes_ws_shown(exe, shown, sizeof shown));
			return;
		}
	}

	int runs = -1, out[2] = {-1, -1};
	char names[2][96];
	int rc = open_runs_dir(ws, &runs);
	if (rc == 0)
		rc = create_outputs(runs, out, names);
	if (rc) {
		hermes_ws_fail(result, rc, "create the output files of proc.run in", ".hermes/runs");
		if (runs >= 0)
			close(runs);
		return;
	}

	/* argv: the executable as given, then the arguments. */
	char **argv = calloc(args->arguments_count + 2, sizeof *argv);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	bool fa_ok = false, attr_ok = false;
	pid_t pid = -1;
	if (!argv) {
		rc = ENOMEM;
		goto spawn_failed;
	}
	argv[0] = (char *)exe;
	for (size_t i = 0; i < args->arguments_count; i++)
		argv[i + 1] = args->arguments[i];
	rc = posix_spawn_file_actions_init(&fa);
	fa_ok = rc == 0;
	if (rc == 0)
		rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, out[0], 1);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, out[1], 2);
	if (rc == 0)
		rc = posix_spawn_file_actions_addfchdir_np(&fa, ws->root_fd);
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
	/* Every descriptor of ours is close-on-exec; this also covers any the host left inheritable. */
	if (rc == 0)
		rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
	if (rc == 0)
		rc = posix_spawnattr_init(&attr);
	attr_ok = rc == 0;
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	if (rc == 0)
		rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
		                                         POSIX_SPAWN_SETSIGDEF);
	if (rc == 0)
		rc = posix_spawnattr_setpgroup(&attr, 0);
	if (rc == 0)
		rc = posix_spawnattr_setsigmask(&attr, &none);
	if (rc == 0)
		rc = posix_spawnattr_setsigdefault(&attr, &all);
	if (rc == 0)
		rc = posix_spawn(&pid, resolved, &fa, &attr, argv, environ);
spawn_failed:
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (attr_ok)
		posix_spawnattr_destroy(&attr);
	free(argv);
	if (rc) {
		close(out[0]);
		close(out[1]);
		unlinkat(runs, names[0], 0);
		unlinkat(runs, names[1], 0);
		close(runs);
		if (rc == ENOENT)
			hermes_result_fail(result, HERMES_E_NOT_FOUND,
			                   "cannot run '%s': the interpreter of its #! line (or a library it "
			                   "needs) was not found", hermes_ws_shown(exe, shown, sizeof shown));
		else if (rc == ENOEXEC)
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "cannot run '%s': it is not in an executable format",
			                   hermes_ws_shown(exe, shown, sizeof shown));
		else
			hermes_ws_fail(result, -rc, "run", exe);
		return;
	}
	close(runs);

	/* Wait for the program, the clock, the output limit and the cancel token. */
	int pidfd = open_pidfd(pid);
	int cancelfd = call->cancel ? hermes_cancel_fd(call->cancel) : -1;
	const int64_t limit = call->config->proc_output_limit;
	const int64_t deadline = now_ms() + (int64_t)timeout * 1000;
	hermes_errcode_t why = HERMES_E_NONE;
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			why = HERMES_E_TIMEOUT;
			break;
		}
		bool cancelled = false;
		if (wait_exit(pid, pidfd, cancelfd, left < CHECK_EVERY_MS ? (int)left : CHECK_EVERY_MS,
		              &cancelled))
			break;
		if (cancelled) {
			why = HERMES_E_CANCELLED;
			break;
		}
		int64_t written = output_size(out);
		if (written > limit) {
			why = HERMES_E_TOO_LARGE;
			break;
		}
		double elapsed = (double)(now_ms() - (deadline - (int64_t)timeout * 1000)) / 1000.0;
		hermes_call_progress(call, elapsed, 0, "'%s' running for %.1f s, %lld bytes of output so far",
		                     exe, elapsed, (long long)written);
	}
	if (why != HERMES_E_NONE) {
		/* End the whole group. The leader is not reaped before the SIGKILL, so the group id
		 * cannot have been reused by then. */
		kill(-pid, SIGTERM);
		wait_exit(pid, pidfd, -1, GRACE_MS, NULL);
		kill(-pid, SIGKILL);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (why != HERMES_E_NONE) {
		/* The rest of the group was reparented; wait (briefly) until all of it has died, so that
		 * when the result says "stopped", no process of the group is left running. */
		for (int64_t until = now_ms() + GRACE_MS; now_ms() < until;) {
			if (!group_alive(pid))
				break;
			struct timespec ts = {0, 5 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	close(out[0]);
	close(out[1]);

	result->exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	char path[128];
	snprintf(path, sizeof path, ".hermes/runs/%s", names[0]);
	result->stdout_path = strdup(path);
	snprintf(path, sizeof path, ".hermes/runs/%s", names[1]);
	result->stderr_path = strdup(path);
	if (!result->stdout_path || !result->stderr_path) {
		free(result->stdout_path);
		free(result->stderr_path);
		result->stdout_path = result->stderr_path = NULL;
		hermes_ws_fail(result, -ENOMEM, "run", exe);
		return;
	}
	const char *s = hermes_ws_shown(exe, shown, sizeof shown);
	switch (why) {
	case HERMES_E_TIMEOUT:
		hermes_result_fail(result, why, "'%s' ran longer than its time limit of %d seconds; its "
		                   "process group was stopped", s, (int)timeout);
		break;
	case HERMES_E_CANCELLED:
		hermes_result_fail(result, why, "'%s' was cancelled; its process group was stopped", s);
		break;
	case HERMES_E_TOO_LARGE:
		hermes_result_fail(result, why, "'%s' wrote more than the output limit of %lld bytes; its "
		                   "process group was stopped", s, (long long)limit);
		break;
	default:
		return;
	}
	result->common.keep_fields = true;
}
