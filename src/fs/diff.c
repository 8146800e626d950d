/* fs/diff.c: unified diffs (see diff.h). The lines common to the start and the end are set
 * aside first; Myers' greedy algorithm finds a shortest edit script for the rest, keeping each
 * round's frontier to walk it back. An edit too large for that (more than 16 M frontier cells) is
 * shown as the whole middle removed and added, which is still a correct diff. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "fs/diff.h"

typedef struct line {
	const char *s;
	size_t len; /* with its '\n', if it has one */
} line_t;

/* The lines of text; *n gets their count. NULL if out of memory (or text is empty: *n = 0). */
static line_t *split_lines(const char *text, size_t len, size_t *n)
{
	size_t count = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			count++;
	if (len > 0 && text[len - 1] != '\n')
		count++;
	*n = count;
	line_t *lines = malloc((count ? count : 1) * sizeof *lines);
	if (!lines)
		return NULL;
	size_t k = 0;
	for (const char *p = text, *e = text + len; p < e; k++) {
		const char *q = memchr(p, '\n', (size_t)(e - p));
		const char *stop = q ? q + 1 : e;
		lines[k] = (line_t){p, (size_t)(stop - p)};
		p = stop;
	}
	return lines;
}

static bool same(const line_t *a, const line_t *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

/* One step of the edit script: a line kept, removed from a, or added from b. */
typedef enum { KEEP, DEL, ADD } op_t;

typedef struct script {
	op_t *ops;
	size_t n, cap;
	bool failed;
} script_t;

static void push(script_t *s, op_t op)
{
	if (s->failed)
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		op_t *p = realloc(s->ops, cap * sizeof *p);
		if (!p) {
			s->failed = true;
			return;
		}
		s->ops = p;
		s->cap = cap;
	}
	s->ops[s->n++] = op;
}

#define MAX_CELLS (16u << 20)

/* The shortest edit script of a[0..n) into b[0..m), in reverse order, appended to rev. */
static void myers(const line_t *a, size_t n, const line_t *b, size_t m, script_t *rev)
{
	size_t max = n + m, width = 2 * max + 1;
	if (max == 0)
		return;
	int64_t *v = calloc(width, sizeof *v);
	int64_t **trace = NULL;
	size_t rounds = 0;
	bool found = false;
	for (size_t d = 0; v && d <= max && !found; d++) {
		if ((d + 1) * width > MAX_CELLS)
			break;
		int64_t **t = realloc(trace, (d + 1) * sizeof *t);
		if (!t)
			break;
		trace = t;
		if (!(trace[d] = malloc(width * sizeof **trace)))
			break;
		memcpy(trace[d], v, width * sizeof *v);
		rounds = d + 1;
		for (int64_t k = -(int64_t)d; k <= (int64_t)d; k += 2) {
			int64_t *vk = &v[k + (int64_t)max];
			int64_t x = (k == -(int64_t)d || (k != (int64_t)d && vk[-1] < vk[1])) ? vk[1] : vk[-1] + 1;
			int64_t y = x - k;
			while (x < (int64_t)n && y < (int64_t)m && same(&a[x], &b[y]))
				x++, y++;
			*vk = x;
			if (x >= (int64_t)n && y >= (int64_t)m) {
				found = true;
				break;
			}
		}
	}
	if (!found) {
		/* too large to search: all of a removed, all of b added */
		for (size_t i = 0; i < m; i++)
			push(rev, ADD);
		for (size_t i = 0; i < n; i++)
			push(rev, DEL);
	} else {
		/* walk the frontiers back from (n, m) */
		int64_t x = (int64_t)n, y = (int64_t)m;
		for (size_t d = rounds; d-- > 0;) {
			const int64_t *vd = trace[d];
			int64_t k = x - y;
			int64_t pk = (k == -(int64_t)d || (k != (int64_t)d &&
			              vd[k - 1 + (int64_t)max] < vd[k + 1 + (int64_t)max])) ? k + 1 : k - 1;
			int64_t px = d ? vd[pk + (int64_t)max] : 0, py = px - pk;
			while (x > px && y > py)
				push(rev, KEEP), x--, y--;
			if (d == 0)
				break;
			push(rev, x == px ? ADD : DEL);
			x = px;
			y = py;
		}
	}
	for (size_t d = 0; d < rounds; d++)
		free(trace[d]);
	free(trace);
	free(v);
}

/* Appends one line of a hunk with its mark, and the note of a missing final newline. */
static void put_line(hermes_buf_t *out, char mark, const line_t *l)
{
	hermes_buf_putc(out, mark);
	hermes_buf_append(out, l->s, l->len);
	if (l->len == 0 || l->s[l->len - 1] != '\n')
		hermes_buf_puts(out, "\n\\ No newline at end of file\n");
}

/* "@@ -a,b +c,d @@": a range of n lines starting after `before` lines. */
static void put_range(hermes_buf_t *out, char sign, size_t before, size_t n)
{
	if (n == 1)
		hermes_buf_printf(out, "%c%zu", sign, before + 1);
	else
		hermes_buf_printf(out, "%c%zu,%zu", sign, n ? before + 1 : before, n);
}

char *hermes_unified_diff(const char *name, const char *a, size_t alen, const char *b, size_t blen,
                          int context)
{
	size_t n, m;
	line_t *la = split_lines(a, alen, &n), *lb = split_lines(b, blen, &m);
	script_t s = {0};
	hermes_buf_t out = HERMES_BUF_INIT;
	hermes_buf_append(&out, "", 0);
	if (!la || !lb)
		goto fail;
	size_t pre = 0, suf = 0;
	while (pre < n && pre < m && same(&la[pre], &lb[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre && same(&la[n - 1 - suf], &lb[m - 1 - suf]))
		suf++;
	if (pre == n && pre == m)
		goto done; /* equal */
	/* the whole script, in order: prefix, middle, suffix */
	script_t rev = {0};
	myers(la + pre, n - pre - suf, lb + pre, m - pre - suf, &rev);
	for (size_t i = 0; i < pre; i++)
		push(&s, KEEP);
	for (size_t i = rev.n; i-- > 0;)
		push(&s, rev.ops[i]);
	for (size_t i = 0; i < suf; i++)
		push(&s, KEEP);
	free(rev.ops);
	if (s.failed || rev.failed)
		goto fail;

	hermes_buf_printf(&out, "--- a/%s\n+++ b/%s\n", name, name);
	/* positions (in a and b) before each op */
	size_t i = 0, ai = 0, bi = 0;
	while (i < s.n) {
		/* the next change */
		size_t j = i, aj = ai, bj = bi;
		while (j < s.n && s.ops[j] == KEEP)
			j++, aj++, bj++;
		if (j == s.n)
			break;
		/* the hunk: context before, then changes and keeps until 2*context keeps in a row */
		size_t ctx = (size_t)context < j - i ? (size_t)context : j - i;
		size_t start = j - ctx, as = aj - ctx, bs = bj - ctx;
		size_t end = j, ae = aj, be = bj;
		while (end < s.n) {
			if (s.ops[end] != KEEP) {
				ae += s.ops[end] == DEL;
				be += s.ops[end] == ADD;
				end++;
				continue;
			}
			size_t run = 0;
			while (end + run < s.n && s.ops[end + run] == KEEP)
				run++;
			if (end + run == s.n || run > 2 * (size_t)context) {
				size_t tail = run < (size_t)context ? run : (size_t)context;
				end += tail, ae += tail, be += tail;
				break;
			}
			end += run, ae += run, be += run;
		}
		hermes_buf_puts(&out, "@@ ");
		put_range(&out, '-', as, ae - as);
		hermes_buf_putc(&out, ' ');
		put_range(&out, '+', bs, be - bs);
		hermes_buf_puts(&out, " @@\n");
		for (size_t k = start, x = as, y = bs; k < end; k++) {
			if (s.ops[k] == KEEP)
				put_line(&out, ' ', &la[x++]), y++;
			else if (s.ops[k] == DEL)
				put_line(&out, '-', &la[x++]);
			else
				put_line(&out, '+', &lb[y++]);
		}
		i = end, ai = ae, bi = be;
	}
done:
	free(s.ops);
	free(la);
	free(lb);
	return hermes_buf_finish(&out);
fail:
	free(s.ops);
	free(la);
	free(lb);
	hermes_buf_free(&out);
	return NULL;
}
