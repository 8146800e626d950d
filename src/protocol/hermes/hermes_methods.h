/* protocol/hermes/hermes_methods.h: the handlers of the Hermes protocol module (hermes serve's own
 * JSON-RPC), for its method table in hermes_methods.c. Internal to the module. */
#ifndef HERMES_SERVER_HERMES_METHODS_H
#define HERMES_SERVER_HERMES_METHODS_H

#include "rpc/state.h"

/* hermes_lifecycle.c */
void hermes_method_initialize(server_t *srv, call_t *c);
void hermes_method_initialized(server_t *srv, call_t *c);
void hermes_method_shutdown(server_t *srv, call_t *c);
void hermes_method_exit(server_t *srv, call_t *c);

/* hermes_introspect.c */
void hermes_method_verbs(server_t *srv, call_t *c);
void hermes_method_schema(server_t *srv, call_t *c);

#endif
