/* tests/fuzz/fuzz_json.c: the JSON reader (core/json.c) on arbitrary bytes: it must end, never read
 * out of bounds, and build a tree whose every value lies inside the input, with counts that match
 * and strings NUL-terminated at their length. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/json.h"
#include "fuzz/fuzz.h"

static size_t check_value(const hermes_json_t *v, size_t size, int depth)
{
	FUZZ_ASSERT(v->start < v->end && v->end <= size);
	FUZZ_ASSERT(depth <= HERMES_JSON_MAX_DEPTH_LIMIT);
	size_t values = 1;
	if (v->type == HERMES_JSON_STRING || v->type == HERMES_JSON_NUMBER)
		FUZZ_ASSERT(v->str != NULL && v->str[v->len] == '\0' && v->len <= v->end - v->start);
	if (v->type == HERMES_JSON_ARRAY || v->type == HERMES_JSON_OBJECT) {
		uint32_t n = 0;
		bool repeat = false;
		for (const hermes_json_t *c = v->child; c; c = c->next) {
			FUZZ_ASSERT(c->start > v->start && c->end < v->end);
			if (v->type == HERMES_JSON_OBJECT) {
				FUZZ_ASSERT(c->key != NULL && c->key[c->key_len] == '\0');
				repeat |= c->repeated;
			}
			values += check_value(c, size, depth + 1);
			n++;
		}
		FUZZ_ASSERT(n == v->count);
		FUZZ_ASSERT(repeat == (v->first_repeat != NULL));
	}
	return values;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hermes_json_doc_t *doc = NULL;
	hermes_error_t err;
	size_t end = 0;
	const char *text = (const char *)data;
	if (hermes_json_parse(text, size, HERMES_JSON_MAX_DEPTH_LIMIT, &doc, &end, &err) == 0) {
		FUZZ_ASSERT(end <= size);
		const hermes_json_t *root = hermes_json_root(doc);
		check_value(root, size, 0);
		int64_t i;
		(void)hermes_json_integer(root, INT64_MIN, INT64_MAX, &i);
		hermes_json_doc_free(doc);
	} else {
		FUZZ_ASSERT(end <= size);
		FUZZ_ASSERT(err.code == HERMES_E_INTERNAL || (err.line >= 1 && err.column >= 1));
	}
	return 0;
}
