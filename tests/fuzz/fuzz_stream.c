/* tests/fuzz/fuzz_stream.c: a stream of envelopes, as `hermes exec` reads a file or standard
 * input: split into documents (YAML "---"/"..." markers and directives, JSON values one after
 * another, a broken JSON envelope cut at the next line that starts with '{'), then each document
 * run as exec runs it (a JSON tree read once by the splitter, YAML decoded) on stub verbs.
 * Nothing may crash, hang or leak; the splitter always moves forward, its documents lie inside
 * the input, in order, without overlapping, and are never empty; every document gets exactly one
 * result, valid JSON. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/document.h"
#include "core/executor.h"
#include "core/json.h"
#include "fuzz/fuzz.h"

static void run_one(const char *doc, size_t len, hermes_json_doc_t *json)
{
	char *out = NULL;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	hermes_outcome_t o =
		json ? hermes_execute_json(fuzz_stub_executor(), NULL, hermes_json_root(json), doc, 0,
		                           NULL, &out, &err)
		     : hermes_execute(fuzz_stub_executor(), doc, len, 0, NULL, &out, &err);
	fuzz_check_result(o, out, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	hermes_doc_splitter_t split;
	hermes_doc_splitter_init(&split, text, size);
	const char *doc;
	size_t doc_len, last_end = 0;
	int line, last_line = 0;
	hermes_json_doc_t *json;
	size_t docs = 0;
	while (hermes_doc_next(&split, &doc, &doc_len, &line, &json)) {
		FUZZ_ASSERT(++docs <= size);
		FUZZ_ASSERT(doc >= text && doc_len > 0 && doc_len <= size - (size_t)(doc - text));
		FUZZ_ASSERT((size_t)(doc - text) >= last_end); /* in order, never overlapping */
		FUZZ_ASSERT(line >= 1 && line >= last_line);
		last_end = (size_t)(doc - text) + doc_len;
		last_line = line;
		run_one(doc, doc_len, json);
		hermes_json_doc_free(json);
	}
	return 0;
}
