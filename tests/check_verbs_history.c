/* tests/check_verbs_history.c: fs.history and fs.undo: every kind of change is recorded, a chain
 * of changes undone newest first puts each state back, binary contents come back byte for byte,
 * a change whose files changed since is refused with Conflict naming them (nothing written), an
 * undo can itself be undone, and the history is bounded. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_testlib.h"

static void assert_file(const char *rel, const char *want)
{
	size_t len;
	char *got = vt_get(rel, &len);
	ck_assert_msg(got != NULL, "%s is missing", rel);
	ck_assert_msg(len == strlen(want) && memcmp(got, want, len) == 0, "%s is '%s', want '%s'", rel,
	              got, want);
	free(got);
}

/* The id and verb of the index-th newest change. */
static const char *change(int index, const char **verb)
{
	cJSON *a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "limit", 1000);
	cJSON *r = vt_call("fs.history", a);
	vt_ok(r);
	cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "changes"), index);
	ck_assert_ptr_nonnull(c);
	if (verb)
		*verb = cJSON_GetObjectItem(c, "verb")->valuestring;
	return cJSON_GetObjectItem(c, "id")->valuestring;
}

static int history_length(void)
{
	cJSON *a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "limit", 1000);
	cJSON *r = vt_call("fs.history", a);
	vt_ok(r);
	return cJSON_GetArraySize(cJSON_GetObjectItem(r, "changes"));
}

static cJSON *undo(const char *id)
{
	char copy[32];
	snprintf(copy, sizeof copy, "%s", id);
	return vt_call("fs.undo", vt_args("id", copy, NULL));
}

START_TEST(chain_undone_newest_first)
{
	vt_ok(vt_call("fs.writeFile", vt_args("path", "a.txt", "content", "one\n", NULL)));
	vt_ok(vt_call("fs.editFile", cJSON_Parse("{\"path\":\"a.txt\",\"edits\":[{\"oldText\":\"one\","
	                                      "\"newText\":\"two\"}]}")));
	cJSON *wr = vt_args("path", "a.txt", "content", "three\n", NULL);
	cJSON_AddNumberToObject(wr, "startLine", 1);
	cJSON_AddNumberToObject(wr, "endLine", 1);
	vt_ok(vt_call("fs.writeRange", wr));
	vt_ok(vt_call("fs.moveFile", vt_args("sourcePath", "a.txt", "destinationPath", "d/b.txt", NULL)));
	vt_ok(vt_call("fs.copyFile", vt_args("sourcePath", "d/b.txt", "destinationPath", "c.txt", NULL)));
	const char *verbs[] = {"fs.copyFile", "fs.moveFile", "fs.writeRange", "fs.editFile",
	                       "fs.writeFile"};
	ck_assert_int_eq(history_length(), 5);
	for (int i = 0; i < 5; i++) {
		const char *verb;
		change(i, &verb);
		ck_assert_str_eq(verb, verbs[i]);
	}
	/* Undo the copy, the move, the line write, the edit, the creation: each undo is the newest
	 * change, so the one to undo next is always the 2*k-th newest. */
	vt_ok(undo(change(0, NULL)));
	ck_assert(!vt_exists("ws/c.txt"));
	assert_file("ws/d/b.txt", "three\n");
	vt_ok(undo(change(2, NULL)));
	ck_assert(!vt_exists("ws/d/b.txt"));
	assert_file("ws/a.txt", "three\n");
	vt_ok(undo(change(4, NULL)));
	assert_file("ws/a.txt", "two\n");
	vt_ok(undo(change(6, NULL)));
	assert_file("ws/a.txt", "one\n");
	cJSON *r = undo(change(8, NULL));
	vt_ok(r);
	ck_assert(!vt_exists("ws/a.txt"));
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "files"), 0)->valuestring, "a.txt");
	const char *verb;
	change(0, &verb);
	ck_assert_str_eq(verb, "fs.undo");
	/* The last undo undone: the file is back. */
	vt_ok(undo(change(0, NULL)));
	assert_file("ws/a.txt", "one\n");
}
END_TEST

START_TEST(binary_content_comes_back)
{
	static const char bytes[] = "\0\x01\xff\xfe binary\r\n\0end";
	vt_put_bytes("ws/bin.dat", bytes, sizeof bytes);
	vt_ok(vt_call("fs.deleteFile", vt_args("path", "bin.dat", NULL)));
	ck_assert(!vt_exists("ws/bin.dat"));
	vt_ok(undo(change(0, NULL)));
	size_t len;
	char *got = vt_get("ws/bin.dat", &len);
	ck_assert_ptr_nonnull(got);
	ck_assert_int_eq(len, sizeof bytes);
	ck_assert(memcmp(got, bytes, len) == 0);
	free(got);
}
END_TEST

START_TEST(changed_since_is_a_conflict)
{
	vt_ok(vt_call("fs.writeFile", vt_args("path", "x.txt", "content", "1\n", NULL)));
	vt_ok(vt_call("fs.writeFile", vt_args("path", "y.txt", "content", "1\n", NULL)));
	vt_ok(vt_call("fs.editFile", cJSON_Parse("{\"path\":\"x.txt\",\"edits\":[{\"oldText\":\"1\","
	                                      "\"newText\":\"2\"}]}")));
	char id[32];
	snprintf(id, sizeof id, "%s", change(0, NULL));
	vt_put("ws/x.txt", "changed by someone else\n");
	vt_err(undo(id), "Conflict", "x.txt");
	assert_file("ws/x.txt", "changed by someone else\n");
	/* A file deleted since is a change too. */
	vt_ok(vt_call("fs.writeFile", vt_args("path", "y.txt", "content", "2\n", NULL)));
	snprintf(id, sizeof id, "%s", change(0, NULL));
	vt_ok(vt_call("fs.deleteFile", vt_args("path", "y.txt", NULL)));
	vt_err(undo(id), "Conflict", "absent");
	ck_assert(!vt_exists("ws/y.txt"));
	vt_err(undo("0000000000009999"), "NotFound", "0000000000009999");
	vt_err(undo("../../etc/passwd"), "NotFound", "no such change");
	vt_err(undo(""), "NotFound", "no such change");
}
END_TEST

START_TEST(history_is_bounded)
{
	for (int i = 0; i < 110; i++) {
		char content[32];
		snprintf(content, sizeof content, "%d\n", i);
		vt_ok(vt_call("fs.writeFile", vt_args("path", "n.txt", "content", content, NULL)));
	}
	ck_assert_int_eq(history_length(), 100);
	/* The newest is still undoable: n.txt goes back to 108. */
	vt_ok(undo(change(0, NULL)));
	assert_file("ws/n.txt", "108\n");
}
END_TEST

/* Old contents over 64 MiB in all: the oldest records go, the newest stays. */
START_TEST(history_is_bounded_in_bytes)
{
	size_t size = 30u << 20;
	char *big = malloc(size);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', size);
	for (int i = 0; i < 3; i++) {
		vt_put_bytes("ws/big.bin", big, size); /* by another program: a new 30 MiB file */
		vt_ok(vt_call("fs.writeFile", vt_args("path", "big.bin", "content", "small\n", NULL)));
	}
	free(big);
	ck_assert_int_eq(history_length(), 2); /* 2 x 30 MiB kept; a third would pass 64 MiB */
	vt_ok(undo(change(0, NULL)));
	size_t len;
	char *got = vt_get("ws/big.bin", &len);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(len, size);
	free(got);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs-history");
	TCase *tc = tcase_create("history");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, chain_undone_newest_first);
	tcase_add_test(tc, binary_content_comes_back);
	tcase_add_test(tc, changed_since_is_a_conflict);
	tcase_add_test(tc, history_is_bounded);
	tcase_add_test(tc, history_is_bounded_in_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
