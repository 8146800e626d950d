/* tests/check_lsp_memo.c: the memos a language-server client keeps with its open documents'
 * texts (lsp/memo.c): found for the very text only, dropped when another text is synced or
 * when the answer they were made from may be of another text, the least recently used dropped
 * past HERMES_LSP_MEMO_BYTES, and each freed exactly once. On a detached client (no server: what
 * it would send goes nowhere, the documents are kept all the same). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsp/client_internal.h"
#include "check_run.h"

static int freed;

static void memo_free(void *m)
{
	freed++;
	free(m);
}

static bool memo_copy(const void *m, void *arg)
{
	*(int *)arg = *(const int *)m;
	return true;
}

static int *memo(int v)
{
	int *m = malloc(sizeof *m);
	ck_assert_ptr_nonnull(m);
	*m = v;
	return m;
}

/* Syncs text as the document uri (the notification fails: no server). */
static void sync_text(hermes_lsp_client_t *c, const char *uri, const char *text)
{
	hermes_error_t err = {0};
	hermes_lsp_sync(c, uri, "c", text, strlen(text), NULL, &err);
}

/* The memo of uri for text: its value, 0 if none; *stamp as hermes_lsp_memo_get sets it. */
static int get(hermes_lsp_client_t *c, const char *uri, const char *text, int64_t *stamp)
{
	int v = 0;
	int64_t s;
	if (!hermes_lsp_memo_get(c, uri, text, strlen(text), &s, memo_copy, &v))
		v = 0;
	if (stamp)
		*stamp = s;
	return v;
}

START_TEST(test_kept_for_its_text_only)
{
	freed = 0;
	hermes_lsp_client_t *c = hermes_lsp_client_detached();
	ck_assert_ptr_nonnull(c);
	int64_t stamp;
	ck_assert_int_eq(get(c, "file:///a.c", "int a;", &stamp), 0);
	ck_assert_int_eq(stamp, -1); /* not open */
	sync_text(c, "file:///a.c", "int a;");
	ck_assert_int_eq(get(c, "file:///a.c", "int a;", &stamp), 0);
	ck_assert_int_ge(stamp, 0);
	hermes_lsp_memo_put(c, "file:///a.c", stamp, memo(7), sizeof(int), memo_free);
	ck_assert_int_eq(get(c, "file:///a.c", "int a;", NULL), 7);
	ck_assert_int_eq(get(c, "file:///a.c", "int a; ", &stamp), 0); /* another text */
	ck_assert_int_eq(stamp, -1);
	ck_assert_int_eq(get(c, "file:///b.c", "int a;", NULL), 0);
	/* The same text synced again keeps it; another text drops it. */
	sync_text(c, "file:///a.c", "int a;");
	ck_assert_int_eq(get(c, "file:///a.c", "int a;", NULL), 7);
	sync_text(c, "file:///a.c", "int b;");
	ck_assert_int_eq(freed, 1);
	ck_assert_int_eq(get(c, "file:///a.c", "int b;", NULL), 0);
	sync_text(c, "file:///a.c", "int a;"); /* back to the first text: a new stamp, no memo */
	ck_assert_int_eq(get(c, "file:///a.c", "int a;", NULL), 0);
	hermes_lsp_client_free(c);
	ck_assert_int_eq(freed, 1);
}
END_TEST

START_TEST(test_a_memo_of_a_text_since_replaced_is_not_kept)
{
	freed = 0;
	hermes_lsp_client_t *c = hermes_lsp_client_detached();
	int64_t stamp;
	sync_text(c, "file:///a.c", "int a;");
	get(c, "file:///a.c", "int a;", &stamp);
	/* Another call syncs a new text, and then the old one again, while this one asks: its
	 * answer may be of either text. */
	sync_text(c, "file:///a.c", "int b;");
	sync_text(c, "file:///a.c", "int a;");
	hermes_lsp_memo_put(c, "file:///a.c", stamp, memo(1), sizeof(int), memo_free);
	ck_assert_int_eq(freed, 1);
	ck_assert_int_eq(get(c, "file:///a.c", "int a;", NULL), 0);
	hermes_lsp_memo_put(c, "file:///gone.c", 1, memo(2), sizeof(int), memo_free);
	ck_assert_int_eq(freed, 2);
	hermes_lsp_memo_put(c, "file:///a.c", -1, memo(3), sizeof(int), memo_free);
	ck_assert_int_eq(freed, 3);
	/* Larger than the cap on its own: not kept. */
	get(c, "file:///a.c", "int a;", &stamp);
	hermes_lsp_memo_put(c, "file:///a.c", stamp, memo(4), HERMES_LSP_MEMO_BYTES + 1, memo_free);
	ck_assert_int_eq(freed, 4);
	ck_assert_int_eq(get(c, "file:///a.c", "int a;", NULL), 0);
	hermes_lsp_client_free(c);
	ck_assert_int_eq(freed, 4);
}
END_TEST

START_TEST(test_least_recently_used_dropped_past_the_cap)
{
	freed = 0;
	hermes_lsp_client_t *c = hermes_lsp_client_detached();
	const size_t quarter = HERMES_LSP_MEMO_BYTES / 4;
	char uri[32];
	for (int i = 1; i <= 4; i++) {
		int64_t stamp;
		snprintf(uri, sizeof uri, "file:///%d.c", i);
		sync_text(c, uri, "x");
		get(c, uri, "x", &stamp);
		hermes_lsp_memo_put(c, uri, stamp, memo(i), quarter, memo_free);
	}
	ck_assert_int_eq(freed, 0); /* exactly the cap */
	ck_assert_int_eq(get(c, "file:///1.c", "x", NULL), 1); /* 2 is now the least recently used */
	int64_t stamp;
	sync_text(c, "file:///5.c", "x");
	get(c, "file:///5.c", "x", &stamp);
	hermes_lsp_memo_put(c, "file:///5.c", stamp, memo(5), quarter, memo_free);
	ck_assert_int_eq(freed, 1);
	ck_assert_int_eq(get(c, "file:///2.c", "x", NULL), 0);
	ck_assert_int_eq(get(c, "file:///1.c", "x", NULL), 1);
	ck_assert_int_eq(get(c, "file:///3.c", "x", NULL), 3);
	ck_assert_int_eq(get(c, "file:///5.c", "x", NULL), 5);
	/* Replacing a memo counts only the new one. */
	get(c, "file:///5.c", "x", &stamp);
	hermes_lsp_memo_put(c, "file:///5.c", stamp, memo(6), quarter, memo_free);
	ck_assert_int_eq(freed, 2);
	ck_assert_int_eq(get(c, "file:///4.c", "x", NULL), 4);
	hermes_lsp_client_free(c);
	ck_assert_int_eq(freed, 6);
}
END_TEST

START_TEST(test_a_closed_document_frees_its_memo)
{
	freed = 0;
	hermes_lsp_client_t *c = hermes_lsp_client_detached();
	int64_t stamp;
	sync_text(c, "file:///first.c", "x");
	get(c, "file:///first.c", "x", &stamp);
	hermes_lsp_memo_put(c, "file:///first.c", stamp, memo(1), sizeof(int), memo_free);
	char uri[32];
	for (int i = 0; i < HERMES_LSP_MAX_OPEN_DOCS; i++) { /* the oldest, first.c, is closed */
		snprintf(uri, sizeof uri, "file:///%d.c", i);
		sync_text(c, uri, "y");
	}
	ck_assert_int_eq(freed, 1);
	ck_assert_int_eq(get(c, "file:///first.c", "x", &stamp), 0);
	ck_assert_int_eq(stamp, -1);
	hermes_lsp_client_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lsp_memo");
	TCase *tc = tcase_create("memo");
	tcase_add_test(tc, test_kept_for_its_text_only);
	tcase_add_test(tc, test_a_memo_of_a_text_since_replaced_is_not_kept);
	tcase_add_test(tc, test_least_recently_used_dropped_past_the_cap);
	tcase_add_test(tc, test_a_closed_document_frees_its_memo);
	suite_add_tcase(s, tc);
	int failed = check_run(s);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
