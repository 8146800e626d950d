/* rpc/jsonrpc.c: JSON-RPC 2.0 message classification and message bodies (see jsonrpc.h). */
#include <config.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "rpc/jsonrpc.h"

void hermes_rpc_message_clear(hermes_rpc_message_t *msg)
{
	free(msg->id);
	free(msg->id_key);
	memset(msg, 0, sizeof *msg);
}

/* The key of a number, exactly: sign, significant digits and a power of ten ("n-15e-1" for
 * -1.50). An exponent too long for that is keyed by its text (no such id is ever the same as
 * another written differently; none is sent in practice). */
static char *number_key(const char *t, size_t len, size_t *key_len)
{
	char *k = malloc(len + 32);
	if (k == NULL)
		return NULL;
	size_t i = 0, o = 0;
	k[o++] = 'n';
	bool neg = t[i] == '-';
	if (neg)
		i++;
	size_t digits_at = o + (neg ? 1 : 0), nd = 0;
	if (neg)
		k[o++] = '-';
	long long frac = 0;
	bool in_frac = false;
	for (; i < len && t[i] != 'e' && t[i] != 'E'; i++) {
		if (t[i] == '.') {
			in_frac = true;
			continue;
		}
		if (in_frac)
			frac++;
		if (nd == 0 && t[i] == '0')
			continue; /* leading zeros */
		k[digits_at + nd++] = t[i];
	}
	long long exp = 0;
	if (i < len) {
		i++;
		bool eneg = t[i] == '-';
		if (t[i] == '-' || t[i] == '+')
			i++;
		while (i < len && t[i] == '0')
			i++;
		if (len - i > 15) {
			k[1] = 'r';
			memcpy(k + 2, t, len);
			*key_len = len + 2;
			return k;
		}
		for (; i < len; i++)
			exp = exp * 10 + (t[i] - '0');
		if (eneg)
			exp = -exp;
	}
	if (nd == 0) {
		memcpy(k, "n0", 3); /* every zero: 0, -0, 0.0, 0e5 */
		*key_len = 2;
		return k;
	}
	exp -= frac;
	while (k[digits_at + nd - 1] == '0') {
		nd--;
		exp++;
	}
	o = digits_at + nd;
	/* the exponent, by hand: a snprintf for every request id was a printf's cost per request */
	k[o++] = 'e';
	unsigned long long u = exp < 0 ? 0ULL - (unsigned long long)exp : (unsigned long long)exp;
	if (exp < 0)
		k[o++] = '-';
	char d[24];
	int n = 0;
	do {
		d[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		k[o++] = d[--n];
	k[o] = '\0';
	*key_len = o;
	return k;
}

char *hermes_rpc_id_key(const hermes_json_t *v, size_t *len)
{
	if (v == NULL)
		return NULL;
	if (v->type == HERMES_JSON_NUMBER)
		return number_key(v->str, v->len, len);
	if (v->type != HERMES_JSON_STRING)
		return NULL;
	char *k = malloc(v->len + 2);
	if (k) {
		k[0] = 's';
		memcpy(k + 1, v->str, v->len);
		k[v->len + 1] = '\0';
		*len = v->len + 1;
	}
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

/* The member name of obj, and whether it occurs more than once. */
static const hermes_json_t *member(const hermes_json_t *obj, const char *name, bool *repeated)
{
	const hermes_json_t *first = hermes_json_member(obj, name);
	*repeated = false;
	if (first && obj->first_repeat) {
		for (const hermes_json_t *m = first->next; m; m = m->next)
			if (m->repeated && m->key_len == first->key_len &&
			    memcmp(m->key, first->key, m->key_len) == 0) {
				*repeated = true;
				break;
			}
	}
	return first;
}

hermes_rpc_kind_t hermes_rpc_parse(const hermes_json_t *obj, const char *text,
                                   hermes_rpc_message_t *msg)
{
	memset(msg, 0, sizeof msg[0]);
	if (obj == NULL || obj->type != HERMES_JSON_OBJECT)
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "a request must be a JSON object");
	static const char *const names[] = {"jsonrpc", "id", "method", "params"};
	const hermes_json_t *v[4];
	bool dup[4];
	for (int i = 0; i < 4; i++)
		v[i] = member(obj, names[i], &dup[i]);
	const hermes_json_t *jsonrpc = v[0], *id = v[1], *method = v[2], *params = v[3];

	/* The id first, so that even an invalid request is answered with it where it is readable. */
	if (id && !dup[1] && (id->type == HERMES_JSON_STRING || id->type == HERMES_JSON_NUMBER ||
	                      id->type == HERMES_JSON_NULL)) {
		size_t n = id->end - id->start;
		msg->id = malloc(n + 1);
		if (msg->id == NULL)
			return invalid(msg, HERMES_RPC_INTERNAL_ERROR, "out of memory");
		memcpy(msg->id, text + id->start, n);
		msg->id[n] = '\0';
		if (id->type != HERMES_JSON_NULL &&
		    (msg->id_key = hermes_rpc_id_key(id, &msg->id_key_len)) == NULL)
			return invalid(msg, HERMES_RPC_INTERNAL_ERROR, "out of memory");
	}
	for (int i = 0; i < 4; i++) {
		if (dup[i]) {
			char why[64];
			snprintf(why, sizeof why, "duplicate member '%s' in the request", names[i]);
			return invalid(msg, HERMES_RPC_INVALID_REQUEST, why);
		}
	}
	if (id && msg->id == NULL)
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "id must be a string, a number or null");
	if (jsonrpc == NULL || jsonrpc->type != HERMES_JSON_STRING || jsonrpc->len != 3 ||
	    memcmp(jsonrpc->str, "2.0", 3) != 0)
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
	if (method == NULL) {
		if (msg->id && (hermes_json_member(obj, "result") || hermes_json_member(obj, "error")))
			return HERMES_RPC_RESPONSE;
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "method is missing");
	}
	if (method->type != HERMES_JSON_STRING)
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "method must be a string");
	if (!hermes_json_is_c_string(method))
		return invalid(msg, HERMES_RPC_INVALID_REQUEST,
		               "method must not contain a NUL character (\\u0000)");
	if (params && params->type != HERMES_JSON_NULL && params->type != HERMES_JSON_OBJECT &&
	    params->type != HERMES_JSON_ARRAY)
		return invalid(msg, HERMES_RPC_INVALID_REQUEST, "params must be an object or an array");
	msg->method = method->str;
	if (params && params->type != HERMES_JSON_NULL)
		msg->params = params;
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

void hermes_rpc_notification(hermes_reply_t *r, const char *method, const char *params, size_t len)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":");
	hermes_buf_json_string(&b, method, strlen(method));
	hermes_buf_puts(&b, ",\"params\":");
	hermes_buf_append(&b, params, len);
	hermes_buf_puts(&b, "}");
	size_t n = b.len;
	memset(r, 0, sizeof *r);
	r->part[0] = hermes_buf_finish(&b);
	r->len[0] = r->part[0] ? n : 0;
}

void hermes_reply_clear(hermes_reply_t *r)
{
	free(r->part[0]);
	free(r->part[1]);
	memset(r, 0, sizeof *r);
}

size_t hermes_reply_length(const hermes_reply_t *r)
{
	return r->len[0] + r->len[1] + (r->tail ? strlen(r->tail) : 0);
}
