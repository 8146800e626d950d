/* server/mcp.h: the handlers mcp_tools.c gives the MCP module's method table (mcp.c). Internal
 * to the module. */
#ifndef HERMES_SERVER_MCP_H
#define HERMES_SERVER_MCP_H

#include "server/state.h"

void hermes_mcp_tools_list(server_t *srv, call_t *c);
void hermes_mcp_tools_call(server_t *srv, call_t *c);

#endif
