/* tests/check_console_entry.c: where the console's envelopes end (src/cli/console_entry.c):
 * JSON on its closing brace, YAML at an empty line or a ---/... line, and the edge cases a person
 * typing produces. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli/console_entry.h"
#include "check_run.h"

static hermes_console_entry_t e;

static void setup(void)
{
	hermes_entry_init(&e, 0);
}

static void teardown(void)
{
	hermes_entry_free(&e);
}

/* Feeds a line; returns the status and *used (how much of the line the envelope took). */
static int feed(const char *line, size_t *used)
{
	size_t u;
	int st = hermes_entry_feed(&e, line, strlen(line), &u);
	if (used)
		*used = u;
	return st;
}

START_TEST(json_submits_on_closing_brace)
{
	ck_assert_int_eq(feed("{\"verb\": \"fs.exists\",", NULL), HERMES_ENTRY_MORE);
	ck_assert(!hermes_entry_empty(&e));
	ck_assert_int_eq(feed(" \"arguments\": {\"path\": \"a\"}", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("}", NULL), HERMES_ENTRY_SUBMIT);
	ck_assert_str_eq(e.text.data, "{\"verb\": \"fs.exists\",\n \"arguments\": {\"path\": \"a\"}\n}\n");
}
END_TEST

START_TEST(json_braces_in_strings_do_not_count)
{
	ck_assert_int_eq(feed("{\"verb\": \"x\", \"arguments\": {\"content\": \"}}} \\\" {\"", NULL),
	                 HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("}}", NULL), HERMES_ENTRY_SUBMIT);
}
END_TEST

START_TEST(json_two_envelopes_on_one_line)
{
	size_t used;
	const char *line = "{\"verb\":\"a\"} {\"verb\":\"b\"}";
	ck_assert_int_eq(feed(line, &used), HERMES_ENTRY_SUBMIT);
	ck_assert_uint_eq(used, 12);
	ck_assert_str_eq(e.text.data, "{\"verb\":\"a\"}\n");
	hermes_entry_reset(&e);
	ck_assert(hermes_entry_empty(&e));
	size_t u2;
	ck_assert_int_eq(hermes_entry_feed(&e, line + used, strlen(line) - used, &u2), HERMES_ENTRY_SUBMIT);
	ck_assert_str_eq(e.text.data, " {\"verb\":\"b\"}\n");
}
END_TEST

START_TEST(json_errors_submit_at_once)
{
	/* A mismatched bracket or a string still open at the end of a line cannot get better by
	 * waiting: submit, so the parser says where. */
	ck_assert_int_eq(feed("{\"verb\": [}", NULL), HERMES_ENTRY_SUBMIT);
	hermes_entry_reset(&e);
	ck_assert_int_eq(feed("{\"verb\": \"fs.exists", NULL), HERMES_ENTRY_SUBMIT);
	hermes_entry_reset(&e);
	ck_assert_int_eq(feed("{\"verb\": \"a\"", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("", NULL), HERMES_ENTRY_MORE); /* blank lines are fine inside JSON */
	ck_assert_int_eq(feed("]", NULL), HERMES_ENTRY_SUBMIT);
}
END_TEST

START_TEST(yaml_submits_on_empty_line)
{
	ck_assert_int_eq(feed("verb: fs.readRange", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("arguments:", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("  path: a", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("  ", NULL), HERMES_ENTRY_MORE); /* spaces keep a blank line */
	ck_assert_int_eq(feed("", NULL), HERMES_ENTRY_SUBMIT);
	ck_assert_str_eq(e.text.data, "verb: fs.readRange\narguments:\n  path: a\n  \n");
}
END_TEST

START_TEST(yaml_submits_on_document_markers)
{
	ck_assert_int_eq(feed("---", NULL), HERMES_ENTRY_MORE); /* a leading marker starts nothing */
	ck_assert(hermes_entry_empty(&e));
	ck_assert_int_eq(feed("verb: a", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("---", NULL), HERMES_ENTRY_SUBMIT);
	ck_assert_str_eq(e.text.data, "verb: a\n");
	hermes_entry_reset(&e);
	ck_assert_int_eq(feed("verb: b", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("...  ", NULL), HERMES_ENTRY_SUBMIT);
	hermes_entry_reset(&e);
	ck_assert_int_eq(feed("verb: c", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("----", NULL), HERMES_ENTRY_MORE); /* not a marker */
}
END_TEST

/* A block scalar keeps its empty lines: pasting a file with a blank line into `content: |` must
 * not submit it cut short at the blank line (it did, and the file was written truncated). */
START_TEST(yaml_block_scalar_keeps_empty_lines)
{
	ck_assert_int_eq(feed("verb: fs.writeFile", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("arguments:", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("  path: a.txt", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("  content: |", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("    one", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("    four", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("...", NULL), HERMES_ENTRY_SUBMIT);
	ck_assert_str_eq(e.text.data, "verb: fs.writeFile\narguments:\n  path: a.txt\n  content: |\n"
	                              "    one\n\n\n    four\n");
	/* the block ends at a line indented no more than its key; then an empty line submits */
	hermes_entry_reset(&e);
	ck_assert_int_eq(feed("arguments:", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("  content: >-", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("    x", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("  path: b", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("", NULL), HERMES_ENTRY_SUBMIT);
	/* the value of a sequence entry, indicators, a comment, and ---; a | inside a value is text */
	const char *openers[] = {"- |", "  - |+", "key: |2-", "key: >+1 # note", "- content: |",
	                         "? |"};
	for (size_t i = 0; i < sizeof openers / sizeof *openers; i++) {
		hermes_entry_reset(&e);
		ck_assert_int_eq(feed(openers[i], NULL), HERMES_ENTRY_MORE);
		ck_assert_int_eq(feed("      text", NULL), HERMES_ENTRY_MORE);
		ck_assert_msg(feed("", NULL) == HERMES_ENTRY_MORE, "%s: an empty line submitted", openers[i]);
		ck_assert_int_eq(feed("---", NULL), HERMES_ENTRY_SUBMIT);
	}
	const char *not_openers[] = {"key: a|b", "key: '|'", "key: |x", "key: |++", "|", "key:|"};
	for (size_t i = 0; i < sizeof not_openers / sizeof *not_openers; i++) {
		hermes_entry_reset(&e);
		ck_assert_int_eq(feed(not_openers[i], NULL), HERMES_ENTRY_MORE);
		ck_assert_msg(feed("", NULL) == HERMES_ENTRY_SUBMIT, "%s: not submitted", not_openers[i]);
	}
	/* "- content: |" in a list: its text is under "content", and a sibling key ends it */
	hermes_entry_reset(&e);
	ck_assert_int_eq(feed("- content: |", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("    text", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("  path: x", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("", NULL), HERMES_ENTRY_SUBMIT);
}
END_TEST

START_TEST(blank_and_comment_lines_before_an_envelope)
{
	ck_assert_int_eq(feed("", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("   ", NULL), HERMES_ENTRY_MORE);
	ck_assert_int_eq(feed("# a comment", NULL), HERMES_ENTRY_MORE);
	ck_assert(hermes_entry_empty(&e));
	ck_assert_int_eq(feed("  {\"verb\": \"a\"}", NULL), HERMES_ENTRY_SUBMIT);
	ck_assert(e.json);
}
END_TEST

START_TEST(text_blank)
{
	ck_assert(hermes_entry_text_blank("", 0));
	ck_assert(hermes_entry_text_blank(" \n# c\n---\n", 10));
	ck_assert(!hermes_entry_text_blank("# c\nverb: a\n", 12));
}
END_TEST

START_TEST(limit_marks_oversized)
{
	hermes_entry_free(&e);
	hermes_entry_init(&e, 16);
	ck_assert_int_eq(feed("verb: fs.readRange", NULL), HERMES_ENTRY_MORE);
	ck_assert(e.oversized);
	ck_assert_int_eq(feed("", NULL), HERMES_ENTRY_SUBMIT);
	hermes_entry_reset(&e);
	ck_assert(!e.oversized);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("console_entry");
	TCase *tc = tcase_create("boundaries");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, json_submits_on_closing_brace);
	tcase_add_test(tc, json_braces_in_strings_do_not_count);
	tcase_add_test(tc, json_two_envelopes_on_one_line);
	tcase_add_test(tc, json_errors_submit_at_once);
	tcase_add_test(tc, yaml_submits_on_empty_line);
	tcase_add_test(tc, yaml_submits_on_document_markers);
	tcase_add_test(tc, yaml_block_scalar_keeps_empty_lines);
	tcase_add_test(tc, blank_and_comment_lines_before_an_envelope);
	tcase_add_test(tc, text_blank);
	tcase_add_test(tc, limit_marks_oversized);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
