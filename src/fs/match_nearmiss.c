/* fs/match_nearmiss.c: what an agent reads when its block of lines is nowhere in the file: the
 * closest region (the window where most lines match when all whitespace and look-alikes are
 * forgiven), its line numbers, and for the first lines that differ there, how they differ ("line
 * 42 is indented with a tab where the patch has 4 spaces"), so that the next try succeeds. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "fs/match.h"

/* A hash of s[0..n) with blanks removed and look-alikes folded (match.c's look-alike set, by
 * comparing through hermes_match_line would be quadratic; folding is done bytewise here). */
static uint64_t loose_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == ' ' || c == '\t' || c == '\r')
			continue;
		if (c >= 0x80) { /* a look-alike folds to its ASCII stand-in; other non-ASCII as is */
			long d = 0;
			bool have = false;
			if (i + 2 < n + 0 && c == 0xE2) {
				char one[2] = {0, 0};
				static const char cands[] = "'\"- ";
				for (size_t k = 0; k < 4; k++) {
					one[0] = cands[k];
					if (hermes_match_line(s + i, 3, one, HERMES_TOL_UNICODE, 4, &d, &have)) {
						c = (unsigned char)cands[k];
						i += 2;
						break;
					}
				}
				if (c == ' ')
					continue;
			} else if (i + 1 < n && c == 0xC2 && (unsigned char)s[i + 1] == 0xA0) {
				i++;
				continue;
			}
		}
		h = (h ^ c) * 1099511628211ull;
	}
	return h;
}

/* "a tab", "4 spaces", "a tab and 2 spaces", "no indentation" for the leading blanks of s. */
static void describe_indent(const char *s, size_t n, char *out, size_t size)
{
	size_t tabs = 0, spaces = 0;
	for (size_t i = 0; i < n && (s[i] == ' ' || s[i] == '\t'); i++)
		s[i] == '\t' ? tabs++ : spaces++;
	if (!tabs && !spaces)
		snprintf(out, size, "no indentation");
	else if (!spaces)
		snprintf(out, size, "%zu tab%s", tabs, tabs == 1 ? "" : "s");
	else if (!tabs)
		snprintf(out, size, "%zu space%s", spaces, spaces == 1 ? "" : "s");
	else
		snprintf(out, size, "%zu tab%s and %zu space%s", tabs, tabs == 1 ? "" : "s", spaces,
		         spaces == 1 ? "" : "s");
}

static size_t rtrim_len(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n;
}

/* How file line fl (number no) differs from patch line p, appended to b. */
static void describe(hermes_buf_t *b, size_t no, const char *fl, size_t fn, const char *p)
{
	size_t pn = strlen(p), fr, pr;
	long d = 0;
	bool have = false;
	hermes_match_indent(fl, fn, 4, &fr);
	hermes_match_indent(p, pn, 4, &pr);
	if (hermes_match_line(fl, fn, p, HERMES_TOL_TRAILING, 4, &d, &have)) {
		hermes_buf_printf(b, "line %zu %s trailing whitespace", no,
		                  fn > pn ? "has" : "lacks the request's");
		return;
	}
	size_t ft = rtrim_len(fl, fn), pt = rtrim_len(p, pn);
	if (ft >= fr && pt >= pr && ft - fr == pt - pr && memcmp(fl + fr, p + pr, ft - fr) == 0) {
		char fi[64], pi[64];
		describe_indent(fl, fn, fi, sizeof fi);
		describe_indent(p, pn, pi, sizeof pi);
		hermes_buf_printf(b, "line %zu is indented with %s where the request has %s%s", no, fi,
		                  pi, ft != fn || pt != pn ? ", and trailing whitespace differs" : "");
		return;
	}
	/* the first differing character, past the indentation (described too if it differs) */
	bool indent_differs = fr != pr || memcmp(fl, p, fr) != 0;
	size_t i = 0;
	while (fr + i < fn && pr + i < pn && fl[fr + i] == p[pr + i])
		i++;
	size_t back = i > 8 ? 8 : i; /* a little of what came before, to find it by */
	size_t fs = fr + i - back, ps = pr + i - back;
	int fw = fn - fs > 40 ? 40 : (int)(fn - fs), pw = pn - ps > 40 ? 40 : (int)(pn - ps);
	hermes_buf_printf(b, "line %zu differs at column %zu: the file has '%.*s' where the request "
	                  "has '%.*s'", no, fr + i + 1, fw, fl + fs, pw, p + ps);
	if (indent_differs) {
		char fi[64], pi[64];
		describe_indent(fl, fn, fi, sizeof fi);
		describe_indent(p, pn, pi, sizeof pi);
		hermes_buf_printf(b, " (and is indented with %s where the request has %s)", fi, pi);
	}
}

void hermes_match_near_miss(const hermes_lines_index_t *x, const hermes_match_query_t *q,
                            const char *what, char *err, size_t errsize)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_printf(&b, "%s was not found", what);
	uint64_t *fh = malloc((x->count + 1) * sizeof *fh), *ph = malloc((q->count + 1) * sizeof *ph);
	size_t best = 0, best_score = 0;
	if (fh && ph && x->count) {
		for (size_t i = 0; i < x->count; i++)
			fh[i] = loose_hash(x->text + x->start[i], x->len[i]);
		for (size_t k = 0; k < q->count; k++)
			ph[k] = loose_hash(q->lines[k], strlen(q->lines[k]));
		/* windows may hang over the end of the file: a block longer than what is left */
		size_t from = q->from < x->count ? q->from : 0;
		for (size_t i = from; i < x->count; i++) {
			size_t score = 0;
			for (size_t k = 0; k < q->count && i + k < x->count; k++)
				score += fh[i + k] == ph[k];
			if (score > best_score)
				best_score = score, best = i;
		}
	}
	if (best_score == 0) {
		hermes_buf_printf(&b, ": none of its %zu line%s occurs in the file%s", q->count,
		                  q->count == 1 ? "" : "s",
		                  q->from ? " after the hunks before it" : "");
	} else {
		size_t end = best + q->count < x->count ? best + q->count : x->count;
		hermes_buf_printf(&b, "; the closest place is lines %zu-%zu (%zu of %zu lines alike)",
		                  best + 1, end, best_score, q->count);
		size_t shown = 0;
		for (size_t k = 0; k < q->count && shown < 3; k++) {
			if (best + k >= x->count) {
				hermes_buf_printf(&b, "%sthe file ends before the request's line '%.40s'",
				                  shown ? "; " : ": ", q->lines[k]);
				shown++;
				break;
			}
			const char *fl = x->text + x->start[best + k];
			size_t fn = x->len[best + k];
			if (fn == strlen(q->lines[k]) && memcmp(fl, q->lines[k], fn) == 0)
				continue;
			hermes_buf_puts(&b, shown ? "; " : ": ");
			describe(&b, best + k + 1, fl, fn, q->lines[k]);
			shown++;
		}
		if (shown == 0)
			hermes_buf_puts(&b, ": its lines are there but with indentation shifted unevenly");
	}
	free(fh), free(ph);
	snprintf(err, errsize, "%s", b.data && !b.failed ? b.data : "out of memory");
	hermes_buf_free(&b);
}
