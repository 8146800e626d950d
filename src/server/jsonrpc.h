/* server/jsonrpc.h: JSON-RPC 2.0 messages: telling requests, notifications and invalid messages
 * apart, and building reply bodies (ids are echoed as the exact text the client sent). */
#ifndef HERMES_SERVER_JSONRPC_H
#define HERMES_SERVER_JSONRPC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "server/output.h"

#define HERMES_RPC_PARSE_ERROR      -32700
#define HERMES_RPC_INVALID_REQUEST  -32600
#define HERMES_RPC_METHOD_NOT_FOUND -32601
#define HERMES_RPC_INVALID_PARAMS   -32602
#define HERMES_RPC_INTERNAL_ERROR   -32603
#define HERMES_RPC_CANCELLED        -32800

/* Deepest nesting of arrays and objects accepted in a message (cJSON's own limit is 1000). */
#define HERMES_RPC_MAX_DEPTH 512

typedef enum hermes_rpc_kind {
	HERMES_RPC_REQUEST,      /* has an id: must be answered */
	HERMES_RPC_NOTIFICATION, /* no id: never answered */
	HERMES_RPC_RESPONSE,     /* result or error without a method: the server sends no requests,
	                            so it is ignored */
	HERMES_RPC_INVALID       /* answered with code and why, id if it could be read else null */
} hermes_rpc_kind_t;

typedef struct hermes_rpc_message {
	cJSON *root;            /* the whole message (owned) */
	const char *method;     /* in root; NULL unless a request or notification */
	const cJSON *params;    /* in root; NULL if absent or null */
	const char *params_raw; /* the raw text of params within the message text, or NULL */
	size_t params_raw_len;
	char *id;               /* the id's raw JSON text, NUL-terminated; NULL for a notification */
	char *id_key;           /* the id normalised for matching $/cancelRequest (1 == 1.0) */
	int code;               /* HERMES_RPC_INVALID: the JSON-RPC error code */
	char why[256];          /* HERMES_RPC_INVALID: what is wrong */
} hermes_rpc_message_t;

/* Classifies the message text[0..len), a JSON object already accepted by the strict validator.
 * Fills *msg (release with hermes_rpc_message_clear, whatever the result). */
hermes_rpc_kind_t hermes_rpc_parse(const char *text, size_t len, hermes_rpc_message_t *msg);
void hermes_rpc_message_clear(hermes_rpc_message_t *msg);

/* The matching key of an id given as raw JSON text (string or number); malloc'd, NULL if out of
 * memory or not an id. */
char *hermes_rpc_id_key(const char *raw, size_t len);

/* {"jsonrpc":"2.0","id":<id>,"result":<result>}; takes ownership of result (malloc'd JSON text). */
void hermes_rpc_result(hermes_reply_t *r, const char *id, char *result, size_t result_len);
/* {"jsonrpc":"2.0","id":<id>,"error":{"code":...,"message":...,"data":<data>}}; data is raw JSON
 * text or NULL; id NULL means null. */
void hermes_rpc_error(hermes_reply_t *r, const char *id, int code, const char *message,
                      const char *data);

#endif
