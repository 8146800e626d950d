/* server/methods.c: the method table of `hermes serve`: every protocol method, one row each,
 * with what the dispatch checks before calling it. A verb's own name is a method too (the row
 * `verb_row`). Adding a method is one row here and one handler function. */
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

static const method_t verb_row = {"(verb)", hermes_method_verb, EITHER, true, false, true};

const method_t *hermes_method_find(server_t *srv, const char *name, const hermes_verb_desc_t **verb)
{
	*verb = NULL;
	for (const method_t *m = hermes_methods; m->name; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	/* The verbs of the executor if there is one yet, else of the table (the same list; the
	 * executor is only opened once the method is known to need it). */
	*verb = srv->ex ? hermes_executor_find(srv->ex, name) : hermes_verb_desc_find(name);
	return *verb ? &verb_row : NULL;
}
