/* tests/fuzz/fuzz_patch.c: the patch parsers (fs/patch.h) and the tolerant matching that applies
 * them (fs/match.h, fs/patch_apply.h) on arbitrary bytes. Input: one byte choosing the format
 * (auto, apply_patch, unified, search_replace), a file's text, a NUL, the patch. Every parse must
 * end with a patch of at least one file with paths, or an error that says something; every
 * update is applied to the text, exactly and tolerantly: a result is NUL-terminated at its
 * length, an error says something, and where the exact search succeeds the tolerant one gives
 * the very same text (exact matches are always tried first). The patch bytes are also looked for
 * in the text as a fragment with look-alikes folded (fs.editFile's search of a line fragment). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/match.h"
#include "fs/patch.h"
#include "fs/patch_apply.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	hermes_patch_format_t format = (hermes_patch_format_t)(data[0] % 4);
	const char *rest = (const char *)data + 1;
	size_t rest_len = size - 1;
	const char *nul = memchr(rest, '\0', rest_len);
	size_t file_len = nul ? (size_t)(nul - rest) : 0;
	const char *patch = nul ? nul + 1 : rest;
	size_t patch_len = nul ? rest_len - file_len - 1 : rest_len;
	char *file = malloc(file_len + 1);
	FUZZ_ASSERT(file != NULL);
	memcpy(file, rest, file_len);
	file[file_len] = '\0';

	/* the folded fragment search of fs.editFile, with the patch bytes as the fragment */
	size_t at[8], end[8];
	size_t n = hermes_match_folded(file, file_len, patch, patch_len, at, end, 8);
	for (size_t k = 0; k < n && k < 8; k++)
		FUZZ_ASSERT(at[k] < end[k] && end[k] <= file_len && (k == 0 || at[k] >= end[k - 1]));

	hermes_patch_t p;
	char err[4096] = "";
	if (hermes_patch_parse(patch, patch_len, format, &p, err, sizeof err) != 0) {
		FUZZ_ASSERT(err[0] != '\0');
		free(file);
		return 0;
	}
	FUZZ_ASSERT(p.file_count >= 1 && p.format != HERMES_PATCH_AUTO);
	for (size_t i = 0; i < p.file_count; i++) {
		const hermes_patch_file_t *f = &p.files[i];
		FUZZ_ASSERT(f->path != NULL);
		if (f->action == HERMES_PATCH_ADD)
			FUZZ_ASSERT(f->content != NULL && f->content[f->content_len] == '\0');
		if (f->action != HERMES_PATCH_UPDATE || f->hunk_count == 0)
			continue;
		char *exact = NULL, *tolerant = NULL;
		size_t exact_len = 0, tolerant_len = 0;
		unsigned tol = 0;
		err[0] = '\0';
		int e = hermes_patch_apply_hunks(file, file_len, f->hunks, f->hunk_count, true, f->path,
		                                 &exact, &exact_len, &tol, err, sizeof err);
		FUZZ_ASSERT(e == 0 ? exact[exact_len] == '\0' : err[0] != '\0');
		err[0] = '\0';
		int t = hermes_patch_apply_hunks(file, file_len, f->hunks, f->hunk_count, false, f->path,
		                                 &tolerant, &tolerant_len, &tol, err, sizeof err);
		FUZZ_ASSERT(t == 0 ? tolerant[tolerant_len] == '\0' : err[0] != '\0');
		if (e == 0) {
			FUZZ_ASSERT(t == 0);
			FUZZ_ASSERT(exact_len == tolerant_len && memcmp(exact, tolerant, exact_len) == 0);
		}
		free(exact);
		free(tolerant);
	}
	hermes_patch_free(&p);
	free(file);
	return 0;
}
