/* protocol/mcp/mcp_resources.c: the workspace's files as MCP resources, in both eras:
 * resources/list (file:// URIs, in pages of HERMES_MCP_RESOURCES_PAGE, the next page after the
 * last path of this one), resources/templates/list (one template for any path) and
 * resources/read (text, or a base64 blob with its MIME type). Every file access is a verb run by
 * the session's executor (fs.glob, fs.readFile, fs.readBytes), so confinement, --read-only,
 * --allow/--deny, --max-read-bytes and the client's token rights are the verbs' own. They run on
 * the reader thread: a read is bounded by --max-read-bytes, a listing by fs.glob's 100,000 paths. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/executor.h"
#include "core/json.h"
#include "lsp/uri.h"
#include "protocol/mcp/mcp.h"
#include "rpc/jsonrpc.h"

/* MCP's "resource not found" (2025-11-25 server/resources). */
#define MCP_RESOURCE_NOT_FOUND -32002

/* The workspace root as an absolute path (malloc'd), or NULL if out of memory. */
static char *root_path(server_t *srv)
{
	const hermes_config_t *cfg = hermes_executor_config(srv->ex);
	return realpath(cfg && cfg->root ? cfg->root : ".", NULL);
}

/* Runs verb with the arguments args_json on the session's workspace, if the client may: 0 and
 * *result (the verb's JSON, malloc'd; it may say succeeded false); or -1 with the call answered. */
static int run_verb(server_t *srv, call_t *c, const char *verb, const char *args_json,
                    char **result)
{
	char why[1024];
	if (srv->roots_pending) {
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, "the workspace is not known yet: the "
		                   "client has not answered roots/list", NULL);
		return -1;
	}
	if (srv->ex == NULL && hermes_server_workspace(srv, why, sizeof why) != 0) {
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, why, NULL);
		return -1;
	}
	const hermes_verb_desc_t *d = hermes_executor_find(srv->ex, verb);
	if (d == NULL || !hermes_config_allows(hermes_executor_config(srv->ex), d)) {
		snprintf(why, sizeof why, "%s is not allowed on this server (--read-only, --allow or "
		         "--deny), so neither are resources", verb);
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, why, NULL);
		return -1;
	}
	if (!hermes_channel_allows(c->ch, d, why, sizeof why)) {
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, why, NULL);
		return -1;
	}
	hermes_json_doc_t *doc = NULL;
	size_t end;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	if (hermes_json_parse(args_json, strlen(args_json), 8, &doc, &end, &err) != 0) {
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return -1;
	}
	*result = NULL;
	hermes_execute_json(srv->ex, verb, hermes_json_root(doc), args_json, 0, NULL, result, &err);
	hermes_json_doc_free(doc);
	if (*result == NULL) {
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR,
		                   err.message[0] ? err.message : "out of memory", NULL);
		return -1;
	}
	return 0;
}

/* Answers c with a failed verb's result as an error: NotFound is MCP's -32002. */
static void reply_failed(call_t *c, const hermes_json_t *root, const char *uri)
{
	const hermes_json_t *code = hermes_json_member(root, "errorCode");
	const hermes_json_t *msg = hermes_json_member(root, "errorMessage");
	bool missing = hermes_json_is_c_string(code) && strcmp(code->str, "NotFound") == 0;
	char why[1024];
	snprintf(why, sizeof why, "%.300s: %s (%.500s)", uri,
	         hermes_json_is_c_string(code) ? code->str : "Internal",
	         hermes_json_is_c_string(msg) ? msg->str : "failed");
	hermes_reply_error(c, missing ? MCP_RESOURCE_NOT_FOUND : HERMES_RPC_INVALID_PARAMS, why, NULL);
}

/* Answers with json (taken). A 2026 result of these methods is a CacheableResult: the files
 * change at any time and are this workspace's, so ttlMs 0 and cacheScope private. */
static void reply(call_t *c, bool modern, char *json)
{
	if (!modern || json == NULL) {
		hermes_reply_result(c, json);
		return;
	}
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"ttlMs\":0,\"cacheScope\":\"private\",");
	hermes_buf_puts(&b, json + 1);
	free(json);
	hermes_mcp_reply_complete(c, hermes_buf_finish(&b), false);
}

static void append_file_uri(hermes_buf_t *b, const char *root, const char *rel)
{
	hermes_buf_t abs = HERMES_BUF_INIT;
	hermes_buf_puts(&abs, root);
	if (abs.len == 0 || abs.data[abs.len - 1] != '/')
		hermes_buf_puts(&abs, "/");
	hermes_buf_puts(&abs, rel);
	char *text = hermes_buf_finish(&abs);
	if (text)
		hermes_lsp_uri_append(b, text);
	else
		b->failed = true;
	free(text);
}

static void resources_list(server_t *srv, call_t *c, bool modern)
{
	const hermes_json_t *cursor = hermes_json_member(c->m.params, "cursor");
	if (cursor && cursor->type != HERMES_JSON_NULL && !hermes_json_is_c_string(cursor)) {
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, "resources/list: cursor must be the "
		                   "nextCursor string of the previous page", NULL);
		return;
	}
	const char *after = hermes_json_is_c_string(cursor) ? cursor->str : NULL;
	char *result;
	if (run_verb(srv, c, "fs.glob", "{\"pattern\":\"**\",\"maxResults\":100000}", &result) != 0)
		return;
	hermes_json_doc_t *doc = NULL;
	size_t end;
	if (hermes_json_parse(result, strlen(result), 8, &doc, &end, NULL) != 0) {
		free(result);
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	const hermes_json_t *root = hermes_json_root(doc);
	const hermes_json_t *paths = hermes_json_member(root, "paths");
	if (paths == NULL || paths->type != HERMES_JSON_ARRAY) {
		reply_failed(c, root, "resources/list");
		hermes_json_doc_free(doc);
		free(result);
		return;
	}
	char *top = root_path(srv);
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"resources\":[");
	size_t n = 0;
	const char *last = NULL;
	bool more = false;
	for (const hermes_json_t *p = paths->child; p; p = p->next) {
		if (!hermes_json_is_c_string(p) || p->len == 0 || p->str[p->len - 1] == '/')
			continue; /* directories are not resources */
		if (after && strcmp(p->str, after) <= 0)
			continue; /* sorted bytewise: on the pages before */
		if (n == HERMES_MCP_RESOURCES_PAGE) {
			more = true;
			break;
		}
		hermes_buf_puts(&b, n ? ",{\"uri\":\"" : "{\"uri\":\"");
		append_file_uri(&b, top ? top : "/", p->str);
		hermes_buf_puts(&b, "\",\"name\":");
		hermes_buf_json_string(&b, p->str, p->len);
		hermes_buf_puts(&b, "}");
		last = p->str;
		n++;
	}
	hermes_buf_puts(&b, "]");
	if (more && last) {
		hermes_buf_puts(&b, ",\"nextCursor\":");
		hermes_buf_json_string(&b, last, strlen(last));
	}
	hermes_buf_puts(&b, "}");
	if (top == NULL)
		b.failed = true;
	free(top);
	hermes_json_doc_free(doc);
	free(result);
	reply(c, modern, hermes_buf_finish(&b));
}

static void templates_list(server_t *srv, call_t *c, bool modern)
{
	char why[1024];
	if (srv->ex == NULL && hermes_server_workspace(srv, why, sizeof why) != 0) {
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, why, NULL);
		return;
	}
	char *top = root_path(srv);
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"resourceTemplates\":[{\"uriTemplate\":\"");
	hermes_lsp_uri_append(&b, top ? top : "/");
	hermes_buf_puts(&b, "/{+path}\",\"name\":\"workspace file\",\"title\":\"A file of the "
	                "workspace\",\"description\":\"Any file under the workspace root, by its "
	                "workspace-relative path: text as text, other bytes as a base64 blob\"}]}");
	if (top == NULL)
		b.failed = true;
	free(top);
	reply(c, modern, hermes_buf_finish(&b));
}

char *hermes_mcp_resource_path(server_t *srv, call_t *c, const char *uri)
{
	bool bad = false;
	char *abs = hermes_uri_path(uri, true, &bad), *top = root_path(srv);
	char why[1024];
	size_t tn = top ? strlen(top) : 0;
	if (abs == NULL || top == NULL) {
		snprintf(why, sizeof why, "resources/read: '%.300s' is not a file:// URI of this host", uri);
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, why, NULL);
		free(abs);
		free(top);
		return NULL;
	}
	const char *rel = NULL;
	if (strcmp(top, "/") == 0)
		rel = abs + 1;
	else if (strncmp(abs, top, tn) == 0 && (abs[tn] == '/' || abs[tn] == '\0'))
		rel = abs[tn] ? abs + tn + 1 : "";
	char *out = rel && rel[0] ? strdup(rel) : NULL;
	if (out == NULL) {
		snprintf(why, sizeof why, "resources/read: '%.300s' is not a file under the workspace "
		         "root %.300s (resources/list names them)", uri, top);
		hermes_reply_error(c, MCP_RESOURCE_NOT_FOUND, why, NULL);
	}
	free(abs);
	free(top);
	return out;
}

static void resources_read(server_t *srv, call_t *c, bool modern)
{
	const hermes_json_t *uri = hermes_json_member(c->m.params, "uri");
	if (!hermes_json_is_c_string(uri)) {
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, "resources/read needs params {\"uri\": "
		                   "a file:// URI of resources/list}", NULL);
		return;
	}
	char *rel = hermes_mcp_resource_path(srv, c, uri->str);
	if (rel == NULL)
		return;
	hermes_buf_t a = HERMES_BUF_INIT;
	hermes_buf_puts(&a, "{\"path\":");
	hermes_buf_json_string(&a, rel, strlen(rel));
	hermes_buf_puts(&a, "}");
	free(rel);
	char *args = hermes_buf_finish(&a), *result = NULL;
	if (args == NULL) {
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	/* the bytes, whatever they are; text/... that is UTF-8 is given as text (fs.readFile) */
	if (run_verb(srv, c, "fs.readBytes", args, &result) != 0) {
		free(args);
		return;
	}
	hermes_json_doc_t *doc = NULL;
	size_t end;
	if (hermes_json_parse(result, strlen(result), 8, &doc, &end, NULL) != 0) {
		free(args);
		free(result);
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	const hermes_json_t *root = hermes_json_root(doc);
	const hermes_json_t *content = hermes_json_member(root, "content");
	const hermes_json_t *mime = hermes_json_member(root, "mimeType");
	if (!hermes_json_is_c_string(content) || !hermes_json_is_c_string(mime)) {
		reply_failed(c, root, uri->str);
		goto out;
	}
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"contents\":[{\"uri\":");
	hermes_buf_json_string(&b, uri->str, uri->len);
	hermes_buf_puts(&b, ",\"mimeType\":");
	hermes_buf_json_string(&b, mime->str, mime->len);
	char *text_result = NULL;
	hermes_json_doc_t *text_doc = NULL;
	const hermes_json_t *text = NULL;
	const hermes_verb_desc_t *rf = hermes_executor_find(srv->ex, "fs.readFile");
	char why[256];
	if (strncmp(mime->str, "text/", 5) == 0 && rf &&
	    hermes_config_allows(hermes_executor_config(srv->ex), rf) &&
	    hermes_channel_allows(c->ch, rf, why, sizeof why)) {
		hermes_error_t err;
		memset(&err, 0, sizeof err);
		hermes_json_doc_t *ad = NULL;
		if (hermes_json_parse(args, strlen(args), 8, &ad, &end, NULL) == 0) {
			hermes_execute_json(srv->ex, "fs.readFile", hermes_json_root(ad), args, 0, NULL,
			                    &text_result, &err);
			hermes_json_doc_free(ad);
		}
		if (text_result &&
		    hermes_json_parse(text_result, strlen(text_result), 8, &text_doc, &end, NULL) == 0)
			text = hermes_json_member(hermes_json_root(text_doc), "content");
		if (text && text->type != HERMES_JSON_STRING)
			text = NULL; /* NotText after all (or changed meanwhile): the blob */
	}
	if (text) {
		hermes_buf_puts(&b, ",\"text\":");
		hermes_buf_append(&b, text_result + text->start, text->end - text->start);
	} else {
		hermes_buf_puts(&b, ",\"blob\":");
		hermes_buf_append(&b, result + content->start, content->end - content->start);
	}
	hermes_buf_puts(&b, "}]}");
	hermes_json_doc_free(text_doc);
	free(text_result);
	reply(c, modern, hermes_buf_finish(&b));
out:
	hermes_json_doc_free(doc);
	free(args);
	free(result);
}

void hermes_mcp_resources_list(server_t *srv, call_t *c) { resources_list(srv, c, false); }
void hermes_mcp_resources_templates(server_t *srv, call_t *c) { templates_list(srv, c, false); }
void hermes_mcp_resources_read(server_t *srv, call_t *c) { resources_read(srv, c, false); }

void hermes_mcp_modern_resources_list(server_t *srv, call_t *c)
{
	hermes_mcp_meta_t meta;
	if (hermes_mcp_modern_begin(c, &meta))
		resources_list(srv, c, true);
}

void hermes_mcp_modern_resources_templates(server_t *srv, call_t *c)
{
	hermes_mcp_meta_t meta;
	if (hermes_mcp_modern_begin(c, &meta))
		templates_list(srv, c, true);
}

void hermes_mcp_modern_resources_read(server_t *srv, call_t *c)
{
	hermes_mcp_meta_t meta;
	if (hermes_mcp_modern_begin(c, &meta))
		resources_read(srv, c, true);
}
