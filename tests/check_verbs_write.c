/* tests/check_verbs_write.c: fs.writeFile and fs.writeRange: content, line rules, permission
 * bits, symlinks written through, and every errorCode they return. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

#include "fs/atomic.h"
#include "fs/filelock.h"
#include "verbs_testlib.h"

static cJSON *write_file(const char *path, const char *content)
{
	return vt_call("fs.writeFile", vt_args("path", path, "content", content, NULL));
}

/* end < 0: endLine null (insert). */
static cJSON *write_range(const char *path, int start, int end, const char *content)
{
	cJSON *a = vt_args("path", path, "content", content, NULL);
	cJSON_AddNumberToObject(a, "startLine", start);
	if (end >= 0)
		cJSON_AddNumberToObject(a, "endLine", end);
	else
		cJSON_AddNullToObject(a, "endLine");
	return vt_call("fs.writeRange", a);
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

static mode_t mode_of(const char *rel)
{
	struct stat st;
	ck_assert_int_eq(lstat(vt_path(rel), &st), 0);
	return st.st_mode & 07777;
}

/* No temporary file is left in dir (base-relative) after a write. */
static void assert_no_temp(const char *dir)
{
	DIR *d = opendir(vt_path(dir));
	ck_assert_ptr_nonnull(d);
	struct dirent *de;
	while ((de = readdir(d)))
		ck_assert_msg(strstr(de->d_name, "hermes-tmp") == NULL, "left behind: %s", de->d_name);
	closedir(d);
}

/* ---- fs.writeFile ------------------------------------------------------------------------- */

START_TEST(write_file_creates_and_replaces)
{
	vt_ok(write_file("new.txt", "hello\r\nworld"));
	assert_file("ws/new.txt", "hello\r\nworld");
	vt_ok(write_file("new.txt", ""));
	assert_file("ws/new.txt", "");
	vt_ok(write_file("a/b/c/deep.txt", "deep\n"));
	assert_file("ws/a/b/c/deep.txt", "deep\n");
	vt_ok(write_file("no", "no"));
	assert_file("ws/no", "no");
	char abs[8300];
	snprintf(abs, sizeof abs, "%s/abs.txt", vt.root);
	vt_ok(write_file(abs, "absolute inside"));
	assert_file("ws/abs.txt", "absolute inside");
	assert_no_temp("ws");
	assert_no_temp("ws/a/b/c");
}
END_TEST

START_TEST(write_file_modes)
{
	mode_t old = umask(022);
	vt_ok(write_file("fresh.txt", "x"));
	ck_assert_uint_eq(mode_of("ws/fresh.txt"), 0644);
	umask(old);
	vt_put("ws/script.sh", "#!/bin/sh\n");
	chmod(vt_path("ws/script.sh"), 0751);
	vt_ok(write_file("script.sh", "#!/bin/sh\necho hi\n"));
	ck_assert_uint_eq(mode_of("ws/script.sh"), 0751);
	vt_put("ws/private", "p");
	chmod(vt_path("ws/private"), 0600);
	vt_ok(write_file("private", "q"));
	ck_assert_uint_eq(mode_of("ws/private"), 0600);
}
END_TEST

START_TEST(write_file_through_symlinks)
{
	vt_put("ws/real/target.txt", "old");
	vt_symlink("real/target.txt", "ws/link");
	vt_ok(write_file("link", "new"));
	assert_file("ws/real/target.txt", "new");
	struct stat st;
	ck_assert_int_eq(lstat(vt_path("ws/link"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	/* An absolute symlink inside the root, and a dangling one (creates its target). */
	vt_symlink(vt_path("ws/real/target.txt"), "ws/abslink");
	vt_ok(write_file("abslink", "via absolute"));
	assert_file("ws/real/target.txt", "via absolute");
	vt_symlink("real/later.txt", "ws/dangling");
	vt_ok(write_file("dangling", "created"));
	assert_file("ws/real/later.txt", "created");
	vt_symlink("real", "ws/dirlink");
	vt_ok(write_file("dirlink/in-dir.txt", "x"));
	assert_file("ws/real/in-dir.txt", "x");
}
END_TEST

START_TEST(write_file_errors)
{
	vt_mkdir("ws/d");
	vt_put("ws/f.txt", "keep");
	vt_err(write_file("d", "x"), "IsADirectory", "'d'");
	vt_err(write_file(".", "x"), "IsADirectory", NULL);
	vt_err(write_file("f.txt/x", "x"), "NotADirectory", "f.txt/x");
	vt_err(write_file("f.txt/", "x"), "InvalidArgument", "f.txt/");
	vt_err(write_file("", "x"), "InvalidArgument", "empty");
	vt_err(write_file("../x", "x"), "OutsideWorkspace", "../x");
	assert_file("ws/f.txt", "keep");
	ck_assert(!vt_exists("x"));
	vt_mkdir("ws/ro");
	chmod(vt_path("ws/ro"), 0555);
	char *code = vt_exec_unprivileged(
		"{\"verb\":\"fs.writeFile\",\"arguments\":{\"path\":\"ro/x.txt\",\"content\":\"x\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	ck_assert(!vt_exists("ws/ro/x.txt"));
}
END_TEST

START_TEST(write_file_no_space)
{
	/* A 64 KiB tmpfs in a private mount namespace (needs root; elsewhere this test says so). */
	vt_mkdir("ws/small");
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("tmpfs", vt_path("ws/small"), "tmpfs", 0, "size=64k") < 0)
			_exit(77);
		/* The executor's root descriptor still sees the old mount table: open a new one. */
		hermes_executor_free(vt.ex);
		if (hermes_executor_new(&vt.config, &vt.ex, NULL) < 0)
			_exit(2);
		size_t n = 1024 * 1024;
		char *big = malloc(n + 1);
		memset(big, 'x', n);
		big[n] = '\0';
		cJSON *r = write_file("small/big.txt", big);
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "errorCode");
		bool ok = cJSON_IsString(c) && strcmp(c->valuestring, "NoSpace") == 0;
		/* fs.writeRange and fs.copyFile too, and the file they would change stays as it was. */
		big[40000] = '\0';
		r = write_file("small/fits.txt", big);
		ok = ok && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "succeeded"));
		big[40000] = 'x';
		r = write_range("small/fits.txt", 1, -1, big);
		c = cJSON_GetObjectItemCaseSensitive(r, "errorCode");
		ok = ok && cJSON_IsString(c) && strcmp(c->valuestring, "NoSpace") == 0;
		vt_put("ws/outside-small.txt", big);
		r = vt_call("fs.copyFile", vt_args("sourcePath", "outside-small.txt", "destinationPath",
		                                   "small/copy.txt", NULL));
		c = cJSON_GetObjectItemCaseSensitive(r, "errorCode");
		ok = ok && cJSON_IsString(c) && strcmp(c->valuestring, "NoSpace") == 0;
		size_t flen = 0;
		char *fits = vt_get("ws/small/fits.txt", &flen);
		ok = ok && fits && flen == 40000;
		/* And nothing is left behind on the full file system. */
		DIR *d = opendir(vt_path("ws/small"));
		struct dirent *de;
		while (d && (de = readdir(d)))
			if (strstr(de->d_name, "hermes-tmp") || strcmp(de->d_name, "big.txt") == 0 ||
			    strcmp(de->d_name, "copy.txt") == 0)
				ok = false;
		_exit(ok ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		fprintf(stderr, "write_file_no_space: skipped (cannot mount a tmpfs here)\n");
		return;
	}
	ck_assert_msg(WEXITSTATUS(status) == 0, "a write to a full file system must fail with NoSpace");
}
END_TEST

/* ---- fs.writeRange ------------------------------------------------------------------------ */

/* A write killed between naming its temporary file and renaming it leaves
 * ".<name>.<pid>.<8 hex>.hermes-tmp" behind; the next write into the directory removes those of
 * dead processes untouched for a minute, and nothing else. */
static long dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return (long)p;
}

static void put_aged(const char *rel, int seconds_ago)
{
	vt_put(rel, "left over\n");
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= seconds_ago;
	t[1] = t[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, vt_path(rel), t, 0), 0);
}

START_TEST(stale_temp_files_swept)
{
	char stale[128], live[128], fresh[128];
	snprintf(stale, sizeof stale, "ws/t/.x.txt.%ld.0badf00d.hermes-tmp", dead_pid());
	snprintf(live, sizeof live, "ws/t/.x.txt.%ld.0badf00d.hermes-tmp", (long)getpid());
	snprintf(fresh, sizeof fresh, "ws/t/.y.txt.%ld.12345678.hermes-tmp", dead_pid());
	put_aged(stale, 3600);
	put_aged(live, 3600);
	put_aged(fresh, 5);
	put_aged("ws/t/x.txt.hermes-tmp", 3600);          /* not the pattern: no leading dot */
	put_aged("ws/t/.x.txt.12.0badf00g.hermes-tmp", 3600); /* not hex */
	vt_put("ws/t/x.txt", "old\n");
	vt_ok(vt_call("fs.writeFile", vt_args("path", "t/x.txt", "content", "new\n", NULL)));
	ck_assert(!vt_exists(stale));
	ck_assert(vt_exists(live));
	ck_assert(vt_exists(fresh));
	ck_assert(vt_exists("ws/t/x.txt.hermes-tmp"));
	ck_assert(vt_exists("ws/t/.x.txt.12.0badf00g.hermes-tmp"));
	char *now = vt_get("ws/t/x.txt", NULL);
	ck_assert_str_eq(now, "new\n");
	free(now);
	/* and the write's own temporary name follows the pattern it sweeps */
	DIR *d = opendir(vt_path("ws/t"));
	int ours = 0;
	for (struct dirent *de; (de = readdir(d));)
		ours += strstr(de->d_name, ".hermes-tmp") != NULL;
	closedir(d);
	ck_assert_int_eq(ours, 4); /* nothing of this write left behind */
}
END_TEST

START_TEST(write_range_rules)
{
	struct {
		const char *before;
		int start, end; /* end -1: insert */
		const char *content, *after;
	} cases[] = {
		{"l1\nl2\nl3\n", 2, 2, "X", "l1\nX\nl3\n"},
		{"l1\nl2\nl3\n", 2, 3, "X\nY\nZ\n", "l1\nX\nY\nZ\n"},
		{"l1\nl2\nl3\n", 1, 3, "only\n", "only\n"},
		{"l1\nl2\nl3\n", 2, -1, "X", "l1\nX\nl2\nl3\n"},
		{"l1\nl2\nl3\n", 1, -1, "X\n", "X\nl1\nl2\nl3\n"},
		{"l1\nl2\nl3\n", 4, -1, "X", "l1\nl2\nl3\nX\n"},
		{"a\nb", 3, -1, "c", "a\nb\nc\n"},
		{"a\nb", 2, 2, "B", "a\nB\n"},
		{"a\nb", 2, -1, "x", "a\nx\nb"},
		{"l1\nl2\nl3\n", 2, 3, "", "l1\n"},
		{"l1\nl2\nl3\n", 1, 1, "", "l2\nl3\n"},
		{"l1\nl2\nl3\n", 2, -1, "", "l1\nl2\nl3\n"},
		{"", 1, -1, "first", "first\n"},
		{"", 1, -1, "", ""},
		{"a\r\nb\r\n", 2, 2, "B\r\n", "a\r\nB\r\n"},
		{"a\r\nb\r\n", 3, -1, "c\r\nd", "a\r\nb\r\nc\r\nd\r\n"}, /* the file's CRLF */
		{"\n\n\n", 2, 2, "mid", "\nmid\n\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		vt_put("ws/f.txt", cases[i].before);
		cJSON *r = write_range("f.txt", cases[i].start, cases[i].end, cases[i].content);
		vt_ok(r);
		char *got = vt_get("ws/f.txt", NULL);
		ck_assert_msg(strcmp(got, cases[i].after) == 0, "case %zu: got '%s', want '%s'", i, got,
		              cases[i].after);
		free(got);
	}
	assert_no_temp("ws");
}
END_TEST

START_TEST(write_range_big_file)
{
	/* 200,000 numbered lines (about 1.3 MB, several read buffers): replace one in the middle. */
	size_t cap = 2 * 1024 * 1024, n = 0;
	char *text = malloc(cap);
	for (int i = 1; i <= 200000; i++)
		n += (size_t)sprintf(text + n, "%d\n", i);
	vt_put_bytes("ws/big.txt", text, n);
	vt_ok(write_range("big.txt", 123456, 123457, "replaced"));
	char *got = vt_get("ws/big.txt", NULL);
	char *p = strstr(got, "\n123455\nreplaced\n123458\n");
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(strlen(got), n - strlen("123456\n123457\n") + strlen("replaced\n"));
	ck_assert(strncmp(got, text, (size_t)(p - got)) == 0);
	free(got);
	free(text);
}
END_TEST

START_TEST(write_range_modes_and_links)
{
	vt_put("ws/real.txt", "a\nb\n");
	chmod(vt_path("ws/real.txt"), 0700);
	vt_symlink("real.txt", "ws/link");
	vt_ok(write_range("link", 2, 2, "B"));
	assert_file("ws/real.txt", "a\nB\n");
	ck_assert_uint_eq(mode_of("ws/real.txt"), 0700);
	struct stat st;
	ck_assert_int_eq(lstat(vt_path("ws/link"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
}
END_TEST

START_TEST(write_range_errors)
{
	const char *text = "l1\nl2\nl3\n";
	vt_put("ws/f.txt", text);
	vt_err(write_range("f.txt", 0, 1, "x"), "InvalidArguments", "startLine");
	vt_err(write_range("f.txt", 3, 2, "x"), "InvalidArgument", "endLine");
	vt_err(write_range("f.txt", 2, 4, "x"), "InvalidArgument", "endLine 4");
	vt_err(write_range("f.txt", 4, 4, "x"), "InvalidArgument", "endLine 4");
	vt_err(write_range("f.txt", 5, -1, "x"), "InvalidArgument", "startLine 5");
	vt_err(write_range("f.txt", 9, 9, "x"), "InvalidArgument", NULL);
	assert_file("ws/f.txt", text);
	vt_put("ws/noend.txt", "a\nb");
	vt_err(write_range("noend.txt", 4, -1, "x"), "InvalidArgument", "3 appends");
	assert_file("ws/noend.txt", "a\nb");
	vt_err(write_range("missing.txt", 1, -1, "x"), "NotFound", "missing.txt");
	ck_assert(!vt_exists("ws/missing.txt"));
	vt_err(write_range("nodir/missing.txt", 1, -1, "x"), "NotFound", NULL);
	vt_mkdir("ws/d");
	vt_err(write_range("d", 1, -1, "x"), "IsADirectory", "'d'");
	vt_err(write_range("../f.txt", 1, -1, "x"), "OutsideWorkspace", NULL);
	assert_no_temp("ws");
	vt_mkdir("ws/ro");
	vt_put("ws/ro/f.txt", "a\n");
	chmod(vt_path("ws/ro"), 0555);
	char *code = vt_exec_unprivileged("{\"verb\":\"fs.writeRange\",\"arguments\":{\"path\":"
	                                  "\"ro/f.txt\",\"startLine\":1,\"content\":\"x\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	assert_file("ws/ro/f.txt", "a\n");
}
END_TEST

START_TEST(streaming_verbs_cancel)
{
	/* A cancelled call stops in its read loop and changes nothing. */
	size_t n = 4 * 1024 * 1024;
	char *text = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		text[i] = i % 64 == 63 ? '\n' : 'x';
	text[n] = '\0';
	vt_put("ws/big.txt", text);
	vt_err(vt_exec_cancelled("{\"verb\":\"fs.lineCount\",\"arguments\":{\"path\":\"big.txt\"}}"),
	       "Cancelled", "big.txt");
	vt_err(vt_exec_cancelled("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"big.txt\","
	                         "\"startLine\":60000,\"endLine\":60001}}"),
	       "Cancelled", "big.txt");
	vt_err(vt_exec_cancelled("{\"verb\":\"fs.writeRange\",\"arguments\":{\"path\":\"big.txt\","
	                         "\"startLine\":2,\"endLine\":3,\"content\":\"x\"}}"),
	       "Cancelled", "big.txt");
	vt_err(vt_exec_cancelled("{\"verb\":\"fs.copyFile\",\"arguments\":{\"sourcePath\":\"big.txt\","
	                         "\"destinationPath\":\"copy.txt\"}}"),
	       "Cancelled", "big.txt");
	ck_assert(!vt_exists("ws/copy.txt"));
	vt_put("ws/tree/a/b", "x");
	vt_err(vt_exec_cancelled("{\"verb\":\"fs.deleteDirectory\",\"arguments\":{\"path\":\"tree\"}}"),
	       "Cancelled", "tree");
	ck_assert(vt_exists("ws/tree/a/b"));
	assert_file("ws/big.txt", text);
	assert_no_temp("ws");
	free(text);
}
END_TEST

/* ---- fs.editFile -------------------------------------------------------------------------- */

/* fs.editFile with edits given as old, new, replaceAll triples, ended by NULL. */
static cJSON *edit(const char *path, bool dry, ...)
{
	cJSON *a = vt_args("path", path, NULL);
	cJSON *list = cJSON_AddArrayToObject(a, "edits");
	va_list ap;
	va_start(ap, dry);
	for (const char *old; (old = va_arg(ap, const char *));) {
		const char *new = va_arg(ap, const char *);
		int all = va_arg(ap, int);
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "oldText", old);
		cJSON_AddStringToObject(e, "newText", new);
		if (all)
			cJSON_AddBoolToObject(e, "replaceAll", true);
		cJSON_AddItemToArray(list, e);
	}
	va_end(ap);
	if (dry)
		cJSON_AddBoolToObject(a, "dryRun", true);
	return vt_call("fs.editFile", a);
}

START_TEST(write_range_keeps_crlf)
{
	/* lines put into a CRLF file get CRLF, whether written with LF or CRLF (issue 10, case 18) */
	vt_put("ws/w.txt", "one\r\ntwo\r\nthree\r\n");
	vt_ok(write_range("w.txt", 2, 2, "TWO\nand a half"));
	char *got = vt_get("ws/w.txt", NULL);
	ck_assert_str_eq(got, "one\r\nTWO\r\nand a half\r\nthree\r\n");
	free(got);
	vt_ok(write_range("w.txt", 1, 1, "ONE\r\n"));
	got = vt_get("ws/w.txt", NULL);
	ck_assert_str_eq(got, "ONE\r\nTWO\r\nand a half\r\nthree\r\n");
	free(got);
	/* an LF file stays LF */
	vt_put("ws/u.txt", "a\nb\n");
	vt_ok(write_range("u.txt", 2, 2, "B"));
	got = vt_get("ws/u.txt", NULL);
	ck_assert_str_eq(got, "a\nB\n");
	free(got);
}
END_TEST

START_TEST(edit_file)
{
	vt_put("ws/f.txt", "alpha\nbeta\ngamma\nbeta\n");
	chmod(vt_path("ws/f.txt"), 0640);
	/* in order, each on the result of the one before */
	cJSON *r = edit("f.txt", false, "alpha", "ALPHA", 0, "beta", "B", 1, "ALPHA\nB", "first", 0, NULL);
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "replacements"), 4);
	char *got = vt_get("ws/f.txt", NULL);
	ck_assert_str_eq(got, "first\ngamma\nB\n");
	free(got);
	ck_assert_str_eq(vt_str(r, "diff"), "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,3 @@\n-alpha\n-beta\n+first\n"
	                                     " gamma\n-beta\n+B\n");
	struct stat st;
	ck_assert_int_eq(stat(vt_path("ws/f.txt"), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);
	/* dryRun: the diff and the count, nothing written */
	r = edit("f.txt", true, "gamma", "G", 0, NULL);
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "replacements"), 1);
	ck_assert_ptr_nonnull(strstr(vt_str(r, "diff"), "-gamma\n+G\n"));
	got = vt_get("ws/f.txt", NULL);
	ck_assert_str_eq(got, "first\ngamma\nB\n");
	free(got);
	/* a missing final newline is said as diff -u says it */
	vt_put("ws/n.txt", "x\ny");
	r = edit("n.txt", false, "y", "z", 0, NULL);
	ck_assert_str_eq(vt_str(r, "diff"), "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n x\n-y\n"
	                                     "\\ No newline at end of file\n+z\n\\ No newline at end of file\n");
	/* CRLF: edits written with LF match and are written with CRLF */
	vt_put("ws/w.txt", "one\r\ntwo\r\n");
	vt_ok(edit("w.txt", false, "one\ntwo", "1\n2\n3", 0, NULL));
	got = vt_get("ws/w.txt", NULL);
	ck_assert_str_eq(got, "1\r\n2\r\n3\r\n");
	free(got);
}
END_TEST

START_TEST(edit_file_all_or_nothing)
{
	vt_put("ws/f.txt", "a a\nb\n");
	vt_mkdir("ws/d");
	vt_put_bytes("ws/bin", "a\0b", 3);
	char *before = vt_snapshot(".");
	/* the first edit would apply, the second finds nothing: nothing is written */
	vt_err(edit("f.txt", false, "b", "B", 0, "zzz", "y", 0, NULL), "InvalidArgument", "edit 1");
	vt_err(edit("f.txt", false, "a", "A", 0, NULL), "InvalidArgument", "occurs 2 times");
	vt_err(edit("f.txt", false, "", "A", 0, NULL), "InvalidArgument", "empty");
	vt_err(edit("f.txt", false, NULL), "InvalidArgument", "edits is empty");
	vt_err(edit("missing.txt", false, "a", "b", 0, NULL), "NotFound", "missing.txt");
	vt_err(edit("../x.txt", false, "a", "b", 0, NULL), "OutsideWorkspace", NULL);
	vt_err(edit("d", false, "a", "b", 0, NULL), "IsADirectory", NULL);
	vt_err(edit("bin", false, "a", "b", 0, NULL), "NotText", NULL);
	char *after = vt_snapshot(".");
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	cJSON *r = edit("f.txt", false, "a", "A", 1, NULL);
	ck_assert_int_eq(vt_int(r, "replacements"), 2);
}
END_TEST

/* ---- one writer at a time (fs/filelock.h) -------------------------------------------------- */

typedef struct locker {
	int dirfd;
	struct stat st;
	int rc;
} locker_t;

static void *lock_in_thread(void *p)
{
	locker_t *l = p;
	int fd;
	l->rc = hermes_file_lock(l->dirfd, "f.txt", NULL, &fd, &l->st);
	if (l->rc == 0)
		close(fd);
	return NULL;
}

START_TEST(file_lock_follows_replacement)
{
	vt_put("ws/f.txt", "old\n");
	int dirfd = open(vt.root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dirfd, 0);
	int fd;
	struct stat st, now;
	ck_assert_int_eq(hermes_file_lock(dirfd, "f.txt", NULL, &fd, &st), 0);
	/* a second writer (another thread, its own descriptor) waits for the lock... */
	locker_t l = {.dirfd = dirfd, .rc = 1};
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, lock_in_thread, &l), 0);
	usleep(50 * 1000);
	ck_assert_int_eq(l.rc, 1);
	/* ...while the first replaces the file: the second then locks the new file, not the old */
	ck_assert_int_eq(hermes_atomic_replace(dirfd, "f.txt", &st, &st, "new\n", 4, &now), 0);
	close(fd);
	pthread_join(t, NULL);
	ck_assert_int_eq(l.rc, 0);
	ck_assert(l.st.st_ino == now.st_ino && l.st.st_ino != st.st_ino);
	char v1[HERMES_FILE_VERSION_MAX], v2[HERMES_FILE_VERSION_MAX];
	hermes_file_version(&st, v1);
	hermes_file_version(&now, v2);
	ck_assert_str_ne(v1, v2);
	close(dirfd);
}
END_TEST

START_TEST(commit_refuses_a_file_changed_behind_it)
{
	vt_put("ws/f.txt", "read\n");
	int dirfd = open(vt.root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	ck_assert_int_eq(fstatat(dirfd, "f.txt", &st, 0), 0);
	ck_assert(hermes_file_unchanged(dirfd, "f.txt", &st));
	/* an editor that writes in place, without the lock, between our read and our commit */
	vt_put("ws/f.txt", "theirs, longer\n");
	ck_assert(!hermes_file_unchanged(dirfd, "f.txt", &st));
	ck_assert_int_eq(hermes_atomic_replace(dirfd, "f.txt", &st, &st, "ours\n", 5, NULL),
	                 HERMES_WS_ECHANGED);
	char *got = vt_get("ws/f.txt", NULL);
	ck_assert_str_eq(got, "theirs, longer\n");
	free(got);
	char *tree = vt_snapshot("ws");
	ck_assert_ptr_null(strstr(tree, "hermes-tmp"));
	free(tree);
	close(dirfd);
}
END_TEST

enum { EDITORS = 64 };

static void *edit_line(void *p)
{
	int i = (int)(intptr_t)p;
	char env[256], *out = NULL;
	snprintf(env, sizeof env, "{\"verb\":\"fs.editFile\",\"arguments\":{\"path\":\"e.txt\",\"edits\":"
	         "[{\"oldText\":\"line %d\\n\",\"newText\":\"edited %d\\n\"}]}}", i, i);
	hermes_execute(vt.ex, env, strlen(env), 0, NULL, &out, NULL);
	bool ok = out && strstr(out, "\"succeeded\":true");
	free(out);
	return (void *)(intptr_t)ok;
}

START_TEST(edits_from_threads_all_land)
{
	char text[EDITORS * 16] = "";
	for (int i = 0; i < EDITORS; i++)
		snprintf(text + strlen(text), sizeof text - strlen(text), "line %d\n", i);
	vt_put("ws/e.txt", text);
	pthread_t t[EDITORS];
	for (int i = 0; i < EDITORS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, edit_line, (void *)(intptr_t)i), 0);
	int ok = 0;
	for (int i = 0; i < EDITORS; i++) {
		void *r;
		pthread_join(t[i], &r);
		ok += (int)(intptr_t)r;
	}
	ck_assert_int_eq(ok, EDITORS);
	char *got = vt_get("ws/e.txt", NULL);
	for (int i = 0; i < EDITORS; i++) {
		char want[32];
		snprintf(want, sizeof want, "edited %d\n", i);
		ck_assert_msg(strstr(got, want), "edit %d was lost", i);
	}
	free(got);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs-write");
	TCase *tc = tcase_create("write");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_add_test(tc, write_file_creates_and_replaces);
	tcase_add_test(tc, write_file_modes);
	tcase_add_test(tc, write_file_through_symlinks);
	tcase_add_test(tc, write_file_errors);
	tcase_add_test(tc, write_file_no_space);
	tcase_add_test(tc, stale_temp_files_swept);
	tcase_add_test(tc, write_range_rules);
	tcase_add_test(tc, write_range_big_file);
	tcase_add_test(tc, write_range_modes_and_links);
	tcase_add_test(tc, write_range_errors);
	tcase_add_test(tc, streaming_verbs_cancel);
	tcase_add_test(tc, write_range_keeps_crlf);
	tcase_add_test(tc, edit_file);
	tcase_add_test(tc, edit_file_all_or_nothing);
	tcase_add_test(tc, file_lock_follows_replacement);
	tcase_add_test(tc, commit_refuses_a_file_changed_behind_it);
	tcase_add_test(tc, edits_from_threads_all_land);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
