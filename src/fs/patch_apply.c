/* fs/patch_apply.c: a file's hunks found (fs/match.h) and the new text assembled by the rules of
 * fs/patch_apply.h. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "fs/match.h"
#include "fs/patch_apply.h"

typedef struct placed {
	size_t line;     /* first file line replaced */
	size_t old_count;
	hermes_match_t m;
} placed_t;

/* For each new line of h, the old line it keeps (an index) or -1: a longest common subsequence
 * of the hunk's own old and new lines, so that kept lines are copied from the file. Blocks too
 * large for the quadratic table keep only their common prefix and suffix. */
static long *keep_map(const hermes_patch_hunk_t *h)
{
	size_t no = h->old_count, nn = h->new_count;
	long *map = malloc((nn + 1) * sizeof *map);
	if (!map)
		return NULL;
	for (size_t j = 0; j < nn; j++)
		map[j] = -1;
	size_t pre = 0, suf = 0;
	while (pre < no && pre < nn && strcmp(h->old_lines[pre], h->new_lines[pre]) == 0)
		map[pre] = (long)pre, pre++;
	while (suf < no - pre && suf < nn - pre &&
	       strcmp(h->old_lines[no - 1 - suf], h->new_lines[nn - 1 - suf]) == 0)
		map[nn - 1 - suf] = (long)(no - 1 - suf), suf++;
	size_t a = no - pre - suf, b = nn - pre - suf;
	if (a == 0 || b == 0 || a * b > 4000000u)
		return map;
	unsigned *t = calloc((a + 1) * (b + 1), sizeof *t);
	if (!t)
		return map;
#define T(i, j) t[(i) * (b + 1) + (j)]
	for (size_t i = a; i-- > 0;)
		for (size_t j = b; j-- > 0;)
			T(i, j) = strcmp(h->old_lines[pre + i], h->new_lines[pre + j]) == 0
			              ? T(i + 1, j + 1) + 1
			              : (T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1));
	for (size_t i = 0, j = 0; i < a && j < b;) {
		if (strcmp(h->old_lines[pre + i], h->new_lines[pre + j]) == 0)
			map[pre + j] = (long)(pre + i), i++, j++;
		else if (T(i + 1, j) >= T(i, j + 1))
			i++;
		else
			j++;
	}
#undef T
	free(t);
	return map;
}

/* An added line, re-indented by the match's shift in the file's style when the match needed it. */
static void put_added(hermes_buf_t *b, const char *s, const hermes_match_t *m)
{
	size_t n = strlen(s), rest = n;
	long col = m->tol & HERMES_TOL_INDENT ? hermes_match_indent(s, n, m->tab_width, &rest) : 0;
	if (rest == n) { /* no shift to make, or a blank line: as given */
		hermes_buf_append(b, s, n);
		return;
	}
	col += m->delta;
	if (col < 0)
		col = 0;
	if (m->file_tabs) {
		for (long k = 0; k < col / m->tab_width; k++)
			hermes_buf_putc(b, '\t');
		col %= m->tab_width;
	}
	for (long k = 0; k < col; k++)
		hermes_buf_putc(b, ' ');
	hermes_buf_append(b, s + rest, n - rest);
}

/* Finds every hunk's place; 0 or -1 with err filled. */
static int place_all(const hermes_lines_index_t *x, const hermes_patch_hunk_t *hunks, size_t n,
                     bool exact, const char *path, placed_t *pl, char *err, size_t errsize)
{
	size_t from = 0;
	for (size_t k = 0; k < n; k++) {
		const hermes_patch_hunk_t *h = &hunks[k];
		char what[512];
		if (h->line > 0)
			snprintf(what, sizeof what, "in '%s', hunk %zu (patch line %d)", path, k + 1,
			         h->line);
		else /* fs.editFile's oldText */
			snprintf(what, sizeof what, "oldText");
		bool anchored = false;
		if (h->anchor) {
			long a = hermes_match_anchor(x, from, h->anchor);
			if (a < 0) {
				snprintf(err, errsize, "%s: its context line '@@ %s' was not found%s", what,
				         h->anchor, from ? " after the hunks before it" : "");
				return -1;
			}
			from = (size_t)a;
			anchored = true;
		}
		memset(&pl[k], 0, sizeof pl[k]);
		pl[k].old_count = h->old_count;
		if (h->old_count == 0) {
			/* a pure insertion: at the hint's line, after the anchor, or at the end */
			size_t at = h->hint > 0 ? (size_t)h->hint - 1 : anchored ? from + 1 : x->count;
			if (at > x->count || at < from) {
				snprintf(err, errsize, "%s: it only adds lines, at line %zu, which is %s", what,
				         at + 1, at > x->count ? "past the end of the file"
				                               : "before the hunks before it");
				return -1;
			}
			pl[k].line = at;
			from = at;
			continue;
		}
		hermes_match_query_t q = {.lines = h->old_lines, .count = h->old_count, .from = from,
		                          .hint = h->hint, .first_wins = anchored, .at_eof = h->at_eof,
		                          .exact = exact};
		if (hermes_match_find(x, &q, what, &pl[k].m, err, errsize) != 0)
			return -1;
		pl[k].line = pl[k].m.line;
		from = pl[k].line + h->old_count;
	}
	return 0;
}

int hermes_patch_apply_hunks(const char *text, size_t len, const hermes_patch_hunk_t *hunks,
                             size_t n, bool exact, const char *path, char **out, size_t *out_len,
                             unsigned *tol, char *err, size_t errsize)
{
	hermes_lines_index_t x;
	placed_t *pl = calloc(n + 1, sizeof *pl);
	if (!pl || hermes_lines_index_init(&x, text, len) != 0) {
		free(pl);
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	int rc = -1;
	hermes_buf_t b = HERMES_BUF_INIT;
	if (place_all(&x, hunks, n, exact, path, pl, err, errsize) != 0)
		goto done;
	const char *eol = x.crlf ? "\r\n" : "\n";
	bool had_final = x.count == 0 || x.eol[x.count - 1] != 0, want_final = had_final;
	bool touched_end = false;
	unsigned used = 0;
	size_t at = 0; /* next file line to copy */
	hermes_buf_append(&b, "", 0);
	for (size_t k = 0; k < n; k++) {
		const hermes_patch_hunk_t *h = &hunks[k];
		size_t s = pl[k].line;
		if (s < x.count) /* lines before the hunk, raw */
			hermes_buf_append(&b, text + x.start[at], x.start[s] - x.start[at]);
		else if (at < x.count) { /* an insertion at the end: the last line gets its ending */
			hermes_buf_append(&b, text + x.start[at], len - x.start[at]);
			if (!had_final)
				hermes_buf_puts(&b, eol);
		}
		long *map = keep_map(h);
		if (!map) {
			snprintf(err, errsize, "out of memory");
			goto done;
		}
		for (size_t j = 0; j < h->new_count; j++) {
			if (map[j] >= 0) {
				size_t fl = s + (size_t)map[j];
				hermes_buf_append(&b, text + x.start[fl], x.len[fl]);
				if (x.eol[fl] == 2)
					hermes_buf_puts(&b, "\r\n");
				else
					hermes_buf_puts(&b, x.eol[fl] == 1 ? "\n" : eol);
			} else {
				put_added(&b, h->new_lines[j], &pl[k].m);
				hermes_buf_puts(&b, eol);
			}
		}
		free(map);
		used |= pl[k].m.tol;
		at = s + pl[k].old_count;
		if (at == x.count && (h->old_count || s == x.count)) {
			touched_end = true;
			if (h->old_noeol != h->new_noeol && (h->old_noeol ? !had_final : had_final))
				want_final = !h->new_noeol; /* the patch says so */
			else
				want_final = had_final;
		}
	}
	if (at < x.count)
		hermes_buf_append(&b, text + x.start[at], len - x.start[at]);
	if (touched_end && !want_final && b.len && b.data[b.len - 1] == '\n') {
		b.len -= (b.len >= 2 && b.data[b.len - 2] == '\r') ? 2 : 1;
		b.data[b.len] = '\0';
	} else if (touched_end && want_final && b.len && b.data[b.len - 1] != '\n') {
		hermes_buf_puts(&b, eol);
	}
	if (b.failed) {
		snprintf(err, errsize, "out of memory");
		goto done;
	}
	*out_len = b.len;
	*out = hermes_buf_finish(&b);
	*tol = used;
	rc = 0;
done:
	if (rc)
		hermes_buf_free(&b);
	hermes_lines_index_free(&x);
	free(pl);
	return rc;
}
