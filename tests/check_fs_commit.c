/* tests/check_fs_commit.c: the multi-file commit of src/fs/commit.h: writes, creates, deletes and
 * moves all or nothing, the checks before compute (flags, versions, one file twice), dry runs,
 * recovery after a process died at every step of a commit and at random instants (kill -9), and
 * 64 concurrent change sets over overlapping files (none lost, none deadlocked). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

#include "core/verb.h"
#include "fs/commit.h"
#include "fs/workspace.h"
#include "verbs_testlib.h"

static hermes_ws_t *ws;

static void setup(void)
{
	vt_setup();
	hermes_error_t err;
	ck_assert_int_eq(hermes_ws_open(vt.root, &ws, &err), 0);
}

static void teardown(void)
{
	hermes_ws_free(ws);
	ws = NULL;
	vt_teardown();
}

static void assert_file(const char *rel, const char *want)
{
	size_t len;
	char *got = vt_get(rel, &len);
	ck_assert_msg(got != NULL, "%s is missing", rel);
	ck_assert_msg(len == strlen(want) && memcmp(got, want, len) == 0, "%s is '%s', want '%s'", rel,
	              got, want);
	free(got);
}

/* Nothing of a commit is left: no temporary beside the files, no journal. */
static void assert_clean(const char *dir)
{
	DIR *d = opendir(vt_path(dir));
	ck_assert_ptr_nonnull(d);
	struct dirent *de;
	while ((de = readdir(d)))
		ck_assert_msg(strstr(de->d_name, "hermes-tmp") == NULL, "left behind: %s", de->d_name);
	closedir(d);
	d = opendir(vt_path("ws/.hermes/journal"));
	if (d) {
		while ((de = readdir(d)))
			ck_assert_msg(de->d_name[0] == '.', "journal left behind: %s", de->d_name);
		closedir(d);
	}
}

static void version_of(const char *rel, char out[HERMES_FILE_VERSION_MAX])
{
	struct stat st;
	ck_assert_int_eq(lstat(vt_path(rel), &st), 0);
	hermes_file_version(&st, out);
}

/* A compute driven by a table: per file, op and content (appended to the old content if append). */
typedef struct plan {
	hermes_commit_op_t op[8];
	const char *data[8];
	bool append;
	int fail_at; /* 1-based: compute fails (as a patch whose hunk does not match would) */
	int calls;
} plan_t;

static int plan_compute(void *ctx, hermes_commit_file_t *f, size_t n, hermes_error_t *err)
{
	plan_t *p = ctx;
	p->calls++;
	for (size_t i = 0; i < n; i++) {
		if (p->fail_at == (int)i + 1) {
			hermes_error_set(err, HERMES_E_INVALID_ARGUMENT, "hunk of '%s' does not match",
			                 f[i].path);
			return -1;
		}
		f[i].op = p->op[i];
		if (p->op[i] == HERMES_COMMIT_WRITE) {
			size_t old = p->append && f[i].exists ? f[i].old_len : 0, add = strlen(p->data[i]);
			f[i].new_data = malloc(old + add + 1);
			ck_assert_ptr_nonnull(f[i].new_data);
			if (old)
				memcpy(f[i].new_data, f[i].old_data, old);
			memcpy(f[i].new_data + old, p->data[i], add);
			f[i].new_len = old + add;
		}
	}
	return 0;
}

static int run(hermes_commit_file_t *f, size_t n, unsigned flags, plan_t *p, hermes_error_t *err)
{
	memset(err, 0, sizeof *err);
	int rc = hermes_commit_run(ws, NULL, f, n, flags, plan_compute, p, err);
	return rc;
}

START_TEST(writes_creates_deletes_at_once)
{
	vt_put("ws/a.txt", "old a\n");
	vt_put("ws/b.txt", "old b\n");
	chmod(vt_path("ws/a.txt"), 0640);
	hermes_commit_file_t f[3] = {{.path = "a.txt"}, {.path = "b.txt"}, {.path = "new/dir/c.txt"}};
	plan_t p = {{HERMES_COMMIT_WRITE, HERMES_COMMIT_DELETE, HERMES_COMMIT_WRITE},
	            {"new a\n", NULL, "c\n"}, false, 0, 0};
	hermes_error_t err;
	ck_assert_msg(run(f, 3, 0, &p, &err) == 0, "%s", err.message);
	ck_assert(f[0].exists && f[1].exists && !f[2].exists);
	ck_assert_str_eq(f[0].old_data, "old a\n");
	assert_file("ws/a.txt", "new a\n");
	ck_assert(!vt_exists("ws/b.txt"));
	assert_file("ws/new/dir/c.txt", "c\n");
	struct stat st;
	ck_assert_int_eq(lstat(vt_path("ws/a.txt"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640); /* a replaced file keeps its permission bits */
	char v[HERMES_FILE_VERSION_MAX];
	version_of("ws/a.txt", v);
	ck_assert_str_eq(f[0].new_version, v);
	version_of("ws/new/dir/c.txt", v);
	ck_assert_str_eq(f[2].new_version, v);
	ck_assert_str_eq(f[1].new_version, "");
	hermes_commit_files_free(f, 3);
	assert_clean("ws");
	assert_clean("ws/new/dir");
}
END_TEST

START_TEST(move_is_delete_plus_write)
{
	vt_put("ws/old.txt", "moving\n");
	hermes_commit_file_t f[2] = {{.path = "old.txt", .flags = HERMES_COMMIT_MUST_EXIST},
	                             {.path = "sub/new.txt", .flags = HERMES_COMMIT_MUST_NOT_EXIST}};
	plan_t p = {{HERMES_COMMIT_DELETE, HERMES_COMMIT_WRITE}, {NULL, "moving\n"}, false, 0, 0};
	hermes_error_t err;
	ck_assert_msg(run(f, 2, 0, &p, &err) == 0, "%s", err.message);
	ck_assert(!vt_exists("ws/old.txt"));
	assert_file("ws/sub/new.txt", "moving\n");
	hermes_commit_files_free(f, 2);
	/* Again: the old one is gone now, so MUST_EXIST refuses and nothing changes. */
	vt_put("ws/sub/other.txt", "x");
	ck_assert_int_eq(run(f, 2, 0, &p, &err), -1);
	ck_assert_int_eq(err.code, HERMES_E_NOT_FOUND);
	ck_assert_msg(strstr(err.message, "old.txt") != NULL, "%s", err.message);
	hermes_commit_files_free(f, 2);
	vt_put("ws/old.txt", "again\n");
	ck_assert_int_eq(run(f, 2, 0, &p, &err), -1);
	ck_assert_int_eq(err.code, HERMES_E_ALREADY_EXISTS);
	ck_assert_msg(strstr(err.message, "sub/new.txt") != NULL, "%s", err.message);
	assert_file("ws/old.txt", "again\n");
	hermes_commit_files_free(f, 2);
	assert_clean("ws");
}
END_TEST

START_TEST(stale_version_writes_nothing)
{
	vt_put("ws/a", "a1");
	vt_put("ws/b", "b1");
	char va[HERMES_FILE_VERSION_MAX];
	version_of("ws/a", va);
	hermes_commit_file_t f[2] = {{.path = "a", .expected_version = va},
	                             {.path = "b", .expected_version = "1.000000001-2-abc"}};
	plan_t p = {{HERMES_COMMIT_WRITE, HERMES_COMMIT_WRITE}, {"a2", "b2"}, false, 0, 0};
	hermes_error_t err;
	ck_assert_int_eq(run(f, 2, 0, &p, &err), -1);
	ck_assert_int_eq(err.code, HERMES_E_CONFLICT);
	ck_assert_msg(strstr(err.message, "'b'") && strstr(err.message, "1.000000001-2-abc"), "%s",
	              err.message);
	ck_assert_int_eq(p.calls, 0); /* refused before compute */
	assert_file("ws/a", "a1");
	assert_file("ws/b", "b1");
	hermes_commit_files_free(f, 2);
	/* "" expects the file to be absent. */
	hermes_commit_file_t g[1] = {{.path = "a", .expected_version = ""}};
	ck_assert_int_eq(run(g, 1, 0, &p, &err), -1);
	ck_assert_int_eq(err.code, HERMES_E_CONFLICT);
	hermes_commit_files_free(g, 1);
	assert_clean("ws");
}
END_TEST

START_TEST(failing_compute_on_last_file_changes_nothing)
{
	vt_put("ws/a", "a1");
	vt_put("ws/b", "b1");
	hermes_commit_file_t f[3] = {{.path = "a"}, {.path = "b"}, {.path = "c"}};
	plan_t p = {{HERMES_COMMIT_WRITE, HERMES_COMMIT_DELETE, HERMES_COMMIT_WRITE},
	            {"a2", NULL, "c"}, false, 3, 0};
	hermes_error_t err;
	ck_assert_int_eq(run(f, 3, 0, &p, &err), -1);
	ck_assert_int_eq(err.code, HERMES_E_INVALID_ARGUMENT);
	ck_assert_str_eq(err.message, "hunk of 'c' does not match");
	assert_file("ws/a", "a1");
	assert_file("ws/b", "b1");
	ck_assert(!vt_exists("ws/c"));
	hermes_commit_files_free(f, 3);
	/* Deleting a file that does not exist is refused the same way. */
	plan_t q = {{HERMES_COMMIT_WRITE, HERMES_COMMIT_DELETE, HERMES_COMMIT_DELETE},
	            {"a2", NULL, NULL}, false, 0, 0};
	ck_assert_int_eq(run(f, 3, 0, &q, &err), -1);
	ck_assert_int_eq(err.code, HERMES_E_NOT_FOUND);
	ck_assert_msg(strstr(err.message, "'c'") != NULL, "%s", err.message);
	assert_file("ws/a", "a1");
	assert_file("ws/b", "b1");
	hermes_commit_files_free(f, 3);
	assert_clean("ws");
}
END_TEST

START_TEST(dry_run_writes_nothing)
{
	vt_put("ws/a", "a1");
	hermes_commit_file_t f[2] = {{.path = "a"}, {.path = "no/such/dir/b"}};
	plan_t p = {{HERMES_COMMIT_WRITE, HERMES_COMMIT_WRITE}, {"a2", "b"}, false, 0, 0};
	hermes_error_t err;
	ck_assert_msg(run(f, 2, HERMES_COMMIT_DRY_RUN, &p, &err) == 0, "%s", err.message);
	ck_assert_int_eq(p.calls, 1);
	ck_assert(f[0].exists && !f[1].exists);
	assert_file("ws/a", "a1");
	ck_assert(!vt_exists("ws/no"));
	ck_assert_str_eq(f[0].new_version, "");
	hermes_commit_files_free(f, 2);
	assert_clean("ws");
}
END_TEST

START_TEST(bad_sets_are_refused)
{
	vt_put("ws/a", "a1");
	vt_mkdir("ws/d");
	ck_assert_int_eq(link(vt_path("ws/a"), vt_path("ws/d/hard")), 0);
	vt_symlink("../../outside", "ws/d/escape");
	plan_t p = {{HERMES_COMMIT_WRITE, HERMES_COMMIT_WRITE}, {"x", "y"}, false, 0, 0};
	hermes_error_t err;
	struct {
		const char *a, *b;
		hermes_errcode_t code;
		const char *mention;
	} cases[] = {
		{"a", "./d/../a", HERMES_E_INVALID_ARGUMENT, "both name the file 'a'"},
		{"a", "d/hard", HERMES_E_INVALID_ARGUMENT, "names the same file"},
		{"a", "d", HERMES_E_IS_A_DIRECTORY, "'d'"},
		{"a", "d/", HERMES_E_INVALID_ARGUMENT, "end with '/'"},
		{"a", "../x", HERMES_E_OUTSIDE_WORKSPACE, "'../x'"},
		{"a", "d/escape", HERMES_E_OUTSIDE_WORKSPACE, "d/escape"},
		{"a", "", HERMES_E_INVALID_ARGUMENT, "empty"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		hermes_commit_file_t f[2] = {{.path = cases[i].a}, {.path = cases[i].b}};
		ck_assert_int_eq(run(f, 2, 0, &p, &err), -1);
		ck_assert_msg(err.code == cases[i].code, "%s: %s", cases[i].b, err.message);
		ck_assert_msg(strstr(err.message, cases[i].mention) != NULL, "%s: %s", cases[i].b,
		              err.message);
		hermes_commit_files_free(f, 2);
		assert_file("ws/a", "a1");
	}
	ck_assert_int_eq(hermes_commit_run(ws, NULL, NULL, 0, 0, plan_compute, &p, &err), -1);
	ck_assert_int_eq(err.code, HERMES_E_INVALID_ARGUMENT);
	assert_clean("ws");
}
END_TEST

/* ---- recovery ----------------------------------------------------------------------------- */

/* The set the recovery tests change: f0..f2 hold "g<N>\n" and f3 exists (holding it) iff N is
 * even; each commit goes from N to N+1. */
static int gen_compute(void *ctx, hermes_commit_file_t *f, size_t n, hermes_error_t *err)
{
	(void)ctx;
	(void)err;
	long g = strtol(f[0].old_data + 1, NULL, 10) + 1;
	for (size_t i = 0; i < n; i++) {
		if (i == 3 && g % 2) {
			f[i].op = HERMES_COMMIT_DELETE;
			continue;
		}
		f[i].op = HERMES_COMMIT_WRITE;
		f[i].new_data = malloc(32);
		f[i].new_len = (size_t)snprintf(f[i].new_data, 32, "g%ld\n", g);
	}
	return 0;
}

static void gen_commit(void)
{
	hermes_commit_file_t f[4] = {{.path = "f0"}, {.path = "s/f1"}, {.path = "s/t/f2"},
	                             {.path = "f3"}};
	hermes_error_t err;
	int rc = hermes_commit_run(ws, NULL, f, 4, 0, gen_compute, NULL, &err);
	ck_assert_msg(rc == 0, "%s", err.message);
	hermes_commit_files_free(f, 4);
}

/* Is the set half-changed right now (before any recovery)? */
static bool gen_torn(void)
{
	size_t len;
	char *f[3] = {vt_get("ws/f0", &len), vt_get("ws/s/f1", &len), vt_get("ws/s/t/f2", &len)};
	bool torn = !f[0] || !f[1] || !f[2] || strcmp(f[0], f[1]) || strcmp(f[0], f[2]);
	if (!torn)
		torn = vt_exists("ws/f3") != (strtol(f[0] + 1, NULL, 10) % 2 == 0);
	for (int i = 0; i < 3; i++)
		free(f[i]);
	return torn;
}

/* After recovery the set is wholly at one generation: returns it. */
static long gen_check(void)
{
	hermes_error_t err;
	ck_assert_msg(hermes_commit_recover(ws, &err) == 0, "%s", err.message);
	size_t len;
	char *f0 = vt_get("ws/f0", &len);
	ck_assert_ptr_nonnull(f0);
	const char *others[] = {"ws/s/f1", "ws/s/t/f2"};
	for (int i = 0; i < 2; i++)
		assert_file(others[i], f0);
	long g = strtol(f0 + 1, NULL, 10);
	if (g % 2 == 0)
		assert_file("ws/f3", f0);
	else
		ck_assert_msg(!vt_exists("ws/f3"), "f3 exists at odd generation %ld", g);
	free(f0);
	assert_clean("ws");
	assert_clean("ws/s");
	assert_clean("ws/s/t");
	return g;
}

static void gen_init(void)
{
	if (!vt_exists("ws/s/t")) {
		vt_mkdir("ws/s");
		vt_mkdir("ws/s/t");
	}
	vt_put("ws/f0", "g0\n");
	vt_put("ws/s/f1", "g0\n");
	vt_put("ws/s/t/f2", "g0\n");
	vt_put("ws/f3", "g0\n");
}

/* A child stopped at every step of a commit, one after the other: each time the set is wholly
 * old or wholly new after recovery, and the steps run out when the commit completes. */
START_TEST(crash_at_every_step)
{
	int step, torn = 0;
	for (step = 1; step < 100; step++) {
		gen_init(); /* every child commits generation 0 to 1 */
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			char s[16];
			snprintf(s, sizeof s, "%d", step);
			setenv("HERMES_TEST_COMMIT_CRASH_AT", s, 1);
			gen_commit();
			_exit(0);
		}
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFEXITED(status));
		torn += gen_torn();
		long now = gen_check();
		ck_assert_msg(now == 0 || now == 1, "generation %ld at step %d", now, step);
		if (WEXITSTATUS(status) == 0) {
			ck_assert_int_eq(now, 1);
			break;
		}
		ck_assert_int_eq(WEXITSTATUS(status), 137);
	}
	/* 3 temporaries, the journal, 4 renames or unlinks, the journal removed: 9 steps. */
	ck_assert_int_eq(step, 10);
	/* Killed after the first, second and third of the four changes, the set was torn until
	 * recovery put it back. */
	ck_assert_int_eq(torn, 3);
}
END_TEST

/* A new executor (what hermes exec, serve and mcp create first) undoes a torn set before it
 * answers anything. */
START_TEST(executor_start_recovers)
{
	gen_init();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("HERMES_TEST_COMMIT_CRASH_AT", "6", 1); /* after two of the four changes */
		gen_commit();
		_exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 137);
	ck_assert(gen_torn());
	vt_reopen(NULL);
	ck_assert(!gen_torn());
	cJSON *r = vt_call("fs.readFile", vt_args("path", "f0", NULL));
	vt_ok(r);
	ck_assert_str_eq(vt_str(r, "content"), "g0\n");
	ck_assert_int_eq(gen_check(), 0);
}
END_TEST

/* A running executor whose next write finds what another, killed process left undoes it first. */
START_TEST(next_write_recovers)
{
	gen_init();
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setenv("HERMES_TEST_COMMIT_CRASH_AT", "7", 1); /* after three of the four changes */
		gen_commit();
		_exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 137);
	ck_assert(gen_torn());
	/* A read changes nothing; a write elsewhere recovers first. */
	vt_ok(vt_call("fs.readFile", vt_args("path", "f0", NULL)));
	ck_assert(gen_torn());
	vt_ok(vt_call("fs.writeFile", vt_args("path", "other.txt", "content", "x", NULL)));
	ck_assert(!gen_torn());
	ck_assert_int_eq(gen_check(), 0);
}
END_TEST

/* A user's own file or outward symlink named .hermes does not stop writes (no journal can be
 * there); a change set then fails, naming .hermes, and writes nothing. */
START_TEST(foreign_dot_hermes)
{
	vt_put("ws/.hermes", "mine\n");
	vt_ok(vt_call("fs.writeFile", vt_args("path", "a", "content", "x", NULL)));
	hermes_commit_file_t f[2] = {{.path = "a"}, {.path = "b"}};
	plan_t p = {{HERMES_COMMIT_WRITE, HERMES_COMMIT_WRITE}, {"a2", "b2"}, false, 0, 0};
	hermes_error_t err;
	ck_assert_int_eq(run(f, 2, 0, &p, &err), -1);
	ck_assert_msg(strstr(err.message, ".hermes") != NULL, "%s", err.message);
	assert_file("ws/a", "x");
	ck_assert(!vt_exists("ws/b"));
	hermes_commit_files_free(f, 2);
	unlink(vt_path("ws/.hermes"));
	vt_symlink("../outside", "ws/.hermes");
	vt_ok(vt_call("fs.writeFile", vt_args("path", "a", "content", "y", NULL)));
	ck_assert_int_eq(run(f, 2, 0, &p, &err), -1);
	ck_assert_int_eq(err.code, HERMES_E_OUTSIDE_WORKSPACE);
	assert_file("ws/a", "y");
	hermes_commit_files_free(f, 2);
}
END_TEST

/* 200 commits each interrupted by kill -9 at a random instant (and by the switch at a random
 * step): the set is always wholly one generation after recovery, and it moves forward. */
START_TEST(kill_at_random_points_of_200_commits)
{
	gen_init();
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	long g = 0;
	int finished = 0, torn = 0;
	for (int round = 0; round < 200; round++) {
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			if (round % 2) {
				char s[16];
				snprintf(s, sizeof s, "%d", 1 + rand() % 12);
				setenv("HERMES_TEST_COMMIT_CRASH_AT", s, 1);
			}
			for (;;)
				gen_commit();
		}
		if (round % 2 == 0) {
			struct timespec ts = {0, (long)(rand() % 8000) * 1000};
			nanosleep(&ts, NULL);
			kill(pid, SIGKILL);
		} /* else it stops itself at its step */
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		torn += gen_torn();
		long now = gen_check();
		ck_assert_msg(now >= g, "generation went back from %ld to %ld", g, now);
		finished += now > g;
		g = now;
	}
	ck_assert_msg(finished > 0, "no commit ever finished");
	/* Some kills must have hit the middle of a commit for the test to mean anything. */
	ck_assert_msg(torn > 0, "no kill left a set torn before recovery");
	fprintf(stderr, "200 kills: %d commits finished, %d sets torn before recovery\n", finished,
	        torn);
}
END_TEST

/* ---- concurrency -------------------------------------------------------------------------- */

#define THREADS 64
#define FILES 8

typedef struct job {
	int id;
	int rc;
	char msg[256];
} job_t;

static void *concurrent_job(void *arg)
{
	job_t *j = arg;
	/* Three overlapping files, named in an order of their own (the lock order is the
	 * mechanism's). */
	char p[3][16], line[16];
	for (int k = 0; k < 3; k++)
		snprintf(p[k], sizeof p[k], "c/x%d", (j->id * (k + 1) + k * 3) % FILES);
	if (!strcmp(p[0], p[1]) || !strcmp(p[0], p[2]) || !strcmp(p[1], p[2]))
		snprintf(p[1], sizeof p[1], "c/y%d", j->id % 3); /* keep three distinct files */
	if (!strcmp(p[0], p[2]) || !strcmp(p[1], p[2]))
		snprintf(p[2], sizeof p[2], "c/z%d", j->id % 2);
	snprintf(line, sizeof line, "t%d\n", j->id);
	hermes_commit_file_t f[3] = {{.path = p[0]}, {.path = p[1]}, {.path = p[2]}};
	plan_t plan = {{HERMES_COMMIT_WRITE, HERMES_COMMIT_WRITE, HERMES_COMMIT_WRITE},
	               {line, line, line}, true, 0, 0};
	hermes_error_t err = {0};
	j->rc = hermes_commit_run(ws, NULL, f, 3, 0, plan_compute, &plan, &err);
	snprintf(j->msg, sizeof j->msg, "%s", err.message);
	hermes_commit_files_free(f, 3);
	return NULL;
}

static int count_lines(const char *rel, int id)
{
	size_t len;
	char *d = vt_get(rel, &len);
	if (!d)
		return 0;
	char want[16];
	snprintf(want, sizeof want, "t%d\n", id);
	int n = 0;
	for (char *s = d; (s = strstr(s, want)); s++)
		if (s == d || s[-1] == '\n')
			n++;
	free(d);
	return n;
}

START_TEST(concurrent_sets_on_overlapping_files)
{
	vt_mkdir("ws/c");
	for (int i = 0; i < FILES; i++) {
		char rel[32];
		snprintf(rel, sizeof rel, "ws/c/x%d", i);
		vt_put(rel, "");
	}
	static job_t jobs[THREADS];
	pthread_t th[THREADS];
	for (int i = 0; i < THREADS; i++) {
		jobs[i] = (job_t){.id = i};
		ck_assert_int_eq(pthread_create(&th[i], NULL, concurrent_job, &jobs[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	int total = 0;
	for (int i = 0; i < THREADS; i++) {
		ck_assert_msg(jobs[i].rc == 0, "job %d: %s", i, jobs[i].msg);
		/* Every job's line is in exactly three files. */
		int seen = 0;
		DIR *d = opendir(vt_path("ws/c"));
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char rel[300];
			snprintf(rel, sizeof rel, "ws/c/%s", de->d_name);
			seen += count_lines(rel, i);
		}
		closedir(d);
		ck_assert_msg(seen == 3, "job %d's line is in %d files, want 3", i, seen);
		total += seen;
	}
	ck_assert_int_eq(total, 3 * THREADS);
	assert_clean("ws/c");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fs-commit");
	TCase *tc = tcase_create("commit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, writes_creates_deletes_at_once);
	tcase_add_test(tc, move_is_delete_plus_write);
	tcase_add_test(tc, stale_version_writes_nothing);
	tcase_add_test(tc, failing_compute_on_last_file_changes_nothing);
	tcase_add_test(tc, dry_run_writes_nothing);
	tcase_add_test(tc, bad_sets_are_refused);
	tcase_add_test(tc, crash_at_every_step);
	tcase_add_test(tc, executor_start_recovers);
	tcase_add_test(tc, next_write_recovers);
	tcase_add_test(tc, foreign_dot_hermes);
	tcase_add_test(tc, kill_at_random_points_of_200_commits);
	tcase_add_test(tc, concurrent_sets_on_overlapping_files);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
