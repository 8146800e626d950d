/* tests/fuzz/fuzz_lsp.c: what a language server sends Hermes (src/lsp): its output cut into
 * messages by the Content-Length framer, each handled by a client as its reader thread does
 * (responses to pending requests, the server's own requests, diagnostics of an open document,
 * progress); and the same bytes as a file URI and as a line for the UTF-16 conversions. Nothing
 * may crash, hang or leak; a frame never passes its bounds; positions convert back and forth. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "lsp/client_internal.h"
#include "lsp/framing.h"
#include "lsp/uri.h"

#define MAX_BODY 65536

static void positions(const char *line, size_t len)
{
	int64_t chars = hermes_lsp_u16_to_chars(line, len, (int64_t)len * 2);
	FUZZ_ASSERT(chars >= 0 && (size_t)chars <= len);
	for (int64_t k = 0; k <= chars; k += 1 + chars / 16) {
		int64_t u16 = hermes_lsp_chars_to_u16(line, len, k);
		FUZZ_ASSERT(u16 >= k && u16 <= 2 * k);
		FUZZ_ASSERT(hermes_lsp_u16_to_chars(line, len, u16) == k);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	char *copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, in, size);
	copy[size] = '\0';
	char *path = hermes_lsp_uri_path(copy);
	if (path) {
		FUZZ_ASSERT(path[0] == '/');
		free(path);
	}
	positions(in, size);
	free(copy);

	hermes_lsp_client_t *c = hermes_lsp_client_detached();
	if (!c)
		return 0;
	/* An open document, for publishDiagnostics (sending didOpen fails: there is no server). */
	hermes_lsp_sync(c, "file:///w/a.c", "c", "int x;\n", 7, NULL, NULL);
	hermes_lsp_pending_t pending[3] = {{1, false, NULL, NULL}, {2, false, NULL, NULL},
	                                   {3, false, NULL, NULL}};
	pending[0].next = &pending[1];
	pending[1].next = &pending[2];
	c->pending = &pending[0];
	size_t pos = 0;
	while (pos < size) {
		size_t body, len;
		int r = hermes_lsp_frame_parse(in + pos, size - pos, MAX_BODY, &body, &len, NULL);
		if (r <= 0)
			break;
		FUZZ_ASSERT(len <= MAX_BODY && body <= HERMES_LSP_MAX_HEADER);
		FUZZ_ASSERT(pos + body + len <= size);
		hermes_lsp_handle_message(c, in + pos + body, len);
		pos += body + len;
	}
	c->pending = NULL;
	for (int i = 0; i < 3; i++)
		hermes_json_doc_free(pending[i].doc);
	free(hermes_lsp_diagnostics(c, "file:///w/a.c", 0, NULL));
	hermes_lsp_client_free(c);
	return 0;
}
