/* fs/patch_search_replace.c: the parser of Aider's SEARCH/REPLACE blocks:
 *   PATH
 *   ```LANG                (optional Markdown fence, before or after the path line)
 *   <<<<<<< SEARCH
 *   old lines
 *   =======
 *   new lines
 *   >>>>>>> REPLACE
 *   ```
 * The path is the last line before the block that is not blank or a fence (a block without one
 * reuses the previous block's path). Blocks of one path become that file's hunks, in order; an
 * empty SEARCH in the first block of a path creates the file if it does not exist. */
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

/* Is line i a marker of 5 to 9 c's followed, after optional blanks, by word (or nothing)? */
static bool is_marker(const hermes_patch_src_t *src, size_t i, char c, const char *word)
{
	const char *s = src->text + src->starts[i];
	size_t l = src->lens[i], n = 0;
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
		l--;
	while (n < l && s[n] == c)
		n++;
	if (n < 5 || n > 9)
		return false;
	while (n < l && s[n] == ' ')
		n++;
	size_t wl = strlen(word);
	return l - n == wl && memcmp(s + n, word, wl) == 0;
}

static bool is_fence(const hermes_patch_src_t *src, size_t i)
{
	return hermes_patch_src_starts(src, i, "```") || hermes_patch_src_starts(src, i, "~~~");
}

/* The path named by line i: trimmed, without surrounding backticks, asterisks or a final ':'. */
static char *path_of(const hermes_patch_src_t *src, size_t i)
{
	const char *s = src->text + src->starts[i];
	size_t l = src->lens[i];
	for (int pass = 0; pass < 3; pass++) {
		while (l && (*s == ' ' || *s == '\t' || *s == '`' || *s == '*' || *s == '#'))
			s++, l--;
		while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '`' || s[l - 1] == '*' ||
		             s[l - 1] == ':'))
			l--;
	}
	return l ? strndup(s, l) : NULL;
}

static hermes_patch_file_t *file_for(hermes_patch_t *out, const char *path)
{
	for (size_t k = 0; k < out->file_count; k++)
		if (strcmp(out->files[k].path, path) == 0)
			return &out->files[k];
	return NULL;
}

int hermes_patch_parse_search_replace(const hermes_patch_src_t *src, hermes_patch_t *out,
                                      char *err, size_t errsize)
{
	char *path = NULL; /* the current path; owned by a file entry once one exists */
	size_t last_text = (size_t)-1; /* the last line that is neither blank nor a fence */
	for (size_t i = 0; i < src->count; i++) {
		if (!is_marker(src, i, '<', "SEARCH")) {
			if (src->lens[i] && !is_fence(src, i))
				last_text = i;
			continue;
		}
		size_t start = i;
		if (last_text != (size_t)-1) {
			char *p = path_of(src, last_text);
			if (!p)
				return oom(err, errsize);
			path = p;
			hermes_patch_file_t *f = file_for(out, p);
			if (f) {
				free(p);
				path = f->path;
			} else {
				if (!(f = hermes_patch_add_file(out))) {
					free(p);
					return oom(err, errsize);
				}
				f->action = HERMES_PATCH_UPDATE;
				f->path = p;
				f->line = (int)last_text + 1;
			}
		}
		if (!path) {
			snprintf(err, errsize, "line %zu: '<<<<<<< SEARCH' without a path line before it",
			         i + 1);
			return -1;
		}
		last_text = (size_t)-1;
		hermes_patch_file_t *f = file_for(out, path);
		hermes_patch_hunk_t *h = hermes_patch_add_hunk(f);
		if (!h)
			return oom(err, errsize);
		h->line = (int)start + 1;
		size_t j = i + 1;
		for (; j < src->count && !is_marker(src, j, '=', ""); j++) {
			if (is_marker(src, j, '<', "SEARCH") || is_marker(src, j, '>', "REPLACE")) {
				snprintf(err, errsize, "line %zu: the SEARCH block of line %zu has no '=======' "
				         "before this marker", j + 1, start + 1);
				return -1;
			}
			if (!hermes_patch_push_line(&h->old_lines, &h->old_count, hermes_patch_src_dup(src, j, 0)))
				return oom(err, errsize);
		}
		if (j == src->count) {
			snprintf(err, errsize, "line %zu: the SEARCH block of line %zu has no '======='",
			         src->count, start + 1);
			return -1;
		}
		for (j++; j < src->count && !is_marker(src, j, '>', "REPLACE"); j++) {
			if (is_marker(src, j, '<', "SEARCH") || is_marker(src, j, '=', "")) {
				snprintf(err, errsize, "line %zu: the block of line %zu has no '>>>>>>> REPLACE' "
				         "before this marker", j + 1, start + 1);
				return -1;
			}
			if (!hermes_patch_push_line(&h->new_lines, &h->new_count, hermes_patch_src_dup(src, j, 0)))
				return oom(err, errsize);
		}
		if (j == src->count) {
			snprintf(err, errsize, "line %zu: the block of line %zu has no '>>>>>>> REPLACE'",
			         src->count, start + 1);
			return -1;
		}
		if (h->old_count == 0) {
			if (f->hunk_count != 1) {
				snprintf(err, errsize, "line %zu: an empty SEARCH (which creates '%s') must be "
				         "that file's first block", start + 1, f->path);
				return -1;
			}
			f->create_if_missing = true;
		}
		i = j;
	}
	return 0;
}
