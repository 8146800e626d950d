/* tests/fuzz/stubs.c: an executor whose every verb is a stub that changes nothing, for targets
 * that test what comes before a verb runs (reading, decoding) and may then reach any verb. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/desc.h"
#include "core/executor.h"
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
