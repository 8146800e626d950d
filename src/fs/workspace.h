/* fs/workspace.h: the workspace wall. Every path a verb takes is resolved here, beneath a
 * descriptor of the root directory, so no request reaches outside it by any route: "..",
 * absolute paths, symlinks (anywhere along the path, existing or dangling), or a component swapped
 * for a symlink between a check and its use. Nothing is ever checked as a string and then opened.
 *
 * Resolution uses openat2(RESOLVE_BENEATH) when the kernel has it, and otherwise (or to settle the
 * cases it refuses, such as an absolute symlink that points inside the root) a walk over directory
 * descriptors that opens one component at a time with O_NOFOLLOW and interprets symlinks itself.
 *
 * Functions here return 0 or a negative errno, or one of the HERMES_WS_E* codes below; verbs turn
 * that into a result with hermes_ws_fail(). */
#ifndef HERMES_FS_WORKSPACE_H
#define HERMES_FS_WORKSPACE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>

#include <hermes/hermes.h>

/* Resolution failures that have no errno of their own (all negative, below any -errno). */
#define HERMES_WS_EOUTSIDE (-100001) /* the path leads outside the root */
#define HERMES_WS_ETOOLONG (-100002) /* longer than PATH_MAX-1 or a component over NAME_MAX */
#define HERMES_WS_EEMPTY   (-100003) /* the empty string */
#define HERMES_WS_ECANCELLED (-100004) /* the caller cancelled the call (long loops look) */
#define HERMES_WS_EMOVED (-100005) /* a directory being walked was moved away meanwhile */

/* A workspace: the executor's host state. Read-only after hermes_ws_open(), so handlers share it
 * across threads. */
typedef struct hermes_ws {
	int root_fd;       /* O_PATH | O_DIRECTORY descriptor of the root, held for the executor's life */
	char *root;        /* realpath() of the root: absolute, no trailing slash except for "/" */
	char *given_root;  /* the root as configured, made absolute lexically, if it differs and still
	                      names the root (its realpath() is root's); or NULL */
	bool use_openat2;  /* false once the kernel said ENOSYS, or if HERMES_TEST_NO_OPENAT2 is set */
} hermes_ws_t;

/* Opens the workspace at root (NULL: the current directory). On success *out owns it (release with
 * hermes_ws_free) and 0 is returned; on failure -1, *out untouched, err filled. */
int hermes_ws_open(const char *root, hermes_ws_t **out, hermes_error_t *err);
void hermes_ws_free(void *ws); /* NULL is fine; void * so that it can be the executor's host_free */

/* Opens an existing path beneath the root, following symlinks that stay inside. oflags are open(2)
 * flags (O_CLOEXEC is added). On success *fd receives the descriptor (caller closes it). */
int hermes_ws_open_path(const hermes_ws_t *ws, const char *path, int oflags, int *fd);

#define HERMES_WS_FOLLOW 1u /* if the final component is a symlink, locate what it points to */
#define HERMES_WS_MKDIRS 2u /* create missing directories leading to the final component */

/* Where a path's final component lives: an open parent directory and the name in it. */
typedef struct hermes_ws_loc {
	int dirfd;              /* O_PATH directory descriptor, -1 if is_root */
	bool borrowed;          /* dirfd is the workspace's own root descriptor: not to be closed */
	char name[NAME_MAX + 1];/* the final component, "" if is_root */
	bool is_root;           /* the path names the root itself ("", ".", "a/..") */
	bool exists;            /* name exists in dirfd (as anything, even a dangling symlink) */
	bool trailing_slash;    /* the path ended with '/': it must name a directory */
	struct stat st;         /* lstat of name if exists (of the root if is_root) */
} hermes_ws_loc_t;

/* Locates path's parent directory beneath the root and the final name, without following a final
 * symlink unless HERMES_WS_FOLLOW is given. A final symlink that leads outside the root makes it
 * fail with HERMES_WS_EOUTSIDE in either case (a request may not even test such a path). A final
 * component that does not exist is not an error (loc->exists = false); a missing directory on the
 * way is, unless HERMES_WS_MKDIRS. On success the caller must hermes_ws_loc_close(loc). */
int hermes_ws_locate(const hermes_ws_t *ws, const char *path, unsigned flags, hermes_ws_loc_t *loc);
void hermes_ws_loc_close(hermes_ws_loc_t *loc);

/* The message for rc (a negative errno or HERMES_WS_E*) and the matching error code. */
hermes_errcode_t hermes_ws_errcode(int rc);
const char *hermes_ws_strerror(int rc, char *buf, size_t size);

/* Fails result (any result struct) with the code for rc and "cannot <action> '<path>': <reason>".
 * Long paths are shortened in the message. */
void hermes_ws_fail(void *result, int rc, const char *action, const char *path);

/* path shortened for a message (at most ~200 bytes, cut at a UTF-8 boundary), into buf. */
const char *hermes_ws_shown(const char *path, char *buf, size_t size);

/* The canonical path from the root of the directory open as dirfd (any open mode): "" for the
 * root itself, else names joined by '/', without ".", ".." or symlinks, found by walking up
 * through ".." as getcwd() does. On success *out is malloc'd (caller frees) and 0 returned; a
 * directory that is not beneath the root gives HERMES_WS_EOUTSIDE. */
int hermes_ws_dir_path(const hermes_ws_t *ws, int dirfd, char **out);

#endif
