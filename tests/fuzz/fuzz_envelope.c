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
	fuzz_check_result(o, out, &err);
	return 0;
}
