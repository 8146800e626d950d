/* fs/match.h: finding a block of lines in a file's text the way an edit means it, forgiving what
 * models get wrong and never guessing. Exact first; only where the exact lines are absent, a
 * match that ignores trailing whitespace, then also the amount (and tabs/spaces style) of
 * indentation, then also Unicode look-alikes (curly quotes, dashes, non-breaking spaces) —
 * accepted only when exactly one place matches at that level. When nothing matches, the error
 * describes the closest region (near-miss diagnostics). Pure: works on memory only. */
#ifndef HERMES_FS_MATCH_H
#define HERMES_FS_MATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Tolerances (bits), as reported to the agent by hermes_match_tolerance_names(). */
#define HERMES_TOL_LINE_ENDINGS 1u /* the file's lines end with CRLF, the patch's with LF */
#define HERMES_TOL_TRAILING     2u /* trailing whitespace differs */
#define HERMES_TOL_INDENT       4u /* indentation amount or tabs/spaces differ */
#define HERMES_TOL_UNICODE      8u /* look-alike characters differ */

/* The lines of a text: line i is text[start[i] .. start[i]+len[i]), followed by eol[i] bytes of
 * line ending (0 for a last line without one, 1 for "\n", 2 for "\r\n"). */
typedef struct hermes_lines_index {
	const char *text;   /* borrowed */
	size_t size;
	size_t *start, *len;
	unsigned char *eol;
	size_t count;
	bool crlf;          /* the first line ends with CRLF: new lines are written with CRLF */
} hermes_lines_index_t;

/* 0, or -1 if out of memory. Free with hermes_lines_index_free. */
int hermes_lines_index_init(hermes_lines_index_t *x, const char *text, size_t size);
void hermes_lines_index_free(hermes_lines_index_t *x);

/* Where a block was found. */
typedef struct hermes_match {
	size_t line;      /* 0-based first line */
	unsigned tol;     /* HERMES_TOL_* used (0: exact) */
	long delta;       /* HERMES_TOL_INDENT: columns the file is indented more than the patch */
	int tab_width;    /* the tab width under which the indentation matched */
	bool file_tabs;   /* the file's matched lines are indented with tabs */
} hermes_match_t;

/* What a search may use. */
typedef struct hermes_match_query {
	char *const *lines; /* the lines to find (without line endings) */
	size_t count;       /* >= 1 */
	size_t from;        /* search lines from..end */
	long hint;          /* 1-based line where the block is said to start (unified diffs), or 0:
	                     * chooses among several exact matches, the nearest */
	bool first_wins;    /* an anchor came before: the first exact match after from wins */
	bool at_eof;        /* prefer a match that ends at the end of the file */
	bool exact;         /* no tolerance */
} hermes_match_query_t;

/* Finds q's lines in x. 0 and *m filled; or -1 with err filled: not found (with the closest
 * region and what differs there) or found in several places (listing their line numbers). what
 * names the block in messages ("hunk 2 (patch line 14)"). */
int hermes_match_find(const hermes_lines_index_t *x, const hermes_match_query_t *q,
                      const char *what, hermes_match_t *m, char *err, size_t errsize);

/* Finds the first line at or after from equal to anchor (exactly, else ignoring the blanks
 * around it and look-alikes). Its index, or -1. */
long hermes_match_anchor(const hermes_lines_index_t *x, size_t from, const char *anchor);

/* Does file line fl[0..fn) equal patch line p under the tolerances tol (tab width tw)? With
 * HERMES_TOL_INDENT, *delta is the indentation difference so far (*have says whether one was
 * set; blank lines set none). */
bool hermes_match_line(const char *fl, size_t fn, const char *p, unsigned tol, int tw,
                       long *delta, bool *have);

/* Writes the names of the tolerances in tol ("lineEndings", "trailingWhitespace", "indentation",
 * "unicode") into names (at most 4); returns how many. */
size_t hermes_match_tolerance_names(unsigned tol, const char *names[4]);

/* Writes the near-miss description of q in x into err (nothing matched). */
void hermes_match_near_miss(const hermes_lines_index_t *x, const hermes_match_query_t *q,
                            const char *what, char *err, size_t errsize);

/* Where needle[0..nn) occurs in hay[0..hn) with look-alike characters folded (no other
 * tolerance; for a fragment of one line): the count of places (not overlapping), the first up to
 * max of them in at[] / end[] (byte offsets in hay). */
size_t hermes_match_folded(const char *hay, size_t hn, const char *needle, size_t nn, size_t *at,
                           size_t *end, size_t max);

/* The leading whitespace of s as columns with tab width tw; *rest after it. */
long hermes_match_indent(const char *s, size_t n, int tw, size_t *rest);

#endif
