/* rpc/workspace.c: the session's workspace: the executor opened on first need (--root, or the
 * current directory), whichever protocol's initialize or request asks for it first; and the
 * file: URIs hosts name their roots with. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "rpc/log.h"
#include "rpc/state.h"

int hermes_server_workspace(server_t *srv, char *why, size_t why_len)
{
	if (srv->ex)
		return 0;
	if (srv->workspace_error) {
		snprintf(why, why_len, "%s", srv->workspace_error);
		return -1;
	}
	hermes_error_t err;
	if (hermes_executor_new(&srv->opts.config, &srv->ex, &err) != 0) {
		snprintf(why, why_len, "cannot open the workspace: %s", err.message);
		return -1;
	}
	hermes_log(HERMES_LOG_INFO, "workspace: %s", hermes_executor_root(srv->ex));
	return 0;
}

char *hermes_uri_path(const char *s, bool file_only, bool *bad)
{
	*bad = false;
	if (strncmp(s, "file://", 7) != 0)
		return file_only ? NULL : strdup(s);
	s += 7;
	if (strncmp(s, "localhost/", 10) == 0)
		s += 9;
	if (*s != '/') {
		*bad = true; /* file://host/... names another machine */
		return NULL;
	}
	char *out = malloc(strlen(s) + 1), *o = out;
	for (; out && *s; s++) {
		int hi, lo;
		if (*s == '%' && (hi = hermes_json_hexval(s[1])) >= 0 && (lo = hermes_json_hexval(s[2])) >= 0) {
			if (hi == 0 && lo == 0) {
				*bad = true;
				free(out);
				return NULL;
			}
			*o++ = (char)(hi * 16 + lo);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	if (out)
		*o = '\0';
	return out;
}
