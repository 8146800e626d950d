/* tests/fuzz/fuzz_range.c: the parsers of raw transfers (GET/PUT /files/PATH, http_files.c) on
 * arbitrary text: the input's first line as a Range header against files of several sizes, as an
 * If-Match / If-None-Match list, and the rest as a raw /files/ URI. A range served lies inside the
 * file and is not empty; an unsatisfiable one starts past the end (or is a zero suffix); a tag
 * list matches only a tag it holds (or "*"); a decoded path holds no NUL or control byte. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "transport/http/http_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *rest = strchr(text, '\n');
	if (rest)
		*rest++ = '\0';
	static const uint64_t sizes[] = {0, 1, 2, 10, 10000, UINT64_C(1) << 40, INT64_MAX};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		uint64_t off = 7, len = 7;
		int r = hermes_http_range_parse(text, sizes[i], &off, &len);
		FUZZ_ASSERT(r >= -1 && r <= 1);
		if (r == 1)
			FUZZ_ASSERT(len > 0 && off < sizes[i] && len <= sizes[i] - off);
		else
			FUZZ_ASSERT(off == 7 && len == 7); /* untouched */
	}
	/* a tag matches only if the list holds it, or "*" */
	const char *etag = "\"1.2-3-a\"";
	bool m = hermes_http_etag_match(text, etag, true, false);
	FUZZ_ASSERT(!m || strstr(text, etag) || strchr(text, '*'));
	FUZZ_ASSERT(!hermes_http_etag_match(text, etag, true, true) || strstr(text, etag) ||
	            strchr(text, '*'));
	FUZZ_ASSERT(!hermes_http_etag_match(text, "", false, false)); /* nothing matches the absent */
	char why[200] = "";
	char *path = NULL;
	if (rest) {
		if (hermes_http_files_path(rest, "/files/", &path, why, sizeof why) == 0) {
			FUZZ_ASSERT(path[0] != '\0');
			for (const char *p = path; *p; p++)
				FUZZ_ASSERT((unsigned char)*p >= 0x20 && *p != 0x7f);
			free(path);
		} else {
			FUZZ_ASSERT(why[0] != '\0');
		}
	}
	free(text);
	return 0;
}
