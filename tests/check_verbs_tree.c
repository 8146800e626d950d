/* tests/check_verbs_tree.c: the verbs that change the tree: fs.deleteFile, fs.moveFile,
 * fs.copyFile, fs.createDirectory, fs.deleteDirectory; every rule and errorCode. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_testlib.h"

static cJSON *one(const char *verb, const char *path)
{
	return vt_call(verb, vt_args("path", path, NULL));
}

static cJSON *two(const char *verb, const char *src, const char *dst)
{
	return vt_call(verb, vt_args("sourcePath", src, "destinationPath", dst, NULL));
}

static void assert_file(const char *rel, const char *want)
{
	char *got = vt_get(rel, NULL);
	ck_assert_msg(got != NULL, "%s is missing", rel);
	ck_assert_msg(strcmp(got, want) == 0, "%s is '%s', want '%s'", rel, got, want);
	free(got);
}

static bool is_link(const char *rel)
{
	struct stat st;
	return lstat(vt_path(rel), &st) == 0 && S_ISLNK(st.st_mode);
}

/* ---- fs.deleteFile ------------------------------------------------------------------------ */

START_TEST(delete_file)
{
	vt_put("ws/f.txt", "x");
	vt_ok(one("fs.deleteFile", "f.txt"));
	ck_assert(!vt_exists("ws/f.txt"));
	/* A symlink is removed, never its target (file or directory, or dangling). */
	vt_put("ws/target.txt", "t");
	vt_symlink("target.txt", "ws/link");
	vt_ok(one("fs.deleteFile", "link"));
	ck_assert(!vt_exists("ws/link"));
	assert_file("ws/target.txt", "t");
	vt_mkdir("ws/dir");
	vt_put("ws/dir/inner", "i");
	vt_symlink("dir", "ws/dirlink");
	vt_ok(one("fs.deleteFile", "dirlink"));
	assert_file("ws/dir/inner", "i");
	vt_symlink("nowhere", "ws/dangling");
	vt_ok(one("fs.deleteFile", "dangling"));
	ck_assert(!vt_exists("ws/dangling"));
	ck_assert_int_eq(mkfifo(vt_path("ws/fifo"), 0600), 0);
	vt_ok(one("fs.deleteFile", "fifo"));
	ck_assert(!vt_exists("ws/fifo"));
}
END_TEST

START_TEST(delete_file_errors)
{
	vt_mkdir("ws/d");
	vt_err(one("fs.deleteFile", "d"), "IsADirectory", "'d'");
	vt_err(one("fs.deleteFile", "."), "IsADirectory", NULL);
	vt_err(one("fs.deleteFile", "missing"), "NotFound", "missing");
	vt_err(one("fs.deleteFile", "../x"), "OutsideWorkspace", "../x");
	ck_assert(vt_exists("ws/d"));
	vt_put("ws/ro/f", "x");
	chmod(vt_path("ws/ro"), 0555);
	char *code = vt_exec_unprivileged("{\"verb\":\"fs.deleteFile\",\"arguments\":{\"path\":\"ro/f\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	ck_assert(vt_exists("ws/ro/f"));
}
END_TEST

/* ---- fs.moveFile -------------------------------------------------------------------------- */

START_TEST(move_file)
{
	vt_put("ws/a.txt", "A");
	chmod(vt_path("ws/a.txt"), 0640);
	vt_ok(two("fs.moveFile", "a.txt", "x/y/b.txt"));
	ck_assert(!vt_exists("ws/a.txt"));
	assert_file("ws/x/y/b.txt", "A");
	struct stat st;
	ck_assert_int_eq(stat(vt_path("ws/x/y/b.txt"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	/* A symlink moves as itself. */
	vt_put("ws/t.txt", "T");
	vt_symlink("t.txt", "ws/l");
	vt_ok(two("fs.moveFile", "l", "l2"));
	ck_assert(is_link("ws/l2"));
	assert_file("ws/t.txt", "T");
}
END_TEST

START_TEST(move_file_across_file_systems)
{
	/* A tmpfs inside the workspace in a private mount namespace (needs root; else skipped). */
	vt_mkdir("ws/other");
	vt_put("ws/src.txt", "moved across\n");
	chmod(vt_path("ws/src.txt"), 0604);
	vt_put("ws/t.txt", "T");
	vt_symlink("t.txt", "ws/lnk");
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("tmpfs", vt_path("ws/other"), "tmpfs", 0, "size=1m") < 0)
			_exit(77);
		hermes_executor_free(vt.ex);
		if (hermes_executor_new(&vt.config, &vt.ex, NULL) < 0)
			_exit(2);
		cJSON *r = two("fs.moveFile", "src.txt", "other/dst.txt");
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "succeeded")))
			_exit(3);
		char *got = vt_get("ws/other/dst.txt", NULL);
		struct stat st;
		if (!got || strcmp(got, "moved across\n") || vt_exists("ws/src.txt") ||
		    stat(vt_path("ws/other/dst.txt"), &st) < 0 || (st.st_mode & 07777) != 0604)
			_exit(4);
		r = two("fs.moveFile", "lnk", "other/lnk");
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "succeeded")) || !is_link("ws/other/lnk"))
			_exit(5);
		/* Across file systems, the destination still is never replaced. */
		vt_put("ws/again.txt", "again");
		r = two("fs.moveFile", "again.txt", "other/dst.txt");
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "errorCode");
		if (!cJSON_IsString(c) || strcmp(c->valuestring, "AlreadyExists") || !vt_exists("ws/again.txt"))
			_exit(6);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		fprintf(stderr, "move_file_across_file_systems: skipped (cannot mount a tmpfs here)\n");
		return;
	}
	ck_assert_msg(WEXITSTATUS(status) == 0, "cross-file-system move failed at step %d",
	              WEXITSTATUS(status));
}
END_TEST

START_TEST(move_file_errors)
{
	vt_put("ws/a.txt", "A");
	vt_put("ws/b.txt", "B");
	vt_mkdir("ws/d");
	vt_err(two("fs.moveFile", "a.txt", "b.txt"), "AlreadyExists", "b.txt");
	assert_file("ws/a.txt", "A");
	assert_file("ws/b.txt", "B");
	vt_err(two("fs.moveFile", "a.txt", "d"), "AlreadyExists", "'d'");
	vt_err(two("fs.moveFile", "a.txt", "a.txt"), "AlreadyExists", NULL);
	vt_symlink("nowhere", "ws/dangling");
	vt_err(two("fs.moveFile", "a.txt", "dangling"), "AlreadyExists", "dangling");
	vt_err(two("fs.moveFile", "missing", "c.txt"), "NotFound", "missing");
	ck_assert(!vt_exists("ws/c.txt"));
	vt_err(two("fs.moveFile", "missing", "new/dir/c.txt"), "NotFound", "missing");
	ck_assert(!vt_exists("ws/new"));
	vt_err(two("fs.moveFile", "d", "e"), "IsADirectory", "'d'");
	vt_err(two("fs.moveFile", "a.txt", "b.txt/c"), "NotADirectory", NULL);
	vt_err(two("fs.moveFile", "a.txt", "../a.txt"), "OutsideWorkspace", "../a.txt");
	vt_err(two("fs.moveFile", "../x", "a2.txt"), "OutsideWorkspace", "../x");
	assert_file("ws/a.txt", "A");
	vt_put("ws/ro/f", "F");
	chmod(vt_path("ws/ro"), 0555);
	char *code = vt_exec_unprivileged("{\"verb\":\"fs.moveFile\",\"arguments\":{\"sourcePath\":"
	                                  "\"ro/f\",\"destinationPath\":\"g\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	assert_file("ws/ro/f", "F");
}
END_TEST

/* ---- fs.copyFile -------------------------------------------------------------------------- */

START_TEST(copy_file)
{
	size_t n = 3 * 1024 * 1024 + 5;
	char *data = malloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)(i * 31 + (i >> 9));
	vt_put_bytes("ws/src.bin", data, n);
	chmod(vt_path("ws/src.bin"), 0751);
	vt_ok(two("fs.copyFile", "src.bin", "out/copy.bin"));
	size_t len;
	char *got = vt_get("ws/out/copy.bin", &len);
	ck_assert_uint_eq(len, n);
	ck_assert(memcmp(got, data, n) == 0);
	struct stat st;
	ck_assert_int_eq(stat(vt_path("ws/out/copy.bin"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0751);
	free(got);
	free(data);
	/* The source through an in-root symlink: the target's content is copied. */
	vt_put("ws/t.txt", "T");
	vt_symlink("t.txt", "ws/l");
	vt_ok(two("fs.copyFile", "l", "lcopy"));
	ck_assert(!is_link("ws/lcopy"));
	assert_file("ws/lcopy", "T");
	vt_put("ws/empty", "");
	vt_ok(two("fs.copyFile", "empty", "empty2"));
	assert_file("ws/empty2", "");
}
END_TEST

START_TEST(copy_file_errors)
{
	vt_put("ws/a.txt", "A");
	vt_put("ws/b.txt", "B");
	vt_mkdir("ws/d");
	vt_err(two("fs.copyFile", "a.txt", "b.txt"), "AlreadyExists", "b.txt");
	assert_file("ws/b.txt", "B");
	vt_err(two("fs.copyFile", "a.txt", "d"), "AlreadyExists", "'d'");
	vt_err(two("fs.copyFile", "missing", "c"), "NotFound", "missing");
	vt_err(two("fs.copyFile", "d", "c"), "IsADirectory", "'d'");
	ck_assert(!vt_exists("ws/c"));
	vt_err(two("fs.copyFile", "a.txt", "../c"), "OutsideWorkspace", "../c");
	chmod(vt_path("ws/a.txt"), 0);
	char *code = vt_exec_unprivileged("{\"verb\":\"fs.copyFile\",\"arguments\":{\"sourcePath\":"
	                                  "\"a.txt\",\"destinationPath\":\"c\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	ck_assert(!vt_exists("ws/c"));
}
END_TEST

/* ---- fs.createDirectory ------------------------------------------------------------------- */

START_TEST(create_directory)
{
	vt_ok(one("fs.createDirectory", "a/b/c"));
	struct stat st;
	ck_assert_int_eq(stat(vt_path("ws/a/b/c"), &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	vt_ok(one("fs.createDirectory", "a/b/c"));
	vt_ok(one("fs.createDirectory", "a/b/c/"));
	vt_ok(one("fs.createDirectory", "."));
	vt_ok(one("fs.createDirectory", "x/y/."));
	ck_assert_int_eq(stat(vt_path("ws/x/y"), &st), 0);
	vt_symlink("a", "ws/alink");
	vt_ok(one("fs.createDirectory", "alink"));
	vt_ok(one("fs.createDirectory", "alink/new"));
	ck_assert_int_eq(stat(vt_path("ws/a/new"), &st), 0);
}
END_TEST

START_TEST(create_directory_errors)
{
	vt_put("ws/f", "x");
	vt_err(one("fs.createDirectory", "f"), "AlreadyExists", "'f'");
	vt_err(one("fs.createDirectory", "f/sub"), "NotADirectory", "f/sub");
	vt_err(one("fs.createDirectory", "../x"), "OutsideWorkspace", NULL);
	vt_mkdir("ws/ro");
	chmod(vt_path("ws/ro"), 0555);
	char *code = vt_exec_unprivileged(
		"{\"verb\":\"fs.createDirectory\",\"arguments\":{\"path\":\"ro/sub/deeper\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	ck_assert(!vt_exists("ws/ro/sub"));
}
END_TEST

/* ---- fs.deleteDirectory ------------------------------------------------------------------- */

START_TEST(delete_directory)
{
	vt_put("ws/outside-of-tree/keep.txt", "keep");
	vt_put("ws/tree/a/b/c/f.txt", "x");
	vt_put("ws/tree/a/g.txt", "x");
	vt_mkdir("ws/tree/empty");
	vt_symlink("../outside-of-tree", "ws/tree/a/dirlink");
	vt_symlink("../../outside-of-tree/keep.txt", "ws/tree/a/b/filelink");
	vt_symlink("/", "ws/tree/rootlink");
	ck_assert_int_eq(mkfifo(vt_path("ws/tree/fifo"), 0600), 0);
	vt_ok(one("fs.deleteDirectory", "tree"));
	ck_assert(!vt_exists("ws/tree"));
	assert_file("ws/outside-of-tree/keep.txt", "keep");
	/* A directory reached through an in-root symlink on the way. */
	vt_put("ws/real/sub/x", "x");
	vt_symlink("real", "ws/rl");
	vt_ok(one("fs.deleteDirectory", "rl/sub"));
	ck_assert(!vt_exists("ws/real/sub"));
	ck_assert(vt_exists("ws/real"));
}
END_TEST

/* Any depth, with a bounded number of descriptors: 3,000 levels (deeper than PATH_MAX allows to
 * name: built with mkdirat one level at a time) under a limit of 64 open files, with files on the
 * way and, below the levels kept open, a symlink to a directory outside that must not be
 * followed. One descriptor per level failed at 1,020 levels under ulimit -n 1024. */
START_TEST(delete_directory_any_depth)
{
	vt_put("outside/keep.txt", "keep\n");
	vt_mkdir("ws/deep");
	int cur = open(vt_path("ws/deep"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(cur, 0);
	for (int i = 0; i < 3000; i++) {
		ck_assert_int_eq(mkdirat(cur, "d", 0755), 0);
		if (i % 97 == 0) {
			int f = openat(cur, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			ck_assert_int_ge(f, 0);
			close(f);
		}
		if (i == 100)
			ck_assert_int_eq(symlinkat(vt_path("outside"), cur, "out"), 0);
		int next = openat(cur, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_ge(next, 0);
		close(cur);
		cur = next;
	}
	close(cur);
	struct rlimit old, low;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	cJSON *r = one("fs.deleteDirectory", "deep");
	setrlimit(RLIMIT_NOFILE, &old);
	vt_ok(r);
	ck_assert(!vt_exists("ws/deep"));
	char *kept = vt_get("outside/keep.txt", NULL);
	ck_assert_str_eq(kept, "keep\n");
	free(kept);
}
END_TEST

START_TEST(delete_directory_errors)
{
	vt_put("ws/f", "x");
	vt_mkdir("ws/d");
	vt_symlink("d", "ws/dlink");
	vt_err(one("fs.deleteDirectory", "."), "InvalidArgument", "root");
	vt_err(one("fs.deleteDirectory", "d/.."), "InvalidArgument", "root");
	char abs[8300];
	snprintf(abs, sizeof abs, "%s/", vt.root);
	vt_err(one("fs.deleteDirectory", abs), "InvalidArgument", "root");
	vt_err(one("fs.deleteDirectory", "f"), "NotADirectory", "'f'");
	vt_err(one("fs.deleteDirectory", "dlink"), "NotADirectory", "symlink");
	vt_err(one("fs.deleteDirectory", "missing"), "NotFound", "missing");
	vt_err(one("fs.deleteDirectory", ".."), "OutsideWorkspace", NULL);
	ck_assert(vt_exists("ws/d"));
	ck_assert(vt_exists("ws/f"));
	vt_put("ws/ro/sub/f", "x");
	chmod(vt_path("ws/ro/sub"), 0555);
	char *code = vt_exec_unprivileged(
		"{\"verb\":\"fs.deleteDirectory\",\"arguments\":{\"path\":\"ro/sub\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	ck_assert(vt_exists("ws/ro/sub/f"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs-tree");
	TCase *tc = tcase_create("tree");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_add_test(tc, delete_file);
	tcase_add_test(tc, delete_file_errors);
	tcase_add_test(tc, move_file);
	tcase_add_test(tc, move_file_across_file_systems);
	tcase_add_test(tc, move_file_errors);
	tcase_add_test(tc, copy_file);
	tcase_add_test(tc, copy_file_errors);
	tcase_add_test(tc, create_directory);
	tcase_add_test(tc, create_directory_errors);
	tcase_add_test(tc, delete_directory);
	tcase_add_test(tc, delete_directory_errors);
	tcase_add_test(tc, delete_directory_any_depth);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
