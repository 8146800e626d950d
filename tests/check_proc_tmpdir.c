/* tests/check_proc_tmpdir.c: proc/tmpdir.h and proc/leftovers.h. A server's private TMPDIR is
 * made 0700 in $TMPDIR and removed with everything in it, never following a symbolic link out of
 * it; those of gone Hermes processes are removed by the first one made; the sweep takes only
 * directories of this user named after a pid that is gone. */
#include <config.h>

#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/leftovers.h"
#include "proc/tmpdir.h"
#include "check_run.h"

static char parent[] = "/tmp/hermes-check-tmpdir.XXXXXX";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(parent));
	setenv("TMPDIR", parent, 1);
}

static void teardown(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", parent);
	ck_assert_int_eq(system(cmd), 0);
}

/* A pid that was there and is gone: a child, reaped. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	return pid;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

START_TEST(made_private_and_removed_whole_without_following_links)
{
	char outside[512], path[600];
	snprintf(outside, sizeof outside, "%s/outside", parent);
	ck_assert_int_eq(mkdir(outside, 0755), 0);
	snprintf(path, sizeof path, "%s/keep.txt", outside);
	put(path, "kept");

	char *dir = NULL;
	ck_assert_int_eq(hermes_tmpdir_make(&dir), 0);
	char want[512];
	snprintf(want, sizeof want, "%s/hermes-tmp-%ld-", parent, (long)getpid());
	ck_assert_msg(strncmp(dir, want, strlen(want)) == 0, "%s", dir);
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	char *second = NULL;
	ck_assert_int_eq(hermes_tmpdir_make(&second), 0);
	ck_assert_str_ne(dir, second);

	/* what a server leaves: files, a tree, links to a file and a directory outside */
	snprintf(path, sizeof path, "%s/preamble-1.pch", dir);
	put(path, "x");
	snprintf(path, sizeof path, "%s/a/b/c", dir);
	char sub[600];
	snprintf(sub, sizeof sub, "%s/a", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof sub, "%s/a/b", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	put(path, "deep");
	snprintf(path, sizeof path, "%s/a/to-dir", dir);
	ck_assert_int_eq(symlink(outside, path), 0);
	snprintf(path, sizeof path, "%s/to-file", dir);
	snprintf(sub, sizeof sub, "%s/keep.txt", outside);
	ck_assert_int_eq(symlink(sub, path), 0);
	char *copy = strdup(dir);
	hermes_tmpdir_remove(dir);
	ck_assert(!exists(copy));
	ck_assert(exists(sub)); /* what the links pointed to is untouched */
	free(copy);
	hermes_tmpdir_remove(second);
	hermes_tmpdir_remove(NULL);
}
END_TEST

START_TEST(those_of_gone_processes_are_swept_by_the_first_made)
{
	char gone[512], alive[512], other[512], path[600];
	snprintf(gone, sizeof gone, "%s/hermes-tmp-%ld-0", parent, (long)gone_pid());
	snprintf(alive, sizeof alive, "%s/hermes-tmp-%ld-0", parent, (long)getppid());
	snprintf(other, sizeof other, "%s/not-hermes-%ld-0", parent, (long)gone_pid());
	ck_assert_int_eq(mkdir(gone, 0700), 0);
	ck_assert_int_eq(mkdir(alive, 0700), 0);
	ck_assert_int_eq(mkdir(other, 0700), 0);
	snprintf(path, sizeof path, "%s/preamble-2.pch", gone);
	put(path, "x");
	char *dir = NULL;
	ck_assert_int_eq(hermes_tmpdir_make(&dir), 0);
	ck_assert(!exists(gone));
	ck_assert(exists(alive));
	ck_assert(exists(other));
	hermes_tmpdir_remove(dir);
}
END_TEST

static char seen[8][600];
static int nseen;

static void record(const char *path)
{
	ck_assert_int_lt(nseen, 8);
	snprintf(seen[nseen++], sizeof seen[0], "%s", path);
}

START_TEST(the_sweep_takes_only_directories_named_after_a_gone_pid)
{
	long dead = (long)gone_pid();
	const char *const dirs[] = {"x-%ld-0", "x-%ld-", "xy-%ld-0", "x-%ldq", "y-%ld-0"};
	char path[600];
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		char name[64];
		snprintf(name, sizeof name, dirs[i], dead);
		snprintf(path, sizeof path, "%s/%s", parent, name);
		ck_assert_int_eq(mkdir(path, 0700), 0);
	}
	snprintf(path, sizeof path, "%s/x-%ld-1", parent, dead);
	put(path, "a file, not a directory");
	snprintf(path, sizeof path, "%s/x-%ld-2", parent, (long)getpid());
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/x-0-0", parent);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	nseen = 0;
	hermes_leftovers_sweep(parent, "x-", record);
	ck_assert_int_eq(nseen, 2);
	char a[600], b[600];
	snprintf(a, sizeof a, "%s/x-%ld-0", parent, dead);
	snprintf(b, sizeof b, "%s/x-%ld-", parent, dead);
	ck_assert(strcmp(seen[0], a) == 0 || strcmp(seen[1], a) == 0);
	ck_assert(strcmp(seen[0], b) == 0 || strcmp(seen[1], b) == 0);
	nseen = 0;
	hermes_leftovers_sweep("/nonexistent/hermes-check", "x-", record);
	ck_assert_int_eq(nseen, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proc_tmpdir");
	TCase *tc = tcase_create("tmpdir");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, made_private_and_removed_whole_without_following_links);
	tcase_add_test(tc, those_of_gone_processes_are_swept_by_the_first_made);
	tcase_add_test(tc, the_sweep_takes_only_directories_named_after_a_gone_pid);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
