/* rpc/jsonrpc.h: JSON-RPC 2.0 messages: telling requests, notifications and invalid messages
 * apart, and building reply bodies (ids are echoed as the exact text the client sent). */
#ifndef HERMES_SERVER_JSONRPC_H
#define HERMES_SERVER_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json.h"


#define HERMES_RPC_PARSE_ERROR      -32700
#define HERMES_RPC_INVALID_REQUEST  -32600
#define HERMES_RPC_METHOD_NOT_FOUND -32601
#define HERMES_RPC_INVALID_PARAMS   -32602
#define HERMES_RPC_INTERNAL_ERROR   -32603
#define HERMES_RPC_NOT_INITIALIZED  -32002
#define HERMES_RPC_CANCELLED        -32800

/* A message body in up to three pieces (so that a large verb result is never copied): the body is
 * part[0] part[1] tail. Pieces 0 and 1 are malloc'd (or NULL) and owned by the reply; the tail
 * is a static string (or NULL). All NULL: no message (a notification's). */
typedef struct hermes_reply {
	char *part[2];
	size_t len[2];
	const char *tail;
} hermes_reply_t;

/* Frees the pieces and empties r. */
void hermes_reply_clear(hermes_reply_t *r);
size_t hermes_reply_length(const hermes_reply_t *r);
/* Whether r holds a message at all. */
static inline bool hermes_reply_empty(const hermes_reply_t *r)
{
	return !r->part[0] && !r->part[1] && !r->tail;
}

/* Deepest nesting of arrays and objects accepted in a message. */
#define HERMES_RPC_MAX_DEPTH 512

typedef enum hermes_rpc_kind {
	HERMES_RPC_REQUEST,      /* has an id: must be answered */
	HERMES_RPC_NOTIFICATION, /* no id: never answered */
	HERMES_RPC_RESPONSE,     /* result or error without a method: the server sends no requests,
	                            so it is ignored */
	HERMES_RPC_INVALID       /* answered with code and why, id if it could be read else null */
} hermes_rpc_kind_t;

typedef struct hermes_rpc_message {
	const char *method;           /* in the tree; NULL unless a request or notification */
	const hermes_json_t *params;  /* in the tree; NULL if absent or null */
	char *id;                     /* the id's exact text (echoed byte for byte), malloc'd and
	                                 NUL-terminated; NULL for a notification */
	char *id_key;                 /* the id as $/cancelRequest matches it (1 == 1.0 == 1e0),
	                                 malloc'd; NULL with id */
	size_t id_key_len;            /* its length (a string id may hold NUL bytes) */
	int code;                     /* HERMES_RPC_INVALID: the JSON-RPC error code */
	char why[256];                /* HERMES_RPC_INVALID: what is wrong */
} hermes_rpc_message_t;

/* Classifies the value obj of a message read by core/json.c from text (obj's positions are
 * offsets into text). Fills *msg, which points into obj's tree; release with
 * hermes_rpc_message_clear whatever the result. */
hermes_rpc_kind_t hermes_rpc_parse(const hermes_json_t *obj, const char *text,
                                   hermes_rpc_message_t *msg);
void hermes_rpc_message_clear(hermes_rpc_message_t *msg);

/* The matching key of an id (a string or a number): malloc'd, its length in *len; NULL if out of
 * memory or v is not an id. Numbers compare by value, exactly (no floating point): 1, 1.0, 1e0
 * and 10e-1 are one key; 12345678901234567890 and ...891 are two. */
char *hermes_rpc_id_key(const hermes_json_t *v, size_t *len);

/* {"jsonrpc":"2.0","id":<id>,"result":<result>}; takes ownership of result (malloc'd JSON text). */
void hermes_rpc_result(hermes_reply_t *r, const char *id, char *result, size_t result_len);
/* {"jsonrpc":"2.0","id":<id>,"error":{"code":...,"message":...,"data":<data>}}; data is raw JSON
 * text or NULL; id NULL means null. */
void hermes_rpc_error(hermes_reply_t *r, const char *id, int code, const char *message,
                      const char *data);
/* {"jsonrpc":"2.0","method":<method>,"params":<params>} (params: JSON text); r is left empty if
 * out of memory. */
void hermes_rpc_notification(hermes_reply_t *r, const char *method, const char *params, size_t len);

#endif
