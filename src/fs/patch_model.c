/* fs/patch_model.c: the patch model's lifetime, the format detector, and the line access the three
 * parsers share. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/patch.h"

int hermes_patch_src_init(hermes_patch_src_t *src, const char *text, size_t len)
{
	memset(src, 0, sizeof *src);
	src->text = text;
	src->len = len;
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	n += 1;
	src->starts = malloc(n * sizeof *src->starts);
	src->lens = malloc(n * sizeof *src->lens);
	if (!src->starts || !src->lens) {
		hermes_patch_src_free(src);
		return -1;
	}
	size_t at = 0;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		size_t l = end - at;
		if (nl && l > 0 && text[end - 1] == '\r')
			l--;
		src->starts[src->count] = at;
		src->lens[src->count++] = l;
		at = nl ? end + 1 : len;
	}
	return 0;
}

void hermes_patch_src_free(hermes_patch_src_t *src)
{
	free(src->starts);
	free(src->lens);
	src->starts = src->lens = NULL;
	src->count = 0;
}

char *hermes_patch_src_dup(const hermes_patch_src_t *src, size_t i, size_t skip)
{
	size_t l = src->lens[i] > skip ? src->lens[i] - skip : 0;
	char *s = malloc(l + 1);
	if (s) {
		memcpy(s, src->text + src->starts[i] + (src->lens[i] > skip ? skip : src->lens[i]), l);
		s[l] = '\0';
	}
	return s;
}

bool hermes_patch_src_starts(const hermes_patch_src_t *src, size_t i, const char *prefix)
{
	size_t n = strlen(prefix);
	return src->lens[i] >= n && memcmp(src->text + src->starts[i], prefix, n) == 0;
}

hermes_patch_file_t *hermes_patch_add_file(hermes_patch_t *p)
{
	hermes_patch_file_t *f = realloc(p->files, (p->file_count + 1) * sizeof *f);
	if (!f)
		return NULL;
	p->files = f;
	f = &p->files[p->file_count++];
	memset(f, 0, sizeof *f);
	return f;
}

hermes_patch_hunk_t *hermes_patch_add_hunk(hermes_patch_file_t *f)
{
	hermes_patch_hunk_t *h = realloc(f->hunks, (f->hunk_count + 1) * sizeof *h);
	if (!h)
		return NULL;
	f->hunks = h;
	h = &f->hunks[f->hunk_count++];
	memset(h, 0, sizeof *h);
	return h;
}

bool hermes_patch_push_line(char ***lines, size_t *count, char *line)
{
	if (!line)
		return false;
	char **l = realloc(*lines, (*count + 1) * sizeof *l);
	if (!l) {
		free(line);
		return false;
	}
	*lines = l;
	l[(*count)++] = line;
	return true;
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

void hermes_patch_free(hermes_patch_t *patch)
{
	if (!patch)
		return;
	for (size_t i = 0; i < patch->file_count; i++) {
		hermes_patch_file_t *f = &patch->files[i];
		free(f->path);
		free(f->move_to);
		free(f->content);
		for (size_t j = 0; j < f->hunk_count; j++) {
			free_lines(f->hunks[j].old_lines, f->hunks[j].old_count);
			free_lines(f->hunks[j].new_lines, f->hunks[j].new_count);
			free(f->hunks[j].anchor);
		}
		free(f->hunks);
	}
	free(patch->files);
	memset(patch, 0, sizeof *patch);
}

/* Is line i, without leading blanks, prefix...? */
static bool starts_trimmed(const hermes_patch_src_t *src, size_t i, const char *prefix)
{
	const char *s = src->text + src->starts[i];
	size_t l = src->lens[i], n = strlen(prefix);
	while (l && (*s == ' ' || *s == '\t'))
		s++, l--;
	return l >= n && memcmp(s, prefix, n) == 0;
}

hermes_patch_format_t hermes_patch_detect(const char *text, size_t len)
{
	hermes_patch_src_t src;
	if (hermes_patch_src_init(&src, text, len) != 0)
		return HERMES_PATCH_AUTO;
	hermes_patch_format_t f = HERMES_PATCH_AUTO;
	for (size_t i = 0; i < src.count && f == HERMES_PATCH_AUTO; i++) {
		if (starts_trimmed(&src, i, "*** Begin Patch"))
			f = HERMES_PATCH_APPLY_PATCH;
		else if (hermes_patch_src_starts(&src, i, "<<<<<<< SEARCH") ||
		         hermes_patch_src_starts(&src, i, "<<<<<<<SEARCH"))
			f = HERMES_PATCH_SEARCH_REPLACE;
		else if (hermes_patch_src_starts(&src, i, "diff --git ") ||
		         (hermes_patch_src_starts(&src, i, "--- ") && i + 1 < src.count &&
		          hermes_patch_src_starts(&src, i + 1, "+++ ")))
			f = HERMES_PATCH_UNIFIED;
	}
	hermes_patch_src_free(&src);
	return f;
}

static const char *const names[] = {"auto", "apply_patch", "unified", "search_replace"};

const char *hermes_patch_format_name(hermes_patch_format_t format)
{
	return (unsigned)format < 4 ? names[format] : "auto";
}

int hermes_patch_format_parse(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

int hermes_patch_parse(const char *text, size_t len, hermes_patch_format_t format,
                       hermes_patch_t *out, char *err, size_t errsize)
{
	if (format == HERMES_PATCH_AUTO)
		format = hermes_patch_detect(text, len);
	if (format == HERMES_PATCH_AUTO) {
		snprintf(err, errsize, "the patch is in no known format: expected '*** Begin Patch' "
		         "(apply_patch), '--- a/PATH' and '+++ b/PATH' or 'diff --git' (unified diff), or "
		         "a path line followed by '<<<<<<< SEARCH' (search_replace)");
		return -1;
	}
	hermes_patch_src_t src;
	if (hermes_patch_src_init(&src, text, len) != 0) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	hermes_patch_t p = {.format = format};
	int rc = format == HERMES_PATCH_APPLY_PATCH ? hermes_patch_parse_apply_patch(&src, &p, err, errsize)
	       : format == HERMES_PATCH_UNIFIED     ? hermes_patch_parse_unified(&src, &p, err, errsize)
	                                            : hermes_patch_parse_search_replace(&src, &p, err, errsize);
	hermes_patch_src_free(&src);
	if (rc == 0 && p.file_count == 0) {
		snprintf(err, errsize, "the patch (%s) changes no file", hermes_patch_format_name(format));
		rc = -1;
	}
	if (rc != 0) {
		hermes_patch_free(&p);
		return -1;
	}
	*out = p;
	return 0;
}
