/* tests/fuzz/fuzz_http.c: the decisions hermes mcp --listen makes on a POST once libmicrohttpd
 * has parsed it, without the socket: the input is header lines ("Name: value"), a blank line and
 * the body. The Origin and bearer-token checks, the body read as one JSON-RPC message, its 2026
 * _meta read, the mirrored headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, plain or Base64)
 * compared with it, and a 2026 result made of it. Nothing may crash or leak; a token is accepted
 * only if it is the right one; headers made from the body always match it; a result is an object. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/json.h"
#include "fuzz/fuzz.h"
#include "transport/http/http_check.h"
#include "protocol/mcp/mcp_meta.h"

#define TOKEN "s3cret-token"

static char *b64(const char *s, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc(n / 3 * 4 + 16), *o = out;
	if (out == NULL)
		return NULL;
	o += sprintf(o, "=?base64?");
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)s[i] << 16 | (i + 1 < n ? (unsigned char)s[i + 1] << 8 : 0) |
		             (i + 2 < n ? (unsigned char)s[i + 2] : 0);
		*o++ = a[v >> 18 & 63];
		*o++ = a[v >> 12 & 63];
		*o++ = i + 1 < n ? a[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? a[v & 63] : '=';
	}
	strcpy(o, "?=");
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	const char *h[5] = {NULL}; /* Origin, Authorization, MCP-Protocol-Version, Mcp-Method, Mcp-Name */
	static const char *const names[5] = {"Origin", "Authorization", "MCP-Protocol-Version",
	                                     "Mcp-Method", "Mcp-Name"};
	char *body = text, *line = text;
	while (line && *line && *line != '\n') {
		char *eol = strchr(line, '\n');
		if (eol)
			*eol = '\0';
		char *colon = strchr(line, ':');
		for (int i = 0; colon && i < 5; i++)
			if ((size_t)(colon - line) == strlen(names[i]) && strncasecmp(line, names[i], strlen(names[i])) == 0)
				h[i] = colon[1] == ' ' ? colon + 2 : colon + 1;
		line = eol ? eol + 1 : NULL;
	}
	body = line && *line == '\n' ? line + 1 : line ? line : text + size;
	size_t body_len = (size_t)(text + size - body);

	static const char *const allowed[] = {"https://app.example"};
	if (hermes_http_origin_allowed(h[0], allowed, 1) && h[0])
		FUZZ_ASSERT(strstr(h[0], "://") != NULL);
	if (hermes_http_bearer_ok(h[1], TOKEN, strlen(TOKEN))) {
		const char *t = h[1] + 7;
		while (*t == ' ')
			t++;
		FUZZ_ASSERT(strncmp(t, TOKEN, strlen(TOKEN)) == 0);
	}
	char why[512], *dec = NULL;
	size_t dec_len;
	if (h[4] && hermes_http_header_decode(h[4], &dec, &dec_len, why, sizeof why) == 0) {
		FUZZ_ASSERT(dec != NULL && dec[dec_len] == '\0');
		free(dec);
	} else if (h[4]) {
		FUZZ_ASSERT(why[0] != '\0');
	}

	hermes_json_doc_t *doc = NULL;
	size_t end;
	if (hermes_json_parse_bounded(body, body_len, 64, 4096, &doc, &end, NULL) == 0) {
		const hermes_json_t *msg = hermes_json_root(doc);
		const hermes_json_t *method = hermes_json_member(msg, "method");
		const hermes_json_t *params = hermes_json_member(msg, "params");
		bool notification = hermes_json_member(msg, "id") == NULL;
		hermes_mcp_meta_t meta;
		char *err_data = NULL;
		int code = hermes_mcp_meta_read(params, &meta, why, sizeof why, &err_data);
		FUZZ_ASSERT(code == 0 || code == -32602 || code == -32022);
		FUZZ_ASSERT((code == -32022) == (err_data != NULL));
		free(err_data);
		if (meta.modern && code == 0 && hermes_json_is_c_string(method)) {
			hermes_http_mirror_t m = {h[2], h[3], h[4], h[1]};
			hermes_http_mirror_check(&m, meta.version, method->str, params, notification, why,
			                         sizeof why);
			hermes_http_param_check(&m, params, why, sizeof why);
			/* headers made from the body agree with it */
			const hermes_json_t *name = hermes_json_member(params, "name");
			if (name == NULL || name->type != HERMES_JSON_STRING)
				name = hermes_json_member(params, "uri");
			char *enc = name && name->type == HERMES_JSON_STRING ? b64(name->str, name->len) : NULL;
			hermes_http_mirror_t good = {meta.version, method->str, enc, NULL};
			FUZZ_ASSERT(hermes_http_mirror_check(&good, meta.version, method->str, params,
			                                     notification, why, sizeof why) == 0);
			free(enc);
		}
		if (msg->type == HERMES_JSON_OBJECT) {
			size_t n;
			char *r = hermes_mcp_complete(body + msg->start, msg->end - msg->start, true, &n);
			FUZZ_ASSERT(r != NULL);
			hermes_json_doc_t *rd = NULL;
			FUZZ_ASSERT(hermes_json_parse(r, n, 128, &rd, &end, NULL) == 0);
			FUZZ_ASSERT(hermes_json_root(rd)->type == HERMES_JSON_OBJECT && end == n);
			hermes_json_doc_free(rd);
			free(r);
		}
		hermes_json_doc_free(doc);
	}
	free(text);
	return 0;
}
