/* tests/check_fs_patch.c: the patch parsers (fs/patch.h), the tolerant matching (fs/match.h) and
 * the assembly of new text (fs/patch_apply.h) tested directly on memory, then fs.applyPatch and
 * fs.editFile's tolerance through hermes_execute(): several files at once, all or nothing. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "fs/match.h"
#include "fs/patch.h"
#include "fs/patch_apply.h"
#include "verbs_testlib.h"

static char err[4096];

static hermes_patch_t parse_ok(const char *text, hermes_patch_format_t f)
{
	hermes_patch_t p;
	if (hermes_patch_parse(text, strlen(text), f, &p, err, sizeof err) != 0)
		ck_abort_msg("parse failed: %s", err);
	return p;
}

static void parse_fails(const char *text, const char *mention)
{
	hermes_patch_t p;
	ck_assert_int_eq(hermes_patch_parse(text, strlen(text), HERMES_PATCH_AUTO, &p, err, sizeof err), -1);
	if (!strstr(err, mention))
		ck_abort_msg("error '%s' does not mention '%s'", err, mention);
}

/* The first file of patch applied to file; NULL (err filled) if it does not apply. malloc'd. */
static char *apply(const char *patch, const char *file, unsigned *tol)
{
	hermes_patch_t p = parse_ok(patch, HERMES_PATCH_AUTO);
	char *out = NULL;
	size_t len;
	unsigned t = 0;
	int rc = hermes_patch_apply_hunks(file, strlen(file), p.files[0].hunks, p.files[0].hunk_count,
	                                  false, p.files[0].path, &out, &len, &t, err, sizeof err);
	hermes_patch_free(&p);
	if (tol)
		*tol = t;
	return rc == 0 ? out : NULL;
}

static void apply_eq(const char *patch, const char *file, const char *want, unsigned want_tol)
{
	unsigned tol;
	char *got = apply(patch, file, &tol);
	if (!got)
		ck_abort_msg("did not apply: %s", err);
	ck_assert_str_eq(got, want);
	ck_assert_uint_eq(tol, want_tol);
	free(got);
}

static void apply_fails(const char *patch, const char *file, const char *mention)
{
	char *got = apply(patch, file, NULL);
	if (got)
		ck_abort_msg("applied, giving '%s'", got);
	if (!strstr(err, mention))
		ck_abort_msg("error '%s' does not mention '%s'", err, mention);
}

/* ---- parsers ---------------------------------------------------------------------------------- */

START_TEST(detects_formats)
{
	ck_assert_int_eq(hermes_patch_detect("*** Begin Patch\n", 16), HERMES_PATCH_APPLY_PATCH);
	const char *u = "diff --git a/x b/x\n--- a/x\n+++ b/x\n";
	ck_assert_int_eq(hermes_patch_detect(u, strlen(u)), HERMES_PATCH_UNIFIED);
	const char *s = "x.c\n```c\n<<<<<<< SEARCH\n";
	ck_assert_int_eq(hermes_patch_detect(s, strlen(s)), HERMES_PATCH_SEARCH_REPLACE);
	ck_assert_int_eq(hermes_patch_detect("hello\n", 6), HERMES_PATCH_AUTO);
	parse_fails("just some text\n", "no known format");
	ck_assert_int_eq(hermes_patch_format_parse("unified"), HERMES_PATCH_UNIFIED);
	ck_assert_int_eq(hermes_patch_format_parse("bogus"), -1);
}
END_TEST

START_TEST(parses_apply_patch)
{
	hermes_patch_t p = parse_ok("<<'EOF'\n*** Begin Patch\n*** Add File: new.txt\n+one\n+\n+two\n"
	                            "*** Delete File: old.txt\n*** Update File: a.py\n*** Move to: b.py\n"
	                            "@@ def f():\n-    pass\n+    return 1\n@@\n ctx\n\n-x\n*** End of File\n"
	                            "*** End Patch\nEOF\n", HERMES_PATCH_AUTO);
	ck_assert_int_eq(p.format, HERMES_PATCH_APPLY_PATCH);
	ck_assert_uint_eq(p.file_count, 3);
	ck_assert_int_eq(p.files[0].action, HERMES_PATCH_ADD);
	ck_assert_str_eq(p.files[0].content, "one\n\ntwo\n");
	ck_assert_int_eq(p.files[1].action, HERMES_PATCH_DELETE);
	ck_assert_str_eq(p.files[1].path, "old.txt");
	ck_assert_str_eq(p.files[2].move_to, "b.py");
	ck_assert_uint_eq(p.files[2].hunk_count, 2);
	ck_assert_str_eq(p.files[2].hunks[0].anchor, "def f():");
	ck_assert_str_eq(p.files[2].hunks[0].old_lines[0], "    pass");
	ck_assert_str_eq(p.files[2].hunks[0].new_lines[0], "    return 1");
	ck_assert_uint_eq(p.files[2].hunks[1].old_count, 3); /* "ctx", "" and "x" */
	ck_assert_str_eq(p.files[2].hunks[1].old_lines[1], "");
	ck_assert(p.files[2].hunks[1].at_eof);
	ck_assert_int_eq(p.files[2].hunks[1].line, 13); /* the heredoc line counts */
	hermes_patch_free(&p);
	/* an empty line that ends a chunk separates; one inside it is an empty context line */
	p = parse_ok("*** Begin Patch\n*** Update File: a\n@@\n-x\n\n+y\n\n\n*** End Patch\n",
	             HERMES_PATCH_APPLY_PATCH);
	ck_assert_uint_eq(p.files[0].hunks[0].old_count, 2);
	ck_assert_uint_eq(p.files[0].hunks[0].new_count, 2);
	ck_assert_str_eq(p.files[0].hunks[0].new_lines[1], "y");
	hermes_patch_free(&p);
	parse_fails("*** Begin Patch\n*** Update File: a\n-x\n", "without '*** End Patch'");
	parse_fails("*** Begin Patch\n*** Update File: a\n-x\nbogus\n*** End Patch\n", "line 4");
	parse_fails("*** Begin Patch\n*** Frobnicate: a\n*** End Patch\n", "line 2");
	parse_fails("*** Begin Patch\n*** Update File: a\n*** End Patch\n", "has no change");
	parse_fails("*** Begin Patch\n*** Add File: a\nno plus\n*** End Patch\n", "line 3");
	parse_fails("*** Begin Patch\n*** Add File:\n*** End Patch\n", "names no path");
	parse_fails("*** Begin Patch\n*** End Patch\n", "changes no file");
}
END_TEST

START_TEST(parses_unified)
{
	hermes_patch_t p = parse_ok(
		"Some commit message\n\ndiff --git a/src/x.c b/src/x.c\nindex 1..2 100644\n--- a/src/x.c\n"
		"+++ b/src/x.c\n@@ -10,3 +10,3 @@ int main()\n a\n-b\n+B\n c\n"
		"diff --git a/old.c b/new.c\nsimilarity index 100%\nrename from old.c\nrename to new.c\n"
		"diff --git a/gone b/gone\ndeleted file mode 100644\n--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
		"--- /dev/null\n+++ b/added\n@@ -0,0 +1,2 @@\n+1\n+2\n\\ No newline at end of file\n"
		"--- plain.txt\t2024-01-01 00:00:00\n+++ plain.txt\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-p\n"
		"\\ No newline at end of file\n+q\n", HERMES_PATCH_AUTO);
	ck_assert_int_eq(p.format, HERMES_PATCH_UNIFIED);
	ck_assert_uint_eq(p.file_count, 5);
	ck_assert_str_eq(p.files[0].path, "src/x.c");
	ck_assert_int_eq(p.files[0].hunks[0].hint, 10);
	ck_assert_uint_eq(p.files[0].hunks[0].old_count, 3);
	ck_assert_int_eq(p.files[1].action, HERMES_PATCH_UPDATE);
	ck_assert_str_eq(p.files[1].path, "old.c");
	ck_assert_str_eq(p.files[1].move_to, "new.c");
	ck_assert_uint_eq(p.files[1].hunk_count, 0);
	ck_assert_int_eq(p.files[2].action, HERMES_PATCH_DELETE);
	ck_assert_str_eq(p.files[2].path, "gone");
	ck_assert_int_eq(p.files[3].action, HERMES_PATCH_ADD);
	ck_assert_str_eq(p.files[3].path, "added");
	ck_assert_str_eq(p.files[3].content, "1\n2");
	ck_assert_str_eq(p.files[4].path, "plain.txt");
	ck_assert(p.files[4].hunks[0].old_noeol);
	ck_assert(!p.files[4].hunks[0].new_noeol);
	hermes_patch_free(&p);
	parse_fails("@@ -1 +1 @@\n-a\n+b\n--- a/x\n+++ b/x\n", "line 1");
	parse_fails("--- a/x\n+++ b/x\n", "no hunk");
	parse_fails("diff --git a/x b/x\nBinary files a/x and b/x differ\n", "binary");
}
END_TEST

START_TEST(parses_search_replace)
{
	hermes_patch_t p = parse_ok("Here is the change:\n\nsrc/a.py\n```python\n<<<<<<< SEARCH\nold\n"
	                            "=======\nnew\n>>>>>>> REPLACE\n```\n\n```python\n<<<<<<< SEARCH\n"
	                            "x\n=======\n>>>>>>> REPLACE\n```\n`b.txt`\n```\n<<<<<<< SEARCH\n"
	                            "=======\nfresh\n>>>>>>> REPLACE\n```\n", HERMES_PATCH_AUTO);
	ck_assert_int_eq(p.format, HERMES_PATCH_SEARCH_REPLACE);
	ck_assert_uint_eq(p.file_count, 2);
	ck_assert_str_eq(p.files[0].path, "src/a.py");
	ck_assert_uint_eq(p.files[0].hunk_count, 2); /* the second block reuses the path */
	ck_assert_str_eq(p.files[0].hunks[1].old_lines[0], "x");
	ck_assert_uint_eq(p.files[0].hunks[1].new_count, 0);
	ck_assert_str_eq(p.files[1].path, "b.txt");
	ck_assert(p.files[1].create_if_missing);
	hermes_patch_free(&p);
	parse_fails("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "without a path");
	parse_fails("f\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n", "line 4");
	parse_fails("f\n<<<<<<< SEARCH\na\n=======\nb\n", "has no '>>>>>>> REPLACE'");
}
END_TEST

/* ---- matching ------------------------------------------------------------------------------- */

#define UPD(path, body) "*** Begin Patch\n*** Update File: " path "\n" body "*** End Patch\n"

START_TEST(exact_and_context_kept)
{
	apply_eq(UPD("f", "@@\n a\n-b\n+B\n c\n"), "a\nb\nc\n", "a\nB\nc\n", 0);
	/* the file's trailing blanks on a context line stay as they are in the file */
	apply_eq(UPD("f", "@@\n a\n-b\n+B\n"), "a  \nb\n", "a  \nB\n", HERMES_TOL_TRAILING);
	/* no final newline: none added */
	apply_eq(UPD("f", "@@\n a\n-b\n+B\n"), "a\nb", "a\nB", 0);
	apply_eq(UPD("f", "@@\n-b\n"), "a\nb", "a", 0);
	/* a unified diff that says so adds it */
	apply_eq("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n",
	         "a\nb", "a\nB\n", 0);
	/* pure insertion at the end (apply_patch) and after the anchor */
	apply_eq(UPD("f", "@@\n+z\n"), "a\n", "a\nz\n", 0);
	apply_eq(UPD("f", "@@ a\n+z\n"), "a\nb\n", "a\nz\nb\n", 0);
}
END_TEST

START_TEST(crlf_kept)
{
	unsigned tol;
	char *got = apply(UPD("f", "@@\n a\n-b\n+B\n+C\n"), "a\r\nb\r\nc\r\n", &tol);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, "a\r\nB\r\nC\r\nc\r\n");
	ck_assert_uint_eq(tol, HERMES_TOL_LINE_ENDINGS);
	free(got);
}
END_TEST

START_TEST(indentation_shift_in_file_style)
{
	/* the model wrote 4 spaces for a tab: added lines come out with tabs */
	apply_eq(UPD("f", "@@\n if (x) {\n-    a();\n+    b();\n+        c();\n }\n"),
	         "if (x) {\n\ta();\n}\n", "if (x) {\n\tb();\n\t\tc();\n}\n", HERMES_TOL_INDENT);
	/* the whole block shifted by 4 spaces: the replacement is shifted back */
	apply_eq(UPD("f", "@@\n-    x = 1\n-    y = 2\n+    x = 3\n+    y = 4\n"),
	         "def f():\n        x = 1\n        y = 2\n",
	         "def f():\n        x = 3\n        y = 4\n", HERMES_TOL_INDENT);
	/* uneven shifts are not one indentation change: refused */
	apply_fails(UPD("f", "@@\n-  x\n-y\n+z\n"), "    x\n    y\n", "not found");
}
END_TEST

START_TEST(unicode_lookalikes)
{
	/* curly quotes in the patch, straight in the file: matched; the replacement as given */
	apply_eq(UPD("f", "@@\n-print(\xe2\x80\x9c" "hi\xe2\x80\x9d)\n+print(\xe2\x80\x9c" "bye\xe2\x80\x9d)\n"),
	         "print(\"hi\")\n", "print(\xe2\x80\x9c" "bye\xe2\x80\x9d)\n", HERMES_TOL_UNICODE);
	/* an en dash and a non-breaking space */
	apply_eq(UPD("f", "@@\n-a \xe2\x80\x93 b\xc2\xa0" "c\n+d\n"), "a - b c\n", "d\n", HERMES_TOL_UNICODE);
}
END_TEST

START_TEST(ambiguity_and_hints)
{
	const char *file = "x\nret\ny\nret\nz\n";
	apply_fails(UPD("f", "@@\n-ret\n+RET\n"), file, "2 places (lines 2-2, 4-4)");
	/* tolerant candidates: two are still an error, even with a hint */
	apply_fails("--- a/f\n+++ b/f\n@@ -4 +4 @@\n-ret  \n+RET\n", file, "2 places");
	/* a unified hint chooses among exact matches */
	apply_eq("--- a/f\n+++ b/f\n@@ -4 +4 @@\n-ret\n+RET\n", file, "x\nret\ny\nRET\nz\n", 0);
	apply_eq("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-ret\n+RET\n", file, "x\nRET\ny\nret\nz\n", 0);
	/* an anchor chooses: the first after it */
	apply_eq(UPD("f", "@@ y\n-ret\n+RET\n"), file, "x\nret\ny\nRET\nz\n", 0);
	/* hunks are found in order, each after the one before */
	apply_eq(UPD("f", "@@\n-y\n+Y\n@@\n-ret\n+R2\n"), file, "x\nret\nY\nR2\nz\n", 0);
	apply_fails(UPD("f", "@@\n-x\n+X\n@@\n-ret\n+R1\n@@\n-ret\n+R2\n"), file, "hunk 2");
	/* the exact text wins over a tolerant one elsewhere */
	apply_eq(UPD("f", "@@\n-a\n+b\n"), "a \na\n", "a \nb\n", 0);
}
END_TEST

START_TEST(near_miss_diagnostics)
{
	const char *file = "one\ntwo\n\tthree\nfour\n";
	apply_fails(UPD("f", "@@\n two\n-  three\n four\n-five\n"), file, "closest place is lines 2-4 (3 of 4 lines alike)");
	apply_fails(UPD("f", "@@\n two\n-thre3\n four\n"), file, "line 3 differs at column");
	apply_fails(UPD("f", "@@\n-nothing like it\n"), file, "none of its 1 line occurs");
	ck_assert_ptr_nonnull(strstr(err, "patch line 3"));
	/* the description of an indentation difference */
	hermes_lines_index_t x;
	ck_assert_int_eq(hermes_lines_index_init(&x, file, strlen(file)), 0);
	char *lines[] = {"two", "    three", "fourr"};
	hermes_match_query_t q = {.lines = lines, .count = 3};
	hermes_match_near_miss(&x, &q, "it", err, sizeof err);
	ck_assert_ptr_nonnull(strstr(err, "lines 2-4"));
	ck_assert_ptr_nonnull(strstr(err, "line 3 is indented with 1 tab where the request has 4 spaces"));
	hermes_lines_index_free(&x);
}
END_TEST

/* ---- fs.applyPatch and fs.editFile end to end ------------------------------------------------ */

static cJSON *patch_call(const char *patch, const char *extra)
{
	cJSON *args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "patch", patch);
	if (extra) {
		cJSON *more = cJSON_Parse(extra);
		for (cJSON *c = more ? more->child : NULL; c; c = c->next)
			cJSON_AddItemToObject(args, c->string, cJSON_Duplicate(c, true));
		cJSON_Delete(more);
	}
	return vt_call("fs.applyPatch", args);
}

static void file_is(const char *rel, const char *want)
{
	size_t len;
	char *got = vt_get(rel, &len);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(apply_patch_many_files)
{
	vt_put("ws/a.txt", "alpha\nbeta\n");
	vt_put("ws/b.txt", "gone\n");
	vt_put("ws/m.txt", "move me\n");
	cJSON *r = patch_call("*** Begin Patch\n*** Update File: a.txt\n@@\n-beta\n+BETA\n"
	                      "*** Delete File: b.txt\n*** Add File: dir/c.txt\n+new\n"
	                      "*** Update File: m.txt\n*** Move to: moved.txt\n@@\n-move me\n+moved\n"
	                      "*** End Patch\n", NULL);
	vt_ok(r);
	file_is("ws/a.txt", "alpha\nBETA\n");
	ck_assert(!vt_exists("ws/b.txt"));
	file_is("ws/dir/c.txt", "new\n");
	ck_assert(!vt_exists("ws/m.txt"));
	file_is("ws/moved.txt", "moved\n");
	cJSON *files = cJSON_GetObjectItemCaseSensitive(r, "files");
	ck_assert_int_eq(cJSON_GetArraySize(files), 4);
	ck_assert_str_eq(vt_str(cJSON_GetArrayItem(files, 3), "action"), "move");
	ck_assert_str_eq(vt_str(cJSON_GetArrayItem(files, 3), "movedTo"), "moved.txt");
	ck_assert_str_eq(vt_str(r, "format"), "apply_patch");
}
END_TEST

/* vt_snapshot of the base without Hermes's own .hermes directory (locks, journal), malloc'd. */
static char *user_snapshot(void)
{
	char *all = vt_snapshot("."), *out = malloc(strlen(all) + 1), *o = out;
	for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n"))
		if (!strstr(line, "/.hermes"))
			o += sprintf(o, "%s\n", line);
	*o = '\0';
	free(all);
	return out;
}

START_TEST(apply_patch_all_or_nothing)
{
	vt_put("ws/a.txt", "alpha\n");
	vt_put("ws/b.txt", "beta\n");
	vt_put_bytes("ws/bin", "a\0b\n", 4);
	char *before = user_snapshot();
	/* the last file's hunk does not match: the first file is not changed either */
	vt_err(patch_call("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n"
	                  "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-gamma\n+GAMMA\n", NULL),
	       "InvalidArgument", "b.txt");
	vt_err(patch_call("*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n", NULL),
	       "AlreadyExists", "a.txt");
	vt_err(patch_call("*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch\n", NULL),
	       "NotFound", "nope.txt");
	vt_err(patch_call("*** Begin Patch\n*** Add File: ../out.txt\n+x\n*** End Patch\n", NULL),
	       "OutsideWorkspace", NULL);
	vt_err(patch_call("*** Begin Patch\n*** Update File: a.txt\n", NULL), "InvalidArgument",
	       "End Patch");
	vt_err(patch_call("a.txt\n<<<<<<< SEARCH\nalpha\n=======\nA\n>>>>>>> REPLACE\n",
	                  "{\"format\":\"unified\"}"), "InvalidArgument", NULL);
	vt_err(patch_call("x", "{\"format\":\"yaml\"}"), "InvalidArgument", "yaml");
	vt_err(patch_call("*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+A\n"
	                  "*** Update File: a.txt\n@@\n-A\n+B\n*** End Patch\n", NULL),
	       "InvalidArgument", "twice");
	vt_err(patch_call("*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n"
	                  "-alpha\n+A\n*** End Patch\n", NULL), "AlreadyExists", "b.txt");
	vt_err(patch_call("*** Begin Patch\n*** Update File: none.txt\n@@\n-a\n+b\n*** End Patch\n",
	                  NULL), "NotFound", "none.txt");
	vt_err(patch_call("*** Begin Patch\n*** Update File: bin\n@@\n-a\n+b\n*** End Patch\n",
	                  NULL), "NotText", "bin");
	vt_err(patch_call("new2.txt\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n"
	                  "a.txt\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n", NULL),
	       "AlreadyExists", "a.txt");
	/* a stale expected version: Conflict, nothing written */
	vt_err(patch_call("a.txt\n<<<<<<< SEARCH\nalpha\n=======\nA\n>>>>>>> REPLACE\n",
	                  "{\"expectedVersions\":[{\"path\":\"a.txt\",\"version\":\"1.2-3-4\"}]}"),
	       "Conflict", "a.txt");
	/* a dry run writes nothing but says what would change */
	cJSON *r = patch_call("a.txt\n<<<<<<< SEARCH\nalpha\n=======\nA\n>>>>>>> REPLACE\n",
	                      "{\"dryRun\":true}");
	vt_ok(r);
	ck_assert_ptr_nonnull(strstr(vt_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r,
	                      "files"), 0), "diff"), "+A"));
	char *after = user_snapshot();
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	/* the right version applies */
	r = vt_exec("{\"verb\":\"fs.stat\",\"arguments\":{\"path\":\"a.txt\"}}");
	char ev[256];
	snprintf(ev, sizeof ev, "{\"expectedVersions\":[{\"path\":\"a.txt\",\"version\":\"%s\"}]}",
	         vt_str(r, "version"));
	vt_ok(patch_call("a.txt\n<<<<<<< SEARCH\nalpha\n=======\nA\n>>>>>>> REPLACE\n", ev));
	file_is("ws/a.txt", "A\n");
	/* a pure rename moves any content as it is, text or not */
	vt_put_bytes("ws/bin.dat", "\x00\xff\x01", 3);
	vt_ok(patch_call("diff --git a/bin.dat b/sub/bin2.dat\nsimilarity index 100%\n"
	                 "rename from bin.dat\nrename to sub/bin2.dat\n", NULL));
	size_t blen;
	char *bin = vt_get("ws/sub/bin2.dat", &blen);
	ck_assert_ptr_nonnull(bin);
	ck_assert_uint_eq(blen, 3);
	ck_assert_int_eq(memcmp(bin, "\x00\xff\x01", 3), 0);
	free(bin);
	ck_assert(!vt_exists("ws/bin.dat"));
	cJSON *del = patch_call("*** Begin Patch\n*** Delete File: sub/bin2.dat\n*** End Patch\n", NULL);
	vt_ok(del);
	ck_assert_str_eq(vt_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(del, "files"), 0),
	                        "diff"), "Binary files a/sub/bin2.dat and b/sub/bin2.dat differ\n");
	/* SEARCH/REPLACE blocks in any order, each on the result of the ones before */
	vt_put("ws/o.txt", "one\ntwo\nthree\n");
	vt_ok(patch_call("o.txt\n<<<<<<< SEARCH\nthree\n=======\n3\n>>>>>>> REPLACE\n"
	                 "<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n"
	                 "<<<<<<< SEARCH\n1\ntwo\n=======\n1\n2\n>>>>>>> REPLACE\n", NULL));
	file_is("ws/o.txt", "1\n2\n3\n");
	/* an empty SEARCH creates a missing file */
	vt_ok(patch_call("new.txt\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n", NULL));
	file_is("ws/new.txt", "hello\n");
}
END_TEST

START_TEST(edit_file_tolerant)
{
	vt_put("ws/t.c", "int f() {\n\treturn 1;  \n}\n");
	cJSON *r = vt_exec("{\"verb\":\"fs.editFile\",\"arguments\":{\"path\":\"t.c\",\"exact\":true,"
	                   "\"edits\":[{\"oldText\":\"    return 1;\\n\",\"newText\":\"    return 2;\\n\"}]}}");
	vt_err(r, "InvalidArgument", "line 2 is indented with 1 tab where the request has 4 spaces");
	r = vt_exec("{\"verb\":\"fs.editFile\",\"arguments\":{\"path\":\"t.c\","
	            "\"edits\":[{\"oldText\":\"    return 1;\\n\",\"newText\":\"    return 2;\\n\"}]}}");
	vt_ok(r);
	file_is("ws/t.c", "int f() {\n\treturn 2;\n}\n");
	cJSON *tol = cJSON_GetObjectItemCaseSensitive(r, "tolerances");
	ck_assert_int_eq(cJSON_GetArraySize(tol), 2);
	ck_assert_str_eq(cJSON_GetArrayItem(tol, 0)->valuestring, "trailingWhitespace");
	ck_assert_str_eq(cJSON_GetArrayItem(tol, 1)->valuestring, "indentation");
	/* a fragment of a line with curly quotes where the file has straight ones */
	vt_put("ws/q.py", "print('a', 'b')  # x\nprint('a')\n");
	vt_err(vt_exec("{\"verb\":\"fs.editFile\",\"arguments\":{\"path\":\"q.py\","
	               "\"edits\":[{\"oldText\":\"(\u2018a\u2019\",\"newText\":\"x\"}]}}"),
	       "InvalidArgument", "2 places when look-alike characters are forgiven (lines 1, 2)");
	vt_err(vt_exec("{\"verb\":\"fs.editFile\",\"arguments\":{\"path\":\"q.py\","
	               "\"edits\":[{\"oldText\":\"\u2018z\u2019)\",\"newText\":\"x\"}]}}"),
	       "InvalidArgument", "not found");
	r = vt_exec("{\"verb\":\"fs.editFile\",\"arguments\":{\"path\":\"q.py\","
	            "\"edits\":[{\"oldText\":\"\u2018a\u2019, \u2018b\u2019\",\"newText\":\"'c'\"}]}}");
	vt_ok(r);
	file_is("ws/q.py", "print('c')  # x\nprint('a')\n");
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "tolerances"), 0)->valuestring,
	                 "unicode");
	r = vt_exec("{\"verb\":\"fs.editFile\",\"arguments\":{\"path\":\"t.c\","
	            "\"edits\":[{\"oldText\":\"}\",\"newText\":\"} // end\"}]}}");
	vt_ok(r);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "tolerances")), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fs-patch");
	TCase *units = tcase_create("units");
	tcase_add_test(units, detects_formats);
	tcase_add_test(units, parses_apply_patch);
	tcase_add_test(units, parses_unified);
	tcase_add_test(units, parses_search_replace);
	tcase_add_test(units, exact_and_context_kept);
	tcase_add_test(units, crlf_kept);
	tcase_add_test(units, indentation_shift_in_file_style);
	tcase_add_test(units, unicode_lookalikes);
	tcase_add_test(units, ambiguity_and_hints);
	tcase_add_test(units, near_miss_diagnostics);
	suite_add_tcase(s, units);
	TCase *verbs = tcase_create("verbs");
	tcase_add_checked_fixture(verbs, vt_setup, vt_teardown);
	tcase_add_test(verbs, apply_patch_many_files);
	tcase_add_test(verbs, apply_patch_all_or_nothing);
	tcase_add_test(verbs, edit_file_tolerant);
	suite_add_tcase(s, verbs);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
