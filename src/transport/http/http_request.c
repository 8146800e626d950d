/* transport/http/http_request.c: the life of one POST (see http_server.h): libmicrohttpd's
 * callbacks from its first line to its end: the headers checked, the body gathered (bounded by
 * --max-message-bytes), parsed and routed to its session (the shared 2026 one, or a 2025
 * client's), then the wait for the first message back, answered as JSON alone or as an SSE
 * stream. */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "protocol/mcp/mcp_meta.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "transport/http/http_check.h"
#include "transport/http/http_server.h"

/* The JSON-RPC error code of a reply to the request whose id is id_text; 0 for a result. */
static int reply_code(const hreq_t *q, const char *body, size_t len)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":",
	                  q->id_text ? q->id_text : "null");
	size_t n = b.len;
	char *prefix = hermes_buf_finish(&b);
	int code = 0;
	if (prefix && len > n && memcmp(body, prefix, n) == 0)
		code = (int)strtol(body + n, NULL, 10);
	else if (prefix == NULL || len < 12 || memcmp(body, "{\"jsonrpc\":\"2.0\",\"id\":", 22) != 0 ||
	         strstr(body, "\"error\":{\"code\":") == NULL)
		code = 0;
	else /* an error with another id (a batch's, null): read its code where it is */
		code = (int)strtol(strstr(body, "\"error\":{\"code\":") + 16, NULL, 10);
	free(prefix);
	return code;
}

/* The first message of the request's answer is queued: the reply alone becomes a JSON
 * response; notifications first make it an SSE stream. */
static enum MHD_Result answer(hreq_t *q, struct MHD_Connection *c)
{
	char sid[sizeof ((legacy_t *)0)->id];
	const char *extra[5] = {NULL};
	if (q->initialize && q->legacy) {
		snprintf(sid, sizeof sid, "%s", q->legacy->id);
		extra[0] = "Mcp-Session-Id";
		extra[1] = sid;
	}
	pthread_mutex_lock(&q->lock);
	queued_t *m = q->head;
	bool alone = m && !m->note;
	pthread_mutex_unlock(&q->lock);
	if (alone) {
		m = hermes_http_req_pop(q);
		int code = reply_code(q, m->body, m->len);
		if (code && q->initialize && q->legacy) { /* a refused initialize begins no session */
			hermes_http_legacy_drop(q->hs, q->legacy);
			extra[0] = NULL;
		}
		char *body = m->body;
		size_t len = m->len;
		free(m);
		/* the reply goes out now: a client that does not read it gets the idle timeout, so that
		 * it does not hold the server's budget for replies (see PROTOCOL.md, Memory) */
		MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)q->hs->timeout);
		return hermes_http_respond(c, (unsigned)hermes_http_status_for(code), "application/json",
		                           body, len, extra);
	}
	return hermes_http_sse_respond(q, c, extra);
}

/* The whole body is in: routes it to its session and answers. */
static enum MHD_Result handle_body(http_server_t *hs, hreq_t *q, struct MHD_Connection *c)
{
	char why[640];
	size_t len = q->body.len;
	char *text = hermes_buf_finish(&q->body);
	if (text == NULL)
		return MHD_NO;
	hermes_json_doc_t *doc = NULL;
	hermes_error_t err;
	size_t end = 0;
	if (hermes_json_parse_bounded(text, len, HERMES_RPC_MAX_DEPTH, HERMES_SERVER_MAX_VALUES, &doc,
	                              &end, &err) != 0 ||
	    hermes_json_skip_ws(text, len, end) != len) {
		if (doc)
			snprintf(why, sizeof why, "Parse error: text after the message at byte %zu", end);
		else
			snprintf(why, sizeof why, "Parse error: %s", err.message);
		hermes_json_doc_free(doc);
		free(text);
		return hermes_http_respond_error(c, MHD_HTTP_BAD_REQUEST, NULL,
		                                 doc || err.code != HERMES_E_TOO_LARGE
		                                     ? HERMES_RPC_PARSE_ERROR : HERMES_RPC_INVALID_REQUEST,
		                                 why, NULL, NULL);
	}
	const hermes_json_t *msg = hermes_json_root(doc);
	if (msg->type != HERMES_JSON_OBJECT) {
		bool batch = msg->type == HERMES_JSON_ARRAY;
		hermes_json_doc_free(doc);
		free(text);
		return hermes_http_respond_error(c, MHD_HTTP_BAD_REQUEST, NULL, HERMES_RPC_INVALID_REQUEST,
		                                 batch ? "a POST carries one JSON-RPC message, not a batch"
		                                       : "a POST carries one JSON-RPC message (an object)",
		                                 NULL, NULL);
	}
	const hermes_json_t *method = hermes_json_member(msg, "method");
	const hermes_json_t *id = hermes_json_member(msg, "id");
	const hermes_json_t *params = hermes_json_member(msg, "params");
	if (id && (id->type == HERMES_JSON_STRING || id->type == HERMES_JSON_NUMBER))
		q->id_text = strndup(text + id->start, id->end - id->start);
	bool request = id != NULL && method != NULL;
	const char *m = hermes_json_is_c_string(method) ? method->str : NULL;
	hermes_mcp_meta_t meta;
	char *data = NULL;
	int code = hermes_mcp_meta_read(params, &meta, why, sizeof why, &data);
	free(data); /* the session says it again, with the request's id */
	hermes_session_t *s = hs->modern;
	pthread_mutex_t *feed_lock = &hs->modern_feed;
	const char *sid = hermes_http_header(c, "Mcp-Session-Id");
	enum MHD_Result ret;
	const char *doubled = hermes_http_doubled_mirror(c);
	if (doubled) {
		snprintf(why, sizeof why, "Header mismatch: %s is given twice (a header that mirrors the "
		         "body comes once)", doubled);
		ret = hermes_http_respond_error(c, MHD_HTTP_BAD_REQUEST, q->id_text,
		                                HERMES_RPC_HEADER_MISMATCH, why, NULL, NULL);
		goto done;
	}
	if (meta.modern && m) {
		hermes_http_mirror_t h = {hermes_http_header(c, "MCP-Protocol-Version"),
		                          hermes_http_header(c, "Mcp-Method"),
		                          hermes_http_header(c, "Mcp-Name"),
		                          hermes_http_header(c, "Mcp-Param-Handle")};
		if (code == 0 && (hermes_http_mirror_check(&h, meta.version, m, params, !request, why,
		                                           sizeof why) != 0 ||
		                  (request && strcmp(m, "tools/call") == 0 &&
		                   hermes_http_param_check(&h, params, why, sizeof why) != 0))) {
			ret = hermes_http_respond_error(c, MHD_HTTP_BAD_REQUEST, q->id_text,
			                                HERMES_RPC_HEADER_MISMATCH, why, NULL, NULL);
			goto done;
		}
		/* its answer is a stream that stays open: kept alive while quiet */
		q->keepalive = request && strcmp(m, "subscriptions/listen") == 0;
		if (!request && strcmp(m, "notifications/cancelled") == 0) {
			/* over HTTP a request is cancelled by closing its stream; ids are not unique
			 * across the clients sharing the session */
			ret = hermes_http_respond_empty(c, MHD_HTTP_ACCEPTED, NULL);
			goto done;
		}
	} else if (m && strcmp(m, "initialize") == 0 && request) {
		if ((q->legacy = hermes_http_legacy_new(hs, &hermes_http_standalone_ops, why,
		                                             sizeof why)) == NULL) {
			ret = hermes_http_respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, q->id_text,
			                                HERMES_RPC_INTERNAL_ERROR, why, NULL, NULL);
			goto done;
		}
		q->initialize = true;
	} else if (sid) {
		if ((q->legacy = hermes_http_legacy_find(hs, sid)) == NULL) {
			ret = hermes_http_respond_error(c, MHD_HTTP_NOT_FOUND, q->id_text,
			                                HERMES_RPC_INVALID_REQUEST, "no such session (it ended or "
			                                "expired): initialize again", NULL, NULL);
			goto done;
		}
		const char *pv = hermes_http_header(c, "MCP-Protocol-Version");
		bool known = pv == NULL;
		for (size_t i = 1; !known && i < hermes_mcp_version_count; i++)
			known = strcmp(pv, hermes_mcp_versions[i]) == 0;
		if (!known) {
			snprintf(why, sizeof why, "MCP-Protocol-Version '%.40s' is not a 2025 revision Hermes "
			         "speaks (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)", pv);
			ret = hermes_http_respond_error(c, MHD_HTTP_BAD_REQUEST, q->id_text,
			                                HERMES_RPC_INVALID_REQUEST, why, NULL, NULL);
			goto done;
		}
	} else if (m) {
		snprintf(why, sizeof why, "%.100s needs params._meta[\"" HERMES_MCP_META_VERSION "\"] ("
		         HERMES_MCP_MODERN_VERSION ") or, in a 2025 revision, the Mcp-Session-Id header "
		         "that initialize gave", m);
		ret = hermes_http_respond_error(c, MHD_HTTP_BAD_REQUEST, q->id_text,
		                                HERMES_RPC_INVALID_PARAMS, why, NULL, NULL);
		goto done;
	} else {
		/* a response from the client: nothing here asked it anything */
		ret = hermes_http_respond_empty(c, MHD_HTTP_ACCEPTED, NULL);
		goto done;
	}
	if (request && m && strcmp(m, "tools/call") == 0) {
		const hermes_json_t *tool = hermes_json_member(params, "name");
		int refused = hermes_http_check_scope(hs, q, c, hermes_json_is_c_string(tool) ? tool->str : NULL);
		if (refused >= 0) {
			ret = (enum MHD_Result)refused;
			goto done;
		}
	}
	if (q->legacy) {
		s = q->legacy->s;
		feed_lock = &q->legacy->feed;
	}
	hermes_json_doc_free(doc);
	doc = NULL;
	static const char *const retry[] = {"Retry-After", "1", NULL};
	if (!request) {
		if (!hermes_http_feed(hs, s, feed_lock, &hs->drop, text, len))
			return hermes_http_respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
			                                 HERMES_RPC_INTERNAL_ERROR,
			                                 "the server is busy or stopping", NULL, retry);
		return hermes_http_respond_empty(c, MHD_HTTP_ACCEPTED, NULL);
	}
	if (!hermes_http_feed(hs, s, feed_lock, &q->ch, text, len))
		return hermes_http_respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, q->id_text,
		                                 HERMES_RPC_INTERNAL_ERROR,
		                                 "the server is busy or stopping", NULL, retry);
	q->answered = true;
	int w = hermes_http_req_wait(q, s, -1);
	if (w <= 0)
		return MHD_NO; /* the client left (its request is cancelled), or the server stops */
	return answer(q, c);
done:
	hermes_json_doc_free(doc);
	free(text);
	return ret;
}

/* The request line is in: a request begins, and the connection's table entry knows since when
 * it has been arriving. */
void *hermes_http_uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	http_server_t *hs = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn_t *k = ci ? ci->socket_context : NULL;
	hreq_t *q = hermes_http_req_new(hs, k);
	if (q == NULL)
		return NULL;
	/* libmicrohttpd decodes the URL it hands on, cutting it at a %00: a file's path is read
	 * from the URI as sent */
	if (uri && strncmp(uri, FILES_PREFIX, strlen(FILES_PREFIX)) == 0)
		q->raw_uri = strdup(uri);
	if (k) {
		pthread_mutex_lock(&hs->lock);
		k->req = q;
		if (k->reading_since.tv_sec == 0) /* else arriving since the connection opened, or since
		                                   * its previous request ended */
			hermes_http_now(&k->reading_since);
		pthread_mutex_unlock(&hs->lock);
	}
	return q;
}

enum MHD_Result hermes_http_access_handler(void *cls, struct MHD_Connection *c, const char *url,
                                      const char *method, const char *version,
                                      const char *upload, size_t *upload_size, void **con_cls)
{
	(void)version;
	http_server_t *hs = cls;
	hreq_t *q = *con_cls;
	if (q == NULL)
		return MHD_NO;
	if (!q->headers_seen) {
		q->headers_seen = true;
		int r = hermes_http_check_headers(hs, q, c, url, method);
		return r < 0 ? MHD_YES : (enum MHD_Result)r;
	}
	if (*upload_size && q->put) {
		hermes_http_files_upload(q, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size) {
		if (!q->too_large && q->body.len + *upload_size > hs->max_body) {
			q->too_large = true;
			hermes_buf_free(&q->body);
		}
		if (!q->too_large)
			hermes_buf_append(&q->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&hs->lock);
	if (q->conn) {
		q->conn->reading_since.tv_sec = 0;
		q->conn->reading_since.tv_nsec = 0;
	}
	pthread_mutex_unlock(&hs->lock);
	if (q->put)
		return hermes_http_files_put_end(q, c);
	/* a tool may run for long, its stream stay quiet: no idle timeout until it is answered */
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
	if (q->too_large) {
		char why[160];
		snprintf(why, sizeof why, "the message is over the limit of %zu bytes (--max-message-bytes)",
		         hs->max_body);
		return hermes_http_respond_error(c, MHD_HTTP_CONTENT_TOO_LARGE, NULL,
		                                 HERMES_RPC_INVALID_REQUEST, why, NULL, NULL);
	}
	return handle_body(hs, q, c);
}

void hermes_http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
	http_server_t *hs = cls;
	hreq_t *q = *con_cls;
	if (q == NULL)
		return;
	/* idle again: the keep-alive timeout applies */
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)hs->timeout);
	*con_cls = NULL;
	hermes_http_files_done(q);
	if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK && q->answered && !q->stream_done)
		hermes_http_req_gone(q, q->legacy ? q->legacy->s : hs->modern);
	pthread_mutex_lock(&hs->lock);
	if (q->conn && q->conn->req == q) {
		/* the next request on this connection (keep-alive) is arriving from now on */
		q->conn->req = NULL;
		hermes_http_now(&q->conn->reading_since);
	}
	pthread_mutex_unlock(&hs->lock);
	pthread_mutex_lock(&q->lock);
	q->conn = NULL;
	pthread_mutex_unlock(&q->lock);
	if (q->legacy && q->standalone)
		hermes_http_stream_detach(q->legacy, q);
	if (q->legacy)
		hermes_http_legacy_unref(hs, q->legacy);
	q->legacy = NULL;
	hermes_http_req_unref(q);
}
