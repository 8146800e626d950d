/* fs/patch_unified.c: the parser of unified diffs as `git diff` and `diff -u` write them: optional
 * "diff --git a/X b/Y" with its extended headers (new/deleted file mode, rename from/to), "--- OLD"
 * and "+++ NEW" (with or without a/ b/ prefixes, /dev/null for an added or deleted file, a
 * timestamp after a tab), hunks "@@ -L,N +L,N @@" of " ", "-", "+" lines and "\ No newline at end
 * of file". The hunk header's line numbers become hints; its counts are not trusted (models get
 * them wrong): a hunk runs until the next header, trailing empty lines beyond the counts dropped.
 * Text between files (a commit message, a Markdown fence) is ignored. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/patch.h"

static int oom(char *err, size_t errsize)
{
	snprintf(err, errsize, "out of memory");
	return -1;
}

static const char *line_at(const hermes_patch_src_t *src, size_t i, size_t *len)
{
	*len = src->lens[i];
	return src->text + src->starts[i];
}

/* The path of a "--- X" / "+++ X" line (without the timestamp after a tab, without quotes),
 * malloc'd. */
static char *header_path(const hermes_patch_src_t *src, size_t i)
{
	size_t l;
	const char *s = line_at(src, i, &l);
	s += 4, l -= 4;
	while (l && *s == ' ')
		s++, l--;
	const char *tab = memchr(s, '\t', l);
	if (tab)
		l = (size_t)(tab - s);
	while (l && s[l - 1] == ' ')
		l--;
	if (l >= 2 && s[0] == '"' && s[l - 1] == '"')
		s++, l -= 2;
	return strndup(s, l);
}

static bool is_hunk_header(const hermes_patch_src_t *src, size_t i)
{
	return hermes_patch_src_starts(src, i, "@@");
}

static bool is_file_header(const hermes_patch_src_t *src, size_t i)
{
	return hermes_patch_src_starts(src, i, "diff --git ") ||
	       (hermes_patch_src_starts(src, i, "--- ") && i + 1 < src->count &&
	        hermes_patch_src_starts(src, i + 1, "+++ "));
}

/* "@@ -L[,N] +L[,N] @@": the old start and counts; false if the numbers are absent or malformed
 * (then the hunk has no hint). */
static bool hunk_numbers(const hermes_patch_src_t *src, size_t i, long *ostart, long *ocount,
                         long *ncount)
{
	size_t l;
	const char *s = line_at(src, i, &l);
	char buf[128];
	if (l >= sizeof buf)
		l = sizeof buf - 1;
	memcpy(buf, s, l);
	buf[l] = '\0';
	long a, b = 1, c, d = 1;
	if (sscanf(buf, "@@ -%ld,%ld +%ld,%ld @@", &a, &b, &c, &d) == 4 ||
	    (b = 1, sscanf(buf, "@@ -%ld +%ld,%ld @@", &a, &c, &d) == 3) ||
	    (d = 1, sscanf(buf, "@@ -%ld,%ld +%ld @@", &a, &b, &c) == 3) ||
	    (b = 1, d = 1, sscanf(buf, "@@ -%ld +%ld @@", &a, &c) == 2)) {
		/* numbers no file has (or that sscanf clamped) are no hint */
		if (a < 0 || b < 0 || d < 0 || a > 1000000000L || b > 1000000000L || d > 1000000000L)
			return false;
		*ostart = a, *ocount = b, *ncount = d;
		return true;
	}
	return false;
}

/* Reads the hunk whose header is line *i. */
static int parse_hunk(const hermes_patch_src_t *src, size_t *i, hermes_patch_file_t *f, char *err,
                      size_t errsize)
{
	hermes_patch_hunk_t *h = hermes_patch_add_hunk(f);
	if (!h)
		return oom(err, errsize);
	h->line = (int)*i + 1;
	long ostart = 0, ocount = -1, ncount = -1;
	if (hunk_numbers(src, *i, &ostart, &ocount, &ncount))
		h->hint = ocount == 0 ? ostart + 1 : ostart; /* "-5,0": insert after line 5 */
	else
		ocount = ncount = -1;
	char last = 0;
	size_t j = *i + 1, trailing_blanks = 0;
	for (; j < src->count; j++) {
		size_t l;
		const char *s = line_at(src, j, &l);
		if (is_hunk_header(src, j) || is_file_header(src, j))
			break;
		if (l == 0) {
			/* An empty line: an empty context line whose space was lost, unless it trails. */
			trailing_blanks++;
			continue;
		}
		if (s[0] == '\\') {
			if (last == '-' || last == ' ')
				h->old_noeol = true;
			if (last == '+' || last == ' ')
				h->new_noeol = true;
			continue;
		}
		if (s[0] != ' ' && s[0] != '-' && s[0] != '+')
			break;
		for (; trailing_blanks; trailing_blanks--)
			if (!hermes_patch_push_line(&h->old_lines, &h->old_count, strdup("")) ||
			    !hermes_patch_push_line(&h->new_lines, &h->new_count, strdup("")))
				return oom(err, errsize);
		last = s[0];
		if (s[0] != '+' && !hermes_patch_push_line(&h->old_lines, &h->old_count,
		                                           hermes_patch_src_dup(src, j, 1)))
			return oom(err, errsize);
		if (s[0] != '-' && !hermes_patch_push_line(&h->new_lines, &h->new_count,
		                                           hermes_patch_src_dup(src, j, 1)))
			return oom(err, errsize);
	}
	/* Trailing empty lines count only as far as the header's counts ask for them. */
	while (trailing_blanks && ocount >= 0 && (long)h->old_count < ocount &&
	       (long)h->new_count < ncount) {
		if (!hermes_patch_push_line(&h->old_lines, &h->old_count, strdup("")) ||
		    !hermes_patch_push_line(&h->new_lines, &h->new_count, strdup("")))
			return oom(err, errsize);
		trailing_blanks--;
	}
	if (h->old_count == 0 && h->new_count == 0) {
		snprintf(err, errsize, "line %d: the hunk of '%s' has no lines", h->line, f->path);
		return -1;
	}
	*i = j;
	return 0;
}

/* Strips git's a/ and b/ prefixes when both sides (or the one that is not /dev/null) have them. */
static void strip_prefixes(char *old, char *new)
{
	bool on = strcmp(old, "/dev/null") == 0, nn = strcmp(new, "/dev/null") == 0;
	bool oa = strncmp(old, "a/", 2) == 0, nb = strncmp(new, "b/", 2) == 0;
	if ((oa || on) && (nb || nn) && !(on && nn)) {
		if (oa)
			memmove(old, old + 2, strlen(old + 2) + 1);
		if (nb)
			memmove(new, new + 2, strlen(new + 2) + 1);
	}
}

/* The added file's content from its one hunk's new lines. */
static int add_content(hermes_patch_file_t *f, char *err, size_t errsize)
{
	size_t len = 0;
	for (size_t k = 0; k < f->hunk_count; k++)
		for (size_t j = 0; j < f->hunks[k].new_count; j++)
			len += strlen(f->hunks[k].new_lines[j]) + 1;
	char *c = malloc(len + 1);
	if (!c)
		return oom(err, errsize);
	size_t at = 0;
	bool noeol = false;
	for (size_t k = 0; k < f->hunk_count; k++) {
		if (f->hunks[k].old_count) {
			snprintf(err, errsize, "line %d: '%s' is added (--- /dev/null) but its hunk removes "
			         "lines", f->hunks[k].line, f->path);
			free(c);
			return -1;
		}
		for (size_t j = 0; j < f->hunks[k].new_count; j++) {
			size_t l = strlen(f->hunks[k].new_lines[j]);
			memcpy(c + at, f->hunks[k].new_lines[j], l);
			at += l;
			c[at++] = '\n';
		}
		noeol = f->hunks[k].new_noeol;
	}
	if (noeol && at)
		at--;
	c[at] = '\0';
	f->content = c;
	f->content_len = at;
	return 0;
}

/* One file section from line *i (a "diff --git" or "--- " line). */
static int parse_file(const hermes_patch_src_t *src, size_t *i, hermes_patch_t *out, char *err,
                      size_t errsize)
{
	char *old = NULL, *new = NULL, *rfrom = NULL, *rto = NULL;
	bool deleted = false, created = false, git = hermes_patch_src_starts(src, *i, "diff --git ");
	int rc = -1, first = (int)*i + 1;
	size_t j = *i + (git ? 1 : 0);
	/* git's extended headers */
	for (; git && j < src->count && !hermes_patch_src_starts(src, j, "--- ") &&
	       !is_hunk_header(src, j) && !hermes_patch_src_starts(src, j, "diff --git "); j++) {
		if (hermes_patch_src_starts(src, j, "deleted file mode"))
			deleted = true;
		else if (hermes_patch_src_starts(src, j, "new file mode"))
			created = true;
		else if (hermes_patch_src_starts(src, j, "rename from ")) {
			free(rfrom);
			rfrom = hermes_patch_src_dup(src, j, 12);
		} else if (hermes_patch_src_starts(src, j, "rename to ")) {
			free(rto);
			rto = hermes_patch_src_dup(src, j, 10);
		} else if (hermes_patch_src_starts(src, j, "Binary files ") ||
		           hermes_patch_src_starts(src, j, "GIT binary patch")) {
			snprintf(err, errsize, "line %zu: binary patches are not supported", j + 1);
			goto out;
		}
	}
	if (j < src->count && hermes_patch_src_starts(src, j, "--- ")) {
		if (j + 1 >= src->count || !hermes_patch_src_starts(src, j + 1, "+++ ")) {
			snprintf(err, errsize, "line %zu: '--- ' is not followed by a '+++ ' line", j + 2);
			goto out;
		}
		if (!(old = header_path(src, j)) || !(new = header_path(src, j + 1))) {
			oom(err, errsize);
			goto out;
		}
		strip_prefixes(old, new);
		j += 2;
	} else if (git && (rfrom || rto || deleted || created)) {
		/* a pure rename, or an empty file added or deleted: names from "diff --git a/X b/Y" */
		size_t l;
		const char *s = line_at(src, *i, &l);
		const char *b = NULL;
		for (size_t k = 11; k + 3 <= l; k++)
			if (memcmp(s + k, " b/", 3) == 0)
				b = s + k;
		if (!b || l < 13 || memcmp(s + 11, "a/", 2) != 0) {
			snprintf(err, errsize, "line %d: cannot read the paths of '%.*s'", first,
			         (int)(l < 80 ? l : 80), s);
			goto out;
		}
		old = strndup(s + 13, (size_t)(b - s - 13));
		new = strndup(b + 3, (size_t)(s + l - b - 3));
		if (!old || !new) {
			oom(err, errsize);
			goto out;
		}
	} else {
		snprintf(err, errsize, "line %d: a file header without '--- ' and '+++ ' lines", first);
		goto out;
	}
	if (rfrom && rto) {
		free(old), free(new);
		old = rfrom, new = rto, rfrom = rto = NULL;
	}
	hermes_patch_file_t *f = hermes_patch_add_file(out);
	if (!f) {
		oom(err, errsize);
		goto out;
	}
	f->line = first;
	if (created || strcmp(old, "/dev/null") == 0) {
		f->action = HERMES_PATCH_ADD;
		f->path = new, new = NULL;
	} else if (deleted || strcmp(new, "/dev/null") == 0) {
		f->action = HERMES_PATCH_DELETE;
		f->path = old, old = NULL;
	} else {
		f->action = HERMES_PATCH_UPDATE;
		f->path = old, old = NULL;
		if (strcmp(f->path, new) != 0)
			f->move_to = new, new = NULL;
	}
	while (j < src->count && is_hunk_header(src, j))
		if (parse_hunk(src, &j, f, err, errsize) != 0)
			goto out;
	if (f->action == HERMES_PATCH_ADD) {
		if (add_content(f, err, errsize) != 0)
			goto out;
	} else if (f->action == HERMES_PATCH_UPDATE && f->hunk_count == 0 && !f->move_to) {
		snprintf(err, errsize, "line %d: the diff of '%s' has no hunk ('@@ -L,N +L,N @@')",
		         first, f->path);
		goto out;
	}
	*i = j;
	rc = 0;
out:
	free(old), free(new), free(rfrom), free(rto);
	return rc;
}

int hermes_patch_parse_unified(const hermes_patch_src_t *src, hermes_patch_t *out, char *err,
                               size_t errsize)
{
	for (size_t i = 0; i < src->count;) {
		if (is_file_header(src, i)) {
			if (parse_file(src, &i, out, err, errsize) != 0)
				return -1;
		} else if (is_hunk_header(src, i)) {
			snprintf(err, errsize, "line %zu: a hunk '@@' before any '--- PATH' / '+++ PATH' "
			         "header", i + 1);
			return -1;
		} else {
			i++;
		}
	}
	return 0;
}
