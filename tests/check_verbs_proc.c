/* tests/check_verbs_proc.c: proc.run: direct execution, output files, exit codes, isolation of
 * the child (stdin, descriptors, process group), timeouts that end the whole group, cancel, the
 * output limit, concurrent runs, and every errorCode. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verbs_testlib.h"

/* Runs executable with the NULL-terminated arguments; timeout 0: none given. */
static cJSON *run(const char *exe, int timeout, ...)
{
	cJSON *a = vt_args("executable", exe, NULL);
	cJSON *list = cJSON_AddArrayToObject(a, "arguments");
	va_list ap;
	va_start(ap, timeout);
	for (const char *s; (s = va_arg(ap, const char *));)
		cJSON_AddItemToArray(list, cJSON_CreateString(s));
	va_end(ap);
	if (timeout)
		cJSON_AddNumberToObject(a, "timeoutSeconds", timeout);
	return vt_call("proc.run", a);
}

/* The content of a workspace file named in a result field. */
static char *output(const cJSON *r, const char *field)
{
	const char *rel = vt_str(r, field);
	ck_assert_msg(strncmp(rel, ".hermes/runs/", 13) == 0, "%s is %s", field, rel);
	char p[8300];
	snprintf(p, sizeof p, "ws/%s", rel);
	char *s = vt_get(p, NULL);
	ck_assert_msg(s != NULL, "%s does not exist", rel);
	return s;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(run_echo)
{
	cJSON *r = run("echo", 10, "hello", "two words", "$HOME", "'quoted'", NULL);
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "exitCode"), 0);
	char *out = output(r, "stdoutPath"), *err = output(r, "stderrPath");
	ck_assert_str_eq(out, "hello two words $HOME 'quoted'\n");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	/* The outputs can be read back through the verbs, as callers do. */
	cJSON *a = vt_args("path", vt_str(r, "stdoutPath"), NULL);
	cJSON_AddNumberToObject(a, "startLine", 1);
	cJSON_AddNumberToObject(a, "endLine", 1);
	cJSON *rr = vt_call("fs.readRange", a);
	ck_assert_str_eq(vt_str(rr, "content"), "1: hello two words $HOME 'quoted'\n");
	char *ignore = vt_get("ws/.hermes/.gitignore", NULL);
	ck_assert_ptr_nonnull(ignore);
	free(ignore);
}
END_TEST

START_TEST(run_exit_codes)
{
	cJSON *r = run("sh", 10, "-c", "echo out; echo err >&2; exit 3", NULL);
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "exitCode"), 3);
	char *out = output(r, "stdoutPath"), *err = output(r, "stderrPath");
	ck_assert_str_eq(out, "out\n");
	ck_assert_str_eq(err, "err\n");
	free(out);
	free(err);
	r = run("sh", 10, "-c", "kill -9 $$", NULL);
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "exitCode"), 128 + 9);
	r = run("sh", 10, "-c", "kill -TERM $$", NULL);
	ck_assert_int_eq(vt_int(r, "exitCode"), 128 + 15);
}
END_TEST

START_TEST(run_isolation)
{
	/* A descriptor hermes's host left inheritable must not reach the child. */
	int fd = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(dup2(fd, 50), 0);
	cJSON *r = run("sh", 10, "-c",
	               "test -e /proc/$$/fd/50 && echo leaked || echo clean; readlink /proc/$$/fd/0; "
	               "pwd -P; cut -d' ' -f5 /proc/$$/stat; echo $$; cat",
	               NULL);
	close(50);
	close(fd);
	vt_ok(r);
	char *out = output(r, "stdoutPath");
	char want[8400];
	char *pid_line = strrchr(out, '\n');
	*pid_line = '\0';
	pid_line = strrchr(out, '\n') + 1; /* the child's pid */
	char *pgid_line = pid_line - 2;
	while (pgid_line > out && pgid_line[-1] != '\n')
		pgid_line--;
	ck_assert_int_eq(atoi(pgid_line), atoi(pid_line)); /* its own process group */
	ck_assert_int_ne(atoi(pgid_line), (int)getpgrp());
	snprintf(want, sizeof want, "clean\n/dev/null\n%s\n", vt.root);
	ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "got %s, want %s", out, want);
	free(out);
}
END_TEST

START_TEST(run_workspace_programs)
{
	vt_put("ws/bin/hello.sh", "#!/bin/sh\necho \"script $1\"\n");
	chmod(vt_path("ws/bin/hello.sh"), 0755);
	const char *ways[] = {"./bin/hello.sh", "bin/hello.sh", "bin/../bin/hello.sh", NULL};
	char abs[8300];
	snprintf(abs, sizeof abs, "%s/bin/hello.sh", vt.root);
	for (int i = 0; i < 4; i++) {
		cJSON *r = run(i < 3 ? ways[i] : abs, 10, "arg", NULL);
		vt_ok(r);
		char *out = output(r, "stdoutPath");
		ck_assert_str_eq(out, "script arg\n");
		free(out);
	}
	vt_symlink("bin/hello.sh", "ws/hello-link");
	vt_ok(run("./hello-link", 10, NULL));
}
END_TEST

START_TEST(run_errors)
{
	vt_err(run("no-such-program-hermes-test", 10, NULL), "NotFound", "no-such-program-hermes-test");
	vt_err(run("./missing.sh", 10, NULL), "NotFound", "missing.sh");
	vt_put("ws/plain.txt", "not a program\n");
	chmod(vt_path("ws/plain.txt"), 0644);
	vt_err(run("./plain.txt", 10, NULL), "PermissionDenied", "plain.txt");
	vt_mkdir("ws/dir");
	vt_err(run("./dir", 10, NULL), "IsADirectory", "dir");
	vt_err(run("sh", -1, "-c", "true", NULL), "InvalidArguments", "timeoutSeconds");
	cJSON *a = vt_args("executable", "sh", NULL);
	cJSON_AddArrayToObject(a, "arguments");
	cJSON_AddNumberToObject(a, "timeoutSeconds", 0);
	vt_err(vt_call("proc.run", a), "InvalidArguments", "timeoutSeconds");
	vt_err(run("", 10, NULL), "InvalidArgument", NULL);
	vt_err(run("../outside.sh", 10, NULL), "OutsideWorkspace", "../outside.sh");
	vt_err(run("/nonexistent/hermes-program", 10, NULL), "NotFound", "hermes-program");
	vt_put("ws/bad-interpreter.sh", "#!/nonexistent/interpreter\n");
	chmod(vt_path("ws/bad-interpreter.sh"), 0755);
	vt_err(run("./bad-interpreter.sh", 10, NULL), "NotFound", "interpreter");
	/* Failed starts leave no output files behind. */
	cJSON *ls = vt_call("fs.listDir", vt_args("path", ".hermes/runs", NULL));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ls, "succeeded")))
		ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ls, "entries")), 0);
	/* an absolute path outside the workspace is a program of the system, like one in PATH */
	cJSON *sys = run("/bin/sh", 10, "-c", "exit 3", NULL);
	ck_assert_int_eq(vt_int(sys, "exitCode"), 3);
}
END_TEST

START_TEST(run_path_lookup)
{
	/* PATH is searched in order; a relative entry is taken from the workspace root; a program
	 * found only without execute permission is PermissionDenied, not NotFound. */
	vt_put("ws/tools/hermes-tool", "#!/bin/sh\necho from tools\n");
	chmod(vt_path("ws/tools/hermes-tool"), 0755);
	vt_put("ws/noexec/hermes-noexec", "#!/bin/sh\n");
	chmod(vt_path("ws/noexec/hermes-noexec"), 0644);
	char path[8300];
	const char *old = getenv("PATH");
	snprintf(path, sizeof path, "/nonexistent-dir:%s/noexec:tools:%s", vt.root, old ? old : "/bin");
	setenv("PATH", path, 1);
	cJSON *r = run("hermes-tool", 10, NULL);
	vt_ok(r);
	char *out = output(r, "stdoutPath");
	ck_assert_str_eq(out, "from tools\n");
	free(out);
	vt_err(run("hermes-noexec", 10, NULL), "PermissionDenied", "hermes-noexec");
	vt_err(run("hermes-nowhere", 10, NULL), "NotFound", "hermes-nowhere");
	vt_ok(run("sh", 10, "-c", "true", NULL)); /* still found further on */
}
END_TEST

/* After a timeout, no process of the program's group may remain. */
static void assert_group_gone(const cJSON *r)
{
	char *out = output(r, "stdoutPath");
	pid_t pgid = (pid_t)atoi(out);
	free(out);
	ck_assert_int_gt(pgid, 1);
	/* Every member has died: none left, or only zombies waiting for init to reap them. */
	errno = 0;
	if (kill(-pgid, 0) == -1 && errno == ESRCH)
		return;
	DIR *proc = opendir("/proc");
	ck_assert_ptr_nonnull(proc);
	struct dirent *de;
	while ((de = readdir(proc))) {
		char path[300], stat[512];
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(stat, 1, sizeof stat - 1, f);
		fclose(f);
		stat[n] = '\0';
		const char *p = strrchr(stat, ')');
		char state;
		long ppid, pgrp;
		if (p && sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3 && pgrp == (long)pgid)
			ck_assert_msg(state == 'Z' || state == 'X', "process %s of group %d is still running (%c)",
			              de->d_name, (int)pgid, state);
	}
	closedir(proc);
}

START_TEST(run_timeout_kills_group)
{
	double t0 = now();
	cJSON *r = run("sh", 1, "-c", "echo $$; sleep 100 & sleep 100", NULL);
	double took = now() - t0;
	vt_err(r, "Timeout", "sh");
	ck_assert_int_eq(vt_int(r, "exitCode"), 128 + 15);
	ck_assert_msg(took >= 0.9 && took < 4, "took %.2f s", took);
	assert_group_gone(r);
}
END_TEST

START_TEST(run_timeout_sigkill_after_grace)
{
	/* A group that ignores SIGTERM is killed after the grace period. */
	double t0 = now();
	cJSON *r = run("sh", 1, "-c", "trap '' TERM; echo $$; sleep 100 & sleep 100", NULL);
	double took = now() - t0;
	vt_err(r, "Timeout", NULL);
	ck_assert_int_eq(vt_int(r, "exitCode"), 128 + 9);
	ck_assert_msg(took >= 2.5 && took < 6, "took %.2f s", took);
	assert_group_gone(r);
}
END_TEST

/* Is the process whose pid is in the workspace file rel alive (not a zombie)? */
static bool pid_file_alive(const char *rel)
{
	char *s = NULL;
	for (int i = 0; i < 200 && !(s = vt_get(rel, NULL)); i++)
		usleep(10000);
	ck_assert_msg(s != NULL, "%s was not written", rel);
	pid_t pid = (pid_t)atoi(s);
	free(s);
	ck_assert_int_gt(pid, 1);
	char path[64], stat[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(stat, 1, sizeof stat - 1, f);
	fclose(f);
	stat[n] = '\0';
	const char *p = strrchr(stat, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

START_TEST(run_leaves_no_descendant)
{
	/* The program exits at once, leaving a background child: the run ends with it gone. */
	cJSON *r = run("sh", 20, "-c", "sleep 30 & echo $! > bg.pid; echo started", NULL);
	vt_ok(r);
	ck_assert_msg(!pid_file_alive("ws/bg.pid"), "a background child outlived its run");
	/* One that leaves its session (setsid) and its process group does not get away either. */
	r = run("sh", 20, "-c", "setsid sh -c 'echo $$ > s.pid; exec sleep 30' & sleep 0.2", NULL);
	vt_ok(r);
	ck_assert_msg(!pid_file_alive("ws/s.pid"), "a setsid child outlived its run");
	/* Nor at a timeout: the daemonised grandchild is stopped with the rest. */
	double t0 = now();
	r = run("sh", 1, "-c", "setsid sh -c 'echo $$ > t.pid; exec sleep 30' & exec sleep 30", NULL);
	vt_err(r, "Timeout", NULL);
	ck_assert_msg(now() - t0 < 4, "took %.2f s", now() - t0);
	ck_assert_msg(!pid_file_alive("ws/t.pid"), "a setsid child outlived its timeout");
	/* A background writer past the output limit is stopped with the rest when its program ends
	 * (it used to write on and on). */
	hermes_config_t c = {.proc_output_limit = 100000};
	vt_reopen(&c);
	r = run("sh", 20, "-c", "yes & head -c 300000 /dev/zero; sleep 0.2", NULL);
	vt_ok(r);
	struct stat a, b;
	char p[8300];
	snprintf(p, sizeof p, "ws/%s", vt_str(r, "stdoutPath"));
	ck_assert_int_eq(stat(vt_path(p), &a), 0);
	usleep(200000);
	ck_assert_int_eq(stat(vt_path(p), &b), 0);
	ck_assert_msg(a.st_size == b.st_size, "the output grew after the run: %lld then %lld bytes",
	              (long long)a.st_size, (long long)b.st_size);
}
END_TEST

/* A program that kills (or stops) its supervisor: the run reports its own exit code, and nothing
 * of it survives, with a cgroup per run where this machine allows one and without. */
START_TEST(run_survives_a_killed_supervisor)
{
	for (int mode = 0; mode < 2; mode++) {
		if (mode == 1)
			setenv("HERMES_PROC_CGROUP", "off", 1);
		cJSON *r = run("sh", 20, "-c", "setsid sleep 30 & echo $! > a.pid; sleep 30 & echo $! > b.pid; "
		               "kill -9 $PPID; sleep 0.3; exit 3", NULL);
		vt_ok(r);
		ck_assert_int_eq(vt_int(r, "exitCode"), 3);
		ck_assert_msg(!pid_file_alive("ws/a.pid"), "a setsid child outlived its run (mode %d)", mode);
		ck_assert_msg(!pid_file_alive("ws/b.pid"), "a child outlived its run (mode %d)", mode);
		r = run("sh", 20, "-c", "sleep 30 & echo $! > c.pid; kill -STOP $PPID; sleep 0.2; exit 4", NULL);
		vt_ok(r);
		ck_assert_int_eq(vt_int(r, "exitCode"), 4);
		ck_assert_msg(!pid_file_alive("ws/c.pid"), "a child outlived a stopped supervisor (mode %d)", mode);
		/* and at a timeout: Hermes stops what it took over */
		double t0 = now();
		r = run("sh", 1, "-c", "setsid sleep 30 & echo $! > d.pid; kill -9 $PPID; exec sleep 30", NULL);
		vt_err(r, "Timeout", NULL);
		ck_assert_msg(now() - t0 < 5, "took %.2f s", now() - t0);
		ck_assert_msg(!pid_file_alive("ws/d.pid"), "a setsid child outlived its timeout (mode %d)", mode);
		for (const char *f = "abcd"; *f; f++) {
			char rel[16];
			snprintf(rel, sizeof rel, "ws/%c.pid", *f);
			unlink(vt_path(rel));
		}
	}
	unsetenv("HERMES_PROC_CGROUP");
}
END_TEST

START_TEST(run_executes_the_checked_file)
{
	/* A script is run through its descriptor too (its interpreter reads /dev/fd/N). */
	vt_put("ws/tool.sh", "#!/bin/sh\necho \"args: $*\"\n");
	chmod(vt_path("ws/tool.sh"), 0755);
	cJSON *r = run("./tool.sh", 10, "a", "b", NULL);
	vt_ok(r);
	char *out = output(r, "stdoutPath");
	ck_assert_str_eq(out, "args: a b\n");
	free(out);
	/* A symlink inside the workspace to a program outside it is refused, not followed. */
	ck_assert_int_eq(symlink("/bin/echo", vt_path("ws/echo-link")), 0);
	vt_err(run("./echo-link", 10, "x", NULL), "OutsideWorkspace", "echo-link");
}
END_TEST

START_TEST(run_cwd_env_stdin)
{
	/* arguments may be left out */
	cJSON *r = vt_call("proc.run", vt_args("executable", "true", NULL));
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "exitCode"), 0);
	/* cwd, env (the last entry of a name wins, replacing the inherited one) and stdin */
	vt_mkdir("ws/sub");
	setenv("HERMES_TEST_INHERITED", "old", 1);
	cJSON *a = vt_args("executable", "sh", "cwd", "sub", "stdin", "line one\nline two\n", NULL);
	cJSON *list = cJSON_AddArrayToObject(a, "arguments");
	cJSON_AddItemToArray(list, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(list, cJSON_CreateString("pwd; wc -l; echo \"$A $B $HERMES_TEST_INHERITED\""));
	cJSON *env = cJSON_AddArrayToObject(a, "env");
	cJSON_AddItemToArray(env, cJSON_CreateString("A=1"));
	cJSON_AddItemToArray(env, cJSON_CreateString("B=x=y"));
	cJSON_AddItemToArray(env, cJSON_CreateString("A=2"));
	cJSON_AddItemToArray(env, cJSON_CreateString("HERMES_TEST_INHERITED=new"));
	r = vt_call("proc.run", a);
	vt_ok(r);
	char *out = output(r, "stdoutPath");
	char expect[8300];
	snprintf(expect, sizeof expect, "%s\n2\n2 x=y new\n", vt_path("ws/sub"));
	ck_assert_str_eq(out, expect);
	free(out);
	unsetenv("HERMES_TEST_INHERITED");
	/* bad ones */
	a = vt_args("executable", "true", NULL);
	env = cJSON_AddArrayToObject(a, "env");
	cJSON_AddItemToArray(env, cJSON_CreateString("NOEQUALS"));
	vt_err(vt_call("proc.run", a), "InvalidArgument", "NOEQUALS");
	a = vt_args("executable", "true", NULL);
	env = cJSON_AddArrayToObject(a, "env");
	cJSON_AddItemToArray(env, cJSON_CreateString("=x"));
	vt_err(vt_call("proc.run", a), "InvalidArgument", "env entry 0");
	vt_err(vt_call("proc.run", vt_args("executable", "true", "cwd", "nope", NULL)), "NotFound", "nope");
	vt_err(vt_call("proc.run", vt_args("executable", "true", "cwd", "../", NULL)), "OutsideWorkspace", NULL);
	vt_put("ws/file.txt", "x\n");
	vt_err(vt_call("proc.run", vt_args("executable", "true", "cwd", "file.txt", NULL)), "NotADirectory", NULL);
}
END_TEST

START_TEST(run_default_timeout)
{
	hermes_config_t c = {.proc_timeout_seconds = 1};
	vt_reopen(&c);
	cJSON *r = run("sh", 0, "-c", "echo $$; exec sleep 100", NULL);
	vt_err(r, "Timeout", NULL);
	assert_group_gone(r);
}
END_TEST

START_TEST(run_output_limit)
{
	/* Past the limit the program goes on; each stream keeps its first and last quarter of it,
	 * with a line between them saying how much was left out (build errors are at the end). */
	hermes_config_t c = {.proc_output_limit = 100000};
	vt_reopen(&c);
	cJSON *r = run("sh", 20, "-c", "seq 1 200000; echo 'error: the last line' >&2; "
	               "echo 'the last line'", NULL);
	vt_ok(r);
	char *out = output(r, "stdoutPath");
	size_t len = strlen(out);
	long long omitted = vt_int(r, "outputBytesOmitted");
	/* seq 1 200000 writes 1288895 bytes, the echo 14 more */
	ck_assert_int_eq(omitted, 1288895 + 14 - 2 * 25000);
	ck_assert_msg(strncmp(out, "1\n2\n3\n", 6) == 0, "the head is kept");
	ck_assert_msg(len > 14 && strcmp(out + len - 14, "the last line\n") == 0, "the tail is kept");
	ck_assert_ptr_nonnull(strstr(out, "bytes of output left out here"));
	ck_assert_int_lt(len, 2 * 25000 + 200);
	free(out);
	char *err = output(r, "stderrPath");
	ck_assert_str_eq(err, "error: the last line\n");
	free(err);
	ck_assert_int_eq(vt_int(run("sh", 20, "-c", "echo small", NULL), "outputBytesOmitted"), 0);
	/* an endless writer is stopped by its time limit, its output bounded all along */
	r = run("sh", 1, "-c", "echo $$; exec yes", NULL);
	vt_err(r, "Timeout", NULL);
	ck_assert_int_eq(vt_int(r, "exitCode"), 128 + 15);
	assert_group_gone(r);
	char path[8300];
	snprintf(path, sizeof path, "ws/%s", vt_str(r, "stdoutPath"));
	struct stat st;
	ck_assert_int_eq(stat(vt_path(path), &st), 0);
	ck_assert_int_lt(st.st_size, 2 * 25000 + 200);
}
END_TEST

static void *cancel_later(void *arg)
{
	usleep(300 * 1000);
	hermes_cancel_request(arg);
	return NULL;
}

START_TEST(run_cancelled)
{
	hermes_cancel_t *cancel = hermes_cancel_new();
	ck_assert_ptr_nonnull(cancel);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, cancel_later, cancel), 0);
	const char *env = "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"sh\",\"arguments\":"
	                  "[\"-c\",\"echo $$; sleep 100 & sleep 100\"],\"timeoutSeconds\":60}}";
	char *json = NULL;
	double t0 = now();
	hermes_outcome_t o = hermes_execute(vt.ex, env, strlen(env), 0, cancel, &json, NULL);
	double took = now() - t0;
	pthread_join(t, NULL);
	hermes_cancel_free(cancel);
	ck_assert_int_eq(o, HERMES_OUTCOME_FAILED);
	cJSON *r = cJSON_Parse(json);
	free(json);
	vt_err(r, "Cancelled", NULL);
	ck_assert_msg(took < 3, "took %.2f s", took);
	assert_group_gone(r);
	cJSON_Delete(r);
}
END_TEST

static void *runner(void *arg)
{
	long id = (long)arg;
	char **paths = calloc(5, sizeof *paths);
	for (int i = 0; i < 5; i++) {
		char env[256], *json = NULL;
		snprintf(env, sizeof env, "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"echo\","
		         "\"arguments\":[\"run-%ld-%d\"]}}", id, i);
		hermes_execute(vt.ex, env, strlen(env), 0, NULL, &json, NULL);
		cJSON *r = cJSON_Parse(json);
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "stdoutPath");
		paths[i] = cJSON_IsString(p) ? strdup(p->valuestring) : NULL;
		cJSON_Delete(r);
		free(json);
	}
	return paths;
}

/* .hermes/runs is bounded at every run: the newest 100 runs, none older than a week, their sizes
 * under --runs-max-bytes; the files of a running program (held: an OFD lock on its stdout) are
 * never removed, whoever runs it. */
static void fake_run(time_t started, long pid, int n, int touched_ago)
{
	char stem[128], rel[192];
	struct tm tm;
	gmtime_r(&started, &tm);
	size_t k = strftime(stem, sizeof stem, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(stem + k, sizeof stem - k, "-%ld-%d", pid, n);
	const char *ext[] = {"stdout", "stderr"};
	for (int i = 0; i < 2; i++) {
		snprintf(rel, sizeof rel, "ws/.hermes/runs/%s.%s", stem, ext[i]);
		vt_put(rel, "output\n");
		struct timespec t[2] = {{time(NULL) - touched_ago, 0}, {time(NULL) - touched_ago, 0}};
		ck_assert_int_eq(utimensat(AT_FDCWD, vt_path(rel), t, 0), 0);
	}
}

/* Holds a fake run's stdout as a running program's Hermes does; returns the descriptor. */
static int hold_run(const char *needle)
{
	DIR *d = opendir(vt_path("ws/.hermes/runs"));
	int fd = -1;
	for (struct dirent *de; fd < 0 && (de = readdir(d));) {
		if (strstr(de->d_name, needle) && strstr(de->d_name, ".stdout")) {
			fd = openat(dirfd(d), de->d_name, O_WRONLY | O_CLOEXEC);
			struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
			ck_assert_int_eq(fcntl(fd, F_OFD_SETLK, &fl), 0);
		}
	}
	closedir(d);
	ck_assert_int_ge(fd, 0);
	return fd;
}

static int count_runs(const char *needle)
{
	DIR *d = opendir(vt_path("ws/.hermes/runs"));
	int n = 0;
	for (struct dirent *de; (de = readdir(d));)
		n += strstr(de->d_name, ".stdout") != NULL && (!needle || strstr(de->d_name, needle));
	closedir(d);
	return n;
}

/* The sizes of the files in .hermes/runs. */
static long long runs_bytes(void)
{
	DIR *d = opendir(vt_path("ws/.hermes/runs"));
	long long n = 0;
	struct stat st;
	for (struct dirent *de; (de = readdir(d));)
		if (fstatat(dirfd(d), de->d_name, &st, 0) == 0 && S_ISREG(st.st_mode))
			n += st.st_size;
	closedir(d);
	return n;
}

START_TEST(runs_directory_is_bounded)
{
	vt_ok(run("true", 0, NULL)); /* creates .hermes/runs */
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	long dead = (long)p;
	time_t now = time(NULL);
	for (int i = 0; i < 5; i++)
		fake_run(now - 10 * 86400 + i, dead, 9000 + i, 10 * 86400);   /* too old */
	for (int i = 0; i < 2; i++)
		fake_run(now - 10 * 86400 + 10 + i, (long)getpid(), 9100 + i, 10 * 86400); /* running */
	fake_run(now - 9 * 86400, (long)getpid(), 9200, 60);           /* too old, this process */
	for (int i = 0; i < 150; i++)
		fake_run(now - 2 * 86400 + i, dead, 10000 + i, 2 * 86400);
	int held[2] = {hold_run("-9100."), hold_run("-9101.")};
	vt_ok(run("true", 0, NULL));
	ck_assert_int_eq(count_runs("-900"), 0);
	ck_assert_int_eq(count_runs("-910"), 2);
	ck_assert_int_eq(count_runs("-9200"), 0);
	/* 159 runs: the 6 too old and not running went, then the oldest until 99 were left (the 2
	 * running ones among them: 10000..10053 went), then the new run was added */
	ck_assert_int_eq(count_runs(NULL), 100);
	ck_assert_int_eq(count_runs("-10149."), 1); /* the newest stayed */
	ck_assert_int_eq(count_runs("-10053."), 0);
	ck_assert_int_eq(count_runs("-10054."), 1);
	close(held[0]);
	close(held[1]);
	vt_ok(run("true", 0, NULL)); /* no longer running: too old */
	ck_assert_int_eq(count_runs("-910"), 0);
	ck_assert_int_eq(count_runs(NULL), 99);
}
END_TEST

/* The sizes of the finished runs stay under --runs-max-bytes; the newest run stays whatever its
 * size. */
START_TEST(runs_bytes_are_bounded)
{
	hermes_config_t c = {.runs_max_bytes = 1000000};
	vt_reopen(&c);
	for (int i = 0; i < 12; i++) {
		cJSON *r = run("head", 0, "-c", "300000", "/dev/zero", NULL);
		vt_ok(r);
		/* the others add up to the bound at most, and this one is whole */
		ck_assert_int_le(runs_bytes(), 1000000 + 300000);
		char rel[8300];
		snprintf(rel, sizeof rel, "ws/%s", vt_str(r, "stdoutPath"));
		struct stat st;
		ck_assert_int_eq(stat(vt_path(rel), &st), 0);
		ck_assert_int_eq(st.st_size, 300000);
	}
	ck_assert_int_eq(count_runs(NULL), 4);
	vt_ok(run("head", 0, "-c", "3000000", "/dev/zero", NULL));
	ck_assert_int_eq(count_runs(NULL), 4); /* the bound counted the others before it started */
	cJSON *r = run("true", 0, NULL);
	vt_ok(r);
	ck_assert_int_eq(count_runs(NULL), 2); /* the big one is the newest before this one */
	ck_assert_int_le(runs_bytes(), 3000000);
}
END_TEST

/* 700 runs in a burst, from 8 threads, leave the bound (100) and the files of a program that
 * runs all along. */
static void *burst(void *arg)
{
	(void)arg;
	for (int i = 0; i < 88; i++) {
		char *json = NULL;
		static const char env[] = "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"true\"}}";
		hermes_outcome_t o = hermes_execute(vt.ex, env, sizeof env - 1, 0, NULL, &json, NULL);
		free(json);
		if (o != HERMES_OUTCOME_SUCCEEDED)
			return (void *)1;
	}
	return NULL;
}

static void *run_until_fifo(void *arg)
{
	(void)arg;
	char *json = NULL;
	static const char env[] = "{\"verb\":\"proc.run\",\"arguments\":{\"executable\":\"sh\","
	                          "\"arguments\":[\"-c\",\"echo waiting; cat fifo\"]}}";
	hermes_execute(vt.ex, env, sizeof env - 1, 0, NULL, &json, NULL);
	return json;
}

START_TEST(runs_bounded_in_a_burst)
{
	vt_ok(run("true", 0, NULL));
	ck_assert_int_eq(mkfifo(vt_path("ws/fifo"), 0600), 0);
	pthread_t waiter, t[8];
	ck_assert_int_eq(pthread_create(&waiter, NULL, run_until_fifo, NULL), 0);
	while (count_runs(NULL) < 2)
		usleep(10 * 1000);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, burst, NULL), 0);
	for (int i = 0; i < 8; i++) {
		void *failed;
		pthread_join(t[i], &failed);
		ck_assert_ptr_null(failed);
	}
	ck_assert_int_le(count_runs(NULL), 100);
	int fd = open(vt_path("ws/fifo"), O_WRONLY | O_CLOEXEC);
	ck_assert_int_eq(write(fd, "done\n", 5), 5);
	close(fd);
	char *json;
	pthread_join(waiter, (void **)&json);
	cJSON *r = cJSON_Parse(json);
	free(json);
	vt_ok(r);
	char *out = output(r, "stdoutPath"); /* it ran through 704 runs and is still there */
	ck_assert_str_eq(out, "waiting\ndone\n");
	free(out);
	cJSON_Delete(r);
}
END_TEST

START_TEST(run_concurrently)
{
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, runner, (void *)i), 0);
	char *all[20];
	for (long i = 0; i < 4; i++) {
		char **paths;
		pthread_join(t[i], (void **)&paths);
		for (int j = 0; j < 5; j++) {
			ck_assert_ptr_nonnull(paths[j]);
			char rel[8300], want[64];
			snprintf(rel, sizeof rel, "ws/%s", paths[j]);
			char *out = vt_get(rel, NULL);
			snprintf(want, sizeof want, "run-%ld-%d\n", i, j);
			ck_assert_str_eq(out, want);
			free(out);
			all[i * 5 + j] = paths[j];
		}
		free(paths);
	}
	for (int i = 0; i < 20; i++) {
		for (int j = i + 1; j < 20; j++)
			ck_assert_str_ne(all[i], all[j]);
	}
	for (int i = 0; i < 20; i++)
		free(all[i]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs-proc");
	TCase *tc = tcase_create("proc");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, run_echo);
	tcase_add_test(tc, run_exit_codes);
	tcase_add_test(tc, run_isolation);
	tcase_add_test(tc, run_workspace_programs);
	tcase_add_test(tc, run_errors);
	tcase_add_test(tc, run_path_lookup);
	tcase_add_test(tc, run_timeout_kills_group);
	tcase_add_test(tc, run_timeout_sigkill_after_grace);
	tcase_add_test(tc, run_default_timeout);
	tcase_add_test(tc, run_leaves_no_descendant);
	tcase_add_test(tc, run_survives_a_killed_supervisor);
	tcase_add_test(tc, run_cwd_env_stdin);
	tcase_add_test(tc, run_executes_the_checked_file);
	tcase_add_test(tc, run_output_limit);
	tcase_add_test(tc, run_cancelled);
	tcase_add_test(tc, run_concurrently);
	tcase_add_test(tc, runs_directory_is_bounded);
	tcase_add_test(tc, runs_bytes_are_bounded);
	suite_add_tcase(s, tc);
	TCase *burst = tcase_create("burst"); /* 704 programs: slow where the processors are busy */
	tcase_add_checked_fixture(burst, vt_setup, vt_teardown);
	tcase_set_timeout(burst, 240);
	tcase_add_test(burst, runs_bounded_in_a_burst);
	suite_add_tcase(s, burst);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
