/* tests/fuzz/stubs.c: an executor whose every verb is a stub that changes nothing, for targets
 * that test what comes before a verb runs (reading, decoding) and may then reach any verb; and
 * the check of what such a run returns. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "core/desc.h"
#include "core/executor.h"
#include "core/json.h"
#include "core/verb.h"
#include "fuzz/fuzz.h"

static void stub(const hermes_call_t *call, const void *args, void *result)
{
	(void)call, (void)args, (void)result; /* decoded: that is what is under test */
}

hermes_executor_t *fuzz_stub_executor(void)
{
	static hermes_executor_t *ex;
	if (ex)
		return ex;
	hermes_config_t cfg = {.max_envelope_bytes = 1 << 20};
	ex = hermes_executor_create(&cfg, "/nonexistent", NULL, NULL);
	FUZZ_ASSERT(ex != NULL);
	for (size_t i = 0; i < hermes_verb_desc_count; i++)
		FUZZ_ASSERT(hermes_executor_register(ex, hermes_verb_descs[i].name, stub, NULL) == 0);
	return ex;
}

void fuzz_check_result(hermes_outcome_t o, char *out, const hermes_error_t *err)
{
	FUZZ_ASSERT(o == HERMES_OUTCOME_SUCCEEDED || o == HERMES_OUTCOME_FAILED ||
	            o == HERMES_OUTCOME_INVALID);
	FUZZ_ASSERT(out != NULL);
	hermes_json_doc_t *doc = NULL;
	size_t end;
	FUZZ_ASSERT(hermes_json_parse(out, strlen(out), 64, &doc, &end, NULL) == 0);
	const hermes_json_t *ok = hermes_json_member(hermes_json_root(doc), "succeeded");
	FUZZ_ASSERT(ok != NULL && (ok->type == HERMES_JSON_TRUE) == (o == HERMES_OUTCOME_SUCCEEDED));
	if (o == HERMES_OUTCOME_INVALID)
		FUZZ_ASSERT(err->code != HERMES_E_NONE && err->message[0] != '\0');
	hermes_json_doc_free(doc);
	free(out);
}
