/* verbs/handles.c: what the verbs that take a handle (proc.*, fs.changes, fs.unwatch) share. */
#include "config.h"

#include "core/instance.h"
#include "verbs/handlers.h"

bool hermes_verbs_held_elsewhere(void *result, const char *what, const char *handle,
                                 const char *mine)
{
	char owner[HERMES_INSTANCE_MAX + 1], shown[256];
	if (!hermes_handle_elsewhere(handle, mine, owner, sizeof owner))
		return false;
	hermes_result_fail(result, HERMES_E_WRONG_INSTANCE,
	                   "%s '%s' is held by the Hermes instance '%s', not by this one ('%s'): "
	                   "send the request there (a load balancer routes on the handle's part "
	                   "before its first dot, mirrored in Mcp-Param-Handle)", what,
	                   hermes_ws_shown(handle, shown, sizeof shown), owner, mine);
	return true;
}
