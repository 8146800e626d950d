/* tests/check_verbs_started.c: proc.start, proc.output, proc.write, proc.stop and proc.list
 * through the library: output kept apart and bounded, waitFor, waits that end as soon as output
 * comes, a terminal, input and its end, stops that end the whole tree, the limit, programs that
 * end with the executor, and every error. */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "verbs_testlib.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* proc.start of sh -c script, with more arguments (JSON members) after it, e.g. "\"tty\":true". */
static cJSON *start_sh(const char *script, const char *more)
{
	cJSON *a = vt_args("executable", "sh", NULL);
	cJSON *list = cJSON_AddArrayToObject(a, "arguments");
	cJSON_AddItemToArray(list, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(list, cJSON_CreateString(script));
	if (more && *more) {
		char text[1024];
		snprintf(text, sizeof text, "{%s}", more);
		cJSON *extra = cJSON_Parse(text);
		ck_assert_ptr_nonnull(extra);
		for (cJSON *m = extra->child; m;) {
			cJSON *next = m->next;
			cJSON_AddItemToObject(a, m->string, cJSON_DetachItemViaPointer(extra, m));
			m = next;
		}
		cJSON_Delete(extra);
	}
	return vt_call("proc.start", a);
}

/* The id of a started program (copied: the next call frees the result). */
static char *started_id(cJSON *r)
{
	vt_ok(r);
	const char *id = vt_str(r, "id");
	/* <instance>.p<N>-<hex>: the instance is the host's name by default */
	const char *dot = strchr(id, '.');
	ck_assert_msg(dot && dot[1] == 'p' && strchr(dot, '-'), "id %s", id);
	return strdup(id);
}

static cJSON *output(const char *id, const char *more)
{
	return vt_exec("{\"verb\":\"proc.output\",\"arguments\":{\"id\":\"%s\"%s%s}}", id,
	               more ? "," : "", more ? more : "");
}

static cJSON *stop(const char *id, const char *more)
{
	return vt_exec("{\"verb\":\"proc.stop\",\"arguments\":{\"id\":\"%s\"%s%s}}", id,
	               more ? "," : "", more ? more : "");
}

static cJSON *write_text(const char *id, const char *json_text, bool close)
{
	return vt_exec("{\"verb\":\"proc.write\",\"arguments\":{\"id\":\"%s\",\"text\":%s,"
	               "\"closeStdin\":%s}}", id, json_text, close ? "true" : "false");
}

/* Reads the program's output until it holds want (or 20 s pass); returns all of its stdout. */
static char *read_until(const char *id, const char *want)
{
	size_t cap = 1 << 16, len = 0;
	char *all = calloc(cap, 1);
	double until = now() + 20;
	while (!strstr(all, want) && now() < until) {
		cJSON *r = output(id, "\"waitSeconds\":2");
		vt_ok(r);
		const char *s = vt_str(r, "stdout");
		size_t n = strlen(s);
		ck_assert(len + n < cap);
		memcpy(all + len, s, n + 1);
		len += n;
		if (!vt_bool(r, "running"))
			break;
	}
	return all;
}

static bool gone_within(pid_t pid, double seconds)
{
	double until = now() + seconds;
	while (now() < until) {
		if (kill(pid, 0) != 0 && errno == ESRCH)
			return true;
		usleep(20000);
	}
	return false;
}

START_TEST(start_output_stop)
{
	char *id = started_id(start_sh("echo out; echo err >&2; exec sleep 60", "\"waitFor\":\"err\""));
	cJSON *r = vt.last;
	ck_assert(vt_bool(r, "matched"));
	ck_assert(vt_bool(r, "running"));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "exitCode")));
	pid_t pid = (pid_t)vt_int(r, "pid");
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(kill(pid, 0), 0);
	/* What came so far, apart: the two streams and the offset after both. */
	ck_assert_str_eq(vt_str(r, "stdout"), "out\n");
	ck_assert_str_eq(vt_str(r, "stderr"), "err\n");
	ck_assert_int_eq(vt_int(r, "next"), 8);
	ck_assert_int_eq(vt_int(r, "droppedBytes"), 0);
	/* Read again from 0 and from the middle; without since, from where the last read stopped. */
	r = output(id, "\"since\":0");
	ck_assert_str_eq(vt_str(r, "stdout"), "out\n");
	ck_assert_str_eq(vt_str(r, "stderr"), "err\n");
	r = output(id, "\"since\":4");
	ck_assert_str_eq(vt_str(r, "stdout"), "");
	ck_assert_str_eq(vt_str(r, "stderr"), "err\n");
	r = output(id, NULL);
	ck_assert_str_eq(vt_str(r, "stdout"), "");
	ck_assert_int_eq(vt_int(r, "next"), 8);
	ck_assert(vt_bool(r, "running"));
	r = output(id, "\"since\":9");
	vt_err(r, "InvalidArgument", "since 9 is past the end");
	/* proc.list shows it. */
	r = vt_exec("{\"verb\":\"proc.list\",\"arguments\":{}}");
	vt_ok(r);
	cJSON *progs = cJSON_GetObjectItem(r, "programs");
	ck_assert_int_eq(cJSON_GetArraySize(progs), 1);
	cJSON *e = cJSON_GetArrayItem(progs, 0);
	ck_assert_str_eq(vt_str(e, "id"), id);
	ck_assert_str_eq(vt_str(e, "commandLine"), "sh -c 'echo out; echo err >&2; exec sleep 60'");
	ck_assert_int_eq(vt_int(e, "pid"), pid);
	ck_assert(vt_bool(e, "running"));
	ck_assert_int_eq(vt_int(e, "outputBytes"), 8);
	ck_assert(strlen(vt_str(e, "startTime")) == 20);
	/* Stop: SIGTERM ends it; its id is forgotten. */
	r = stop(id, NULL);
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "exitCode"), 128 + SIGTERM);
	ck_assert(gone_within(pid, 5));
	vt_err(output(id, NULL), "NotFound", id);
	vt_err(stop(id, NULL), "NotFound", id);
	r = vt_exec("{\"verb\":\"proc.list\",\"arguments\":{}}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "programs")), 0);
	free(id);
}
END_TEST

START_TEST(ended_program_keeps_its_output)
{
	char *id = started_id(start_sh("echo bye; exit 3", "\"waitSeconds\":0"));
	cJSON *r = output(id, "\"since\":0,\"waitSeconds\":10");
	double until = now() + 10;
	while (vt_bool(r, "running") && now() < until)
		r = output(id, "\"since\":0,\"waitSeconds\":1");
	ck_assert(!vt_bool(r, "running"));
	ck_assert_int_eq(vt_int(r, "exitCode"), 3);
	ck_assert_str_eq(vt_str(r, "stdout"), "bye\n");
	/* writing to it is a clear error, not a SIGPIPE for us */
	vt_err(write_text(id, "\"more\\n\"", false), "IoError", "no longer reads");
	r = stop(id, NULL);
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "exitCode"), 3);
	vt_err(output(id, NULL), "NotFound", NULL);
	free(id);
}
END_TEST

START_TEST(wait_seconds_returns_when_output_comes)
{
	char *id = started_id(start_sh("sleep 1; echo late; exec sleep 60", "\"waitSeconds\":0"));
	cJSON *r = output(id, "\"waitSeconds\":0");
	ck_assert_str_eq(vt_str(r, "stdout"), "");
	double t0 = now();
	r = output(id, "\"waitSeconds\":60");
	double took = now() - t0;
	ck_assert_str_eq(vt_str(r, "stdout"), "late\n");
	ck_assert_msg(took < 30, "proc.output waited %.1f s of 60 for output that came after 1", took);
	/* proc.start without waitFor waits for the end, which comes before waitSeconds */
	free(id);
	t0 = now();
	id = started_id(start_sh("echo quick", "\"waitSeconds\":60"));
	ck_assert(!vt_bool(vt.last, "running"));
	ck_assert_int_eq(vt_int(vt.last, "exitCode"), 0);
	ck_assert_str_eq(vt_str(vt.last, "stdout"), "quick\n");
	ck_assert_msg(now() - t0 < 30, "proc.start waited %.1f s", now() - t0);
	free(id);
	vt_reopen(NULL);
}
END_TEST

START_TEST(wait_for)
{
	/* matched in an unfinished line (a prompt), on stderr as well */
	char *id = started_id(start_sh("sleep 0.2; printf 'ready> ' >&2; exec sleep 60",
	                               "\"waitFor\":\"^ready>\",\"waitSeconds\":60"));
	ck_assert(vt_bool(vt.last, "matched"));
	ck_assert_str_eq(vt_str(vt.last, "stderr"), "ready> ");
	free(id);
	/* not matched within waitSeconds: the program runs on */
	double t0 = now();
	id = started_id(start_sh("echo nothing here; exec sleep 60", "\"waitFor\":\"never\",\"waitSeconds\":1"));
	ck_assert(!vt_bool(vt.last, "matched"));
	ck_assert(vt_bool(vt.last, "running"));
	ck_assert(now() - t0 >= 0.9);
	free(id);
	/* a program that ends before matching: answered at its end */
	id = started_id(start_sh("echo done", "\"waitFor\":\"never\",\"waitSeconds\":60"));
	ck_assert(!vt_bool(vt.last, "matched"));
	ck_assert(!vt_bool(vt.last, "running"));
	free(id);
	/* a line exactly as long as the pieces a long line is matched in (64 KiB): the newline
	 * that ends it is not the start of the next line */
	id = started_id(start_sh("head -c 65536 /dev/zero | tr '\\0' x; echo; echo ready; exec sleep 60",
	                         "\"waitFor\":\"^ready$\",\"waitSeconds\":20"));
	ck_assert(vt_bool(vt.last, "matched"));
	free(id);
	vt_err(start_sh("true", "\"waitFor\":\"(unclosed\""), "InvalidArgument", "invalid waitFor '(unclosed'");
	vt_reopen(NULL);
}
END_TEST

/* Is name a program in PATH (as proc.start will look it up)? */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		char full[4096];
		snprintf(full, sizeof full, "%.*s/%s", (int)n, p, name);
		if (n > 0 && access(full, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* The REPL under a terminal: Python's (skipped, saying so, where python3 is not in PATH, as on a
 * machine that builds the tarball without Python). */
static void python_repl(void)
{
	if (!on_path("python3")) {
		printf("SKIP: tty_repl's REPL part: python3 is not in PATH\n");
		fflush(stdout);
		return;
	}
	cJSON *a = vt_args("executable", "python3", NULL);
	cJSON *list = cJSON_AddArrayToObject(a, "arguments");
	cJSON_AddItemToArray(list, cJSON_CreateString("-i"));
	cJSON_AddItemToArray(list, cJSON_CreateString("-q"));
	cJSON_AddBoolToObject(a, "tty", true);
	cJSON_AddStringToObject(a, "waitFor", ">>> ");
	char *id = started_id(vt_call("proc.start", a));
	ck_assert(vt_bool(vt.last, "matched"));
	vt_ok(write_text(id, "\"print(6*7)\\n\"", false));
	ck_assert_int_eq(vt_int(vt.last, "bytesWritten"), 11);
	char *all = read_until(id, "42\r\n>>> ");
	ck_assert_msg(strstr(all, "\r\n42\r\n"), "no 42 in %s", all);
	free(all);
	/* Ctrl-D at the prompt ends the REPL (typed before it, it can be lost: readline switches the
	 * terminal out of canonical mode when it prompts, and an EOF pending then is dropped) */
	vt_ok(write_text(id, "\"\"", true));
	cJSON *r;
	double until = now() + 20;
	do
		r = output(id, "\"waitSeconds\":2");
	while (vt_bool(r, "running") && now() < until);
	ck_assert(!vt_bool(r, "running"));
	ck_assert_int_eq(vt_int(r, "exitCode"), 0);
	vt_err(write_text(id, "\"x\"", false), "InvalidArgument", "closeStdin");
	vt_ok(stop(id, NULL));
	free(id);
}

/* proc.write of text (any length) to id. */
static cJSON *write_long(const char *id, const char *text, bool close)
{
	cJSON *a = vt_args("id", id, "text", text, NULL);
	cJSON_AddBoolToObject(a, "closeStdin", close);
	return vt_call("proc.write", a);
}

/* The bytes a program got, once it ended: the size of its file. */
static long long got_size(const char *id, const char *rel)
{
	cJSON *r;
	double until = now() + 20;
	do
		r = output(id, "\"waitSeconds\":2");
	while (vt_bool(r, "running") && now() < until);
	ck_assert(!vt_bool(r, "running"));
	size_t len = 0;
	char *data = vt_get(rel, &len);
	ck_assert_ptr_nonnull(data);
	free(data);
	return (long long)len;
}

START_TEST(tty_write_counts_what_the_program_reads)
{
	/* canonical mode: the terminal keeps 4095 bytes of an unended line and drops the rest, so a
	 * write that would make a longer line is refused whole, counting earlier unended bytes */
	char *big = malloc(200001);
	memset(big, 'x', 200000);
	big[200000] = '\0';
	char *id = started_id(start_sh("stty -echo; echo ready; cat > got",
	                               "\"tty\":true,\"waitFor\":\"ready\",\"waitSeconds\":20"));
	ck_assert(vt_bool(vt.last, "matched"));
	long long sent = 0;
	vt_err(write_long(id, big, false), "InvalidArgument", "4095 bytes of a line");
	ck_assert_int_eq(vt_int(vt.last, "bytesWritten"), 0);
	big[3000] = '\0';
	vt_ok(write_long(id, big, false));
	sent += vt_int(vt.last, "bytesWritten");
	ck_assert_int_eq(sent, 3000);
	big[3000] = 'x';
	big[1200] = '\0';
	vt_err(write_long(id, big, false), "InvalidArgument", "canonical");
	ck_assert_int_eq(vt_int(vt.last, "bytesWritten"), 0);
	big[1200] = 'x';
	big[1000] = '\n';
	big[1001] = '\0';
	vt_ok(write_long(id, big, false)); /* ends the line: 4000 bytes */
	sent += vt_int(vt.last, "bytesWritten");
	big[1000] = big[1001] = 'x';
	vt_ok(write_long(id, "", true));
	ck_assert_int_eq(got_size(id, "ws/got"), sent);
	ck_assert_int_eq(sent, 4001);
	vt_ok(stop(id, NULL));
	free(id);
	/* raw mode: no line limit, and all of it is read */
	id = started_id(start_sh("stty raw -echo; echo ready; head -c 200000 > got2",
	                         "\"tty\":true,\"waitFor\":\"ready\",\"waitSeconds\":20"));
	vt_ok(write_long(id, big, false));
	ck_assert_int_eq(vt_int(vt.last, "bytesWritten"), 200000);
	ck_assert_int_eq(got_size(id, "ws/got2"), 200000);
	vt_ok(stop(id, NULL));
	free(id);
	free(big);
	vt_reopen(NULL);
}
END_TEST

START_TEST(tty_repl)
{
	python_repl();
	char *id;
	/* the terminal is the program's, with the size asked for */
	id = started_id(start_sh("test -t 0 && test -t 1 && stty size && echo $TERM",
	                         "\"tty\":true,\"ttyColumns\":100,\"ttyRows\":30,\"waitSeconds\":20"));
	ck_assert_str_eq(vt_str(vt.last, "stdout"), "30 100\r\ndumb\r\n");
	free(id);
}
END_TEST

START_TEST(stdin_pipe)
{
	char *id = started_id(start_sh("cat; echo end", "\"waitSeconds\":0"));
	vt_ok(write_text(id, "\"one\\ntwo\"", false));
	vt_ok(write_text(id, "\"\\n\"", true));
	char *all = read_until(id, "end\n");
	ck_assert_str_eq(all, "one\ntwo\nend\n");
	free(all);
	vt_err(write_text(id, "\"more\"", false), "InvalidArgument", "closed by an earlier proc.write");
	free(id);
	/* a program that closed its input: IoError, and we get no SIGPIPE */
	id = started_id(start_sh("exec 0<&-; echo closed; exec sleep 60", "\"waitFor\":\"closed\""));
	vt_err(write_text(id, "\"x\"", false), "IoError", "no longer reads its standard input");
	vt_ok(stop(id, "\"signal\":\"KILL\""));
	ck_assert_int_eq(vt_int(vt.last, "exitCode"), 128 + SIGKILL);
	free(id);
	vt_reopen(NULL);
}
END_TEST

START_TEST(output_is_bounded)
{
	/* 5 MB at once: the last 1 MiB is kept, the rest counted as dropped */
	double t0 = now();
	char *id = started_id(start_sh("head -c 5000000 /dev/zero | tr '\\0' x; echo; echo done; exec sleep 60",
	                               "\"waitFor\":\"^done$\",\"waitSeconds\":60"));
	cJSON *r = vt.last;
	ck_assert_msg(vt_bool(r, "matched"), "not matched after %.1f s: running %d, next %lld, dropped %lld",
	              now() - t0, vt_bool(r, "running"), (long long)vt_int(r, "next"), (long long)vt_int(r, "droppedBytes"));
	ck_assert(vt_bool(r, "more"));
	ck_assert_int_eq(strlen(vt_str(r, "stdout")), 65536);
	r = output(id, "\"since\":0,\"maxBytes\":1048576");
	ck_assert_int_eq(vt_int(r, "next"), 5000006);
	ck_assert_int_eq(vt_int(r, "droppedBytes"), 5000006 - 1048576);
	ck_assert_int_eq(strlen(vt_str(r, "stdout")), 1048576);
	ck_assert(!vt_bool(r, "more"));
	/* maxBytes cuts; more says so */
	r = output(id, "\"since\":4999000,\"maxBytes\":100");
	ck_assert_int_eq(strlen(vt_str(r, "stdout")), 100);
	ck_assert_int_eq(vt_int(r, "next"), 4999100);
	ck_assert(vt_bool(r, "more"));
	/* stop returns what was not read, at most its last 64 KiB */
	r = output(id, "\"since\":0,\"maxBytes\":1");
	ck_assert_int_eq(vt_int(r, "next"), 5000006 - 1048576 + 1);
	r = stop(id, NULL);
	ck_assert_int_eq(strlen(vt_str(r, "stdout")), 65536);
	ck_assert_str_eq(vt_str(r, "stderr"), "");
	ck_assert_int_eq(vt_int(r, "droppedBytes"), 1048576 - 1 - 65536);
	free(id);
}
END_TEST

START_TEST(utf8_is_never_cut)
{
	/* "é" is 2 bytes: maxBytes 3 returns one (2 bytes), and the next read starts at the second */
	char *id = started_id(start_sh("printf 'éé\\377\\0z'", "\"waitSeconds\":20"));
	cJSON *r = output(id, "\"since\":0,\"maxBytes\":3");
	ck_assert_str_eq(vt_str(r, "stdout"), "é");
	ck_assert_int_eq(vt_int(r, "next"), 2);
	r = output(id, NULL);
	ck_assert_str_eq(vt_str(r, "stdout"), "é\xEF\xBF\xBD\xEF\xBF\xBDz"); /* invalid byte, NUL */
	vt_ok(stop(id, NULL));
	free(id);
}
END_TEST

START_TEST(stop_ends_the_tree)
{
	/* a child that ignores SIGTERM and one that left the session: both end */
	char *id = started_id(start_sh("trap '' TERM; sleep 300 & echo $!; setsid sleep 300 & echo $!; "
	                               "echo started; wait", "\"waitFor\":\"started\""));
	const char *out = vt_str(vt.last, "stdout");
	pid_t a = 0, b = 0;
	ck_assert_int_eq(sscanf(out, "%d\n%d\n", &a, &b), 2);
	double t0 = now();
	cJSON *r = stop(id, "\"graceSeconds\":1");
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "exitCode"), 128 + SIGKILL); /* sh ignored TERM: KILL after 1 s */
	ck_assert(now() - t0 >= 0.9);
	ck_assert(gone_within(a, 5));
	ck_assert(gone_within(b, 5));
	free(id);
	/* a signal by another name; an unknown one */
	id = started_id(start_sh("exec sleep 60", "\"waitSeconds\":0"));
	vt_err(stop(id, "\"signal\":\"BOGUS\""), "InvalidArgument", "unknown signal 'BOGUS'");
	vt_ok(stop(id, "\"signal\":\"SIGINT\""));
	ck_assert_int_eq(vt_int(vt.last, "exitCode"), 128 + SIGINT);
	free(id);
}
END_TEST

START_TEST(timeout_stops)
{
	char *id = started_id(start_sh("exec sleep 60", "\"timeoutSeconds\":1,\"waitSeconds\":30"));
	ck_assert(!vt_bool(vt.last, "running"));
	ck_assert_int_eq(vt_int(vt.last, "exitCode"), 128 + SIGTERM);
	vt_ok(stop(id, NULL));
	free(id);
}
END_TEST

START_TEST(limit_and_kept_ended)
{
	hermes_config_t c = {0};
	c.max_processes = 2;
	vt_reopen(&c);
	char *a = started_id(start_sh("exec sleep 60", "\"waitSeconds\":0"));
	char *b = started_id(start_sh("exec sleep 60", "\"waitSeconds\":0"));
	vt_err(start_sh("exec sleep 60", "\"waitSeconds\":0"), "LimitReached", "2 programs");
	vt_ok(stop(a, NULL));
	char *d = started_id(start_sh("exec sleep 60", "\"waitSeconds\":0"));
	vt_ok(stop(b, NULL));
	vt_ok(stop(d, NULL));
	free(a);
	free(b);
	free(d);
	/* ended ones are kept until collected, at most the limit: the oldest goes */
	char *e[3];
	for (int i = 0; i < 3; i++)
		e[i] = started_id(start_sh("true", "\"waitSeconds\":20"));
	cJSON *r = vt_exec("{\"verb\":\"proc.list\",\"arguments\":{}}");
	cJSON *progs = cJSON_GetObjectItem(r, "programs");
	ck_assert_int_eq(cJSON_GetArraySize(progs), 2);
	ck_assert_str_eq(vt_str(cJSON_GetArrayItem(progs, 0), "id"), e[1]);
	ck_assert_str_eq(vt_str(cJSON_GetArrayItem(progs, 1), "id"), e[2]);
	ck_assert_int_eq(vt_int(cJSON_GetArrayItem(progs, 0), "exitCode"), 0);
	vt_err(output(e[0], NULL), "NotFound", e[0]);
	for (int i = 0; i < 3; i++)
		free(e[i]);
	vt_reopen(NULL);
}
END_TEST

START_TEST(default_limit_is_16)
{
	char *ids[16];
	for (int i = 0; i < 16; i++)
		ids[i] = started_id(start_sh("exec sleep 60", "\"waitSeconds\":0"));
	vt_err(start_sh("exec sleep 60", "\"waitSeconds\":0"), "LimitReached", "--max-processes");
	for (int i = 0; i < 16; i++)
		free(ids[i]);
	vt_reopen(NULL);
}
END_TEST

START_TEST(programs_end_with_the_executor)
{
	char *id = started_id(start_sh("sleep 300 & echo $!; setsid sleep 300 & echo $!; trap '' TERM; "
	                               "echo started; wait", "\"waitFor\":\"started\""));
	pid_t a = 0, b = 0, sh = (pid_t)vt_int(vt.last, "pid");
	ck_assert_int_eq(sscanf(vt_str(vt.last, "stdout"), "%d\n%d\n", &a, &b), 2);
	free(id);
	double t0 = now();
	hermes_executor_free(vt.ex);
	vt.ex = NULL;
	ck_assert_msg(now() - t0 < 10, "hermes_executor_free took %.1f s", now() - t0);
	ck_assert(gone_within(sh, 1));
	ck_assert(gone_within(a, 1));
	ck_assert(gone_within(b, 1));
	vt_reopen(NULL);
}
END_TEST

START_TEST(errors)
{
	vt_err(output("p9-000000", NULL), "NotFound", "'p9-000000'");
	vt_err(write_text("nope", "\"x\"", false), "NotFound", "'nope'");
	vt_err(stop("nope", NULL), "NotFound", "'nope'");
	vt_err(vt_exec("{\"verb\":\"proc.start\",\"arguments\":{\"executable\":\"no-such-program-here\"}}"),
	       "NotFound", "no such program in PATH");
	vt_err(vt_exec("{\"verb\":\"proc.start\",\"arguments\":{\"executable\":\"true\",\"cwd\":\"../x\"}}"),
	       "OutsideWorkspace", NULL);
	vt_err(vt_exec("{\"verb\":\"proc.start\",\"arguments\":{\"executable\":\"true\",\"env\":[\"=x\"]}}"),
	       "InvalidArgument", "env entry 0");
	/* a script whose interpreter is missing: known at the start, and nothing is left */
	vt_put("ws/bad.sh", "#!/no/such/interpreter\n");
	chmod(vt_path("ws/bad.sh"), 0755);
	vt_err(vt_exec("{\"verb\":\"proc.start\",\"arguments\":{\"executable\":\"./bad.sh\"}}"),
	       "NotFound", "interpreter");
	cJSON *r = vt_exec("{\"verb\":\"proc.list\",\"arguments\":{}}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "programs")), 0);
	/* policy: read-only refuses them by their traits; a one-batch executor refuses proc.start */
	hermes_config_t c = {0};
	c.read_only = true;
	vt_reopen(&c);
	vt_err(start_sh("true", NULL), "NotAllowed", "read-only");
	vt_err(write_text("p1-000000", "\"x\"", false), "NotAllowed", NULL);
	vt_err(stop("p1-000000", NULL), "NotAllowed", NULL);
	vt_ok(vt_exec("{\"verb\":\"proc.list\",\"arguments\":{}}"));
	c.read_only = false;
	c.max_processes = HERMES_NO_STARTED_PROGRAMS;
	vt_reopen(&c);
	vt_err(start_sh("true", NULL), "NotAllowed", "hermes exec");
	vt_reopen(NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs_started");
	TCase *tc = tcase_create("started");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, start_output_stop);
	tcase_add_test(tc, ended_program_keeps_its_output);
	tcase_add_test(tc, wait_seconds_returns_when_output_comes);
	tcase_add_test(tc, wait_for);
	tcase_add_test(tc, tty_repl);
	tcase_add_test(tc, stdin_pipe);
	tcase_add_test(tc, output_is_bounded);
	tcase_add_test(tc, utf8_is_never_cut);
	tcase_add_test(tc, stop_ends_the_tree);
	tcase_add_test(tc, timeout_stops);
	tcase_add_test(tc, limit_and_kept_ended);
	tcase_add_test(tc, default_limit_is_16);
	tcase_add_test(tc, programs_end_with_the_executor);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, tty_write_counts_what_the_program_reads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
