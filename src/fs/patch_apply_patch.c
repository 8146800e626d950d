/* fs/patch_apply_patch.c: the parser of Codex's apply_patch envelope:
 *   *** Begin Patch
 *   *** Add File: PATH      then lines "+TEXT"
 *   *** Delete File: PATH
 *   *** Update File: PATH   then optionally "*** Move to: PATH", then chunks: an optional
 *                           "@@" or "@@ ANCHOR" line, lines " CONTEXT", "-OLD", "+NEW", and
 *                           optionally "*** End of File"
 *   *** End Patch
 * Markers are recognised with blanks around them, as Codex does; a heredoc or Markdown fence
 * around the envelope is ignored; an empty line inside a chunk is an empty context line (but
 * empty lines that end a chunk only separate it from what follows). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/patch.h"

/* Line i without the blanks around it, as (s, n). */
static void trimmed(const hermes_patch_src_t *src, size_t i, const char **s, size_t *n)
{
	const char *p = src->text + src->starts[i];
	size_t l = src->lens[i];
	while (l && (*p == ' ' || *p == '\t'))
		p++, l--;
	while (l && (p[l - 1] == ' ' || p[l - 1] == '\t'))
		l--;
	*s = p, *n = l;
}

static bool is_marker(const hermes_patch_src_t *src, size_t i, const char *m)
{
	const char *s;
	size_t n;
	trimmed(src, i, &s, &n);
	return n == strlen(m) && memcmp(s, m, n) == 0;
}

/* If line i is "MARKER PATH" (blanks around allowed), the path malloc'd into *path. 1 if it is,
 * 0 if not, -1 if it is but names no path (err filled). */
static int marker_path(const hermes_patch_src_t *src, size_t i, const char *m, char **path,
                       char *err, size_t errsize)
{
	const char *s;
	size_t n, ml = strlen(m);
	trimmed(src, i, &s, &n);
	if (n < ml || memcmp(s, m, ml) != 0)
		return 0;
	s += ml, n -= ml;
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (n == 0) {
		snprintf(err, errsize, "line %zu: '%s' names no path", i + 1, m);
		return -1;
	}
	*path = strndup(s, n);
	if (!*path) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	return 1;
}

static int oom(char *err, size_t errsize)
{
	snprintf(err, errsize, "out of memory");
	return -1;
}

/* Parses "*** Add File:" content from line *i on. */
static int parse_add(const hermes_patch_src_t *src, size_t *i, size_t end, hermes_patch_file_t *f,
                     char *err, size_t errsize)
{
	size_t blanks = 0, cap = 0, len = 0;
	char *c = NULL;
	for (; *i < end; (*i)++) {
		const char *s = src->text + src->starts[*i];
		size_t l = src->lens[*i];
		if (l == 0) {
			blanks++;
			continue;
		}
		if (s[0] != '+') {
			const char *t;
			size_t tn;
			trimmed(src, *i, &t, &tn);
			if (tn >= 4 && memcmp(t, "*** ", 4) == 0)
				break;
			free(c);
			snprintf(err, errsize, "line %zu: in '*** Add File: %s' (line %d) every line must "
			         "start with '+'", *i + 1, f->path, f->line);
			return -1;
		}
		size_t need = len + blanks + l + 1;
		if (need + 1 > cap) {
			cap = 2 * need + 64;
			char *nc = realloc(c, cap);
			if (!nc) {
				free(c);
				return oom(err, errsize);
			}
			c = nc;
		}
		memset(c + len, '\n', blanks);
		len += blanks, blanks = 0;
		memcpy(c + len, s + 1, l - 1);
		len += l - 1;
		c[len++] = '\n';
	}
	if (!c && !(c = malloc(1)))
		return oom(err, errsize);
	c[len] = '\0';
	f->content = c;
	f->content_len = len;
	return 0;
}

/* Parses the chunks of "*** Update File:" from line *i on. */
static int parse_update(const hermes_patch_src_t *src, size_t *i, size_t end,
                        hermes_patch_file_t *f, char *err, size_t errsize)
{
	hermes_patch_hunk_t *h = NULL;
	size_t blanks = 0; /* empty lines not yet known to be context */
	for (; *i < end; (*i)++) {
		const char *s = src->text + src->starts[*i];
		size_t l = src->lens[*i];
		const char *t;
		size_t tn;
		trimmed(src, *i, &t, &tn);
		if (tn == 15 && memcmp(t, "*** End of File", 15) == 0) {
			if (!h || (h->old_count == 0 && h->new_count == 0)) {
				snprintf(err, errsize, "line %zu: '*** End of File' ends a chunk with no lines",
				         *i + 1);
				return -1;
			}
			h->at_eof = true;
			h = NULL; /* what follows starts a new chunk */
			blanks = 0;
			continue;
		}
		if (tn >= 4 && memcmp(t, "*** ", 4) == 0)
			break;
		if (l >= 2 && s[0] == '@' && s[1] == '@') {
			blanks = 0;
			if (!(h = hermes_patch_add_hunk(f)))
				return oom(err, errsize);
			h->line = (int)*i + 1;
			const char *a = s + 2;
			size_t al = l - 2;
			while (al && (*a == ' ' || *a == '\t'))
				a++, al--;
			while (al && (a[al - 1] == ' ' || a[al - 1] == '\t'))
				al--;
			if (al && !(h->anchor = strndup(a, al)))
				return oom(err, errsize);
			continue;
		}
		if (l == 0) {
			/* an empty context line, unless only blank lines follow up to the next chunk or
			 * marker: then they separate (models leave one before "*** End Patch") */
			if (h)
				blanks++;
			continue;
		}
		if (l > 0 && s[0] != ' ' && s[0] != '-' && s[0] != '+') {
			snprintf(err, errsize, "line %zu: in '*** Update File: %s' a line must start with "
			         "' ' (context), '-' (removed), '+' (added) or '@@', or be a '*** ' marker; "
			         "got '%.*s'", *i + 1, f->path, (int)(l < 60 ? l : 60), s);
			return -1;
		}
		if (!h) {
			if (!(h = hermes_patch_add_hunk(f)))
				return oom(err, errsize);
			h->line = (int)*i + 1;
		}
		for (; blanks; blanks--)
			if (!hermes_patch_push_line(&h->old_lines, &h->old_count, strdup("")) ||
			    !hermes_patch_push_line(&h->new_lines, &h->new_count, strdup("")))
				return oom(err, errsize);
		blanks = 0;
		char kind = s[0];
		if (kind != '+' && !hermes_patch_push_line(&h->old_lines, &h->old_count,
		                                           hermes_patch_src_dup(src, *i, 1)))
			return oom(err, errsize);
		if (kind != '-' && !hermes_patch_push_line(&h->new_lines, &h->new_count,
		                                           hermes_patch_src_dup(src, *i, 1)))
			return oom(err, errsize);
	}
	if (f->hunk_count == 0 && !f->move_to) {
		snprintf(err, errsize, "line %d: '*** Update File: %s' has no change", f->line, f->path);
		return -1;
	}
	for (size_t k = 0; k < f->hunk_count; k++)
		if (f->hunks[k].old_count == 0 && f->hunks[k].new_count == 0) {
			snprintf(err, errsize, "line %d: the chunk of '%s' has no lines", f->hunks[k].line,
			         f->path);
			return -1;
		}
	return 0;
}

int hermes_patch_parse_apply_patch(const hermes_patch_src_t *src, hermes_patch_t *out, char *err,
                                   size_t errsize)
{
	size_t begin = 0, end = src->count;
	while (begin < src->count && !is_marker(src, begin, "*** Begin Patch"))
		begin++;
	if (begin == src->count) {
		snprintf(err, errsize, "line 1: an apply_patch patch starts with '*** Begin Patch'");
		return -1;
	}
	while (end > begin + 1 && !is_marker(src, end - 1, "*** End Patch"))
		end--;
	if (end == begin + 1) {
		snprintf(err, errsize, "line %zu: the patch ends without '*** End Patch'", src->count);
		return -1;
	}
	end--; /* the End Patch line */
	for (size_t i = begin + 1; i < end;) {
		if (src->lens[i] == 0) {
			i++;
			continue;
		}
		char *path = NULL;
		hermes_patch_action_t action;
		int rc;
		if ((rc = marker_path(src, i, "*** Add File:", &path, err, errsize)) != 0)
			action = HERMES_PATCH_ADD;
		else if ((rc = marker_path(src, i, "*** Delete File:", &path, err, errsize)) != 0)
			action = HERMES_PATCH_DELETE;
		else if ((rc = marker_path(src, i, "*** Update File:", &path, err, errsize)) != 0)
			action = HERMES_PATCH_UPDATE;
		else {
			snprintf(err, errsize, "line %zu: expected '*** Add File: PATH', '*** Delete File: "
			         "PATH', '*** Update File: PATH' or '*** End Patch'; got '%.*s'", i + 1,
			         (int)(src->lens[i] < 60 ? src->lens[i] : 60), src->text + src->starts[i]);
			return -1;
		}
		if (rc < 0)
			return -1;
		hermes_patch_file_t *f = hermes_patch_add_file(out);
		if (!f) {
			free(path);
			return oom(err, errsize);
		}
		f->action = action;
		f->path = path;
		f->line = (int)i + 1;
		i++;
		if (action == HERMES_PATCH_ADD) {
			if (parse_add(src, &i, end, f, err, errsize) != 0)
				return -1;
		} else if (action == HERMES_PATCH_UPDATE) {
			if (i < end && (rc = marker_path(src, i, "*** Move to:", &f->move_to, err, errsize)) != 0) {
				if (rc < 0)
					return -1;
				i++;
			}
			if (parse_update(src, &i, end, f, err, errsize) != 0)
				return -1;
		}
	}
	return 0;
}
