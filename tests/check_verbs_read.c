/* tests/check_verbs_read.c: the verbs that look: fs.exists, fs.readFile, fs.readRange,
 * fs.lineCount, fs.listDir; every rule and every errorCode they return. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_testlib.h"

static cJSON *range(const char *path, int start, int end, int numbers)
{
	cJSON *a = vt_args("path", path, NULL);
	cJSON_AddNumberToObject(a, "startLine", start);
	cJSON_AddNumberToObject(a, "endLine", end);
	if (numbers >= 0)
		cJSON_AddBoolToObject(a, "includeLineNumbers", numbers);
	return vt_call("fs.readRange", a);
}

static cJSON *one(const char *verb, const char *path)
{
	return vt_call(verb, vt_args("path", path, NULL));
}

/* ---- fs.exists ---------------------------------------------------------------------------- */

START_TEST(exists_kinds)
{
	vt_put("ws/f.txt", "x");
	vt_mkdir("ws/d");
	vt_symlink("f.txt", "ws/link");
	vt_symlink("nothing-here", "ws/dangling");
	const char *yes[] = {"f.txt", "d", "d/", "link", "dangling", ".", "d/../f.txt", "./f.txt"};
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
		cJSON *r = one("fs.exists", yes[i]);
		vt_ok(r);
		ck_assert_msg(vt_bool(r, "exists"), "%s should exist", yes[i]);
	}
	const char *no[] = {"missing", "d/missing", "missing/deeper", "f.txt/x", "f.txt/"};
	for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
		cJSON *r = one("fs.exists", no[i]);
		vt_ok(r);
		ck_assert_msg(!vt_bool(r, "exists"), "%s should not exist", no[i]);
	}
	/* An absolute path inside the root is accepted. */
	char abs[8300];
	snprintf(abs, sizeof abs, "%s/f.txt", vt.root);
	cJSON *r = one("fs.exists", abs);
	vt_ok(r);
	ck_assert(vt_bool(r, "exists"));
}
END_TEST

START_TEST(exists_errors)
{
	vt_err(one("fs.exists", ""), "InvalidArgument", "empty");
	vt_err(one("fs.exists", "../x"), "OutsideWorkspace", "../x");
	/* A directory that may not be searched. */
	vt_put("ws/locked/f", "x");
	chmod(vt_path("ws/locked"), 0);
	char *code = vt_exec_unprivileged("{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"locked/f\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
}
END_TEST

/* ---- fs.readFile -------------------------------------------------------------------------- */

START_TEST(read_file_bytes)
{
	const char *texts[] = {"", "a", "a\n", "a\r\nb\r\n", "no ending", "\n\n\n",
	                       "ünïcödé ✓ 𝄞\ttabs\n", "  leading\n\ttrailing  "};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		vt_put("ws/t.txt", texts[i]);
		cJSON *r = one("fs.readFile", "t.txt");
		vt_ok(r);
		ck_assert_str_eq(vt_str(r, "content"), texts[i]);
	}
	/* Through a relative and an absolute symlink that stay inside. */
	vt_put("ws/real/target.txt", "target\n");
	vt_symlink("real/target.txt", "ws/rel-link");
	vt_symlink(vt_path("ws/real/target.txt"), "ws/abs-link");
	vt_symlink("real", "ws/dir-link");
	ck_assert_str_eq(vt_str(one("fs.readFile", "rel-link"), "content"), "target\n");
	ck_assert_str_eq(vt_str(one("fs.readFile", "abs-link"), "content"), "target\n");
	ck_assert_str_eq(vt_str(one("fs.readFile", "dir-link/target.txt"), "content"), "target\n");
	ck_assert_str_eq(vt_str(one("fs.readFile", "real/../real/./target.txt"), "content"), "target\n");
}
END_TEST

START_TEST(read_file_errors)
{
	vt_put("ws/f.txt", "x");
	vt_mkdir("ws/d");
	vt_err(one("fs.readFile", "missing.txt"), "NotFound", "missing.txt");
	vt_err(one("fs.readFile", "d"), "IsADirectory", "'d'");
	vt_err(one("fs.readFile", "f.txt/x"), "NotADirectory", "f.txt/x");
	vt_put_bytes("ws/latin1.txt", "caf\xe9\n", 5);
	vt_err(one("fs.readFile", "latin1.txt"), "NotText", "latin1.txt");
	vt_put_bytes("ws/nul.txt", "a\0b", 3);
	vt_err(one("fs.readFile", "nul.txt"), "NotText", "NUL");
	vt_put_bytes("ws/surrogate.txt", "\xed\xa0\x80", 3);
	vt_err(one("fs.readFile", "surrogate.txt"), "NotText", NULL);
	vt_put_bytes("ws/overlong.txt", "\xc0\xaf", 2);
	vt_err(one("fs.readFile", "overlong.txt"), "NotText", NULL);
	ck_assert_int_eq(mkfifo(vt_path("ws/fifo"), 0644), 0);
	vt_err(one("fs.readFile", "fifo"), "InvalidArgument", "regular file");
	/* The read limit. */
	hermes_config_t c = {.max_read_bytes = 10};
	vt_reopen(&c);
	vt_put("ws/ten.txt", "0123456789");
	vt_ok(one("fs.readFile", "ten.txt"));
	vt_put("ws/eleven.txt", "0123456789A");
	vt_err(one("fs.readFile", "eleven.txt"), "TooLarge", "eleven.txt");
	/* Permissions. */
	chmod(vt_path("ws/f.txt"), 0);
	char *code = vt_exec_unprivileged("{\"verb\":\"fs.readFile\",\"arguments\":{\"path\":\"f.txt\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	code = vt_exec_unprivileged("{\"verb\":\"fs.lineCount\",\"arguments\":{\"path\":\"f.txt\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	code = vt_exec_unprivileged("{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"f.txt\","
	                            "\"startLine\":1,\"endLine\":1}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
}
END_TEST

START_TEST(read_io_error)
{
	/* /proc/self/mem is a regular file whose first page cannot be read: EIO. */
	snprintf(vt.root, sizeof vt.root, "/proc/%ld", (long)getpid());
	hermes_config_t c = {0};
	vt_reopen(&c);
	vt_err(one("fs.readFile", "mem"), "IoError", "mem");
	vt_err(one("fs.lineCount", "mem"), "IoError", "mem");
	vt_err(range("mem", 1, 2, -1), "IoError", "mem");
	snprintf(vt.root, sizeof vt.root, "%s/ws", vt.base);
}
END_TEST

/* ---- fs.readRange ------------------------------------------------------------------------- */

START_TEST(read_range_numbers)
{
	vt_put("ws/f.txt", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12");
	ck_assert_str_eq(vt_str(range("f.txt", 9, 11, -1), "content"), " 9: l9\n10: l10\n11: l11\n");
	ck_assert_str_eq(vt_str(range("f.txt", 9, 11, 1), "content"), " 9: l9\n10: l10\n11: l11\n");
	ck_assert_str_eq(vt_str(range("f.txt", 2, 3, 1), "content"), "2: l2\n3: l3\n");
	/* Width from the largest number returned, after clamping. */
	ck_assert_str_eq(vt_str(range("f.txt", 8, 1000, 1), "content"),
	                 " 8: l8\n 9: l9\n10: l10\n11: l11\n12: l12");
	ck_assert_str_eq(vt_str(range("f.txt", 12, 12, 1), "content"), "12: l12");
	ck_assert_str_eq(vt_str(range("f.txt", 13, 20, 1), "content"), "");
	ck_assert_str_eq(vt_str(range("f.txt", 5, 5, 0), "content"), "l5\n");
	vt_put("ws/e.txt", "");
	ck_assert_str_eq(vt_str(range("e.txt", 1, 1, 1), "content"), "");
}
END_TEST

/* The line numbers of a file's last lines come from what the last count of it learned (per device,
 * inode, size and modification time): they stay right when the file grows, is rewritten in place
 * (even to the same size and time), or shrinks. */
static void write_lines(const char *rel, int from, int to, const char *fmt, int flags)
{
	int fd = open(vt_path(rel), O_WRONLY | O_CREAT | flags, 0644);
	ck_assert_int_ge(fd, 0);
	char line[64];
	for (int i = from; i <= to; i++) {
		int n = snprintf(line, sizeof line, fmt, i);
		ck_assert_int_eq(write(fd, line, (size_t)n), n);
	}
	close(fd);
}

START_TEST(read_range_tail_numbers_follow_changes)
{
	write_lines("ws/log.txt", 1, 100000, "line %06d\n", O_TRUNC);
	ck_assert_str_eq(vt_str(range("log.txt", -2, -1, 1), "content"),
	                 " 99999: line 099999\n100000: line 100000\n");
	ck_assert_str_eq(vt_str(range("log.txt", -1, -1, 1), "content"), "100000: line 100000\n");
	/* a log that grew: only the new bytes are counted */
	write_lines("ws/log.txt", 100001, 100003, "line %06d\n", O_APPEND);
	ck_assert_str_eq(vt_str(range("log.txt", -1, -1, 1), "content"), "100003: line 100003\n");
	ck_assert_str_eq(vt_str(range("log.txt", -2, 100002, 1), "content"), "100002: line 100002\n");
	/* rewritten in place, the same size and modification time, other lines */
	struct stat before;
	ck_assert_int_eq(stat(vt_path("ws/log.txt"), &before), 0);
	write_lines("ws/log.txt", 1, 50001, "line %018d\n", O_TRUNC); /* 24 bytes a line */
	int fd = open(vt_path("ws/log.txt"), O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "0123456789a\n", 12), 12);
	struct timespec t[2] = {before.st_atim, before.st_mtim};
	ck_assert_int_eq(futimens(fd, t), 0);
	close(fd);
	struct stat after;
	ck_assert_int_eq(stat(vt_path("ws/log.txt"), &after), 0);
	ck_assert_int_eq(after.st_size, before.st_size);
	ck_assert_int_eq(after.st_ino, before.st_ino);
	ck_assert_str_eq(vt_str(range("log.txt", -2, -1, 1), "content"),
	                 "50001: line 000000000000050001\n50002: 0123456789a\n");
	/* rewritten longer, and shrunk */
	write_lines("ws/log.txt", 1, 200000, "%d\n", O_TRUNC);
	ck_assert_str_eq(vt_str(range("log.txt", -1, -1, 1), "content"), "200000: 200000\n");
	write_lines("ws/log.txt", 1, 10, "%d\n", O_TRUNC);
	ck_assert_str_eq(vt_str(range("log.txt", -1, -1, 1), "content"), "10: 10\n");
	ck_assert_int_eq(vt_int(range("log.txt", -3, 9, 1), "firstLine"), 8);
}
END_TEST

START_TEST(read_range_equals_read_file)
{
	/* Without numbers, every range of every line equals the matching slice of fs.readFile. */
	const char *text = "a\r\n\nccc\r\n\r\nlast without ending";
	vt_put("ws/f.txt", text);
	const char *lines[] = {"a\r\n", "\n", "ccc\r\n", "\r\n", "last without ending"};
	for (int s = 1; s <= 6; s++) {
		for (int e = s; e <= 7; e++) {
			char want[256] = "";
			for (int i = s; i <= e && i <= 5; i++)
				strcat(want, lines[i - 1]);
			cJSON *r = range("f.txt", s, e, 0);
			vt_ok(r);
			ck_assert_msg(strcmp(vt_str(r, "content"), want) == 0, "lines %d-%d", s, e);
		}
	}
	ck_assert_str_eq(vt_str(range("f.txt", 1, 5, 0), "content"), text);
}
END_TEST

START_TEST(read_range_across_buffers)
{
	/* A file of several read buffers whose lines straddle buffer boundaries. */
	size_t n = 3 * 1024 * 1024 + 17;
	char *data = malloc(n + 1);
	int lines = 0;
	size_t pos = 0;
	while (pos < n) {
		int len = 1 + (lines * 7919) % 3001;
		for (int i = 0; i < len && pos < n; i++)
			data[pos++] = (char)('a' + (lines + i) % 26);
		if (pos < n)
			data[pos++] = '\n';
		lines++;
	}
	data[n] = '\0';
	vt_put_bytes("ws/big.txt", data, n);
	/* Line k starts after the (k-1)th newline. */
	for (int k = 1; k <= lines; k += lines / 37 + 1) {
		const char *p = data;
		for (int i = 1; i < k; i++)
			p = strchr(p, '\n') + 1;
		const char *q = p;
		for (int i = 0; i < 3 && q; i++) {
			q = strchr(q, '\n');
			if (q)
				q++;
		}
		size_t len = q ? (size_t)(q - p) : strlen(p);
		cJSON *r = range("big.txt", k, k + 2, 0);
		vt_ok(r);
		ck_assert_msg(strlen(vt_str(r, "content")) == len && memcmp(vt_str(r, "content"), p, len) == 0,
		              "lines %d-%d differ", k, k + 2);
	}
	cJSON *r = one("fs.lineCount", "big.txt");
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "lineCount"), lines);
	free(data);
}
END_TEST

START_TEST(read_range_errors)
{
	vt_put("ws/f.txt", "a\nb\nc\n");
	vt_err(range("f.txt", 0, 2, 1), "InvalidArgument", "startLine");
	vt_err(range("f.txt", 1, 0, 1), "InvalidArgument", "endLine");
	vt_err(range("f.txt", -1, -5, 1), "InvalidArgument", "before startLine");
	vt_err(range("f.txt", 3, 2, 1), "InvalidArgument", "endLine");
	vt_err(range("missing", 1, 2, 1), "NotFound", "missing");
	vt_mkdir("ws/d");
	vt_err(range("d", 1, 2, 1), "IsADirectory", "'d'");
	vt_put_bytes("ws/bad.txt", "ok\nok\nb\xff" "d\nok\n", 13);
	vt_ok(range("bad.txt", 1, 2, 1));
	vt_ok(range("bad.txt", 4, 4, 1));
	vt_err(range("bad.txt", 2, 4, 1), "NotText", "line 3");
	hermes_config_t c = {.max_read_bytes = 8};
	vt_reopen(&c);
	vt_put("ws/long.txt", "12345\n12345\n12345\n");
	vt_ok(range("long.txt", 1, 1, 1));
	vt_err(range("long.txt", 1, 3, 1), "TooLarge", "long.txt");
}
END_TEST

START_TEST(streaming_memory_is_flat)
{
	/* A 256 MiB first line (a sparse file: cheap to make) and a short second one. Reading line 2
	 * or counting lines must not hold the file: the peak RSS of a fresh child stays small. */
	int fd = open(vt_path("ws/sparse.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 256L << 20), 0);
	ck_assert_int_eq(pwrite(fd, "\nlast\n", 6, 256L << 20), 6);
	close(fd);
	for (int which = 0; which < 2; which++) {
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct rusage before, after;
			getrusage(RUSAGE_SELF, &before);
			cJSON *r = which == 0 ? range("sparse.txt", 2, 2, 1) : one("fs.lineCount", "sparse.txt");
			getrusage(RUSAGE_SELF, &after);
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, which == 0 ? "content" : "lineCount");
			bool right = which == 0 ? cJSON_IsString(c) && strcmp(c->valuestring, "2: last\n") == 0
			                        : cJSON_IsNumber(c) && c->valuedouble == 2;
			long grew_kib = after.ru_maxrss - before.ru_maxrss;
			_exit(!right ? 1 : grew_kib > 16 * 1024 ? 2 : 0);
		}
		int status;
		waitpid(pid, &status, 0);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		              "%s of a 256 MiB line: %s", which == 0 ? "fs.readRange" : "fs.lineCount",
		              WEXITSTATUS(status) == 2 ? "memory grew by more than 16 MiB" : "wrong result");
	}
}
END_TEST

/* ---- fs.lineCount ------------------------------------------------------------------------- */

START_TEST(line_count_rules)
{
	struct { const char *text; size_t len; int lines; } cases[] = {
		{"", 0, 0}, {"a", 1, 1}, {"a\n", 2, 1}, {"a\nb", 3, 2}, {"\n", 1, 1}, {"\n\n", 2, 2},
		{"a\r\nb\r\n", 6, 2}, {"\r", 1, 1}, {"x\0y\n\xff", 5, 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		vt_put_bytes("ws/f", cases[i].text, cases[i].len);
		cJSON *r = one("fs.lineCount", "f");
		vt_ok(r);
		ck_assert_msg(vt_int(r, "lineCount") == cases[i].lines, "case %zu: %lld", i,
		              vt_int(r, "lineCount"));
	}
	/* Random bytes over several buffers, counted by hand. */
	size_t n = 2 * 1024 * 1024 + 333;
	char *data = malloc(n);
	unsigned seed = 12345;
	long want = 0;
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		data[i] = (char)((seed >> 16) % 7 == 0 ? '\n' : (seed >> 8));
		want += data[i] == '\n';
	}
	data[n - 1] = 'x';
	want = 0;
	for (size_t i = 0; i < n; i++)
		want += data[i] == '\n';
	vt_put_bytes("ws/rand", data, n);
	cJSON *r = one("fs.lineCount", "rand");
	vt_ok(r);
	ck_assert_int_eq(vt_int(r, "lineCount"), want + 1);
	free(data);
}
END_TEST

START_TEST(line_count_errors)
{
	vt_mkdir("ws/d");
	vt_err(one("fs.lineCount", "d"), "IsADirectory", "'d'");
	vt_err(one("fs.lineCount", "nope"), "NotFound", "nope");
	vt_err(one("fs.lineCount", "/etc/passwd"), "OutsideWorkspace", "/etc/passwd");
}
END_TEST

/* ---- fs.listDir --------------------------------------------------------------------------- */

START_TEST(list_dir_sorted)
{
	vt_put("ws/d/b", "");
	vt_put("ws/d/a", "");
	vt_put("ws/d/B", "");
	vt_put("ws/d/\xc3\xa9", "");
	vt_put("ws/d/.hidden", "");
	vt_mkdir("ws/d/sub");
	vt_symlink("sub", "ws/d/zlink");
	const char *names[] = {".hidden", "B", "a", "b", "sub", "zlink", "\xc3\xa9"};
	const bool dirs[] = {false, false, false, false, true, false, false};
	cJSON *r = one("fs.listDir", "d");
	vt_ok(r);
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(r, "entries");
	ck_assert_int_eq(cJSON_GetArraySize(entries), 7);
	for (int i = 0; i < 7; i++) {
		const cJSON *e = cJSON_GetArrayItem(entries, i);
		ck_assert_str_eq(vt_str(e, "name"), names[i]);
		ck_assert_msg(vt_bool(e, "isDirectory") == dirs[i], "isDirectory of %s", names[i]);
	}
	/* Empty directory; the root; through an in-root symlink. */
	vt_mkdir("ws/empty");
	r = one("fs.listDir", "empty");
	vt_ok(r);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "entries")), 0);
	r = one("fs.listDir", ".");
	vt_ok(r);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "entries")), 2);
	vt_symlink("d", "ws/dlink");
	r = one("fs.listDir", "dlink");
	vt_ok(r);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "entries")), 7);
}
END_TEST

/* The order of a big listing is strcmp's, whatever the names share: a common prefix (the sort
 * keys start after it), names that are prefixes of one another, names ending inside the 8-byte
 * key or just past it, multi-byte UTF-8, equal keys told apart by their tails. Random names; the
 * seed is printed and taken from HERMES_TEST_SEED. */
static int by_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_order(const char *dir, const char *prefix, unsigned seed)
{
	static const char *const pieces[] = {"a", "b", "z", "0", "9", ".", "-", "\xc3\xa9", "\xe2\x82\xac", "A"};
	enum { N = 600 }; /* the radix sort starts at 64 names */
	char **names = calloc(N, sizeof *names);
	size_t n = 0;
	char rel[512];
	for (size_t i = 0; i < N; i++) {
		char name[128];
		size_t len = (size_t)snprintf(name, sizeof name, "%s", i % 7 == 0 ? "" : prefix);
		size_t parts = (size_t)(rand_r(&seed) % 14);
		for (size_t k = 0; k < parts; k++)
			len += (size_t)snprintf(name + len, sizeof name - len, "%s", pieces[rand_r(&seed) % 10]);
		if (len == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		bool dup = false;
		for (size_t j = 0; j < n && !dup; j++)
			dup = strcmp(names[j], name) == 0;
		if (dup)
			continue;
		names[n++] = strdup(name);
		snprintf(rel, sizeof rel, "ws/%s/%s", dir, name);
		vt_put(rel, "");
	}
	qsort(names, n, sizeof *names, by_strcmp);
	cJSON *r = vt_call("fs.listDir", vt_args("path", dir, NULL));
	vt_ok(r);
	const cJSON *entries = cJSON_GetObjectItemCaseSensitive(r, "entries");
	ck_assert_int_eq(cJSON_GetArraySize(entries), (int)n);
	for (size_t i = 0; i < n; i++) {
		const char *got = vt_str(cJSON_GetArrayItem(entries, (int)i), "name");
		ck_assert_msg(strcmp(got, names[i]) == 0, "entry %zu: '%s', expected '%s'", i, got, names[i]);
		free(names[i]);
	}
	free(names);
}

START_TEST(list_dir_sort_order)
{
	const char *env = getenv("HERMES_TEST_SEED");
	unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
	printf("list_dir_sort_order: seed %u (HERMES_TEST_SEED=%u replays it)\n", seed, seed);
	check_order("p", "entry-0000", seed);  /* most names share 10 bytes */
	check_order("q", "", seed + 1);        /* nothing shared */
	check_order("r", "a", seed + 2);
}
END_TEST

START_TEST(list_dir_errors)
{
	vt_put("ws/f", "");
	vt_err(one("fs.listDir", "f"), "NotADirectory", "'f'");
	vt_err(one("fs.listDir", "missing"), "NotFound", "missing");
	vt_err(one("fs.listDir", ".."), "OutsideWorkspace", "..");
	vt_mkdir("ws/locked");
	chmod(vt_path("ws/locked"), 0);
	char *code = vt_exec_unprivileged("{\"verb\":\"fs.listDir\",\"arguments\":{\"path\":\"locked\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
}
END_TEST

/* The names of a listing, "/" after directories, joined by spaces. */
static char *names_of(cJSON *r)
{
	static char out[4096];
	size_t n = 0;
	out[0] = '\0';
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "entries"))
		n += (size_t)snprintf(out + n, sizeof out - n, "%s%s%s", n ? " " : "",
		                      cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring,
		                      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "isDirectory")) ? "/" : "");
	return out;
}

static cJSON *list_deep(const char *path, int depth, bool ignore, int max)
{
	cJSON *a = vt_args("path", path, NULL);
	cJSON_AddNumberToObject(a, "depth", depth);
	cJSON_AddBoolToObject(a, "respectIgnore", ignore);
	if (max)
		cJSON_AddNumberToObject(a, "maxEntries", max);
	return vt_call("fs.listDir", a);
}

START_TEST(list_dir_deep)
{
	vt_mkdir("ws/src/sub");
	vt_mkdir("ws/build");
	vt_mkdir("ws/.git");
	vt_put("ws/src/a.c", "");
	vt_put("ws/src/sub/b.c", "");
	vt_put("ws/src/gen.tmp", "");
	vt_put("ws/build/out.o", "");
	vt_put("ws/.hidden", "");
	vt_put("ws/.gitignore", "build/\n*.tmp\n");
	vt_put("ws/src/.gitignore", "!keep.tmp\n");
	vt_put("ws/src/keep.tmp", "");
	vt_symlink("src", "ws/link");
	cJSON *r = list_deep(".", 1, false, 0);
	ck_assert_str_eq(names_of(r), ".git/ .gitignore .hidden build/ link src/");
	ck_assert(!vt_bool(r, "truncated"));
	r = list_deep(".", 2, false, 0);
	ck_assert_str_eq(names_of(r), ".git/ .gitignore .hidden build/ build/out.o link src/ src/.gitignore "
	                              "src/a.c src/gen.tmp src/keep.tmp src/sub/");
	/* ignore files at every level (the root's apply inside src), .git left out, links not entered */
	r = list_deep(".", 0, true, 0);
	ck_assert_str_eq(names_of(r), ".gitignore .hidden link src/ src/.gitignore src/a.c src/keep.tmp "
	                              "src/sub/ src/sub/b.c");
	r = list_deep("src", 0, true, 0);
	ck_assert_str_eq(names_of(r), ".gitignore a.c keep.tmp sub/ sub/b.c");
	/* maxEntries: the first ones met, and truncated */
	r = list_deep(".", 0, false, 3);
	ck_assert_str_eq(names_of(r), ".git/ .gitignore .hidden");
	ck_assert(vt_bool(r, "truncated"));
	vt_err(list_deep(".", -1, false, 0), "InvalidArguments", "depth");
}
END_TEST

/* ---- fs.stat ------------------------------------------------------------------------------ */

static cJSON *stat_of(const char *path)
{
	return vt_call("fs.stat", vt_args("path", path, NULL));
}

START_TEST(stat_types)
{
	vt_put("ws/a.txt", "hello\n");
	chmod(vt_path("ws/a.txt"), 04751);
	cJSON *r = stat_of("a.txt");
	vt_ok(r);
	ck_assert_str_eq(vt_str(r, "type"), "file");
	ck_assert_int_eq(vt_int(r, "size"), 6);
	ck_assert_str_eq(vt_str(r, "mode"), "4751");
	ck_assert(vt_bool(r, "isText"));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(r, "linkTarget")));
	/* RFC 3339, UTC, nanoseconds, and the file's own time */
	const char *t = vt_str(r, "modifiedTime");
	ck_assert_int_eq(strlen(t), 30);
	ck_assert(t[4] == '-' && t[10] == 'T' && t[19] == '.' && t[29] == 'Z');
	struct stat st;
	ck_assert_int_eq(stat(vt_path("ws/a.txt"), &st), 0);
	char ns[16];
	snprintf(ns, sizeof ns, ".%09ld", (long)st.st_mtim.tv_nsec);
	ck_assert_msg(strncmp(t + 19, ns, 10) == 0, "%s vs %s", t, ns);

	vt_mkdir("ws/dir");
	ck_assert_str_eq(vt_str(stat_of("dir"), "type"), "directory");
	ck_assert_str_eq(vt_str(stat_of("."), "type"), "directory");
	/* a symlink is described, not followed */
	vt_symlink("a.txt", "ws/link");
	r = stat_of("link");
	ck_assert_str_eq(vt_str(r, "type"), "symlink");
	ck_assert_str_eq(vt_str(r, "linkTarget"), "a.txt");
	ck_assert_int_eq(vt_int(r, "size"), 5);
	ck_assert(!vt_bool(r, "isText"));
	vt_symlink("missing", "ws/dangling");
	ck_assert_str_eq(vt_str(stat_of("dangling"), "linkTarget"), "missing");
	ck_assert_int_eq(mkfifo(vt_path("ws/fifo"), 0600), 0);
	r = stat_of("fifo");
	ck_assert_str_eq(vt_str(r, "type"), "other");
	ck_assert(!vt_bool(r, "isText"));
}
END_TEST

START_TEST(stat_text)
{
	char buf[8200];
	/* a character cut by the 8 KiB probe is still text */
	memset(buf, 'a', sizeof buf);
	buf[8191] = (char)0xC3;
	buf[8192] = (char)0xA9;
	vt_put_bytes("ws/cut.txt", buf, sizeof buf);
	ck_assert(vt_bool(stat_of("cut.txt"), "isText"));
	/* a NUL in the first 8 KiB, or bytes that are not UTF-8, are not */
	memset(buf, 'a', sizeof buf);
	buf[100] = '\0';
	vt_put_bytes("ws/nul.bin", buf, sizeof buf);
	ck_assert(!vt_bool(stat_of("nul.bin"), "isText"));
	buf[100] = (char)0xFF;
	vt_put_bytes("ws/latin1.txt", buf, sizeof buf);
	ck_assert(!vt_bool(stat_of("latin1.txt"), "isText"));
	/* past the probe, anything goes */
	buf[100] = 'a';
	buf[8199] = '\0';
	vt_put_bytes("ws/late-nul.txt", buf, sizeof buf);
	ck_assert(vt_bool(stat_of("late-nul.txt"), "isText"));
	vt_put("ws/empty.txt", "");
	ck_assert(vt_bool(stat_of("empty.txt"), "isText"));
}
END_TEST

START_TEST(stat_errors)
{
	vt_err(stat_of("missing.txt"), "NotFound", "missing.txt");
	vt_err(stat_of("../outside.txt"), "OutsideWorkspace", "outside.txt");
	vt_symlink("/etc/passwd", "ws/out");
	vt_err(stat_of("out"), "OutsideWorkspace", "out");
	vt_err(stat_of("nodir/x"), "NotFound", "nodir");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs-read");
	TCase *tc = tcase_create("read");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_add_test(tc, exists_kinds);
	tcase_add_test(tc, exists_errors);
	tcase_add_test(tc, read_file_bytes);
	tcase_add_test(tc, read_file_errors);
	tcase_add_test(tc, read_io_error);
	tcase_add_test(tc, read_range_numbers);
	tcase_add_test(tc, read_range_tail_numbers_follow_changes);
	tcase_add_test(tc, read_range_equals_read_file);
	tcase_add_test(tc, read_range_across_buffers);
	tcase_add_test(tc, read_range_errors);
	tcase_add_test(tc, streaming_memory_is_flat);
	tcase_add_test(tc, line_count_rules);
	tcase_add_test(tc, line_count_errors);
	tcase_add_test(tc, list_dir_sorted);
	tcase_add_test(tc, list_dir_sort_order);
	tcase_add_test(tc, list_dir_errors);
	tcase_add_test(tc, list_dir_deep);
	tcase_add_test(tc, stat_types);
	tcase_add_test(tc, stat_text);
	tcase_add_test(tc, stat_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
