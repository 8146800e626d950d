/* tests/fuzz/fuzz_image.c: the image header parser (fs/imageinfo.h) on arbitrary bytes: it ends,
 * reads nothing past the buffer (an exact-size copy, for ASan), and what it recognizes has a known
 * type and non-zero dimensions. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/imageinfo.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	hermes_image_info_t info;
	if (hermes_image_info(copy, size, &info)) {
		FUZZ_ASSERT(info.width > 0 && info.height > 0);
		FUZZ_ASSERT(strcmp(info.mime_type, "image/png") == 0 ||
		            strcmp(info.mime_type, "image/jpeg") == 0 ||
		            strcmp(info.mime_type, "image/gif") == 0 ||
		            strcmp(info.mime_type, "image/webp") == 0);
	}
	free(copy);
	return 0;
}
