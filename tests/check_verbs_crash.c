/* tests/check_verbs_crash.c: atomicity under crashes. A child process rewrites a file in a loop
 * (fs.writeFile, or fs.writeRange of its middle) and is killed with SIGKILL at random moments;
 * after every kill the file must be entirely one complete version, never a mix or a truncation. */
#include <config.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verbs_testlib.h"

#define ROUNDS 40

/* Version v of the whole-file test: one letter repeated, a length that depends on the letter. */
static size_t version_size(int letter)
{
	return 1024 * 1024 + (size_t)letter * 4099;
}

static char *version_text(int v)
{
	int letter = v % 26;
	size_t n = version_size(letter);
	char *s = malloc(n + 1);
	memset(s, 'a' + letter, n);
	s[n] = '\0';
	return s;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits until the writer has completed one write (a byte on progress), then kills it at a random
 * moment within about three more writes (at least 20 ms) (write_s: how long one takes here, e.g. under ASan). */
static void kill_at_random(pid_t pid, int progress, double write_s, unsigned *seed)
{
	char c;
	ck_assert_int_eq(read(progress, &c, 1), 1);
	double window = write_s * 3 > 0.02 ? write_s * 3 : 0.02;
	useconds_t span = (useconds_t)(window * 1e6);
	usleep((useconds_t)rand_r(seed) % span);
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static int leftovers(void)
{
	int n = 0;
	DIR *d = opendir(vt.root);
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += strstr(de->d_name, "hermes-tmp") != NULL;
	if (d)
		closedir(d);
	return n;
}

START_TEST(crash_during_write_file)
{
	char *first = version_text(0);
	vt_put("ws/target.txt", first);
	free(first);
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	int seen[26] = {0}, versions = 0;
	double t0 = now();
	char *text0 = version_text(0);
	vt_ok(vt_call("fs.writeFile", vt_args("path", "target.txt", "content", text0, NULL)));
	free(text0);
	double write_s = now() - t0;
	for (int round = 0; round < ROUNDS; round++) {
		int progress[2];
		ck_assert_int_eq(pipe(progress), 0);
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			for (int v = round * 1000 + 1;; v++) {
				char *text = version_text(v);
				cJSON *r = vt_call("fs.writeFile", vt_args("path", "target.txt", "content", text, NULL));
				free(text);
				if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "succeeded")))
					_exit(1);
				(void)!write(progress[1], "w", 1);
			}
		}
		close(progress[1]);
		kill_at_random(pid, progress[0], write_s, &seed);
		close(progress[0]);
		size_t len;
		char *got = vt_get("ws/target.txt", &len);
		ck_assert_ptr_nonnull(got);
		ck_assert_msg(len > 0, "round %d: the file is empty", round);
		int letter = got[0] - 'a';
		ck_assert_msg(letter >= 0 && letter < 26, "round %d: garbage", round);
		ck_assert_msg(len == version_size(letter), "round %d: truncated (%zu bytes, want %zu)", round,
		              len, version_size(letter));
		size_t i = 0;
		while (i < len && got[i] == got[0])
			i++; /* (one assertion, not one per byte: each Check assertion costs a write) */
		ck_assert_msg(i == len, "round %d: a mix of versions at byte %zu", round, i);
		if (!seen[letter]++)
			versions++;
		free(got);
	}
	ck_assert_msg(versions > 1, "the writer never got a write done: the test proves nothing");
	if (leftovers())
		fprintf(stderr, "crash_during_write_file: %d temporary file(s) left by the kills\n", leftovers());
}
END_TEST

#define PART 20000 /* lines in each of head, middle and tail */

static char *middle(int v)
{
	char *s = malloc((size_t)PART * 24);
	size_t n = 0;
	for (int i = 1; i <= PART; i++)
		n += (size_t)sprintf(s + n, "v%d %d\n", v, i);
	return s;
}

START_TEST(crash_during_write_range)
{
	/* head h1..hN, middle v0 1..N, tail t1..tN; the writer replaces the middle in a loop. */
	size_t cap = (size_t)PART * 3 * 24, n = 0;
	char *text = malloc(cap);
	for (int i = 1; i <= PART; i++)
		n += (size_t)sprintf(text + n, "h%d\n", i);
	char *m = middle(0);
	n += (size_t)sprintf(text + n, "%s", m);
	free(m);
	for (int i = 1; i <= PART; i++)
		n += (size_t)sprintf(text + n, "t%d\n", i);
	vt_put_bytes("ws/lines.txt", text, n);
	free(text);
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid() ^ 0x5a5a;
	int changed = 0;
	double t0 = now();
	char *m0 = middle(0);
	cJSON *a0 = vt_args("path", "lines.txt", "content", m0, NULL);
	free(m0);
	cJSON_AddNumberToObject(a0, "startLine", PART + 1);
	cJSON_AddNumberToObject(a0, "endLine", 2 * PART);
	vt_ok(vt_call("fs.writeRange", a0));
	double write_s = now() - t0;
	for (int round = 0; round < ROUNDS; round++) {
		int progress[2];
		ck_assert_int_eq(pipe(progress), 0);
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			for (int v = round * 1000 + 1;; v++) {
				char *content = middle(v);
				cJSON *a = vt_args("path", "lines.txt", "content", content, NULL);
				free(content);
				cJSON_AddNumberToObject(a, "startLine", PART + 1);
				cJSON_AddNumberToObject(a, "endLine", 2 * PART);
				cJSON *r = vt_call("fs.writeRange", a);
				if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "succeeded")))
					_exit(1);
				(void)!write(progress[1], "w", 1);
			}
		}
		close(progress[1]);
		kill_at_random(pid, progress[0], write_s, &seed);
		close(progress[0]);
		char *got = vt_get("ws/lines.txt", NULL);
		ck_assert_ptr_nonnull(got);
		char *save = NULL;
		int line = 0, version = -1;
		for (char *l = strtok_r(got, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			line++;
			char want[64];
			if (line <= PART) {
				snprintf(want, sizeof want, "h%d", line);
			} else if (line <= 2 * PART) {
				if (version < 0)
					version = atoi(l + 1);
				snprintf(want, sizeof want, "v%d %d", version, line - PART);
			} else {
				snprintf(want, sizeof want, "t%d", line - 2 * PART);
			}
			if (strcmp(l, want) != 0)
				ck_abort_msg("round %d, line %d: '%s', want '%s'", round, line, l, want);
		}
		ck_assert_msg(line == 3 * PART, "round %d: %d lines, want %d", round, line, 3 * PART);
		changed += version > 0;
		free(got);
	}
	ck_assert_msg(changed > 0, "the writer never got a write done: the test proves nothing");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs-crash");
	TCase *tc = tcase_create("crash");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, crash_during_write_file);
	tcase_add_test(tc, crash_during_write_range);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
