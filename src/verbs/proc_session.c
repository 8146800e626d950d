/* verbs/proc_session.c: proc.start, proc.output, proc.write, proc.stop and proc.list: programs
 * that keep running, in the executor's table of started programs (proc/started.h, the verbs' state: hermes_verbs_started). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "verbs/handlers.h"
#include "verbs/state.h"
#include "fs/lines.h"
#include "fs/pcre2_lib.h"
#include "fs/workspace.h"
#include "proc/program.h"
#include "proc/started.h"

#define START_OUTPUT_MAX 65536  /* output in proc.start's and proc.stop's answers */
#define WAIT_FOR_LINE_MAX 65536 /* a longer line is matched in pieces of this size */

/* The program of args' id, or NULL once result says it is unknown. */
static hermes_started_prog_t *find(const hermes_call_t *call, const char *id, void *result)
{
	hermes_started_prog_t *p = hermes_verbs_started(call) ? hermes_started_find(hermes_verbs_started(call), id) : NULL;
	if (!p && hermes_verbs_started(call) &&
	    hermes_verbs_held_elsewhere(result, "the program", id,
	                                hermes_started_instance(hermes_verbs_started(call))))
		return NULL;
	if (!p) {
		char shown[256];
		hermes_result_fail(result, HERMES_E_NOT_FOUND,
		                   "no started program has the id '%s' here (proc.list shows those there "
		                   "are; a program proc.stop stopped is forgotten, and ids do not survive "
		                   "the server that gave them)", hermes_ws_shown(id, shown, sizeof shown));
	}
	return p;
}

/* The output and state fields proc.start, proc.output and proc.stop share (NULL: a result that
 * has not that field). */
typedef struct output_fields {
	char **out, **err;
	int64_t *next, *dropped;
	bool *more, *running, *has_exit_code;
	int32_t *exit_code;
} output_fields_t;

/* Reads a slice of p's output into the fields, and its state as it was before (so that the
 * output of a program said to have ended is complete); false once result says why not. */
static bool read_output(hermes_started_prog_t *p, int64_t since, size_t max, bool tail,
                        output_fields_t f, void *result, const char *id)
{
	hermes_started_info_t info;
	hermes_started_info(p, &info);
	hermes_started_slice_t s;
	int rc = hermes_started_read(p, since, max, tail, &s);
	if (rc == -ERANGE) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "since %lld is past the end of the output of '%s' (%lld bytes so far)",
		                   (long long)since, id, (long long)info.output_bytes);
		return false;
	}
	if (rc) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot read the output of '%s': out of memory", id);
		return false;
	}
	*f.out = s.text[0];
	*f.err = s.text[1];
	if (f.next)
		*f.next = s.next;
	*f.dropped = s.dropped;
	if (f.more)
		*f.more = s.more;
	if (f.running)
		*f.running = info.running;
	if (f.has_exit_code)
		*f.has_exit_code = !info.running;
	*f.exit_code = info.exit_code;
	return true;
}

/* ---- proc.start ------------------------------------------------------------------------ */

/* waitFor, compiled; matched against the output a line at a time. Each match is bounded
 * (PCRE2's match and depth limits: a pattern that backtracks without end, such as ^(a+)+$ on a long
 * line, gives up on that line instead of running for minutes), and the scan looks at the clock and
 * the cancel flag after every match, so proc.start answers within waitSeconds whatever the output
 * and the pattern. A line whose match gives up counts as not matching. */
#define WAIT_FOR_MATCH_LIMIT 200000 /* about a millisecond or two of backtracking per line */
#define WAIT_FOR_DEPTH_LIMIT 10000
typedef struct wait_for {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	char *line;
	size_t len;
	int64_t deadline_ms;          /* the scan stops here, or when cancel is requested */
	const hermes_cancel_t *cancel;
} wait_for_t;

static bool wait_for_compile(wait_for_t *w, const char *pattern, void *result)
{
	char why[300], shown[256];
	memset(w, 0, sizeof w[0]);
	if (!hermes_pcre2_lib_load(why, sizeof why)) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot use waitFor: %s", why);
		return false;
	}
	int errcode;
	PCRE2_SIZE erroff;
	w->code = pcre2_compile((PCRE2_SPTR)pattern, strlen(pattern),
	                        PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_UCP, &errcode, &erroff, NULL);
	if (!w->code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(errcode, msg, sizeof msg);
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "invalid waitFor '%s': %s at offset %zu",
		                   hermes_ws_shown(pattern, shown, sizeof shown), (const char *)msg,
		                   (size_t)erroff);
		return false;
	}
	w->md = pcre2_match_data_create_from_pattern(w->code, NULL);
	w->mc = pcre2_match_context_create(NULL);
	w->line = malloc(WAIT_FOR_LINE_MAX);
	if (!w->md || !w->mc || !w->line) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot use waitFor: out of memory");
		return false;
	}
	pcre2_set_match_limit(w->mc, WAIT_FOR_MATCH_LIMIT);
	pcre2_set_depth_limit(w->mc, WAIT_FOR_DEPTH_LIMIT);
	return true;
}

static void wait_for_free(wait_for_t *w)
{
	if (w->md)
		pcre2_match_data_free(w->md);
	if (w->mc)
		pcre2_match_context_free(w->mc);
	if (w->code)
		pcre2_code_free(w->code);
	free(w->line);
}

/* Does the line gathered so far match? (A match that hits a limit does not.) */
static bool wait_for_match(wait_for_t *w)
{
	size_t n = w->len;
	if (n > 0 && w->line[n - 1] == '\r')
		n--;
	return pcre2_match(w->code, (PCRE2_SPTR)w->line, n, 0, 0, w->md, w->mc) >= 0;
}

/* Past the deadline, or cancelled: the scan must stop. */
static bool wait_for_out_of_time(const wait_for_t *w)
{
	return hermes_started_now_ms() >= w->deadline_ms || hermes_cancel_requested(w->cancel);
}

/* Scans the output from *scanned on: true as soon as a line (or the unfinished last one) matches;
 * false once the output is scanned, or time is up (*scanned then says where it stopped). */
static bool wait_for_scan(wait_for_t *w, hermes_started_prog_t *p, int64_t *scanned)
{
	char chunk[16384];
	for (;;) {
		int64_t at;
		size_t n = hermes_started_peek(p, *scanned, chunk, sizeof chunk, &at);
		if (at > *scanned)
			w->len = 0; /* some output was dropped before it was scanned: a fresh line */
		*scanned = at;
		for (size_t i = 0; i < n; i++) {
			/* a newline ends the line, also one that comes right after a full piece (it is
			 * never the first byte of the next line) */
			bool nl = chunk[i] == '\n';
			if (nl || w->len == WAIT_FOR_LINE_MAX) {
				bool m = wait_for_match(w);
				w->len = 0;
				if (m || wait_for_out_of_time(w)) {
					*scanned = at + (int64_t)i + nl;
					return m;
				}
				if (nl)
					continue;
			}
			w->line[w->len++] = chunk[i];
		}
		*scanned = at + (int64_t)n;
		if (n < sizeof chunk)
			return w->len > 0 && wait_for_match(w); /* a prompt, or a line still coming */
		if (wait_for_out_of_time(w))
			return false;
	}
}

/* The command line proc.list shows: arguments with a blank or a quote single-quoted. */
static void command_line(hermes_buf_t *b, const char *exe, char **argv, size_t argc)
{
	for (size_t i = 0; i <= argc; i++) {
		const char *a = i == 0 ? exe : argv[i - 1];
		if (i)
			hermes_buf_putc(b, ' ');
		if (*a && !a[strcspn(a, " \t\n'\"")]) {
			hermes_buf_puts(b, a);
			continue;
		}
		hermes_buf_putc(b, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				hermes_buf_puts(b, "'\\''");
			else
				hermes_buf_putc(b, *a);
		}
		hermes_buf_putc(b, '\'');
	}
}

/* Starts the program of args; false once result says why not. */
static bool start(const hermes_call_t *call, const hermes_proc_start_args_t *args, void *result,
                  hermes_started_prog_t **p)
{
	const hermes_ws_t *ws = call->host;
	const char *exe = args->executable;
	char shown[256];
	int cwd_fd, exe_fd;
	char resolved[PATH_MAX + 1] = "";
	if (!hermes_verbs_program_args_ok(ws, exe, args->env, args->env_count, args->cwd, result, &cwd_fd))
		return false;
	if (!hermes_verbs_find_program(ws, exe, result, &exe_fd, resolved, sizeof resolved)) {
		if (cwd_fd >= 0)
			close(cwd_fd);
		return false;
	}
	/* Under a terminal, TERM=dumb unless the request says otherwise: plain output for a reader
	 * that is not a terminal emulator. */
	bool term_given = false;
	for (size_t i = 0; i < args->env_count; i++)
		term_given |= strncmp(args->env[i], "TERM=", 5) == 0;
	char **extra = calloc(args->env_count + 1, sizeof *extra);
	char **argv = calloc(args->arguments_count + 2, sizeof *argv);
	char **envp = NULL;
	hermes_buf_t cmd = HERMES_BUF_INIT;
	command_line(&cmd, exe, args->arguments, args->arguments_count);
	char *cmdline = hermes_buf_finish(&cmd);
	int rc = -ENOMEM;
	if (extra && argv && cmdline) {
		size_t n = 0;
		if (args->tty && !term_given)
			extra[n++] = (char *)"TERM=dumb";
		for (size_t i = 0; i < args->env_count; i++)
			extra[n++] = args->env[i];
		envp = hermes_program_env(call->config, extra, n);
		argv[0] = args->executable;
		for (size_t i = 0; i < args->arguments_count; i++)
			argv[i + 1] = args->arguments[i];
	}
	if (envp) {
		hermes_spawn_t spec = {exe_fd, resolved, argv, envp, cwd_fd >= 0 ? cwd_fd : ws->root_fd,
		                       -1, -1, -1, (int)call->config->sandbox, ws->root_fd, args->tty};
		hermes_started_opts_t opts = {cmdline, args->tty, args->tty_columns, args->tty_rows,
		                              args->has_timeout_seconds ? args->timeout_seconds : 0};
		rc = hermes_started_start(hermes_verbs_started(call), &spec, &opts, p);
	}
	free(extra);
	free(argv);
	free(envp);
	free(cmdline);
	if (exe_fd >= 0)
		close(exe_fd);
	if (cwd_fd >= 0)
		close(cwd_fd);
	if (rc == -EAGAIN)
		hermes_result_fail(result, HERMES_E_LIMIT_REACHED,
		                   "cannot start '%s': %d programs started by proc.start are running "
		                   "already, as many as --max-processes allows; stop one with proc.stop "
		                   "(proc.list shows them)", hermes_ws_shown(exe, shown, sizeof shown),
		                   (int)call->config->max_processes);
	else if (rc)
		hermes_ws_fail(result, rc, "start", exe);
	return rc == 0;
}

void hermes_verb_proc_start(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_proc_start_args_t *args = args_;
	hermes_proc_start_result_t *result = result_;
	if (call->config->max_processes == HERMES_NO_STARTED_PROGRAMS || !hermes_verbs_started(call)) {
		hermes_result_fail(result, HERMES_E_NOT_ALLOWED,
		                   "proc.start is not available here: hermes exec runs one batch and exits, "
		                   "and a started program would end with it; use proc.run, or a Hermes "
		                   "that keeps running (hermes serve, hermes mcp, the console hermes -i)");
		return;
	}
	wait_for_t w = {0};
	if (args->wait_for && !wait_for_compile(&w, args->wait_for, result)) {
		wait_for_free(&w);
		return;
	}
	hermes_started_prog_t *p;
	if (!start(call, args, result, &p)) {
		wait_for_free(&w);
		return;
	}
	int wait_s = args->has_wait_seconds ? args->wait_seconds : args->wait_for ? 10 : 1;
	int64_t deadline = hermes_started_now_ms() + (int64_t)wait_s * 1000;
	int64_t scanned = 0;
	w.deadline_ms = deadline;
	w.cancel = call->cancel;
	hermes_started_info_t info;
	for (;;) {
		result->matched = args->wait_for && wait_for_scan(&w, p, &scanned);
		hermes_started_info(p, &info);
		if (result->matched || !info.running || hermes_started_now_ms() >= deadline ||
		    hermes_cancel_requested(call->cancel))
			break;
		/* without waitFor, only the end is awaited: output comes back here and waits on */
		hermes_started_wait(p, args->wait_for ? scanned : info.output_bytes, deadline, call->cancel);
	}
	wait_for_free(&w);
	if (hermes_cancel_requested(call->cancel) || info.start_error) {
		/* Cancelled: nobody will learn the id, so the program must not stay. */
		hermes_started_stop(p, SIGTERM, HERMES_RUN_GRACE_MS);
		hermes_started_info(p, &info);
		hermes_started_collect(p);
		hermes_started_release(p);
		if (info.start_error)
			hermes_verbs_exec_failed(result, info.start_error, args->executable);
		else
			hermes_result_fail(result, HERMES_E_CANCELLED, "proc.start of '%s' was cancelled; the "
			                   "program was stopped with everything it started", args->executable);
		result->matched = false;
		return;
	}
	output_fields_t f = {&result->stdout_, &result->stderr_, &result->next, &result->dropped_bytes,
	                     &result->more, &result->running, &result->has_exit_code, &result->exit_code};
	if (read_output(p, 0, START_OUTPUT_MAX, false, f, result, info.id)) {
		result->id = strdup(info.id);
		result->pid = info.pid;
		if (!result->id)
			hermes_result_fail(result, HERMES_E_INTERNAL, "cannot start '%s': out of memory", args->executable);
	}
	hermes_started_release(p);
}

/* ---- proc.output, proc.write, proc.stop, proc.list ------------------------------------- */

void hermes_verb_proc_output(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_proc_output_args_t *args = args_;
	hermes_proc_output_result_t *result = result_;
	hermes_started_prog_t *p = find(call, args->id, result);
	if (!p)
		return;
	int64_t since = args->has_since ? args->since : -1;
	if (args->wait_seconds > 0)
		hermes_started_wait(p, since, hermes_started_now_ms() + (int64_t)args->wait_seconds * 1000,
		                    call->cancel);
	output_fields_t f = {&result->stdout_, &result->stderr_, &result->next, &result->dropped_bytes,
	                     &result->more, &result->running, &result->has_exit_code, &result->exit_code};
	read_output(p, since, (size_t)args->max_bytes, false, f, result, args->id);
	hermes_started_release(p);
}

void hermes_verb_proc_write(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_proc_write_args_t *args = args_;
	hermes_proc_write_result_t *result = result_;
	hermes_started_prog_t *p = find(call, args->id, result);
	if (!p)
		return;
	size_t written = 0;
	int rc = hermes_started_write(p, args->text, strlen(args->text), args->close_stdin, &written);
	result->bytes_written = (int64_t)written;
	if (rc == -EBADF)
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "cannot write to '%s': its standard "
		                   "input was closed by an earlier proc.write with closeStdin", args->id);
	else if (rc == -EPIPE)
		hermes_result_fail(result, HERMES_E_IO_ERROR, "cannot write to '%s': it no longer reads its "
		                   "standard input (it closed it, or it ended)", args->id);
	else if (rc == -EMSGSIZE)
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT, "cannot write to '%s': its terminal "
		                   "reads whole lines (canonical mode) and keeps at most %d bytes of a line "
		                   "that has not ended, dropping the rest; end lines with \"\\n\" (this text "
		                   "would make one longer, with what earlier writes left unended), or have "
		                   "the program put its terminal in raw mode; nothing was written", args->id,
		                   HERMES_STARTED_TTY_LINE_MAX);
	else if (rc == -ETIMEDOUT)
		hermes_result_fail(result, HERMES_E_TIMEOUT, "cannot write to '%s': it read none of its input "
		                   "for %d s; %zu of %zu bytes were written", args->id,
		                   HERMES_STARTED_WRITE_MS / 1000, written, strlen(args->text));
	else if (rc)
		hermes_result_fail(result, HERMES_E_IO_ERROR, "cannot write to '%s': %s", args->id, strerror(-rc));
	if (rc)
		result->common.keep_fields = true; /* bytesWritten says how much went */
	hermes_started_release(p);
}

/* A signal by name (TERM, SIGTERM, term): its number, or 0. */
static int signal_number(const char *name)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{"TERM", SIGTERM}, {"INT", SIGINT}, {"HUP", SIGHUP}, {"QUIT", SIGQUIT},
		{"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
	};
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (strcasecmp(name, sigs[i].name) == 0)
			return sigs[i].sig;
	return 0;
}

void hermes_verb_proc_stop(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_proc_stop_args_t *args = args_;
	hermes_proc_stop_result_t *result = result_;
	char shown[256];
	int sig = signal_number(args->signal);
	if (!sig) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "cannot stop '%s': unknown signal '%s' (expected TERM, INT, HUP, QUIT, "
		                   "KILL, USR1 or USR2)", args->id, hermes_ws_shown(args->signal, shown, sizeof shown));
		return;
	}
	hermes_started_prog_t *p = find(call, args->id, result);
	if (!p)
		return;
	if (hermes_started_stop(p, sig, args->grace_seconds * 1000) != 0) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot stop '%s': it did not end even after "
		                   "SIGKILL", args->id);
		hermes_started_release(p);
		return;
	}
	output_fields_t f = {&result->stdout_, &result->stderr_, NULL, &result->dropped_bytes, NULL,
	                     NULL, NULL, &result->exit_code};
	if (read_output(p, -1, START_OUTPUT_MAX, true, f, result, args->id))
		hermes_started_collect(p);
	hermes_started_release(p);
}

void hermes_verb_proc_list(const hermes_call_t *call, const void *args_, void *result_)
{
	(void)args_;
	hermes_proc_list_result_t *result = result_;
	hermes_started_info_t *info = NULL;
	size_t n = 0;
	if (hermes_verbs_started(call) && hermes_started_list(hermes_verbs_started(call), &info, &n) != 0) {
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot list the started programs: out of memory");
		return;
	}
	result->programs = calloc(n ? n : 1, sizeof *result->programs);
	for (size_t i = 0; result->programs && i < n; i++) {
		hermes_started_program_t *e = &result->programs[i];
		char when[32];
		struct tm tm;
		gmtime_r(&info[i].started, &tm);
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
		e->id = strdup(info[i].id);
		e->command_line = hermes_text_lossy(info[i].command_line);
		e->start_time = strdup(when);
		e->pid = info[i].pid;
		e->running = info[i].running;
		e->has_exit_code = !info[i].running;
		e->exit_code = info[i].exit_code;
		e->output_bytes = info[i].output_bytes;
		e->tty = info[i].tty;
		result->programs_count = i + 1;
		if (!e->id || !e->command_line || !e->start_time)
			break;
	}
	free(info);
	bool complete = result->programs && result->programs_count == n &&
	                (n == 0 || (result->programs[n - 1].id && result->programs[n - 1].command_line &&
	                            result->programs[n - 1].start_time));
	if (!complete)
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot list the started programs: out of memory");
}
