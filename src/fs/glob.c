/* fs/glob.c: the glob matcher of fs.glob, fs.search's include/exclude and the ignore files.
 * A pattern is expanded at its {a,b} alternatives, split into components at '/', and each
 * component compiled to tokens. Matching works at two levels with the same linear algorithm
 * (Russ Cox, "Glob Matching Can Be Simple And Fast Too"): "**" is the star over components, '*'
 * the star over the characters of one component; each level keeps only its last restart point,
 * which is exact when a level has a single kind of star. No backtracking blow-up, no allocation. */
#include <config.h>

#include "fs/glob.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

enum { T_LIT, T_ANY, T_STAR, T_CLASS };

typedef struct token {
	uint8_t kind;
	bool negated;      /* T_CLASS: [!...] or [^...] */
	uint32_t off, len; /* T_LIT: bytes in g->bytes; T_CLASS: ranges in g->ranges */
} token_t;

typedef struct range {
	uint32_t lo, hi; /* code points (a byte that is not UTF-8 counts as itself) */
} range_t;

typedef struct comp {
	bool dstar;        /* "**": any number of components */
	bool literal;      /* only literal bytes: compared with memcmp */
	bool dot;          /* begins with a literal '.' (may match a hidden name under PERIOD) */
	uint32_t tok, ntok;
} comp_t;

/* Shapes that cover most ignore-file lines, matched without the general loop. */
enum { FAST_NONE, FAST_PATH, FAST_BASENAME, FAST_SUFFIX };

typedef struct seq {
	uint32_t comp, ncomp;
	int fast;
	uint32_t loff, llen; /* FAST_*: the literal (the whole path, the name or the suffix) */
} seq_t;

struct hermes_glob {
	unsigned flags;
	seq_t *seqs;
	size_t nseq;
	comp_t *comps;
	size_t ncomp, capcomp;
	token_t *toks;
	size_t ntok, captok;
	range_t *ranges;
	size_t nrange, caprange;
	char *bytes;
	size_t nbytes, capbytes;
};

/* ---- growable arrays ---------------------------------------------------------------------- */

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 8;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*arr, ncap * elem);
	if (!n)
		return -1;
	*arr = n;
	*cap = ncap;
	return 0;
}

/* Decodes one code point at s (n > 0 bytes); a byte that does not start valid UTF-8 is itself. */
static uint32_t decode(const char *s, size_t n, size_t *len)
{
	size_t l = hermes_utf8_sequence_length(s, n);
	const unsigned char *u = (const unsigned char *)s;
	if (l <= 1) {
		*len = 1;
		return u[0];
	}
	*len = l;
	if (l == 2)
		return ((uint32_t)(u[0] & 0x1F) << 6) | (u[1] & 0x3F);
	if (l == 3)
		return ((uint32_t)(u[0] & 0x0F) << 12) | ((uint32_t)(u[1] & 0x3F) << 6) | (u[2] & 0x3F);
	return ((uint32_t)(u[0] & 0x07) << 18) | ((uint32_t)(u[1] & 0x3F) << 12) |
	       ((uint32_t)(u[2] & 0x3F) << 6) | (u[3] & 0x3F);
}

static size_t char_len(const char *s, size_t n)
{
	size_t l = hermes_utf8_sequence_length(s, n);
	return l ? l : 1;
}

/* ---- alternatives ------------------------------------------------------------------------- */

/* Index just past the class that starts at p[i] == '[' (for skipping it while looking for braces),
 * or n if it never closes (the component parser then reports it). */
static size_t skip_class(const char *p, size_t n, size_t i)
{
	size_t j = i + 1;
	if (j < n && (p[j] == '!' || p[j] == '^'))
		j++;
	if (j < n && p[j] == ']')
		j++;
	while (j < n && p[j] != ']')
		j++;
	return j < n ? j + 1 : n;
}

typedef struct strlist {
	char **items;
	size_t *lens;
	size_t n, cap;
} strlist_t;

static void strlist_free(strlist_t *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	free(l->lens);
}

/* Expands the first {…} group of p (recursively the rest) into out. -1 syntax, -2 memory. */
static int expand(const char *p, size_t n, strlist_t *out, int depth, char *why, size_t whysize)
{
	size_t open = n;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\\') {
			i++;
		} else if (p[i] == '[') {
			i = skip_class(p, n, i) - 1;
		} else if (p[i] == '{') {
			open = i;
			break;
		} else if (p[i] == '}') {
			snprintf(why, whysize, "'}' at offset %zu closes no '{'", i);
			return -1;
		}
	}
	if (open == n) {
		if (out->n >= HERMES_GLOB_MAX_ALTERNATIVES) {
			snprintf(why, whysize, "it expands to more than %d alternatives",
			         HERMES_GLOB_MAX_ALTERNATIVES);
			return -1;
		}
		if (out->n == out->cap) {
			size_t ncap = out->cap ? out->cap * 2 : 4;
			char **ni = realloc(out->items, ncap * sizeof *ni);
			if (!ni)
				return -2;
			out->items = ni;
			size_t *nl = realloc(out->lens, ncap * sizeof *nl);
			if (!nl)
				return -2;
			out->lens = nl;
			out->cap = ncap;
		}
		char *copy = malloc(n + 1);
		if (!copy)
			return -2;
		memcpy(copy, p, n);
		copy[n] = '\0';
		out->items[out->n] = copy;
		out->lens[out->n++] = n;
		return 0;
	}
	/* Find the alternatives and the closing brace. */
	size_t starts[HERMES_GLOB_MAX_ALTERNATIVES + 1];
	size_t ends[HERMES_GLOB_MAX_ALTERNATIVES + 1];
	size_t nalt = 0, close = n, start = open + 1;
	for (size_t i = open + 1; i < n; i++) {
		if (p[i] == '\\') {
			i++;
		} else if (p[i] == '[') {
			i = skip_class(p, n, i) - 1;
		} else if (p[i] == '{') {
			snprintf(why, whysize, "'{' at offset %zu is inside another {...} (nested alternatives "
			         "are not supported)", i);
			return -1;
		} else if (p[i] == ',' || p[i] == '}') {
			if (nalt > HERMES_GLOB_MAX_ALTERNATIVES) {
				snprintf(why, whysize, "it expands to more than %d alternatives",
				         HERMES_GLOB_MAX_ALTERNATIVES);
				return -1;
			}
			starts[nalt] = start;
			ends[nalt++] = i;
			start = i + 1;
			if (p[i] == '}') {
				close = i;
				break;
			}
		}
	}
	if (close == n) {
		snprintf(why, whysize, "'{' at offset %zu is never closed", open);
		return -1;
	}
	if (depth >= HERMES_GLOB_MAX_GROUPS) {
		snprintf(why, whysize, "it has more than %d {...} groups", HERMES_GLOB_MAX_GROUPS);
		return -1;
	}
	size_t rest = n - close - 1;
	for (size_t a = 0; a < nalt; a++) {
		size_t alen = ends[a] - starts[a];
		char *joined = malloc(open + alen + rest + 1);
		if (!joined)
			return -2;
		memcpy(joined, p, open);
		memcpy(joined + open, p + starts[a], alen);
		memcpy(joined + open + alen, p + close + 1, rest);
		int rc = expand(joined, open + alen + rest, out, depth + 1, why, whysize);
		free(joined);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- compiling one alternative ------------------------------------------------------------ */

static int add_bytes(hermes_glob_t *g, const char *s, size_t n, uint32_t *off)
{
	if (grow((void **)&g->bytes, &g->capbytes, g->nbytes + n + 1, 1) < 0)
		return -2;
	*off = (uint32_t)g->nbytes;
	memcpy(g->bytes + g->nbytes, s, n);
	g->nbytes += n;
	return 0;
}

static int add_token(hermes_glob_t *g, token_t t)
{
	if (grow((void **)&g->toks, &g->captok, g->ntok + 1, sizeof t) < 0)
		return -2;
	g->toks[g->ntok++] = t;
	return 0;
}

/* Appends literal bytes, merging with a literal token just before (of the same component). */
static int add_literal(hermes_glob_t *g, uint32_t first_tok, const char *s, size_t n)
{
	if (g->ntok > first_tok && g->toks[g->ntok - 1].kind == T_LIT &&
	    g->toks[g->ntok - 1].off + g->toks[g->ntok - 1].len == g->nbytes) {
		uint32_t off;
		if (add_bytes(g, s, n, &off) < 0)
			return -2;
		g->toks[g->ntok - 1].len += (uint32_t)n;
		return 0;
	}
	token_t t = {T_LIT, false, 0, (uint32_t)n};
	if (add_bytes(g, s, n, &t.off) < 0)
		return -2;
	return add_token(g, t);
}

/* Parses a class at p[*i] == '['; advances *i past it. */
static int parse_class(hermes_glob_t *g, const char *p, size_t n, size_t *i, size_t base,
                       char *why, size_t whysize)
{
	size_t start = *i, j = *i + 1;
	token_t t = {T_CLASS, false, (uint32_t)g->nrange, 0};
	if (j < n && (p[j] == '!' || p[j] == '^')) {
		t.negated = true;
		j++;
	}
	bool first = true, in_range = false;
	for (;;) {
		if (j >= n) {
			snprintf(why, whysize, "'[' at offset %zu is never closed", base + start);
			return -1;
		}
		size_t l;
		uint32_t c;
		if (p[j] == '\\' && j + 1 < n) {
			j++;
			c = decode(p + j, n - j, &l);
		} else if (p[j] == ']' && !first) {
			j++;
			break;
		} else if (p[j] == '-' && !first && !in_range) {
			in_range = true;
			j++;
			first = false;
			continue;
		} else {
			c = decode(p + j, n - j, &l);
		}
		j += l;
		first = false;
		if (in_range) {
			range_t *r = &g->ranges[g->nrange - 1];
			if (c < r->lo) {
				snprintf(why, whysize, "the range in the class at offset %zu goes backwards",
				         base + start);
				return -1;
			}
			r->hi = c;
			in_range = false;
			continue;
		}
		if (grow((void **)&g->ranges, &g->caprange, g->nrange + 1, sizeof(range_t)) < 0)
			return -2;
		g->ranges[g->nrange++] = (range_t){c, c};
	}
	if (in_range) { /* a final '-' is literal */
		if (grow((void **)&g->ranges, &g->caprange, g->nrange + 1, sizeof(range_t)) < 0)
			return -2;
		g->ranges[g->nrange++] = (range_t){'-', '-'};
	}
	t.len = (uint32_t)g->nrange - t.off;
	*i = j;
	return add_token(g, t);
}

/* Compiles one component p[0..n) (base: its offset in the alternative, for messages). */
static int compile_comp(hermes_glob_t *g, const char *p, size_t n, size_t base, char *why,
                        size_t whysize)
{
	if (grow((void **)&g->comps, &g->capcomp, g->ncomp + 1, sizeof(comp_t)) < 0)
		return -2;
	comp_t c = {false, true, false, (uint32_t)g->ntok, 0};
	if (n == 2 && p[0] == '*' && p[1] == '*') {
		c.dstar = true;
		c.literal = false;
		g->comps[g->ncomp++] = c;
		return 0;
	}
	size_t i = 0;
	while (i < n) {
		int rc = 0;
		if (p[i] == '\\') {
			if (i + 1 >= n) {
				snprintf(why, whysize, "it ends with a lone '\\'");
				return -1;
			}
			size_t l = char_len(p + i + 1, n - i - 1);
			rc = add_literal(g, c.tok, p + i + 1, l);
			i += 1 + l;
		} else if (p[i] == '*') {
			while (i < n && p[i] == '*')
				i++; /* "**" inside a component is '*' */
			rc = add_token(g, (token_t){T_STAR, false, 0, 0});
			c.literal = false;
		} else if (p[i] == '?') {
			rc = add_token(g, (token_t){T_ANY, false, 0, 0});
			c.literal = false;
			i++;
		} else if (p[i] == '[') {
			rc = parse_class(g, p, n, &i, base, why, whysize);
			c.literal = false;
		} else {
			size_t j = i;
			while (j < n && p[j] != '\\' && p[j] != '*' && p[j] != '?' && p[j] != '[')
				j++;
			rc = add_literal(g, c.tok, p + i, j - i);
			i = j;
		}
		if (rc)
			return rc;
	}
	c.ntok = (uint32_t)g->ntok - c.tok;
	if (c.ntok > 0 && g->toks[c.tok].kind == T_LIT && g->bytes[g->toks[c.tok].off] == '.')
		c.dot = true;
	if (c.literal && c.ntok == 0) {
		/* The empty component: matches no name. Keep it as a literal of length 0. */
		token_t t = {T_LIT, false, (uint32_t)g->nbytes, 0};
		if (add_token(g, t) < 0)
			return -2;
		c.ntok = 1;
	}
	g->comps[g->ncomp++] = c;
	return 0;
}

static void classify(hermes_glob_t *g, seq_t *s)
{
	s->fast = FAST_NONE;
	const comp_t *c = g->comps + s->comp;
	bool all_literal = true;
	for (uint32_t i = 0; i < s->ncomp; i++)
		if (!c[i].literal)
			all_literal = false;
	if (all_literal) {
		/* Literal components are contiguous in bytes, but without the '/' between them: only a
		 * single component can be compared in place. */
		if (s->ncomp == 1) {
			s->fast = FAST_PATH;
			s->loff = g->toks[c[0].tok].off;
			s->llen = g->toks[c[0].tok].len;
		}
		return;
	}
	if (s->ncomp == 2 && c[0].dstar && c[1].literal) {
		s->fast = FAST_BASENAME;
		s->loff = g->toks[c[1].tok].off;
		s->llen = g->toks[c[1].tok].len;
	} else if (s->ncomp == 2 && c[0].dstar && c[1].ntok == 2 && g->toks[c[1].tok].kind == T_STAR &&
	           g->toks[c[1].tok + 1].kind == T_LIT) {
		s->fast = FAST_SUFFIX;
		s->loff = g->toks[c[1].tok + 1].off;
		s->llen = g->toks[c[1].tok + 1].len;
	}
}

int hermes_glob_compile(const char *pattern, size_t len, unsigned flags, hermes_glob_t **out,
                        char *why, size_t whysize)
{
	char whybuf[160];
	if (!why) {
		why = whybuf;
		whysize = sizeof whybuf;
	}
	strlist_t alts = {0};
	int rc = expand(pattern, len, &alts, 0, why, whysize);
	if (rc) {
		strlist_free(&alts);
		return rc;
	}
	hermes_glob_t *g = calloc(1, sizeof *g);
	if (!g || !(g->seqs = calloc(alts.n, sizeof *g->seqs))) {
		free(g);
		strlist_free(&alts);
		return -2;
	}
	g->flags = flags;
	for (size_t a = 0; a < alts.n && rc == 0; a++) {
		const char *p = alts.items[a];
		size_t n = alts.lens[a];
		seq_t *s = &g->seqs[g->nseq++];
		s->comp = (uint32_t)g->ncomp;
		size_t i = 0;
		for (;;) {
			/* A '/' inside a class ends the component too, leaving the class unclosed. */
			size_t j = i;
			while (j < n && p[j] != '/') {
				if (p[j] == '\\' && j + 1 < n && p[j + 1] != '/')
					j++;
				j++;
			}
			bool dstar = j - i == 2 && p[i] == '*' && p[i + 1] == '*';
			/* Consecutive "**" components are one. */
			if (!(dstar && g->ncomp > s->comp && g->comps[g->ncomp - 1].dstar))
				rc = compile_comp(g, p + i, j - i, i, why, whysize);
			if (rc || j >= n)
				break;
			i = j + 1;
		}
		/* A final "**" after other components is what is inside: at least one more name. */
		if (rc == 0 && g->ncomp - s->comp > 1 && g->comps[g->ncomp - 1].dstar)
			rc = compile_comp(g, "*", 1, n, why, whysize);
		s->ncomp = (uint32_t)g->ncomp - s->comp;
	}
	strlist_free(&alts);
	if (rc) {
		hermes_glob_free(g);
		return rc;
	}
	for (size_t a = 0; a < g->nseq; a++)
		classify(g, &g->seqs[a]);
	*out = g;
	return 0;
}

void hermes_glob_free(hermes_glob_t *g)
{
	if (!g)
		return;
	free(g->seqs);
	free(g->comps);
	free(g->toks);
	free(g->ranges);
	free(g->bytes);
	free(g);
}

/* ---- matching ----------------------------------------------------------------------------- */

static bool class_has(const hermes_glob_t *g, const token_t *t, uint32_t c)
{
	bool in = false;
	for (uint32_t i = 0; i < t->len; i++) {
		const range_t *r = &g->ranges[t->off + i];
		if (c >= r->lo && c <= r->hi) {
			in = true;
			break;
		}
	}
	return in != t->negated;
}

/* One component pattern against one name s[0..n). */
static bool comp_match(const hermes_glob_t *g, const comp_t *c, const char *s, size_t n)
{
	if ((g->flags & HERMES_GLOB_PERIOD) && n > 0 && s[0] == '.' && !c->dot)
		return false;
	const token_t *t = g->toks + c->tok;
	if (c->literal)
		return n == t->len && memcmp(s, g->bytes + t->off, n) == 0;
	size_t px = 0, sx = 0, next_px = 0, next_sx = 0; /* next_sx == 0: no restart point */
	while (px < c->ntok || sx < n) {
		if (px < c->ntok) {
			const token_t *k = &t[px];
			switch (k->kind) {
			case T_LIT:
				if (sx + k->len <= n && memcmp(s + sx, g->bytes + k->off, k->len) == 0) {
					px++;
					sx += k->len;
					continue;
				}
				break;
			case T_ANY:
				if (sx < n) {
					sx += char_len(s + sx, n - sx);
					px++;
					continue;
				}
				break;
			case T_CLASS:
				if (sx < n) {
					size_t l;
					uint32_t ch = decode(s + sx, n - sx, &l);
					if (class_has(g, k, ch)) {
						sx += l;
						px++;
						continue;
					}
				}
				break;
			case T_STAR:
				/* Match nothing now; on a mismatch, come back and take one more character. */
				next_px = px;
				next_sx = sx < n ? sx + char_len(s + sx, n - sx) : n + 1;
				px++;
				continue;
			}
		}
		if (next_sx > 0 && next_sx <= n) {
			px = next_px;
			sx = next_sx;
			continue;
		}
		return false;
	}
	return true;
}

/* One alternative against path[0..len) split at '/'. prefix: succeed when the path runs out
 * while the pattern still has components (something below could match). */
static bool seq_match(const hermes_glob_t *g, const seq_t *s, const char *path, size_t len,
                      bool prefix)
{
	const comp_t *comps = g->comps + s->comp;
	const size_t np = s->ncomp;
	const size_t end = len + 1; /* sx == end: no component left */
	size_t pi = 0, sx = len == 0 ? end : 0;
	bool have_next = false;
	size_t next_pi = 0, next_sx = 0;
	for (;;) {
		if (pi < np) {
			if (prefix && sx == end)
				return true;
			const comp_t *c = &comps[pi];
			if (c->dstar) {
				next_pi = pi;
				next_sx = sx;
				have_next = true;
				pi++;
				continue;
			}
			if (sx != end) {
				const char *slash = memchr(path + sx, '/', len - sx);
				size_t e = slash ? (size_t)(slash - path) : len;
				if (comp_match(g, c, path + sx, e - sx)) {
					pi++;
					sx = e + 1;
					continue;
				}
			}
		} else if (sx == end && !prefix) {
			return true;
		}
		/* Mismatch: let the last "**" swallow one more component. Past the end of a directory
		 * (prefix), it could swallow what lies below and let the rest match after it. */
		if (prefix && sx == end)
			return have_next;
		if (have_next && next_sx != end) {
			if ((g->flags & HERMES_GLOB_PERIOD) && path[next_sx] == '.')
				return false;
			const char *slash = memchr(path + next_sx, '/', len - next_sx);
			next_sx = slash ? (size_t)(slash - path) + 1 : end;
			pi = next_pi + 1;
			sx = next_sx;
			continue;
		}
		return false;
	}
}

static bool seq_match_fast(const hermes_glob_t *g, const seq_t *s, const char *path, size_t len)
{
	const char *lit = g->bytes + s->loff;
	const char *base;
	size_t blen;
	switch (s->fast) {
	case FAST_PATH:
		/* A literal may name a hidden entry, even under PERIOD. */
		return len == s->llen && memcmp(path, lit, len) == 0;
	case FAST_BASENAME:
	case FAST_SUFFIX:
		base = memrchr(path, '/', len);
		base = base ? base + 1 : path;
		blen = len - (size_t)(base - path);
		if (g->flags & HERMES_GLOB_PERIOD) {
			/* "**" may not cross a hidden directory, nor '*' start a hidden name. */
			if (path[0] == '.' && (s->fast == FAST_SUFFIX || base != path))
				return false;
			for (const char *p = path; p < base; p++)
				if (*p == '/' && p[1] == '.' && (s->fast == FAST_SUFFIX || p + 1 != base))
					return false;
		}
		if (s->fast == FAST_BASENAME)
			return blen == s->llen && memcmp(base, lit, blen) == 0;
		return blen >= s->llen && memcmp(base + blen - s->llen, lit, s->llen) == 0;
	}
	return false;
}

bool hermes_glob_match(const hermes_glob_t *g, const char *path, size_t len)
{
	for (size_t i = 0; i < g->nseq; i++) {
		const seq_t *s = &g->seqs[i];
		if (s->fast != FAST_NONE ? seq_match_fast(g, s, path, len) : seq_match(g, s, path, len, false))
			return true;
	}
	return false;
}

bool hermes_glob_may_match_below(const hermes_glob_t *g, const char *dir, size_t len)
{
	for (size_t i = 0; i < g->nseq; i++)
		if (seq_match(g, &g->seqs[i], dir, len, true))
			return true;
	return false;
}
