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

/* The ids a table of handles mints: "<instance>.<letter><n>-<tag>", n counting from 1 and tag
 * drawn at random once per table, so a handle of an earlier run of the same instance is not
 * mistaken for a new one. The table's own lock guards minting. */
typedef struct hermes_handles {
	char instance[HERMES_INSTANCE_MAX + 1];
	unsigned seq, tag;
} hermes_handles_t;

/* instance if hermes_instance_valid, else the default name (port 0); a fresh random tag. */
void hermes_handles_init(hermes_handles_t *h, const char *instance);

/* The next id of kind letter into buf (HERMES_HANDLE_MAX bytes is always enough). */
void hermes_handles_mint(hermes_handles_t *h, char letter, char *buf, size_t n);

/* True if handle names another instance than mine: its name into owner (of size n). False for a
 * handle of mine and for a string that is no handle at all. */
bool hermes_handle_elsewhere(const char *handle, const char *mine, char *owner, size_t n);

#endif
