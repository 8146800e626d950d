/* tests/fuzz/fuzz_envelope.c: hermes_execute on arbitrary bytes: the choice between YAML and
 * JSON, the YAML reader (libcyaml and its pre-check), the JSON reader, the decoding of every
 * verb's arguments and the encoding of a result. The verbs are stubs that change nothing, so the
 * fuzzer can reach every one of them safely. Whatever comes in, a result comes out, and it is
 * valid JSON whose outcome agrees with its "succeeded". */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	hermes_outcome_t o = hermes_execute(fuzz_stub_executor(), (const char *)data, size, 0, NULL, &out, &err);
	FUZZ_ASSERT(o == HERMES_OUTCOME_SUCCEEDED || o == HERMES_OUTCOME_FAILED ||
	            o == HERMES_OUTCOME_INVALID);
	FUZZ_ASSERT(out != NULL);
	hermes_json_doc_t *doc = NULL;
	size_t end;
	FUZZ_ASSERT(hermes_json_parse(out, strlen(out), 64, &doc, &end, NULL) == 0);
	const hermes_json_t *ok = hermes_json_member(hermes_json_root(doc), "succeeded");
	FUZZ_ASSERT(ok != NULL && (ok->type == HERMES_JSON_TRUE) == (o == HERMES_OUTCOME_SUCCEEDED));
	if (o == HERMES_OUTCOME_INVALID)
		FUZZ_ASSERT(err.code != HERMES_E_NONE && err.message[0] != '\0');
	hermes_json_doc_free(doc);
	free(out);
	return 0;
}
