/* fs/workspace_errors.c: what a confinement or file-system failure is called in a result: its
 * error code, its words, and the path as shown to a user (see workspace.h). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/verb.h"
#include "fs/filelock.h"
#include "fs/workspace.h"

hermes_errcode_t hermes_ws_errcode(int rc)
{
	switch (rc) {
	case HERMES_WS_EOUTSIDE:
	case HERMES_WS_ETOOLONG:
		return HERMES_E_OUTSIDE_WORKSPACE;
	case HERMES_WS_EEMPTY:
		return HERMES_E_INVALID_ARGUMENT;
	case HERMES_WS_ECANCELLED:
		return HERMES_E_CANCELLED;
	case HERMES_WS_EMOVED:
		return HERMES_E_IO_ERROR;
	case HERMES_WS_ECHANGED:
		return HERMES_E_CONFLICT;
	case HERMES_WS_ELOCKED:
		return HERMES_E_TIMEOUT;
	}
	switch (-rc) {
	case ENOENT: return HERMES_E_NOT_FOUND;
	case EEXIST: case ENOTEMPTY: return HERMES_E_ALREADY_EXISTS;
	case ENOTDIR: return HERMES_E_NOT_A_DIRECTORY;
	case EISDIR: return HERMES_E_IS_A_DIRECTORY;
	case EACCES: case EPERM: case EROFS: case ETXTBSY: return HERMES_E_PERMISSION_DENIED;
	case EXDEV: return HERMES_E_OUTSIDE_WORKSPACE;
	case ELOOP: case ENAMETOOLONG: case EINVAL: return HERMES_E_INVALID_ARGUMENT;
	case ENOSPC: case EDQUOT: return HERMES_E_NO_SPACE;
	case EFBIG: return HERMES_E_TOO_LARGE;
	case ENOMEM: return HERMES_E_INTERNAL;
	default: return HERMES_E_IO_ERROR;
	}
}

const char *hermes_ws_strerror(int rc, char *buf, size_t size)
{
	switch (rc) {
	case HERMES_WS_EOUTSIDE:
		return "the path leads outside the workspace";
	case HERMES_WS_ETOOLONG:
		snprintf(buf, size, "the path is too long to be confined to the workspace "
		         "(at most %d bytes, %d per component)", PATH_MAX - 1, NAME_MAX);
		return buf;
	case HERMES_WS_EEMPTY:
		return "the path is empty";
	case HERMES_WS_ECANCELLED:
		return "cancelled by the caller";
	case HERMES_WS_EMOVED:
		return "a directory inside it was moved elsewhere while it was being deleted; what was "
		       "left there was not followed";
	case HERMES_WS_ECHANGED:
		return "another program kept changing the file while it was being written (the change "
		       "was not written over theirs)";
	case HERMES_WS_ELOCKED:
		snprintf(buf, size, "another writer held the file's lock for over %d seconds",
		         HERMES_FILE_LOCK_WAIT_MS / 1000);
		return buf;
	}
	switch (-rc) {
	case ENOENT: return "no such file or directory";
	case EEXIST: return "the destination already exists";
	case ENOTDIR: return "a component of the path is not a directory";
	case ELOOP: return "too many levels of symbolic links";
	case EXDEV: return "the path leads outside the workspace";
	case ENOMEM: return "out of memory";
	}
	/* strerror_r (GNU) may return a static string or fill buf. */
	char tmp[128];
	const char *s = strerror_r(-rc, tmp, sizeof tmp);
	snprintf(buf, size, "%s", s);
	if (buf[0] >= 'A' && buf[0] <= 'Z' && !(buf[1] >= 'A' && buf[1] <= 'Z'))
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}

const char *hermes_ws_shown(const char *path, char *buf, size_t size)
{
	size_t len = strlen(path);
	if (len < 200 && len < size) {
		memcpy(buf, path, len + 1);
		return buf;
	}
	size_t cut = 120 < size - 40 ? 120 : size - 40;
	while (cut > 0 && ((unsigned char)path[cut] & 0xC0) == 0x80)
		cut--; /* never cut inside a UTF-8 sequence */
	snprintf(buf, size, "%.*s... (%zu bytes)", (int)cut, path, len);
	return buf;
}

void hermes_ws_fail(void *result, int rc, const char *action, const char *path)
{
	char shown[256], why[192];
	hermes_result_fail(result, hermes_ws_errcode(rc), "cannot %s '%s': %s", action,
	                   hermes_ws_shown(path, shown, sizeof shown),
	                   hermes_ws_strerror(rc, why, sizeof why));
}
