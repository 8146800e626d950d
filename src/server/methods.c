/* server/methods.c: the method tables of `hermes serve`, one per protocol (Hermes's own JSON-RPC,
 * and MCP): every method, one row each, with what the dispatch checks before calling it. In the
 * Hermes protocol a verb's own name is a method too (the row `verb_row`). Adding a method is one
 * row here and one handler function. */
#include <config.h>

#include <string.h>

#include "core/executor.h"
#include "server/state.h"

#define EITHER HERMES_METHOD_EITHER

/* Every method may also come as a notification (it runs, unanswered), and before initialize
 * (which only chooses the workspace). */
/* name               handler                       sent as  before init  after shutdown  workspace */
const method_t hermes_methods[] = {
	{"initialize",      hermes_method_initialize,     EITHER,  true,        false,          false},
	{"initialized",     hermes_method_initialized,    EITHER,  true,        false,          false},
	{"shutdown",        hermes_method_shutdown,       EITHER,  true,        false,          false},
	{"exit",            hermes_method_exit,           EITHER,  true,        true,           false},
	{"$/cancelRequest", hermes_method_cancel_request, EITHER,  true,        true,           false},
	{"hermes/execute",  hermes_method_execute,        EITHER,  true,        false,          true},
	{"hermes/schema",   hermes_method_schema,         EITHER,  true,        false,          true},
	{"hermes/verbs",    hermes_method_verbs,          EITHER,  true,        false,          true},
	{NULL, NULL, EITHER, false, false, false},
};

#define REQUEST HERMES_METHOD_REQUEST
#define NOTIFICATION HERMES_METHOD_NOTIFICATION

/* MCP: nothing but initialize and ping before initialize; no shutdown or exit (the end of input
 * ends the session). */
/* name                                handler                    sent as       before init  after shutdown  workspace */
const method_t hermes_mcp_methods[] = {
	{"initialize",                       hermes_mcp_initialize,     REQUEST,      true,        false,          false},
	{"ping",                             hermes_mcp_ping,           REQUEST,      true,        true,           false},
	{"notifications/initialized",        hermes_mcp_initialized,    NOTIFICATION, false,       true,           false},
	{"notifications/cancelled",          hermes_mcp_cancelled,      NOTIFICATION, false,       true,           false},
	{"notifications/roots/list_changed", hermes_mcp_roots_changed,  NOTIFICATION, false,       false,          false},
	{"logging/setLevel",                 hermes_mcp_set_level,      REQUEST,      false,       true,           false},
	{"tools/list",                       hermes_mcp_tools_list,     REQUEST,      false,       false,          false},
	{"tools/call",                       hermes_mcp_tools_call,     REQUEST,      false,       false,          false},
	{NULL, NULL, EITHER, false, false, false},
};

static const method_t verb_row = {"(verb)", hermes_method_verb, EITHER, true, false, true};

const method_t *hermes_method_find(server_t *srv, const char *name, const hermes_verb_desc_t **verb)
{
	*verb = NULL;
	for (const method_t *m = srv->methods; m->name; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	if (srv->methods != hermes_methods)
		return NULL;
	/* The verbs of the executor if there is one yet, else of the table (the same list; the
	 * executor is only opened once the method is known to need it). */
	*verb = srv->ex ? hermes_executor_find(srv->ex, name) : hermes_verb_desc_find(name);
	return *verb ? &verb_row : NULL;
}
