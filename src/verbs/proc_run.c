/* verbs/proc_run.c: proc.run. The program runs directly (no shell) in the workspace root, in its
 * own process group under a supervisor of its own (proc/spawn.h: nothing of it outlives the run), with
 * stdin from /dev/null and its output in two new files under .hermes/runs/. The wait watches the
 * supervisor, the clock, the output size and the cancel token at once (poll on a pidfd), so no
 * signal handler is needed and concurrent runs in several threads do not disturb each other. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/fdio.h"
#include "verbs/handlers.h"
#include "proc/lastline.h"
#include "proc/spawn.h"
#include "proc/program.h"
#include "proc/runfiles.h"
#include "fs/workspace.h"

#define CHECK_EVERY_MS 25  /* how often the output size is looked at (a fast writer may pass
                              * the limit by what it writes in that time) */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

bool hermes_verbs_find_program(const hermes_ws_t *ws, const char *exe, void *result, int *exe_fd,
                               char *resolved, size_t size)
{
	char shown[256];
	int rc = hermes_program_find(ws, exe, exe_fd, resolved, size);
	if (rc == 0)
		return true;
	const char *s = hermes_ws_shown(exe, shown, sizeof shown);
	if (!strchr(exe, '/') && rc == -ENOENT)
		hermes_result_fail(result, HERMES_E_NOT_FOUND, "cannot run '%s': no such program in PATH", s);
	else if (!strchr(exe, '/'))
		hermes_result_fail(result, HERMES_E_PERMISSION_DENIED,
		                   "cannot run '%s': found in PATH, but not executable", s);
	else if (rc == -EISDIR)
		hermes_result_fail(result, HERMES_E_IS_A_DIRECTORY, "cannot run '%s': it is a directory", s);
	else
		hermes_ws_fail(result, rc, "run", exe);
	return false;
}

/* Starts the program under its supervisor: argv is the executable as given, then the arguments. */
static int start(const hermes_ws_t *ws, const hermes_config_t *config,
                 const hermes_proc_run_args_t *args, int exe_fd, const char *resolved, int cwd_fd,
                 const hermes_runfiles_t *o, hermes_run_t *run)
{
	char **argv = calloc(args->arguments_count + 2, sizeof *argv);
	char **envp = hermes_program_env(config, args->env, args->env_count);
	int in_fd = stdin_for(args);
	int rc;
	if (!argv || !envp || in_fd < 0) {
		rc = in_fd < 0 ? in_fd : -ENOMEM;
	} else {
		argv[0] = args->executable;
		for (size_t i = 0; i < args->arguments_count; i++)
			argv[i + 1] = args->arguments[i];
		hermes_spawn_t spec = {exe_fd, resolved, argv, envp, cwd_fd >= 0 ? cwd_fd : ws->root_fd,
		                       in_fd, o->fd[0], o->fd[1], (int)config->sandbox, ws->root_fd, false};
		rc = hermes_run_start(&spec, run);
	}
	free(argv);
	free(envp);
	if (in_fd >= 0)
		close(in_fd);
	return rc;
}

/* Waits for the program, the clock, the output limit and the cancel token, reporting progress
 * (its message: the program's latest line of output, so a host can show a build as it goes);
 * a run that must end is stopped (with every descendant) before this returns. Says why it was
 * stopped (HERMES_E_NONE: it ended by itself). */
static hermes_errcode_t watch(const hermes_call_t *call, hermes_run_t *run, const hermes_runfiles_t *o,
                              const char *exe, int32_t timeout)
{
	int cancelfd = call->cancel ? hermes_cancel_fd(call->cancel) : -1;
	const int64_t limit = call->config->proc_output_limit;
	const int64_t started = now_ms(), deadline = started + (int64_t)timeout * 1000;
	hermes_errcode_t why = HERMES_E_NONE;
	int64_t sizes[2] = {0, 0};
	char line[HERMES_LASTLINE_MAX + 8] = ""; /* the latest line of output: the progress message */
	int rd[2]; /* the output files, to read that line back (theirs are open for writing only) */
	for (int i = 0; i < 2; i++)
		rd[i] = openat(o->runs, o->names[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			why = HERMES_E_TIMEOUT;
			break;
		}
		bool cancelled = false;
		if (hermes_run_wait(run, cancelfd,
		              left < CHECK_EVERY_MS ? (int)left : CHECK_EVERY_MS, &cancelled))
			break;
		if (cancelled) {
			why = HERMES_E_CANCELLED;
			break;
		}
		int64_t written = hermes_runfiles_size(o);
		if (written > limit) {
			/* keep the head and the tail of each stream, or stop where holes cannot be made */
			if (hermes_runfiles_punch(o->fd[0], limit / 4) != 0 || hermes_runfiles_punch(o->fd[1], limit / 4) != 0) {
				why = HERMES_E_TOO_LARGE;
				break;
			}
		}
		for (int i = 0; i < 2; i++) {
			struct stat st;
			if (rd[i] >= 0 && fstat(rd[i], &st) == 0 && st.st_size != sizes[i]) {
				sizes[i] = st.st_size;
				hermes_last_line_of_file(rd[i], st.st_size, line, sizeof line);
			}
		}
		double elapsed = (double)(now_ms() - started) / 1000.0;
		if (line[0])
			hermes_call_progress(call, elapsed, 0, "%s", line);
		else
			hermes_call_progress(call, elapsed, 0, "'%s' running for %.1f s, no output yet", exe,
			                     elapsed);
	}
	for (int i = 0; i < 2; i++)
		if (rd[i] >= 0)
			close(rd[i]);
	if (why != HERMES_E_NONE) {
		/* The supervisor ends the program's group and every descendant (SIGTERM, a grace,
		 * SIGKILL) and exits once none is left. */
		hermes_run_stop(run, why == HERMES_E_CANCELLED && hermes_cancel_urgent(call->cancel));
		if (!hermes_run_wait(run, -1, HERMES_RUN_GRACE_MS + 2000, NULL))
			kill(run->pid, SIGKILL); /* a supervisor that does not answer (should not happen) */
	}
	return why;
}

/* The result of a run that started: exit code, output paths, and why it was stopped. */
static void report(hermes_proc_run_result_t *result, const char *exe, const hermes_runfiles_t *o,
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
	int cwd_fd;
	if (!hermes_verbs_program_args_ok(ws, exe, args->env, args->env_count, args->cwd, result, &cwd_fd))
		return;
	char resolved[PATH_MAX + 1] = "";
	int exe_fd;
	if (!hermes_verbs_find_program(ws, exe, result, &exe_fd, resolved, sizeof resolved)) {
		if (cwd_fd >= 0)
			close(cwd_fd);
		return;
	}
	hermes_runfiles_t o;
	int rc = hermes_runfiles_open(ws, call->config->runs_max_bytes, &o);
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
		hermes_runfiles_close(&o, false);
		hermes_ws_fail(result, rc, "run", exe);
		return;
	}
	hermes_errcode_t why = watch(call, &run, &o, exe, timeout);
	int status = 0;
	rc = hermes_run_finish(&run, &status);
	int64_t omitted = 0;
	for (int i = 0; rc == 0 && why != HERMES_E_TOO_LARGE && i < 2; i++) {
		int64_t cut = hermes_runfiles_compact(o.runs, o.names[i], o.fd[i], call->config->proc_output_limit / 4);
		if (cut > 0)
			omitted += cut;
	}
	result->output_bytes_omitted = omitted;
	hermes_runfiles_close(&o, rc == 0);
	if (rc)
		hermes_verbs_exec_failed(result, rc, exe);
	else
		report(result, exe, &o, status, why, timeout, call->config->proc_output_limit);
}

bool hermes_verbs_program_args_ok(const hermes_ws_t *ws, const char *exe, char **env,
                                  size_t env_count, const char *cwd, void *result, int *cwd_fd)
{
	char shown[256];
	*cwd_fd = -1;
	if (exe[0] == '\0') {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "cannot run '': the executable is empty");
		return false;
	}
	for (size_t i = 0; i < env_count; i++) {
		if (!hermes_program_env_ok(env[i])) {
			hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
			                   "cannot run '%s': env entry %zu ('%.60s') is not NAME=value with NAME "
			                   "made of letters, digits and '_'", hermes_ws_shown(exe, shown, sizeof shown),
			                   i, env[i]);
			return false;
		}
	}
	if (cwd) {
		int rc = hermes_ws_open_path(ws, cwd, O_PATH | O_DIRECTORY, cwd_fd);
		if (rc) {
			hermes_ws_fail(result, rc, "run in", cwd);
			return false;
		}
	}
	return true;
}

void hermes_verbs_exec_failed(void *result, int rc, const char *exe)
{
	char shown[256];
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
	else
		hermes_ws_fail(result, rc, "run", exe);
}
