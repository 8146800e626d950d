/* tests/check_verbs_search.c: fs.search and fs.glob, and what they stand on: the glob matcher,
 * the gitignore rules (cases from gitignore(5)), the walk's confinement, and every rule and error
 * word of the two verbs. The comparison with ripgrep itself is tests/search_parity.py. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/glob.h"
#include "fs/ignore.h"
#include "verbs_testlib.h"

/* ---- the glob matcher --------------------------------------------------------------------- */

static bool gmatch(const char *pattern, const char *path, unsigned flags)
{
	hermes_glob_t *g;
	char why[200];
	int rc = hermes_glob_compile(pattern, strlen(pattern), flags, &g, why, sizeof why);
	ck_assert_msg(rc == 0, "glob '%s' does not compile: %s", pattern, why);
	bool m = hermes_glob_match(g, path, strlen(path));
	hermes_glob_free(g);
	return m;
}

START_TEST(glob_matches)
{
	static const struct { const char *pattern, *path; bool match; } cases[] = {
		{"a", "a", true}, {"a", "b", false}, {"a*b", "a_b", true}, {"a*b*c", "abc", true},
		{"a*b*c", "a___b___c", true}, {"abc*abc*abc", "abcabcabcabcabcabcabc", true},
		{"a*a*a*a*a*a*a*a*a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", true},
		{"a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		{"a*b[xyz]c*d", "abxcdbxcddd", true}, {"*.rs", ".rs", true}, {"☃", "☃", true},
		{"*.c", "x.c", true}, {"*.c", "src/x.c", false}, {"*", "a/b", false},
		{"?", "é", true}, {"??", "é", false}, {"[é]", "é", true}, {"[!a]", "é", true},
		{"[a-c]x", "bx", true}, {"[a-c]x", "dx", false}, {"[!a-c]x", "dx", true},
		{"[^a]", "a", false}, {"[]]", "]", true}, {"[-a]", "-", true}, {"[a-]", "-", true},
		{"\\*", "*", true}, {"\\*", "a", false}, {"a\\[b", "a[b", true},
		{"some/**/needle.txt", "some/needle.txt", true},
		{"some/**/needle.txt", "some/one/two/needle.txt", true},
		{"some/**/needle.txt", "other/needle.txt", false},
		{"some/**/**/needle.txt", "some/one/needle.txt", true},
		{"**", "abcde", true}, {"**", "a/b/.c", true}, {"**/test", "one/two/test", true},
		{"**/test", "test", true}, {"**/test", "one/test2", false},
		{"a/**", "a/b", true}, {"a/**", "a/b/c", true}, {"a/**", "a", false},
		{"a/**/b", "a/b", true}, {"a/**/b", "a/x/y/b", true}, {"a/**/b", "a/x/y/c", false},
		{"a**b", "axxb", true}, {"a**b", "ax/xb", false}, {"**a", "ba", true},
		{"{a,b}.c", "b.c", true}, {"{a,b}.c", "c.c", false}, {"*.{c,h}", "x.h", true},
		{"{src,lib}/**/*.c", "lib/x/y.c", true}, {"x{,y}", "x", true}, {"x{,y}", "xy", true},
		{"src/*/test/*.c", "src/a/test/t.c", true}, {"src/*/test/*.c", "src/a/b/test/t.c", false},
		{"a//b", "a/b", false}, {"", "a", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		ck_assert_msg(gmatch(cases[i].pattern, cases[i].path, 0) == cases[i].match,
		              "'%s' against '%s' should %smatch", cases[i].pattern, cases[i].path,
		              cases[i].match ? "" : "not ");
}
END_TEST

START_TEST(glob_period_rule)
{
	/* Under HERMES_GLOB_PERIOD only a literal '.' reaches a hidden name. */
	ck_assert(!gmatch("*", ".env", HERMES_GLOB_PERIOD));
	ck_assert(gmatch(".*", ".env", HERMES_GLOB_PERIOD));
	ck_assert(!gmatch("**/*.yml", ".github/ci.yml", HERMES_GLOB_PERIOD));
	ck_assert(gmatch(".github/**/*.yml", ".github/workflows/ci.yml", HERMES_GLOB_PERIOD));
	ck_assert(!gmatch("**/*.c", "a/.hid/x.c", HERMES_GLOB_PERIOD));
	ck_assert(gmatch("**/*.c", "a/b/x.c", HERMES_GLOB_PERIOD));
	ck_assert(!gmatch("**/x", "a/.b/x", HERMES_GLOB_PERIOD));
	ck_assert(gmatch("**/.x", "a/b/.x", HERMES_GLOB_PERIOD));
	ck_assert(!gmatch("?env", ".env", HERMES_GLOB_PERIOD));
	ck_assert(!gmatch("[.]env", ".env", HERMES_GLOB_PERIOD));
	ck_assert(gmatch("*", ".env", 0));
	ck_assert(gmatch("**/*.yml", ".github/ci.yml", 0));
}
END_TEST

START_TEST(glob_errors)
{
	static const char *bad[] = {"[", "[]", "[!]", "a[b", "[z-a]", "{a,b", "a,b}", "{a,{b,c}}",
	                            "x\\", "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		hermes_glob_t *g = NULL;
		char why[200] = "";
		ck_assert_msg(hermes_glob_compile(bad[i], strlen(bad[i]), 0, &g, why, sizeof why) == -1,
		              "'%s' should not compile", bad[i]);
		ck_assert_ptr_null(g);
		ck_assert_msg(why[0], "no reason for '%s'", bad[i]);
	}
	/* Many one-alternative groups: refused quickly, whatever their number. */
	size_t n = 3 * 100000;
	char *many = malloc(n + 1);
	for (size_t i = 0; i < n; i += 3)
		memcpy(many + i, "{a}", 3);
	many[n] = '\0';
	hermes_glob_t *g = NULL;
	ck_assert_int_eq(hermes_glob_compile(many, n, 0, &g, NULL, 0), -1);
	ck_assert_int_eq(hermes_glob_compile(many, 3 * 16, 0, &g, NULL, 0), 0);
	ck_assert(hermes_glob_match(g, "aaaaaaaaaaaaaaaa", 16));
	hermes_glob_free(g);
	free(many);
}
END_TEST

static bool below(const char *pattern, const char *dir)
{
	hermes_glob_t *g;
	ck_assert_int_eq(hermes_glob_compile(pattern, strlen(pattern), 0, &g, NULL, 0), 0);
	bool m = hermes_glob_may_match_below(g, dir, strlen(dir));
	hermes_glob_free(g);
	return m;
}

START_TEST(glob_pruning)
{
	ck_assert(below("src/*.c", ""));
	ck_assert(below("src/*.c", "src"));
	ck_assert(!below("src/*.c", "lib"));
	ck_assert(!below("src/*.c", "src/sub"));
	ck_assert(below("src/**/*.c", "src/a/b/c"));
	ck_assert(!below("src/**/*.c", "lib/a"));
	ck_assert(below("**/x", "a/b"));
	ck_assert(!below("*.c", "a"));
	ck_assert(below("{a,b}/x", "b"));
	ck_assert(!below("a", "a"));
	ck_assert(below("a/**", "a"));
}
END_TEST

/* ---- gitignore rules ---------------------------------------------------------------------- */

static hermes_ignore_match_t ig(const char *text, const char *path, bool is_dir)
{
	hermes_ignore_rules_t *r = hermes_ignore_new();
	ck_assert_int_eq(hermes_ignore_add_text(r, text, strlen(text)), 0);
	hermes_ignore_match_t m = hermes_ignore_match(r, path, strlen(path), is_dir);
	hermes_ignore_free(r);
	return m;
}

#define SKIP HERMES_IGNORE_SKIP
#define KEEP HERMES_IGNORE_KEEP
#define NONE HERMES_IGNORE_NONE

START_TEST(gitignore_doc_cases)
{
	/* "hello.*" matches any file or directory whose name begins with "hello.". */
	ck_assert_int_eq(ig("hello.*\n", "hello.c", false), SKIP);
	ck_assert_int_eq(ig("hello.*\n", "a/b/hello.txt", false), SKIP);
	ck_assert_int_eq(ig("hello.*\n", "hello", false), NONE);
	/* "foo/" matches a directory foo, not a file foo. */
	ck_assert_int_eq(ig("foo/\n", "foo", true), SKIP);
	ck_assert_int_eq(ig("foo/\n", "a/foo", true), SKIP);
	ck_assert_int_eq(ig("foo/\n", "foo", false), NONE);
	/* "doc/frotz/" matches doc/frotz but not a/doc/frotz; "frotz/" matches both. */
	ck_assert_int_eq(ig("doc/frotz/\n", "doc/frotz", true), SKIP);
	ck_assert_int_eq(ig("doc/frotz/\n", "a/doc/frotz", true), NONE);
	ck_assert_int_eq(ig("frotz/\n", "a/doc/frotz", true), SKIP);
	/* "doc/frotz" and "/doc/frotz" are the same: a slash in the middle anchors. */
	ck_assert_int_eq(ig("/doc/frotz\n", "doc/frotz", false), SKIP);
	ck_assert_int_eq(ig("/doc/frotz\n", "x/doc/frotz", false), NONE);
	ck_assert_int_eq(ig("/bar\n", "bar", false), SKIP);
	ck_assert_int_eq(ig("/bar\n", "a/bar", false), NONE);
	ck_assert_int_eq(ig("bar\n", "a/bar", false), SKIP);
	/* "foo/" then "*" matches foo/test.json and the directory foo/bar, not foo/bar/hello.c. */
	ck_assert_int_eq(ig("foo/*\n", "foo/test.json", false), SKIP);
	ck_assert_int_eq(ig("foo/*\n", "foo/bar", true), SKIP);
	ck_assert_int_eq(ig("foo/*\n", "foo/bar/hello.c", false), NONE);
	/* "**" forms. */
	ck_assert_int_eq(ig("**/foo\n", "x/y/foo", false), SKIP);
	ck_assert_int_eq(ig("**/foo/bar\n", "x/foo/bar", false), SKIP);
	ck_assert_int_eq(ig("**/foo/bar\n", "foo/bar", false), SKIP);
	ck_assert_int_eq(ig("abc/**\n", "abc/x/y", false), SKIP);
	ck_assert_int_eq(ig("abc/**\n", "abc", true), NONE);
	ck_assert_int_eq(ig("a/**/b\n", "a/x/y/b", false), SKIP);
	ck_assert_int_eq(ig("a/**/b\n", "a/b", false), SKIP);
	/* Negation: the last matching line decides. */
	ck_assert_int_eq(ig("*.html\n!foo.html\n", "foo.html", false), KEEP);
	ck_assert_int_eq(ig("*.html\n!foo.html\n", "bar.html", false), SKIP);
	ck_assert_int_eq(ig("!foo.html\n*.html\n", "foo.html", false), SKIP);
	/* Comments, blank lines, escapes, trailing spaces, CRLF, a byte order mark. */
	ck_assert_int_eq(ig("# x\n\n   \n", "# x", false), NONE);
	ck_assert_int_eq(ig("\\#x\n", "#x", false), SKIP);
	ck_assert_int_eq(ig("\\!x\n", "!x", false), SKIP);
	ck_assert_int_eq(ig("x   \n", "x", false), SKIP);
	ck_assert_int_eq(ig("x\\ \n", "x ", false), SKIP);
	ck_assert_int_eq(ig("x\r\ny\r\n", "y", false), SKIP);
	ck_assert_int_eq(ig("\xEF\xBB\xBFx\n", "x", false), SKIP);
	/* A line whose glob is invalid is left out; the others stay. */
	ck_assert_int_eq(ig("[\nx\n", "x", false), SKIP);
	ck_assert_int_eq(ig("[\nx\n", "[", false), NONE);
}
END_TEST

/* ---- fs.search through the executor ------------------------------------------------------- */

/* fs.search with extra arguments (a JSON fragment without braces, may be ""). */
static cJSON *search(const char *pattern, const char *extra)
{
	cJSON *item = cJSON_CreateString(pattern);
	char *pj = cJSON_PrintUnformatted(item);
	cJSON_Delete(item);
	cJSON *r = vt_exec("{\"verb\":\"fs.search\",\"arguments\":{\"pattern\":%s%s%s}}", pj,
	                   extra && *extra ? "," : "", extra ? extra : "");
	free(pj);
	return r;
}

/* The matches as "path:line:column:text" lines, with context lines as "  -text" / "  +text". */
static char *shown(const cJSON *r)
{
	static char out[65536];
	size_t o = 0;
	out[0] = '\0';
	const cJSON *m;
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(r, "matches")) {
		const cJSON *c;
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "before"))
			o += (size_t)snprintf(out + o, sizeof out - o, "  -%s\n", c->valuestring);
		o += (size_t)snprintf(out + o, sizeof out - o, "%s:%lld:%lld:%s\n", vt_str(m, "path"),
		                      vt_int(m, "line"), vt_int(m, "column"), vt_str(m, "text"));
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "after"))
			o += (size_t)snprintf(out + o, sizeof out - o, "  +%s\n", c->valuestring);
	}
	return out;
}

static void expect(cJSON *r, const char *want)
{
	vt_ok(r);
	ck_assert_str_eq(shown(r), want);
}

START_TEST(search_basics)
{
	vt_put("ws/b.txt", "one\ntwo foo\nthree\n");
	vt_put("ws/a.txt", "foo\nbar\nfoofoo\n");
	vt_put("ws/sub/c.txt", "no\nxx foo");
	cJSON *r = search("foo", "");
	expect(r, "a.txt:1:1:foo\na.txt:3:1:foofoo\nb.txt:2:5:two foo\nsub/c.txt:2:4:xx foo\n");
	ck_assert(!vt_bool(r, "truncated"));
	ck_assert_int_eq(vt_int(r, "filesSearched"), 3);
	/* A regular expression; the column is that of the first match on the line. */
	expect(search("o+$", "\"path\":\"a.txt\""), "a.txt:1:2:foo\na.txt:3:5:foofoo\n");
	expect(search("^t", "\"path\":\"b.txt\""), "b.txt:2:1:two foo\nb.txt:3:1:three\n");
	/* A subdirectory: paths stay workspace-relative. */
	expect(search("foo", "\"path\":\"sub\""), "sub/c.txt:2:4:xx foo\n");
	expect(search("foo", "\"path\":\"./sub/../sub/\""), "sub/c.txt:2:4:xx foo\n");
	/* Nothing found is a success with an empty list. */
	r = search("zzz", "");
	vt_ok(r);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "matches")), 0);
}
END_TEST

START_TEST(search_options)
{
	vt_put("ws/t.txt", "Foo\nfoo\nf.o\nÉté\n");
	expect(search("foo", "\"ignoreCase\":true"), "t.txt:1:1:Foo\nt.txt:2:1:foo\n");
	expect(search("f.o", "\"fixedStrings\":true"), "t.txt:3:1:f.o\n");
	expect(search("f.o", ""), "t.txt:2:1:foo\nt.txt:3:1:f.o\n");
	expect(search("été", "\"ignoreCase\":true"), "t.txt:4:1:Été\n");
	expect(search("F.O", "\"ignoreCase\":true,\"fixedStrings\":true"), "t.txt:3:1:f.o\n");
	expect(search("^\\w+$", ""), "t.txt:1:1:Foo\nt.txt:2:1:foo\nt.txt:4:1:Été\n");
	/* Lookbehind runs line by line (the line is the subject). */
	expect(search("(?<=f)oo", ""), "t.txt:2:2:foo\n");
	expect(search("\\Aé", "\"ignoreCase\":true"), "t.txt:4:1:Été\n");
	/* A match never spans lines: [^x]* may eat newlines in the buffer, not in the result. */
	expect(search("o[^x]*f", ""), "");
}
END_TEST

START_TEST(search_context)
{
	vt_put("ws/c.txt", "l1\nl2\nl3 hit\nl4\nl5\nl6 hit\nl7");
	expect(search("hit", "\"contextLines\":2"),
	       "  -l1\n  -l2\nc.txt:3:4:l3 hit\n  +l4\n  +l5\n"
	       "  -l4\n  -l5\nc.txt:6:4:l6 hit\n  +l7\n");
	vt_put("ws/c.txt", "hit\r\nx\r\n");
	expect(search("hit", "\"contextLines\":1"), "c.txt:1:1:hit\n  +x\n");
	vt_err(search("hit", "\"contextLines\":11"), "InvalidArguments", "contextLines");
	vt_err(search("hit", "\"contextLines\":-1"), "InvalidArguments", "contextLines");
}
END_TEST

START_TEST(search_max_results)
{
	/* Many files searched in parallel: the kept matches are the first in path order, always. */
	for (int i = 0; i < 300; i++) {
		char rel[64];
		snprintf(rel, sizeof rel, "ws/d%d/f%03d.txt", i % 7, i);
		vt_put(rel, "x\nmatch\nmatch again\n");
	}
	cJSON *r = search("match", "\"maxResults\":5");
	expect(r, "d0/f000.txt:2:1:match\nd0/f000.txt:3:1:match again\nd0/f007.txt:2:1:match\n"
	          "d0/f007.txt:3:1:match again\nd0/f014.txt:2:1:match\n");
	ck_assert(vt_bool(r, "truncated"));
	ck_assert_int_eq(vt_int(r, "filesSearched"), 300);
	r = search("match again", "\"maxResults\":300");
	ck_assert(!vt_bool(r, "truncated"));
	r = search("match again", "\"maxResults\":299");
	ck_assert(vt_bool(r, "truncated"));
	/* One file with more matching lines than asked for. */
	vt_put("ws/d0/f000.txt", "m\nm\nm\nm\n");
	r = search("m", "\"maxResults\":3,\"path\":\"d0/f000.txt\"");
	expect(r, "d0/f000.txt:1:1:m\nd0/f000.txt:2:1:m\nd0/f000.txt:3:1:m\n");
	ck_assert(vt_bool(r, "truncated"));
	vt_err(search("m", "\"maxResults\":0"), "InvalidArguments", "maxResults");
	vt_err(search("m", "\"maxResults\":10001"), "InvalidArguments", "maxResults");
	/* The worst case must fit the read limit. */
	hermes_config_t c = {.max_read_bytes = 100000};
	vt_reopen(&c);
	vt_err(search("m", "\"maxResults\":100,\"contextLines\":10"), "InvalidArgument", "read limit");
}
END_TEST

START_TEST(search_file_kinds)
{
	/* Binary: a NUL in the first 8 KiB skips the file, uncounted. */
	vt_put_bytes("ws/bin.dat", "hit\n\0hit\n", 9);
	/* A NUL further on ends the search at the line that holds it. */
	size_t n = 9000;
	char *late = malloc(n + 32);
	memset(late, 'a', n);
	for (size_t i = 99; i < n; i += 100)
		late[i] = '\n';
	memcpy(late + 100, "hit\n", 4);
	memcpy(late + n, "\nhit\0\nhit\n", 10);
	vt_put_bytes("ws/late.dat", late, n + 10);
	free(late);
	/* A byte order mark is not part of line 1; invalid UTF-8 is shown as U+FFFD. */
	vt_put("ws/bom.txt", "\xEF\xBB\xBFhit\n");
	vt_put("ws/bad.txt", "a\xFFhit\n");
	vt_put("ws/empty.txt", "");
	cJSON *r = search("hit", "");
	expect(r, "bad.txt:1:3:a\xEF\xBF\xBDhit\nbom.txt:1:1:hit\nlate.dat:2:1:hit\n");
	ck_assert_int_eq(vt_int(r, "filesSearched"), 4);
	/* A named binary file is skipped too. */
	r = search("hit", "\"path\":\"bin.dat\"");
	expect(r, "");
	ck_assert_int_eq(vt_int(r, "filesSearched"), 0);
	/* '$' and an empty pattern on a last line without an ending. */
	vt_put("ws/bom.txt", "ab\nc");
	expect(search("c$", "\"path\":\"bom.txt\""), "bom.txt:2:1:c\n");
	expect(search("", "\"path\":\"bom.txt\""), "bom.txt:1:1:ab\nbom.txt:2:1:c\n");
	expect(search("$", "\"path\":\"bom.txt\""), "bom.txt:1:3:ab\nbom.txt:2:2:c\n");
}
END_TEST

START_TEST(search_long_lines)
{
	/* A line over 2048 bytes is cut around the match, with markers counting what was left out. */
	size_t n = 10000;
	char *line = malloc(n + 2);
	memset(line, 'x', n);
	memcpy(line + 5000, "NEEDLE", 6);
	line[n] = '\n';
	line[n + 1] = '\0';
	vt_put("ws/long.txt", line);
	cJSON *r = search("NEEDLE", "");
	vt_ok(r);
	const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "matches"), 0);
	ck_assert_int_eq(vt_int(m, "column"), 5001);
	const char *text = vt_str(m, "text");
	ck_assert_msg(strncmp(text, "[...4744 bytes...]", 18) == 0, "%.40s", text);
	ck_assert_ptr_nonnull(strstr(text, "NEEDLE"));
	ck_assert_msg(strstr(text, "[...3208 bytes...]") && strlen(text) == 18 + 2048 + 18, "%zu", strlen(text));
	/* Early in the line: cut at the end only. */
	memcpy(line + 10, "EARLY", 5);
	vt_put("ws/long.txt", line);
	m = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(search("EARLY", ""), "matches"), 0);
	ck_assert_int_eq(strncmp(vt_str(m, "text"), "xxxxxxxxxxEARLY", 15), 0);
	ck_assert_ptr_nonnull(strstr(vt_str(m, "text"), "[...7952 bytes...]"));
	free(line);
}
END_TEST

START_TEST(search_big_file_chunks)
{
	/* Over 4 MiB: read in chunks; line numbers and context stay right across chunk edges. */
	size_t lines = 700000;
	char *big = malloc(lines * 8 + 1);
	size_t o = 0;
	for (size_t i = 1; i <= lines; i++)
		o += (size_t)sprintf(big + o, "%07zu\n", i);
	vt_put_bytes("ws/big.txt", big, o);
	free(big);
	/* Line 131072 starts at byte 1 MiB - 8: its neighbours straddle the first chunk's end. */
	expect(search("^(0131072|0131073|0699999)$", "\"contextLines\":2"),
	       "  -0131070\n  -0131071\nbig.txt:131072:1:0131072\n  +0131073\n  +0131074\n"
	       "  -0131071\n  -0131072\nbig.txt:131073:1:0131073\n  +0131074\n  +0131075\n"
	       "  -0699997\n  -0699998\nbig.txt:699999:1:0699999\n  +0700000\n");
	expect(search("0524289", "\"fixedStrings\":true"), "big.txt:524289:1:0524289\n");
	vt_err(vt_exec_cancelled("{\"verb\":\"fs.search\",\"arguments\":{\"pattern\":\"x\"}}"),
	       "Cancelled", NULL);
}
END_TEST

START_TEST(search_errors)
{
	vt_put("ws/a.txt", "x\n");
	vt_err(search("a(b", ""), "InvalidArgument", "offset 3");
	vt_err(search("a(b", ""), "InvalidArgument", "missing closing parenthesis");
	vt_err(search("a\nb", ""), "InvalidArgument", "line break");
	vt_err(search("x", "\"path\":\"missing\""), "NotFound", "missing");
	vt_err(search("x", "\"path\":\"../x\""), "OutsideWorkspace", "../x");
	vt_err(search("x", "\"path\":\"\""), "InvalidArgument", NULL);
	vt_err(search("x", "\"include\":[\"[\"]"), "InvalidArgument", "include");
	vt_err(search("x", "\"exclude\":[\"{a\"]"), "InvalidArgument", "exclude");
	vt_err(search("x", "\"include\":[\"!*.c\"]"), "InvalidArgument", "exclude");
	mkfifo(vt_path("ws/fifo"), 0644);
	vt_err(search("x", "\"path\":\"fifo\""), "InvalidArgument", "not a regular file");
	/* Catastrophic backtracking is refused, not run for ever. */
	char *evil = malloc(40000);
	memset(evil, 'a', 39999);
	evil[39999] = '\0';
	vt_put("ws/evil.txt", evil);
	free(evil);
	vt_err(search("(?:a|a)*(?:a|a)*\\d", "\"path\":\"evil.txt\""), "InvalidArgument", "backtracking");
	/* An unreadable directory of the tree is skipped; the path itself unreadable is an error. */
	vt_put("ws/locked/secret.txt", "x\n");
	chmod(vt_path("ws/locked"), 0);
	char *code = vt_exec_unprivileged("{\"verb\":\"fs.search\",\"arguments\":{\"pattern\":\"x\"}}");
	ck_assert_str_eq(code, "");
	free(code);
	code = vt_exec_unprivileged(
		"{\"verb\":\"fs.search\",\"arguments\":{\"pattern\":\"x\",\"path\":\"locked/secret.txt\"}}");
	ck_assert_str_eq(code, "PermissionDenied");
	free(code);
	chmod(vt_path("ws/locked"), 0755);
}
END_TEST

START_TEST(search_confined)
{
	/* Symlinks are neither searched nor followed, even inside the workspace. */
	vt_put("ws/real/f.txt", "hit\n");
	vt_put("outside/secret.txt", "hit\n");
	vt_symlink("../outside", "ws/escape");
	vt_symlink("real", "ws/inside-link");
	vt_symlink("real/f.txt", "ws/file-link");
	expect(search("hit", ""), "real/f.txt:1:1:hit\n");
	/* A path that is a symlink inside is followed, and results name the real path. */
	expect(search("hit", "\"path\":\"inside-link\""), "real/f.txt:1:1:hit\n");
	expect(search("hit", "\"path\":\"file-link\""), "real/f.txt:1:1:hit\n");
	vt_err(search("hit", "\"path\":\"escape\""), "OutsideWorkspace", "escape");
	/* An absolute path inside the root is fine. */
	char args[8300];
	snprintf(args, sizeof args, "\"path\":\"%s/real\"", vt.root);
	expect(search("hit", args), "real/f.txt:1:1:hit\n");
}
END_TEST

START_TEST(search_ignore_rules)
{
	vt_put("ws/.gitignore", "*.log\nbuild/\n/top.txt\n!keep.log\n");
	vt_put("ws/a.log", "hit\n");
	vt_put("ws/keep.log", "hit\n");
	vt_put("ws/build/x.c", "hit\n");
	vt_put("ws/top.txt", "hit\n");
	vt_put("ws/sub/top.txt", "hit\n");
	vt_put("ws/sub/.gitignore", "!a.log\nlocal.txt\n");
	vt_put("ws/sub/a.log", "hit\n");
	vt_put("ws/sub/local.txt", "hit\n");
	vt_put("ws/.ignore", "sub/only-dot-ignore.txt\n");
	vt_put("ws/sub/only-dot-ignore.txt", "hit\n");
	vt_mkdir("ws/.git");
	vt_mkdir("ws/.git/info");
	vt_put("ws/.git/info/exclude", "excluded.txt\n");
	vt_put("ws/.git/HEAD", "hit\n");
	vt_put("ws/excluded.txt", "hit\n");
	vt_put("ws/.hidden.txt", "hit\n");
	vt_put("ws/.hdir/x.txt", "hit\n");
	/* A nested repository: the outer .gitignore does not reach into it, .ignore does. */
	vt_mkdir("ws/nested/.git");
	vt_put("ws/nested/a.log", "hit\n");
	expect(search("hit", ""),
	       "keep.log:1:1:hit\nnested/a.log:1:1:hit\nsub/a.log:1:1:hit\nsub/top.txt:1:1:hit\n");
	expect(search("hit", "\"includeHidden\":true"),
	       ".hdir/x.txt:1:1:hit\n.hidden.txt:1:1:hit\nkeep.log:1:1:hit\nnested/a.log:1:1:hit\n"
	       "sub/a.log:1:1:hit\nsub/top.txt:1:1:hit\n");
	expect(search("hit", "\"respectIgnore\":false"),
	       "a.log:1:1:hit\nbuild/x.c:1:1:hit\nexcluded.txt:1:1:hit\nkeep.log:1:1:hit\n"
	       "nested/a.log:1:1:hit\nsub/a.log:1:1:hit\nsub/local.txt:1:1:hit\n"
	       "sub/only-dot-ignore.txt:1:1:hit\nsub/top.txt:1:1:hit\ntop.txt:1:1:hit\n");
	/* Searching below: the ignore files above the path still apply. */
	expect(search("hit", "\"path\":\"sub\""), "sub/a.log:1:1:hit\nsub/top.txt:1:1:hit\n");
	/* A named file is searched whatever the rules say. */
	expect(search("hit", "\"path\":\"a.log\""), "a.log:1:1:hit\n");
	/* Exclude everything except foo/bar (gitignore(5)): a parent that is excluded hides all. */
	vt_put("ws/ex/.gitignore", "/*\n!/foo\n/foo/*\n!/foo/bar\n");
	vt_put("ws/ex/foo/bar/hit.txt", "hit\n");
	vt_put("ws/ex/foo/other/hit.txt", "hit\n");
	vt_put("ws/ex/top.txt", "hit\n");
	expect(search("hit", "\"path\":\"ex\""), "ex/foo/bar/hit.txt:1:1:hit\n");
	vt_put("ws/ex/.gitignore", "foo/\n!foo/bar/hit.txt\n");
	expect(search("hit", "\"path\":\"ex\""), "ex/top.txt:1:1:hit\n");
}
END_TEST

START_TEST(search_include_exclude)
{
	vt_put("ws/src/a.c", "hit\n");
	vt_put("ws/src/a.h", "hit\n");
	vt_put("ws/src/test_a.c", "hit\n");
	vt_put("ws/lib/b.c", "hit\n");
	vt_put("ws/.ci.c", "hit\n");
	vt_put("ws/.gitignore", "lib/\n");
	expect(search("hit", "\"include\":[\"*.c\"]"), ".ci.c:1:1:hit\nsrc/a.c:1:1:hit\nsrc/test_a.c:1:1:hit\n");
	expect(search("hit", "\"include\":[\"*.c\"],\"exclude\":[\"test_*\"]"),
	       ".ci.c:1:1:hit\nsrc/a.c:1:1:hit\n");
	expect(search("hit", "\"include\":[\"src/*.{c,h}\"]"),
	       "src/a.c:1:1:hit\nsrc/a.h:1:1:hit\nsrc/test_a.c:1:1:hit\n");
	expect(search("hit", "\"exclude\":[\"src/\"]"), "");
	/* An include that names an ignored directory enters it (rg -g does the same). */
	expect(search("hit", "\"include\":[\"lib\", \"*.c\"]"),
	       ".ci.c:1:1:hit\nlib/b.c:1:1:hit\nsrc/a.c:1:1:hit\nsrc/test_a.c:1:1:hit\n");
	/* Globs are relative to path. */
	expect(search("hit", "\"path\":\"src\",\"include\":[\"/a.*\"]"), "src/a.c:1:1:hit\nsrc/a.h:1:1:hit\n");
}
END_TEST

START_TEST(search_deep_tree)
{
	/* Deeper than the walk keeps descriptors for (32): those directories are reopened from the
	 * root, one component at a time; the ignore files of every level still apply. */
	char rel[4096] = "ws";
	for (int i = 0; i < 60; i++) {
		size_t n = strlen(rel);
		snprintf(rel + n, sizeof rel - n, "/d%d", i);
		if (i == 45) {
			char gi[4200];
			snprintf(gi, sizeof gi, "%s/.gitignore", rel);
			vt_put(gi, "*.skip\n");
		}
	}
	char file[4200];
	snprintf(file, sizeof file, "%s/deep.txt", rel);
	vt_put(file, "hit\n");
	snprintf(file, sizeof file, "%s/deep.skip", rel);
	vt_put(file, "hit\n");
	cJSON *r = search("hit", "");
	vt_ok(r);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "matches")), 1);
	const cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "matches"), 0);
	char want[4200];
	snprintf(want, sizeof want, "%s/deep.txt", rel + 3); /* without "ws/" */
	ck_assert_str_eq(vt_str(m, "path"), want);
	cJSON *g = vt_exec("{\"verb\":\"fs.glob\",\"arguments\":{\"pattern\":\"**/deep.*\"}}");
	vt_ok(g);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "paths")), 1);
}
END_TEST

/* ---- fs.glob ------------------------------------------------------------------------------ */

static cJSON *glob(const char *pattern, const char *extra)
{
	return vt_exec("{\"verb\":\"fs.glob\",\"arguments\":{\"pattern\":\"%s\"%s%s}}", pattern,
	               extra && *extra ? "," : "", extra ? extra : "");
}

static char *paths(const cJSON *r)
{
	static char out[8192];
	size_t o = 0;
	out[0] = '\0';
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "paths"))
		o += (size_t)snprintf(out + o, sizeof out - o, "%s ", p->valuestring);
	return out;
}

static void expect_paths(cJSON *r, const char *want)
{
	vt_ok(r);
	ck_assert_str_eq(paths(r), want);
}

START_TEST(glob_verb)
{
	vt_put("ws/src/main.c", "");
	vt_put("ws/src/lib/util.c", "");
	vt_put("ws/src/lib/util.h", "");
	vt_put("ws/src/.hidden.c", "");
	vt_put("ws/.github/workflows/ci.yml", "");
	vt_put("ws/build/out.c", "");
	vt_put("ws/README", "");
	vt_put("ws/.gitignore", "build/\n");
	vt_symlink("src/main.c", "ws/link.c");
	expect_paths(glob("src/**/*.c", ""), "src/lib/util.c src/main.c ");
	expect_paths(glob("**/*.c", ""), "src/lib/util.c src/main.c ");
	expect_paths(glob("*.c", ""), "");
	expect_paths(glob("*", ""), "README src/ ");
	expect_paths(glob("src/*", ""), "src/lib/ src/main.c ");
	expect_paths(glob("**/", ""), "src/ src/lib/ ");
	expect_paths(glob("./src/*/", ""), "src/lib/ ");
	expect_paths(glob("**/*.{c,h}", "\"path\":\"src/lib\""), "src/lib/util.c src/lib/util.h ");
	expect_paths(glob(".github/**/*.yml", ""), ".github/workflows/ci.yml ");
	expect_paths(glob("**/*.c", "\"includeHidden\":true"), "src/.hidden.c src/lib/util.c src/main.c ");
	expect_paths(glob("**/*.c", "\"respectIgnore\":false"), "build/out.c src/lib/util.c src/main.c ");
	cJSON *r = glob("**", "\"maxResults\":3");
	expect_paths(r, "README src/ src/lib/ ");
	ck_assert(vt_bool(r, "truncated"));
	r = glob("**", "");
	ck_assert(!vt_bool(r, "truncated"));
	expect_paths(r, "README src/ src/lib/ src/lib/util.c src/lib/util.h src/main.c ");
	vt_err(glob("", ""), "InvalidArgument", "empty");
	vt_err(glob("/etc/*", ""), "InvalidArgument", "absolute");
	vt_err(glob("[", ""), "InvalidArgument", "never closed");
	vt_err(glob("*", "\"maxResults\":0"), "InvalidArguments", "maxResults");
	vt_err(glob("*", "\"path\":\"README\""), "NotADirectory", "README");
	vt_err(glob("*", "\"path\":\"nope\""), "NotFound", "nope");
	vt_err(glob("*", "\"path\":\"..\""), "OutsideWorkspace", NULL);
	vt_err(vt_exec_cancelled("{\"verb\":\"fs.glob\",\"arguments\":{\"pattern\":\"*\"}}"),
	       "Cancelled", NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verbs-search");
	TCase *units = tcase_create("units");
	tcase_add_test(units, glob_matches);
	tcase_add_test(units, glob_period_rule);
	tcase_add_test(units, glob_errors);
	tcase_add_test(units, glob_pruning);
	tcase_add_test(units, gitignore_doc_cases);
	suite_add_tcase(s, units);
	TCase *tc = tcase_create("verbs");
	tcase_add_checked_fixture(tc, vt_setup, vt_teardown);
	tcase_add_test(tc, search_basics);
	tcase_add_test(tc, search_options);
	tcase_add_test(tc, search_context);
	tcase_add_test(tc, search_max_results);
	tcase_add_test(tc, search_file_kinds);
	tcase_add_test(tc, search_long_lines);
	tcase_add_test(tc, search_big_file_chunks);
	tcase_add_test(tc, search_errors);
	tcase_add_test(tc, search_confined);
	tcase_add_test(tc, search_ignore_rules);
	tcase_add_test(tc, search_include_exclude);
	tcase_add_test(tc, search_deep_tree);
	tcase_add_test(tc, glob_verb);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return vt_run(suite());
}
