/* protocol/hermes/hermes_methods.c: the Hermes protocol module (hermes serve's own JSON-RPC): its
 * method table, one row per method with what the dispatch checks before calling it, a verb's own
 * name being a method too (the row `verb_row`); and the verb calls and $/cancelRequest. Adding a
 * method is one row here and one handler function. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/verb.h"
#include "protocol/hermes/hermes_methods.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "rpc/state.h"

static void method_execute(server_t *srv, call_t *c);
static void method_verb(server_t *srv, call_t *c);
static void method_cancel_request(server_t *srv, call_t *c);

#define EITHER HERMES_METHOD_EITHER

/* Every method may also come as a notification (it runs, unanswered), and before initialize
 * (which only chooses the workspace). */
/* name               handler                     sent as  before init  after shutdown  workspace */
static const method_t methods[] = {
	{"initialize",      hermes_method_initialize,   EITHER,  true,        false,          false},
	{"initialized",     hermes_method_initialized,  EITHER,  true,        false,          false},
	{"shutdown",        hermes_method_shutdown,     EITHER,  true,        false,          false},
	{"exit",            hermes_method_exit,         EITHER,  true,        true,           false},
	{"$/cancelRequest", method_cancel_request,      EITHER,  true,        true,           false},
	{"hermes/execute",  method_execute,             EITHER,  true,        false,          true},
	{"hermes/schema",   hermes_method_schema,       EITHER,  true,        false,          true},
	{"hermes/verbs",    hermes_method_verbs,        EITHER,  true,        false,          true},
	{NULL, NULL, EITHER, false, false, false},
};

static const method_t verb_row = {"(verb)", method_verb, EITHER, true, false, true};

const hermes_protocol_desc_t hermes_protocol_hermes = {methods, &verb_row, NULL, NULL, NULL};

/* The reply of a verb run: its result, -32602 for arguments that do not decode, -32800 once
 * cancelled (with what the verb had done as data.result). */
static void answer_reply(hermes_reply_t *r, const char *id, hermes_outcome_t outcome, char *result,
                         const hermes_error_t *err, bool cancelled)
{
	if (result == NULL) {
		hermes_rpc_error(r, id, HERMES_RPC_INTERNAL_ERROR, "out of memory running the verb", NULL);
	} else if (outcome == HERMES_OUTCOME_INVALID) {
		free(result);
		hermes_rpc_invalid_params(r, id, err);
	} else if (cancelled && outcome == HERMES_OUTCOME_FAILED && err->code == HERMES_E_CANCELLED) {
		hermes_reply_cancelled(r, id, result);
		free(result);
	} else {
		hermes_rpc_result(r, id, result, strlen(result));
	}
}

/* the content, and the verb's JSON of it (the reply takes that JSON as it is) */
static const hermes_verb_answer_t answer = {answer_reply, NULL, 2, NULL};

/* Queues a verb call: params are its named arguments (verb NULL: an envelope). */
static void queue(server_t *srv, call_t *c, const hermes_verb_desc_t *verb, const hermes_json_t *params)
{
	if (params && params->type != HERMES_JSON_OBJECT) {
		hermes_reply_invalid_params(c, "params", verb ? "InvalidArguments" : "InvalidEnvelope",
		                            verb ? "params of %s must be an object of named arguments"
		                            : "params of %s must be an envelope object {\"verb\": ..., \"arguments\": {...}}",
		                            verb ? verb->name : "hermes/execute");
		return;
	}
	if (verb == NULL && params == NULL) {
		hermes_reply_invalid_params(c, "params", "InvalidEnvelope",
		                            "hermes/execute needs params: an envelope {\"verb\": ..., \"arguments\": {...}}");
		return;
	}
	hermes_requests_queue(srv, c, verb, params, &answer, NULL, 0);
}

static void method_execute(server_t *srv, call_t *c)
{
	queue(srv, c, NULL, c->m.params);
}

static void method_verb(server_t *srv, call_t *c)
{
	queue(srv, c, c->verb, c->m.params);
}

static void method_cancel_request(server_t *srv, call_t *c)
{
	const hermes_json_t *p = c->m.params;
	const hermes_json_t *id = p && p->type == HERMES_JSON_OBJECT ? hermes_json_member(p, "id") : NULL;
	size_t key_len = 0;
	char *key = hermes_rpc_id_key(id, &key_len);
	if (key == NULL) {
		hermes_reply_invalid_params(c, "id", "InvalidArguments",
		                            "$/cancelRequest needs params {\"id\": <the id of the request to cancel>}");
		return;
	}
	size_t n = hermes_inflight_cancel(srv, key, key_len, 0);
	size_t shown = id->end - id->start;
	hermes_log(HERMES_LOG_DEBUG, "$/cancelRequest %.*s: %zu request(s) in flight",
	           (int)(shown > 64 ? 64 : shown), c->msg->body + id->start, n);
	free(key);
	hermes_reply_result(c, strdup("null"));
}
