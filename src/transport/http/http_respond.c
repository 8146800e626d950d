/* transport/http/http_respond.c: whole responses (see http_server.h): a body with its type and
 * headers, a JSON-RPC error as the response, an empty one. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "rpc/log.h"
#include "transport/http/http_server.h"

enum MHD_Result hermes_http_respond(struct MHD_Connection *c, unsigned status, const char *type,
                               char *body, size_t len, const char *const *headers)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(body);
		return MHD_NO;
	}
	if (type)
		MHD_add_response_header(r, "Content-Type", type);
	for (size_t i = 0; headers && headers[i]; i += 2)
		MHD_add_response_header(r, headers[i], headers[i + 1]);
	enum MHD_Result ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

/* A JSON-RPC error as the whole response (id: raw JSON text, or NULL for none). */
enum MHD_Result hermes_http_respond_error(struct MHD_Connection *c, unsigned status, const char *id,
                                     int code, const char *message, const char *data,
                                     const char *const *headers)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"jsonrpc\":\"2.0\",");
	if (id)
		hermes_buf_printf(&b, "\"id\":%s,", id);
	hermes_buf_printf(&b, "\"error\":{\"code\":%d,\"message\":", code);
	hermes_buf_json_string(&b, message, strlen(message));
	if (data)
		hermes_buf_printf(&b, ",\"data\":%s", data);
	hermes_buf_puts(&b, "}}");
	size_t len = b.len;
	char *body = hermes_buf_finish(&b);
	if (body == NULL)
		return MHD_NO;
	hermes_log(HERMES_LOG_INFO, "http: %u: %s", status, message);
	return hermes_http_respond(c, status, "application/json", body, len, headers);
}

enum MHD_Result hermes_http_respond_empty(struct MHD_Connection *c, unsigned status,
                                     const char *const *headers)
{
	return hermes_http_respond(c, status, NULL, NULL, 0, headers);
}
