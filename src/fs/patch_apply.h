/* fs/patch_apply.h: one file's new text from its current text and a patch's hunks, through the
 * tolerant matching of fs/match.h. Pure: works on memory only. The rules: each hunk is found after
 * the one before it; lines the hunk keeps (its context) stay as they are in the file; added lines
 * are written as given, re-indented only by the indentation shift the match found and in the
 * file's style (tabs stay tabs); new lines get the file's line ending; the final newline is
 * neither added nor removed unless a unified diff's "\ No newline at end of file" says so. */
#ifndef HERMES_FS_PATCH_APPLY_H
#define HERMES_FS_PATCH_APPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "fs/patch.h"

/* Applies hunks[0..n) to text[0..len). 0 with *out (malloc'd, NUL-terminated beyond *out_len;
 * caller frees) and *tol (HERMES_TOL_* used by any hunk) set; or -1 with err naming the hunk, its
 * patch line and what was wrong (near-miss or ambiguity), outputs untouched. path names the file
 * in messages; exact forbids tolerances. */
int hermes_patch_apply_hunks(const char *text, size_t len, const hermes_patch_hunk_t *hunks,
                             size_t n, bool exact, const char *path, char **out, size_t *out_len,
                             unsigned *tol, char *err, size_t errsize);

#endif
