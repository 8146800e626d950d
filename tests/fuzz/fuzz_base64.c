/* tests/fuzz/fuzz_base64.c: strict base64 (core/base64.h) on arbitrary text: decoding ends, never
 * writes past decoded_max, and what it accepts is canonical (encoding it again gives the very same
 * text); a refusal says why. Then the input's bytes go the other way and must come back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base64.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	size_t max = hermes_base64_decoded_max(size);
	uint8_t *out = malloc(max ? max : 1); /* exactly max: ASan sees a write past it */
	char why[200] = "";
	size_t n = 0;
	if (hermes_base64_decode(text, size, out, &n, why, sizeof why)) {
		FUZZ_ASSERT(n <= max && size % 4 == 0);
		char *again = malloc(hermes_base64_encoded_len(n) + 1);
		hermes_base64_encode(out, n, again);
		FUZZ_ASSERT(strlen(again) == size && memcmp(again, text, size) == 0);
		free(again);
	} else {
		FUZZ_ASSERT(why[0] != '\0');
	}
	free(out);

	char *enc = malloc(hermes_base64_encoded_len(size) + 1);
	hermes_base64_encode(data, size, enc);
	size_t elen = strlen(enc);
	FUZZ_ASSERT(elen == hermes_base64_encoded_len(size));
	uint8_t *back = malloc(size ? size : 1);
	FUZZ_ASSERT(hermes_base64_decode(enc, elen, back, &n, NULL, 0) && n == size);
	FUZZ_ASSERT(memcmp(back, data, size) == 0);
	free(back);
	free(enc);
	return 0;
}
