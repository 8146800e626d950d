/* fs/match.c: the tolerant, never-guessing search for a block of lines (fs/match.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "fs/match.h"

int hermes_lines_index_init(hermes_lines_index_t *x, const char *text, size_t size)
{
	memset(x, 0, sizeof *x);
	x->text = text;
	x->size = size;
	size_t n = 1;
	for (size_t i = 0; i < size; i++)
		n += text[i] == '\n';
	x->start = malloc(n * sizeof *x->start);
	x->len = malloc(n * sizeof *x->len);
	x->eol = malloc(n);
	if (!x->start || !x->len || !x->eol) {
		hermes_lines_index_free(x);
		return -1;
	}
	for (size_t at = 0; at < size;) {
		const char *nl = memchr(text + at, '\n', size - at);
		size_t end = nl ? (size_t)(nl - text) : size, l = end - at;
		unsigned char e = nl ? 1 : 0;
		if (nl && l && text[end - 1] == '\r')
			l--, e = 2;
		x->start[x->count] = at;
		x->len[x->count] = l;
		x->eol[x->count++] = e;
		at = nl ? end + 1 : size;
	}
	x->crlf = x->count && x->eol[0] == 2;
	return 0;
}

void hermes_lines_index_free(hermes_lines_index_t *x)
{
	free(x->start), free(x->len), free(x->eol);
	x->start = x->len = NULL;
	x->eol = NULL;
	x->count = 0;
}

/* The ASCII character a look-alike stands for, and its length in bytes; else the byte itself. */
static int lookalike(const unsigned char *s, size_t n, size_t *used)
{
	*used = 1;
	if (n >= 2 && s[0] == 0xC2 && s[1] == 0xA0)
		return *used = 2, ' ';
	if (n >= 3 && s[0] == 0xE2 && s[1] == 0x80 && s[2] >= 0x80 && s[2] <= 0xBF) {
		unsigned cp = 0x2000u + (s[2] - 0x80u);
		int c = (cp >= 0x2002 && cp <= 0x200A) || cp == 0x202F ? ' '
		      : cp >= 0x2010 && cp <= 0x2015                  ? '-'
		      : (cp >= 0x2018 && cp <= 0x201B) || cp == 0x2032 ? '\''
		      : (cp >= 0x201C && cp <= 0x201F) || cp == 0x2033 ? '"'
		                                                       : 0;
		if (c)
			return *used = 3, c;
	}
	if (n >= 3 && s[0] == 0xE2 && s[1] == 0x81 && s[2] == 0x9F)
		return *used = 3, ' ';
	if (n >= 3 && s[0] == 0xE2 && s[1] == 0x88 && s[2] == 0x92)
		return *used = 3, '-';
	if (n >= 3 && s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80)
		return *used = 3, ' ';
	return s[0];
}

static bool same(const char *a, size_t an, const char *b, size_t bn, bool unicode)
{
	if (!unicode)
		return an == bn && memcmp(a, b, an) == 0;
	size_t i = 0, j = 0;
	while (i < an && j < bn) {
		size_t ua, ub;
		if (lookalike((const unsigned char *)a + i, an - i, &ua) !=
		    lookalike((const unsigned char *)b + j, bn - j, &ub))
			return false;
		i += ua, j += ub;
	}
	return i == an && j == bn;
}

/* If needle matches at the start of h (folded), the bytes of h it covers; else 0. */
static size_t folded_prefix(const char *h, size_t hn, const char *n, size_t nn)
{
	size_t i = 0, j = 0;
	while (j < nn) {
		size_t uh, un;
		if (i >= hn || lookalike((const unsigned char *)h + i, hn - i, &uh) !=
		               lookalike((const unsigned char *)n + j, nn - j, &un))
			return 0;
		i += uh, j += un;
	}
	return i;
}

size_t hermes_match_folded(const char *hay, size_t hn, const char *needle, size_t nn, size_t *at,
                           size_t *end, size_t max)
{
	size_t count = 0;
	if (nn == 0)
		return 0;
	for (size_t i = 0; i < hn;) {
		size_t l = ((unsigned char)hay[i] & 0xC0) == 0x80 ? 0 : folded_prefix(hay + i, hn - i,
		                                                                      needle, nn);
		if (!l) {
			i++;
			continue;
		}
		if (count < max)
			at[count] = i, end[count] = i + l;
		count++;
		i += l;
	}
	return count;
}

long hermes_match_indent(const char *s, size_t n, int tw, size_t *rest)
{
	long col = 0;
	size_t i = 0;
	if (tw <= 0)
		tw = 8;
	for (; i < n && (s[i] == ' ' || s[i] == '\t'); i++)
		col = s[i] == '\t' ? (col / tw + 1) * tw : col + 1;
	*rest = i;
	return col;
}

static size_t rtrim(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n;
}

bool hermes_match_line(const char *fl, size_t fn, const char *p, unsigned tol, int tw,
                       long *delta, bool *have)
{
	size_t pn = strlen(p);
	if (tol & HERMES_TOL_TRAILING)
		fn = rtrim(fl, fn), pn = rtrim(p, pn);
	if (!(tol & HERMES_TOL_INDENT))
		return same(fl, fn, p, pn, tol & HERMES_TOL_UNICODE);
	size_t fr, pr;
	long fc = hermes_match_indent(fl, fn, tw, &fr), pc = hermes_match_indent(p, pn, tw, &pr);
	if (fr == fn || pr == pn)
		return fr == fn && pr == pn; /* blank lines: any indentation */
	if (*have && fc - pc != *delta)
		return false;
	if (!same(fl + fr, fn - fr, p + pr, pn - pr, tol & HERMES_TOL_UNICODE))
		return false;
	*delta = fc - pc, *have = true;
	return true;
}

/* Do q's lines match at line i under tol (tab width tw)? *delta receives the indentation shift. */
static bool match_at(const hermes_lines_index_t *x, const hermes_match_query_t *q, size_t i,
                     unsigned tol, int tw, long *delta)
{
	bool have = false;
	*delta = 0;
	for (size_t k = 0; k < q->count; k++)
		if (!hermes_match_line(x->text + x->start[i + k], x->len[i + k], q->lines[k], tol, tw,
		                       delta, &have))
			return false;
	return true;
}

static const int tab_widths[] = {4, 8, 2};

/* match_at with the first tab width that works (only INDENT depends on it); its width or 0. */
static int match_any_tw(const hermes_lines_index_t *x, const hermes_match_query_t *q, size_t i,
                        unsigned tol, long *delta)
{
	for (size_t t = 0; t < (tol & HERMES_TOL_INDENT ? 3u : 1u); t++)
		if (match_at(x, q, i, tol, tab_widths[t], delta))
			return tab_widths[t];
	return 0;
}

/* Fills m for a match at line i found under level tol: only the tolerances it needed. */
static void settle(const hermes_lines_index_t *x, const hermes_match_query_t *q, size_t i,
                   unsigned tol, hermes_match_t *m)
{
	static const unsigned drop[] = {HERMES_TOL_UNICODE, HERMES_TOL_INDENT, HERMES_TOL_TRAILING};
	long delta;
	for (size_t d = 0; d < 3; d++)
		if ((tol & drop[d]) && match_any_tw(x, q, i, tol & ~drop[d], &delta))
			tol &= ~drop[d];
	memset(m, 0, sizeof *m);
	m->line = i;
	m->tab_width = match_any_tw(x, q, i, tol, &m->delta);
	if (!m->tab_width)
		m->tab_width = 4;
	if (!(tol & HERMES_TOL_INDENT))
		m->delta = 0;
	for (size_t k = 0; k < q->count; k++) {
		if (x->eol[i + k] == 2)
			tol |= HERMES_TOL_LINE_ENDINGS;
		if (x->len[i + k] && !m->file_tabs && x->text[x->start[i + k]] == '\t')
			m->file_tabs = true;
	}
	m->tol = tol;
}

int hermes_match_find(const hermes_lines_index_t *x, const hermes_match_query_t *q,
                      const char *what, hermes_match_t *m, char *err, size_t errsize)
{
	static const unsigned levels[] = {
		0, HERMES_TOL_TRAILING, HERMES_TOL_TRAILING | HERMES_TOL_INDENT,
		HERMES_TOL_TRAILING | HERMES_TOL_INDENT | HERMES_TOL_UNICODE};
	if (q->count > x->count || q->from > x->count - q->count) {
		hermes_match_near_miss(x, q, what, err, errsize);
		return -1;
	}
	size_t last = x->count - q->count; /* the last possible start */
	for (size_t lv = 0; lv < 4 && (lv == 0 || !q->exact); lv++) {
		unsigned tol = levels[lv];
		long delta;
		if (q->at_eof && match_any_tw(x, q, last, tol, &delta)) {
			settle(x, q, last, tol, m);
			return 0;
		}
		size_t found[8], n = 0, best = 0;
		unsigned long best_dist = (unsigned long)-1;
		bool tie = false;
		for (size_t i = q->from; i <= last; i++) {
			if (!match_any_tw(x, q, i, tol, &delta))
				continue;
			if (n < 8)
				found[n] = i;
			n++;
			if (lv == 0 && q->first_wins)
				break;
			if (lv == 0 && q->hint > 0) {
				long d = (long)i + 1 - q->hint;
				unsigned long ad = (unsigned long)(d < 0 ? -d : d);
				if (ad < best_dist)
					best_dist = ad, best = i, tie = false;
				else if (ad == best_dist)
					tie = true;
			}
		}
		if (n == 0)
			continue;
		if (n == 1 || (lv == 0 && q->first_wins)) {
			settle(x, q, found[0], tol, m);
			return 0;
		}
		if (lv == 0 && q->hint > 0 && !tie) {
			settle(x, q, best, tol, m);
			return 0;
		}
		hermes_buf_t b = HERMES_BUF_INIT;
		hermes_buf_printf(&b, "%s matches %zu places%s (lines", what, n,
		                  lv ? " when whitespace and look-alike characters are forgiven" : "");
		for (size_t k = 0; k < n && k < 8; k++)
			hermes_buf_printf(&b, "%s %zu-%zu", k ? "," : "", found[k] + 1,
			                  found[k] + q->count);
		hermes_buf_printf(&b, "%s); give more context lines to say which", n > 8 ? ", ..." : "");
		snprintf(err, errsize, "%s", b.data && !b.failed ? b.data : "out of memory");
		hermes_buf_free(&b);
		return -1;
	}
	hermes_match_near_miss(x, q, what, err, errsize);
	return -1;
}

long hermes_match_anchor(const hermes_lines_index_t *x, size_t from, const char *anchor)
{
	size_t an = strlen(anchor);
	for (int loose = 0; loose < 3; loose++)
		for (size_t i = from; i < x->count; i++) {
			const char *s = x->text + x->start[i];
			size_t n = x->len[i];
			if (loose == 0) {
				if (n == an && memcmp(s, anchor, n) == 0)
					return (long)i;
				continue;
			}
			if (loose == 2) { /* "@@ def f" for the line "    def f(x):" */
				while (n && (*s == ' ' || *s == '\t'))
					s++, n--;
				if (an && n >= an && memcmp(s, anchor, an) == 0)
					return (long)i;
				continue;
			}
			long delta = 0;
			bool have = false;
			if (hermes_match_line(s, n, anchor, HERMES_TOL_TRAILING | HERMES_TOL_INDENT |
			                      HERMES_TOL_UNICODE, 4, &delta, &have))
				return (long)i;
		}
	return -1;
}

size_t hermes_match_tolerance_names(unsigned tol, const char *names[4])
{
	size_t n = 0;
	if (tol & HERMES_TOL_LINE_ENDINGS)
		names[n++] = "lineEndings";
	if (tol & HERMES_TOL_TRAILING)
		names[n++] = "trailingWhitespace";
	if (tol & HERMES_TOL_INDENT)
		names[n++] = "indentation";
	if (tol & HERMES_TOL_UNICODE)
		names[n++] = "unicode";
	return n;
}
