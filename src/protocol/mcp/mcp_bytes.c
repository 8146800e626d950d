/* protocol/mcp/mcp_bytes.c: the MCP shape of an fs.readBytes result, so that a model sees what it
 * read: a whole PNG, JPEG, GIF or WebP image as an `image` content block, any other bytes (or a
 * range of an image) as an embedded `resource` blob, never base64 posing as text; the verb's
 * structured result beside it as always, and its fields but the bytes as the text block. */
#include <config.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/executor.h"
#include "core/json.h"
#include "lsp/uri.h"
#include "protocol/mcp/mcp.h"
#include "protocol/mcp/mcp_meta.h"

static bool is_image_type(const hermes_json_t *mime)
{
	static const char *const types[] = {"image/png", "image/jpeg", "image/gif", "image/webp"};
	if (!hermes_json_is_c_string(mime))
		return false;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcmp(mime->str, types[i]) == 0)
			return true;
	return false;
}

static int64_t int_member(const hermes_json_t *o, const char *name)
{
	int64_t v;
	return hermes_json_integer(hermes_json_member(o, name), 0, INT64_MAX, &v) == 0 ? v : -1;
}

/* The file URI of the workspace-relative path the call named (its root made absolute). */
static void append_uri(hermes_buf_t *b, const hermes_json_t *args, hermes_executor_t *ex)
{
	const hermes_json_t *path = hermes_json_member(args, "path");
	const hermes_config_t *cfg = ex ? hermes_executor_config(ex) : NULL;
	char *root = realpath(cfg && cfg->root ? cfg->root : ".", NULL);
	hermes_buf_t abs = HERMES_BUF_INIT;
	hermes_buf_puts(&abs, root ? root : "/");
	if (hermes_json_is_c_string(path)) {
		const char *rel = path->str;
		while (rel[0] == '.' && rel[1] == '/')
			rel += 2;
		if (strcmp(rel, ".") != 0) {
			if (abs.len == 0 || abs.data[abs.len - 1] != '/')
				hermes_buf_puts(&abs, "/");
			hermes_buf_puts(&abs, rel);
		}
	}
	free(root);
	char *text = hermes_buf_finish(&abs);
	if (text)
		hermes_lsp_uri_append(b, text);
	else
		b->failed = true;
	free(text);
}

/* {"succeeded":false,...} for an image too large to show, as the verbs' failures are. */
static char *too_large(int64_t size)
{
	hermes_buf_t m = HERMES_BUF_INIT;
	hermes_buf_printf(&m, "the image is %lld bytes, over the %d MiB an MCP image block may carry: "
	                  "read it in ranges (offset and length give a resource blob), or make a "
	                  "smaller copy with proc.run", (long long)size,
	                  HERMES_MCP_IMAGE_MAX / (1024 * 1024));
	size_t n = m.len;
	char *msg = hermes_buf_finish(&m);
	if (msg == NULL)
		return NULL;
	hermes_buf_t s = HERMES_BUF_INIT;
	hermes_buf_puts(&s, "{\"succeeded\":false,\"errorMessage\":");
	hermes_buf_json_string(&s, msg, n);
	hermes_buf_puts(&s, ",\"errorCode\":\"TooLarge\"}");
	free(msg);
	size_t len = s.len;
	char *json = hermes_buf_finish(&s);
	if (json == NULL)
		return NULL;
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"content\":[{\"type\":\"text\",\"text\":");
	hermes_buf_json_string(&b, json, len);
	hermes_buf_puts(&b, "}],\"structuredContent\":");
	hermes_buf_append(&b, json, len);
	hermes_buf_puts(&b, ",\"isError\":true}");
	free(json);
	return hermes_buf_finish(&b);
}

char *hermes_mcp_bytes_body(const char *result, const hermes_json_t *args, hermes_executor_t *ex,
                            bool *shaped)
{
	*shaped = false;
	hermes_json_doc_t *doc = NULL;
	size_t end, len = strlen(result);
	if (hermes_json_parse(result, len, 8, &doc, &end, NULL) != 0)
		return NULL;
	const hermes_json_t *root = hermes_json_root(doc);
	const hermes_json_t *content = hermes_json_member(root, "content");
	const hermes_json_t *mime = hermes_json_member(root, "mimeType");
	int64_t size = int_member(root, "size"), offset = int_member(root, "offset");
	int64_t length = int_member(root, "length");
	if (!hermes_json_is_c_string(content) || !hermes_json_is_c_string(mime) || size < 0) {
		hermes_json_doc_free(doc);
		return NULL;
	}
	bool whole = offset == 0 && length == size;
	bool image = whole && is_image_type(mime) && int_member(root, "width") > 0 &&
	             int_member(root, "height") > 0;
	*shaped = true;
	if (image && size > HERMES_MCP_IMAGE_MAX) {
		hermes_json_doc_free(doc);
		return too_large(size);
	}
	/* the fields but the bytes: what the text block says */
	hermes_buf_t t = HERMES_BUF_INIT;
	hermes_buf_puts(&t, "{");
	bool first = true;
	for (const hermes_json_t *m = root->child; m; m = m->next) {
		if (strcmp(m->key, "content") == 0)
			continue;
		if (!first)
			hermes_buf_puts(&t, ",");
		first = false;
		hermes_buf_json_string(&t, m->key, m->key_len);
		hermes_buf_puts(&t, ":");
		hermes_buf_append(&t, result + m->start, m->end - m->start);
	}
	hermes_buf_puts(&t, "}");
	size_t tn = t.len;
	char *fields = hermes_buf_finish(&t);

	hermes_buf_t b = HERMES_BUF_INIT;
	if (image) {
		hermes_buf_puts(&b, "{\"content\":[{\"type\":\"image\",\"data\":");
		hermes_buf_append(&b, result + content->start, content->end - content->start);
		hermes_buf_puts(&b, ",\"mimeType\":");
		hermes_buf_append(&b, result + mime->start, mime->end - mime->start);
		hermes_buf_puts(&b, "}");
	} else {
		hermes_buf_puts(&b, "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"");
		hermes_buf_t u = HERMES_BUF_INIT;
		append_uri(&u, args, ex);
		size_t un = u.len;
		char *uri = hermes_buf_finish(&u);
		if (uri)
			hermes_buf_append(&b, uri, un); /* percent-encoded: nothing to escape */
		else
			b.failed = true;
		free(uri);
		hermes_buf_puts(&b, "\",\"mimeType\":");
		hermes_buf_append(&b, result + mime->start, mime->end - mime->start);
		hermes_buf_puts(&b, ",\"blob\":");
		hermes_buf_append(&b, result + content->start, content->end - content->start);
		hermes_buf_puts(&b, "}}");
	}
	hermes_buf_puts(&b, ",{\"type\":\"text\",\"text\":");
	if (fields)
		hermes_buf_json_string(&b, fields, tn);
	else
		b.failed = true;
	free(fields);
	hermes_buf_puts(&b, "}],\"structuredContent\":");
	hermes_buf_append(&b, result, len);
	hermes_buf_puts(&b, ",\"isError\":false}");
	hermes_json_doc_free(doc);
	return hermes_buf_finish(&b);
}
