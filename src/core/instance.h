/* core/instance.h: the name of one Hermes among several (`--instance`), and the handles it mints.
 * A handle that names state one process holds (a started program, a watch, a 2025-era session)
 * is "<instance>.<local id>", so a load balancer can route a request to the process that holds
 * it by the part before the first dot (the Mcp-Param-Handle header, Mcp-Session-Id), and a
 * handle that reaches another instance is told apart from one that never existed
 * (WrongInstance, not NotFound). */
#ifndef HERMES_CORE_INSTANCE_H
#define HERMES_CORE_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>

#define HERMES_INSTANCE_MAX 63                          /* characters of a name */
#define HERMES_HANDLE_MAX (HERMES_INSTANCE_MAX + 1 + 40) /* a handle's bytes, NUL included */

/* True if name is 1 to 63 of [a-z0-9-]. */
bool hermes_instance_valid(const char *name);

/* The default name, into buf (at least HERMES_INSTANCE_MAX + 1 bytes): the host name made of
 * [a-z0-9-] (lowered, anything else a '-'), then "-PORT" if port > 0, cut to 63 characters; "hermes"
 * if the host has no usable name. */
void hermes_instance_default(char *buf, size_t n, int port);

/* The instance part of a handle ("a-1" of "a-1.p3-00ff2a") into buf (of size n): true; false if
 * the handle has no such part (then it is no handle of any instance). */
bool hermes_handle_instance(const char *handle, char *buf, size_t n);

#endif
