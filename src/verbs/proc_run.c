/* verbs/proc_run.c: proc.run. The program runs directly (no shell) in the workspace root, in its
 * own process group under a supervisor of its own (spawn.c: nothing of it outlives the run), with
 * stdin from /dev/null and its output in two new files under .hermes/runs/. The wait watches the
 * supervisor, the clock, the output size and the cancel token at once (poll on a pidfd), so no
 * signal handler is needed and concurrent runs in several threads do not disturb each other. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/fdio.h"
#include "verbs/handlers.h"
#include "verbs/spawn.h"
#include "verbs/sweep.h"
#include "verbs/workspace.h"

extern char **environ;

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
	hermes_sweep_runs(loc.dirfd); /* bounded: the newest runs, none older than a week */
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

/* Output past the limit: each stream keeps its first and its last limit/4 bytes. While the program
 * runs, the middle of a stream that grew past them is punched out (its blocks freed, so the disk
 * holds no more than the limit); when it has ended, the file is rewritten as head, a line saying
 * how much was left out, and tail. PUNCH_SLACK: how far past them a stream grows between punches. */
#define PUNCH_SLACK (1 << 20)

/* Frees the blocks of fd between its head and tail (keep bytes each). 0, or -errno (the file
 * system cannot punch holes: the caller falls back to stopping the program). */
static int punch_middle(int fd, int64_t keep)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((int64_t)st.st_size <= 2 * keep + PUNCH_SLACK)
		return 0;
	int64_t blk = st.st_blksize > 0 ? st.st_blksize : 4096;
	int64_t from = (keep + blk - 1) / blk * blk, to = ((int64_t)st.st_size - keep) / blk * blk;
	if (to <= from)
		return 0;
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from, to - from) == 0 ? 0 : -errno;
}

/* Copies len bytes of in at off to out (at its current offset). 0 or -errno. */
static int copy_span(int in, int64_t off, int64_t len, int out)
{
	while (len > 0) {
		loff_t o = off;
		ssize_t n = copy_file_range(in, &o, out, NULL, (size_t)len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += n;
		len -= n;
	}
	return 0;
}

/* Rewrites the output file name (open for writing as wfd) as its head, a marker and its tail, if
 * it is longer than both. Returns the bytes left out (0 if none), or -errno (then the file is left
 * whole). */
static int64_t compact_output(int dirfd, const char *name, int wfd, int64_t keep)
{
	struct stat st;
	if (fstat(wfd, &st) < 0)
		return -errno;
	int64_t size = st.st_size, cut = size - 2 * keep;
	if (cut <= 0)
		return 0;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char tmp[128], marker[160];
	snprintf(tmp, sizeof tmp, ".%s.compact", name);
	int out = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (out < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	int n = snprintf(marker, sizeof marker, "\n[... hermes: %lld bytes of output left out here; "
	                 "the first and the last %lld bytes are kept ...]\n", (long long)cut,
	                 (long long)keep);
	int rc = copy_span(fd, 0, keep, out);
	if (rc == 0)
		rc = hermes_write_all(out, marker, (size_t)n);
	if (rc == 0)
		rc = copy_span(fd, size - keep, keep, out);
	if (close(out) != 0 && rc == 0)
		rc = -errno;
	close(fd);
	if (rc == 0 && renameat(dirfd, tmp, dirfd, name) != 0)
		rc = -errno;
	if (rc) {
		unlinkat(dirfd, tmp, 0);
		return rc;
	}
	return cut;
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

/* Is the absolute path written under the workspace root? Then it is a workspace path, confined
 * (a symlink or ".." in it that leads out is refused), never a program of the system. */
static bool under_root(const hermes_ws_t *ws, const char *path)
{
	size_t n = strlen(ws->root);
	if (n == 1) /* the root is "/": everything is under it */
		return true;
	return strncmp(path, ws->root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* An absolute path outside the workspace: a program of the system, checked like a PATH entry. */
static int system_program(const char *path, char *out, size_t size)
{
	struct stat st;
	if (strlen(path) >= size)
		return -ENAMETOOLONG;
	if (stat(path, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0)
		return -EACCES;
	snprintf(out, size, "%s", path);
	return 0;
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

/* Finds the program: a workspace path is opened (and executed from that descriptor: *exe_fd); a
 * PATH name or a system path outside the workspace is checked (its path in resolved). False
 * once result says why it cannot run. */
static bool find_program(const hermes_ws_t *ws, const char *exe, void *result, int *exe_fd,
                         char *resolved, size_t size)
{
	char shown[256];
	*exe_fd = -1;
	if (!strchr(exe, '/')) {
		int rc = find_in_path(ws, exe, resolved, size);
		if (rc == -ENOENT)
			hermes_result_fail(result, HERMES_E_NOT_FOUND, "cannot run '%s': no such program in PATH",
			                   hermes_ws_shown(exe, shown, sizeof shown));
		else if (rc)
			hermes_result_fail(result, HERMES_E_PERMISSION_DENIED,
			                   "cannot run '%s': found in PATH, but not executable",
			                   hermes_ws_shown(exe, shown, sizeof shown));
		return rc == 0;
	}
	/* A path with '/' is a workspace path: confined, and executed from the very descriptor that
	 * was checked (never looked up again). An absolute path outside the workspace is a program
	 * of the system, like one found in PATH (/bin/echo). */
	int rc = hermes_ws_open_path(ws, exe, O_PATH, exe_fd);
	if (rc == HERMES_WS_EOUTSIDE && exe[0] == '/' && !under_root(ws, exe)) {
		rc = system_program(exe, resolved, size);
		*exe_fd = -1;
	} else if (rc == 0) {
		struct stat st;
		if (fstat(*exe_fd, &st) != 0)
			rc = -errno;
		else if (S_ISDIR(st.st_mode))
			rc = -EISDIR;
		if (rc)
			close(*exe_fd), *exe_fd = -1;
	}
	if (rc == -EISDIR)
		hermes_result_fail(result, HERMES_E_IS_A_DIRECTORY, "cannot run '%s': it is a directory",
		                   hermes_ws_shown(exe, shown, sizeof shown));
	else if (rc)
		hermes_ws_fail(result, rc, "run", exe);
	return rc == 0;
}

/* The two output files of a run in .hermes/runs. */
typedef struct outputs {
	int runs;        /* .hermes/runs */
	int fd[2];       /* stdout, stderr */
	char names[2][96];
} outputs_t;

static int outputs_open(const hermes_ws_t *ws, outputs_t *o)
{
	o->runs = -1;
	o->fd[0] = o->fd[1] = -1;
	int rc = open_runs_dir(ws, &o->runs);
	if (rc == 0)
		rc = create_outputs(o->runs, o->fd, o->names);
	if (rc && o->runs >= 0)
		close(o->runs);
	return rc;
}

/* Closes them; keep false removes them too (the program never ran). */
static void outputs_close(outputs_t *o, bool keep)
{
	close(o->fd[0]);
	close(o->fd[1]);
	if (!keep) {
		unlinkat(o->runs, o->names[0], 0);
		unlinkat(o->runs, o->names[1], 0);
	}
	close(o->runs);
}

/* Starts the program under its supervisor: argv is the executable as given, then the arguments. */
/* Is entry "NAME=value" with NAME a shell identifier? */
static bool env_entry_ok(const char *entry)
{
	const char *eq = strchr(entry, '=');
	if (!eq || eq == entry || (entry[0] >= '0' && entry[0] <= '9'))
		return false;
	for (const char *p = entry; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return false;
	return true;
}

/* Does environment entry e set the variable that entry sets? */
static bool same_name(const char *e, const char *entry)
{
	size_t n = (size_t)(strchr(entry, '=') - entry);
	return strncmp(e, entry, n) == 0 && e[n] == '=';
}

/* The environment of the program: Hermes's own, or with --proc-env=minimal only the variables a
 * program needs to find its tools and speak the user's language; then the request's own entries,
 * which replace those of the same name. An array of pointers (malloc'd) into environ and extra.
 * NULL if out of memory. */
static char **env_for(const hermes_config_t *config, char **extra, size_t extra_count)
{
	static const char *const keep[] = {"PATH=", "HOME=", "LANG=", "LC_", "TERM=", "TMPDIR=", NULL};
	size_t n = 0;
	while (environ[n])
		n++;
	char **out = calloc(n + extra_count + 1, sizeof *out);
	if (!out)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool kept = config->proc_env != HERMES_PROC_ENV_MINIMAL;
		for (int j = 0; !kept && keep[j]; j++)
			kept = strncmp(environ[i], keep[j], strlen(keep[j])) == 0;
		for (size_t x = 0; kept && x < extra_count; x++)
			kept = !same_name(environ[i], extra[x]);
		if (kept)
			out[k++] = environ[i];
	}
	for (size_t x = 0; x < extra_count; x++) {
		bool later = false; /* the last entry of a name wins */
		for (size_t y = x + 1; !later && y < extra_count; y++)
			later = same_name(extra[y], extra[x]);
		if (!later)
			out[k++] = extra[x];
	}
	return out;
}

/* The program's standard input: the request's text in a memory file, or /dev/null. -errno. */
static int stdin_for(const hermes_proc_run_args_t *args)
{
	if (!args->stdin_) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	int fd = memfd_create("hermes-proc-run-stdin", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = hermes_write_all(fd, args->stdin_, strlen(args->stdin_));
	if (rc == 0 && lseek(fd, 0, SEEK_SET) < 0)
		rc = -errno;
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

static int start(const hermes_ws_t *ws, const hermes_config_t *config,
                 const hermes_proc_run_args_t *args, int exe_fd, const char *resolved, int cwd_fd,
                 const outputs_t *o, hermes_run_t *run)
{
	char **argv = calloc(args->arguments_count + 2, sizeof *argv);
	char **envp = env_for(config, args->env, args->env_count);
	int in_fd = stdin_for(args);
	int rc;
	if (!argv || !envp || in_fd < 0) {
		rc = in_fd < 0 ? in_fd : -ENOMEM;
	} else {
		argv[0] = args->executable;
		for (size_t i = 0; i < args->arguments_count; i++)
			argv[i + 1] = args->arguments[i];
		hermes_spawn_t spec = {exe_fd, resolved, argv, envp, cwd_fd >= 0 ? cwd_fd : ws->root_fd,
		                       in_fd, o->fd[0], o->fd[1], (int)config->sandbox, ws->root_fd};
		rc = hermes_run_start(&spec, run);
	}
	free(argv);
	free(envp);
	if (in_fd >= 0)
		close(in_fd);
	return rc;
}

/* Waits for the program, the clock, the output limit and the cancel token, reporting progress;
 * a run that must end is stopped (with every descendant) before this returns. Says why it was
 * stopped (HERMES_E_NONE: it ended by itself). */
static hermes_errcode_t watch(const hermes_call_t *call, hermes_run_t *run, const outputs_t *o,
                              const char *exe, int32_t timeout)
{
	int cancelfd = call->cancel ? hermes_cancel_fd(call->cancel) : -1;
	const int64_t limit = call->config->proc_output_limit;
	const int64_t started = now_ms(), deadline = started + (int64_t)timeout * 1000;
	hermes_errcode_t why = HERMES_E_NONE;
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			why = HERMES_E_TIMEOUT;
			break;
		}
		bool cancelled = false;
		if (wait_exit(run->pid, run->pidfd, cancelfd,
		              left < CHECK_EVERY_MS ? (int)left : CHECK_EVERY_MS, &cancelled))
			break;
		if (cancelled) {
			why = HERMES_E_CANCELLED;
			break;
		}
		int64_t written = output_size(o->fd);
		if (written > limit) {
			/* keep the head and the tail of each stream, or stop where holes cannot be made */
			if (punch_middle(o->fd[0], limit / 4) != 0 || punch_middle(o->fd[1], limit / 4) != 0) {
				why = HERMES_E_TOO_LARGE;
				break;
			}
		}
		double elapsed = (double)(now_ms() - started) / 1000.0;
		hermes_call_progress(call, elapsed, 0, "'%s' running for %.1f s, %lld bytes of output so far",
		                     exe, elapsed, (long long)written);
	}
	if (why != HERMES_E_NONE) {
		/* The supervisor ends the program's group and every descendant (SIGTERM, a grace,
		 * SIGKILL) and exits once none is left. */
		hermes_run_stop(run, why == HERMES_E_CANCELLED && hermes_cancel_urgent(call->cancel));
		if (!wait_exit(run->pid, run->pidfd, -1, HERMES_RUN_GRACE_MS + 2000, NULL))
			kill(run->pid, SIGKILL); /* a supervisor that does not answer (should not happen) */
	}
	return why;
}

/* The result of a run that started: exit code, output paths, and why it was stopped. */
static void report(hermes_proc_run_result_t *result, const char *exe, const outputs_t *o,
                   int status, hermes_errcode_t why, int32_t timeout, int64_t limit)
{
	char shown[256], path[128];
	result->exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	snprintf(path, sizeof path, ".hermes/runs/%s", o->names[0]);
	result->stdout_path = strdup(path);
	snprintf(path, sizeof path, ".hermes/runs/%s", o->names[1]);
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
		hermes_result_fail(result, why, "'%s' ran longer than its time limit of %d seconds; it "
		                   "was stopped with everything it started", s, (int)timeout);
		break;
	case HERMES_E_CANCELLED:
		hermes_result_fail(result, why, "'%s' was cancelled; it was stopped with everything it "
		                   "started", s);
		break;
	case HERMES_E_TOO_LARGE:
		hermes_result_fail(result, why, "'%s' wrote more than the output limit of %lld bytes; it "
		                   "was stopped with everything it started", s, (long long)limit);
		break;
	default:
		return;
	}
	result->common.keep_fields = true;
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
	for (size_t i = 0; i < args->env_count; i++) {
		if (!env_entry_ok(args->env[i])) {
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "cannot run '%s': env entry %zu ('%.60s') is not NAME=value with NAME "
			                   "made of letters, digits and '_'", hermes_ws_shown(exe, shown, sizeof shown),
			                   i, args->env[i]);
			return;
		}
	}
	int cwd_fd = -1;
	if (args->cwd) {
		int rc = hermes_ws_open_path(ws, args->cwd, O_PATH | O_DIRECTORY, &cwd_fd);
		if (rc) {
			hermes_ws_fail(result, rc == -ENOTDIR ? -ENOTDIR : rc, "run in", args->cwd);
			return;
		}
	}
	char resolved[PATH_MAX + 1] = "";
	int exe_fd;
	if (!find_program(ws, exe, result, &exe_fd, resolved, sizeof resolved)) {
		if (cwd_fd >= 0)
			close(cwd_fd);
		return;
	}
	outputs_t o;
	int rc = outputs_open(ws, &o);
	if (rc) {
		hermes_ws_fail(result, rc, "create the output files of proc.run in", ".hermes/runs");
		if (exe_fd >= 0)
			close(exe_fd);
		if (cwd_fd >= 0)
			close(cwd_fd);
		return;
	}
	hermes_run_t run;
	rc = start(ws, call->config, args, exe_fd, resolved, cwd_fd, &o, &run);
	if (exe_fd >= 0)
		close(exe_fd);
	if (cwd_fd >= 0)
		close(cwd_fd);
	if (rc) {
		outputs_close(&o, false);
		hermes_ws_fail(result, rc, "run", exe);
		return;
	}
	hermes_errcode_t why = watch(call, &run, &o, exe, timeout);
	int status = 0;
	rc = hermes_run_finish(&run, &status);
	int64_t omitted = 0;
	for (int i = 0; rc == 0 && why != HERMES_E_TOO_LARGE && i < 2; i++) {
		int64_t cut = compact_output(o.runs, o.names[i], o.fd[i], call->config->proc_output_limit / 4);
		if (cut > 0)
			omitted += cut;
	}
	result->output_bytes_omitted = omitted;
	outputs_close(&o, rc == 0);
	if (rc == -ENOENT)
		hermes_result_fail(result, HERMES_E_NOT_FOUND,
		                   "cannot run '%s': the interpreter of its #! line (or a library it "
		                   "needs) was not found", hermes_ws_shown(exe, shown, sizeof shown));
	else if (rc == -ENOEXEC)
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot run '%s': it is not in an executable format",
		                   hermes_ws_shown(exe, shown, sizeof shown));
	else if (rc == -HERMES_RUN_ESANDBOX)
		hermes_result_fail(result, HERMES_E_NOT_ALLOWED,
		                   "cannot run '%s': the strict sandbox (--sandbox=strict) needs the "
		                   "kernel's Landlock, which is not available here",
		                   hermes_ws_shown(exe, shown, sizeof shown));
	else if (rc)
		hermes_ws_fail(result, rc, "run", exe);
	else
		report(result, exe, &o, status, why, timeout, call->config->proc_output_limit);
}
