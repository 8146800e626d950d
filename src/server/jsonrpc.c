/* server/jsonrpc.c: JSON-RPC 2.0 message classification and reply bodies (see jsonrpc.h). */
#include <config.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "server/json_text.h"
#include "server/jsonrpc.h"

void hermes_rpc_message_clear(hermes_rpc_message_t *msg)
{
	cJSON_Delete(msg->root);
	free(msg->id);
	free(msg->id_key);
	memset(msg, 0, sizeof *msg);
}

static char *dup_span(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

char *hermes_rpc_id_key(const char *raw, size_t len)
{
	if (len == 0)
		return NULL;
	if (raw[0] == '"') {
		size_t dlen;
		char *d = hermes_jt_decode_string(raw, len, &dlen);
		if (d == NULL)
			return NULL;
		char *k = malloc(dlen + 2);
		if (k) {
			k[0] = 's';
			memcpy(k + 1, d, dlen);
			k[dlen + 1] = '\0';
		}
		free(d);
		return k;
	}
	if (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9'))
		return NULL;
	/* An integer is its own key, however long; 1.0 and 1e0 are the number 1 too. */
	char *num = dup_span(raw, len);
	if (num == NULL)
		return NULL;
	bool integer = strpbrk(num, ".eE") == NULL;
	char *k = malloc(len + 40);
	if (k) {
		if (integer) {
			snprintf(k, len + 40, "n%s", strcmp(num, "-0") == 0 ? "0" : num);
		} else {
			double d = strtod(num, NULL);
			if (d == (double)(long long)d && d > -1e18 && d < 1e18)
				snprintf(k, len + 40, "n%lld", (long long)d);
			else
				snprintf(k, len + 40, "n%.17g", d);
		}
	}
	free(num);
	return k;
}

static hermes_rpc_kind_t invalid(hermes_rpc_message_t *msg, int code, const char *why)
{
	msg->code = code;
	snprintf(msg->why, sizeof msg->why, "%s", why);
	msg->method = NULL;
	msg->params = NULL;
	return HERMES_RPC_INVALID;
}

hermes_rpc_kind_t hermes_rpc_parse(const char *text, size_t len, hermes_rpc_message_t *msg)
{
	memset(msg, 0, sizeof msg[0]);
	static const char *const members[] = {"jsonrpc", "id", "method", "params"};
	const char *raw[4] = {NULL};
	size_t raw_len[4] = {0};
	int count[4];
	for (int i = 0; i < 4; i++)
		count[i] = hermes_jt_member(text, len, members[i], &raw[i], &raw_len[i]);

	/* The id first, so that even an invalid request is answered with it where it is readable. */
	if (count[1] == 1) {
		char c = raw[1][0];
		if (c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 'n') {
			msg->id = dup_span(raw[1], raw_len[1]);
			if (msg->id == NULL)
				return invalid(msg, HERMES_RPC_INTERNAL_ERROR, "out of memory");
			if (c != 'n') {
				msg->id_key = hermes_rpc_id_key(raw[1], raw_len[1]);
				if (msg->id_key == NULL)
					return invalid(msg, HERMES_RPC_INTERNAL_ERROR, "out of memory");
			}
		}
	}
	for (int i = 0; i < 4; i++) {
		if (count[i] > 1) {
			char why[64];
			snprintf(why, sizeof why, "duplicate member '%s' in the request", members[i]);
			if (i == 1) {
				free(msg->id);
				msg->id = NULL;
			}
			return invalid(msg, HERMES_RPC_INVALID_REQUEST, why);
		}
	}
	if (count[1] == 1 && msg->id == NULL)
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "id must be a string, a number or null");

	const char *end = NULL;
	msg->root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (msg->root == NULL)
		return invalid(msg, HERMES_RPC_INTERNAL_ERROR, "out of memory parsing the message");
	if (!cJSON_IsObject(msg->root))
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "a request must be a JSON object");

	const cJSON *jsonrpc = cJSON_GetObjectItemCaseSensitive(msg->root, "jsonrpc");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg->root, "method");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg->root, "params");
	if (!cJSON_IsString(jsonrpc) || strcmp(jsonrpc->valuestring, "2.0") != 0)
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
	if (method == NULL) {
		if (msg->id && (cJSON_GetObjectItemCaseSensitive(msg->root, "result") ||
		                cJSON_GetObjectItemCaseSensitive(msg->root, "error")))
			return HERMES_RPC_RESPONSE;
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "method is missing");
	}
	if (!cJSON_IsString(method))
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "method must be a string");
	if (params && !cJSON_IsNull(params) && !cJSON_IsObject(params) && !cJSON_IsArray(params))
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "params must be an object or an array");
	msg->method = method->valuestring;
	if (params && !cJSON_IsNull(params)) {
		msg->params = params;
		msg->params_raw = raw[3];
		msg->params_raw_len = raw_len[3];
	}
	return msg->id ? HERMES_RPC_REQUEST : HERMES_RPC_NOTIFICATION;
}

void hermes_rpc_result(hermes_reply_t *r, const char *id, char *result, size_t result_len)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
	hermes_buf_puts(&b, id ? id : "null");
	hermes_buf_puts(&b, ",\"result\":");
	size_t head_len = b.len;
	char *head = hermes_buf_finish(&b);
	if (head == NULL) {
		free(result);
		memset(r, 0, sizeof *r);
		hermes_rpc_error(r, id, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	r->part[0] = head;
	r->len[0] = head_len;
	r->part[1] = result;
	r->len[1] = result_len;
	r->tail = "}";
}

void hermes_rpc_error(hermes_reply_t *r, const char *id, int code, const char *message,
                      const char *data)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
	hermes_buf_puts(&b, id ? id : "null");
	hermes_buf_printf(&b, ",\"error\":{\"code\":%d,\"message\":", code);
	hermes_buf_json_string(&b, message, strlen(message));
	if (data) {
		hermes_buf_puts(&b, ",\"data\":");
		hermes_buf_puts(&b, data);
	}
	hermes_buf_puts(&b, "}}");
	size_t len = b.len;
	memset(r, 0, sizeof *r);
	r->part[0] = hermes_buf_finish(&b);
	r->len[0] = r->part[0] ? len : 0;
	if (r->part[0] == NULL) {
		/* Nothing can be allocated: a static reply keeps the framing intact. */
		r->tail = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"out of memory\"}}";
	}
}
