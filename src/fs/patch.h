/* fs/patch.h: a patch as parsed from any of the three formats models write (Codex's apply_patch
 * envelope, a unified diff, Aider's SEARCH/REPLACE blocks), in one model: a list of file
 * operations, each update a list of hunks of old lines to find and new lines to put there. Pure
 * parsing: no file is looked at (fs/patch_apply.h matches hunks against a file's text). */
#ifndef HERMES_FS_PATCH_H
#define HERMES_FS_PATCH_H

#include <stdbool.h>
#include <stddef.h>

typedef enum hermes_patch_format {
	HERMES_PATCH_AUTO = 0,
	HERMES_PATCH_APPLY_PATCH,
	HERMES_PATCH_UNIFIED,
	HERMES_PATCH_SEARCH_REPLACE
} hermes_patch_format_t;

typedef enum hermes_patch_action {
	HERMES_PATCH_ADD,    /* create the file (it must not exist) with content */
	HERMES_PATCH_DELETE, /* remove the file */
	HERMES_PATCH_UPDATE  /* apply hunks (and move, if move_to) */
} hermes_patch_action_t;

/* One hunk: old_lines (without line endings) are found in the file and replaced by new_lines. */
typedef struct hermes_patch_hunk {
	char **old_lines;
	size_t old_count;
	char **new_lines;
	size_t new_count;
	char *anchor;   /* apply_patch "@@ TEXT": a line found first, the hunk is after it; or NULL */
	long hint;      /* unified: the old file's 1-based start line (a hint); 0 if none */
	bool at_eof;    /* old_lines must end at the end of the file */
	bool old_noeol; /* unified "\ No newline at end of file" after the old side's last line */
	bool new_noeol; /* ... after the new side's last line */
	int line;       /* the patch's 1-based line where the hunk starts, for messages */
} hermes_patch_hunk_t;

typedef struct hermes_patch_file {
	hermes_patch_action_t action;
	char *path;             /* workspace-relative, as the patch names it */
	char *move_to;          /* UPDATE only: the new path, or NULL */
	char *content;          /* ADD only: the whole content (NUL-terminated) */
	size_t content_len;
	hermes_patch_hunk_t *hunks; /* UPDATE; in file order, except SEARCH/REPLACE blocks, each of
	                             * which applies to the result of the ones before it */
	size_t hunk_count;
	bool create_if_missing; /* SEARCH/REPLACE: a first hunk with empty SEARCH creates the file */
	int line;               /* the patch's 1-based line naming the file */
} hermes_patch_file_t;

typedef struct hermes_patch {
	hermes_patch_format_t format; /* the format parsed (never AUTO) */
	hermes_patch_file_t *files;
	size_t file_count;
} hermes_patch_t;

/* The format of text by its first telling lines: "*** Begin Patch" (apply_patch), "--- "/"+++ "
 * or "diff --git" (unified), "<<<<<<< SEARCH" (search_replace); AUTO if none. */
hermes_patch_format_t hermes_patch_detect(const char *text, size_t len);

/* Parses text in format (AUTO: detected). 0 and *out filled (caller frees it with
 * hermes_patch_free), or -1 with err (a sentence naming the patch's line) filled and *out
 * untouched. */
int hermes_patch_parse(const char *text, size_t len, hermes_patch_format_t format,
                       hermes_patch_t *out, char *err, size_t errsize);

/* The format's name ("apply_patch", "unified", "search_replace"), and back (AUTO for "auto";
 * -1 for an unknown name). */
const char *hermes_patch_format_name(hermes_patch_format_t format);
int hermes_patch_format_parse(const char *name);

void hermes_patch_free(hermes_patch_t *patch);

/* ---- shared by the parsers (patch_model.c) ---- */
/* The lines of text: each line's start and length without its "\n" or "\r\n". */
typedef struct hermes_patch_src {
	const char *text;
	size_t len;
	size_t *starts, *lens;
	size_t count;
} hermes_patch_src_t;
int hermes_patch_src_init(hermes_patch_src_t *src, const char *text, size_t len);
void hermes_patch_src_free(hermes_patch_src_t *src);
/* Line i (0-based) as a malloc'd string (from offset skip within it), or NULL (no memory). */
char *hermes_patch_src_dup(const hermes_patch_src_t *src, size_t i, size_t skip);
/* Does line i start with prefix? */
bool hermes_patch_src_starts(const hermes_patch_src_t *src, size_t i, const char *prefix);
/* Appends to a growable file / hunk / string list; false if out of memory. */
hermes_patch_file_t *hermes_patch_add_file(hermes_patch_t *p);
hermes_patch_hunk_t *hermes_patch_add_hunk(hermes_patch_file_t *f);
bool hermes_patch_push_line(char ***lines, size_t *count, char *line);
/* The parsers of each format (patch_apply_patch.c, patch_unified.c, patch_search_replace.c):
 * files appended to out; 0, or -1 with err filled (out is freed by the caller). */
int hermes_patch_parse_apply_patch(const hermes_patch_src_t *src, hermes_patch_t *out, char *err,
                                   size_t errsize);
int hermes_patch_parse_unified(const hermes_patch_src_t *src, hermes_patch_t *out, char *err,
                               size_t errsize);
int hermes_patch_parse_search_replace(const hermes_patch_src_t *src, hermes_patch_t *out,
                                      char *err, size_t errsize);

#endif
