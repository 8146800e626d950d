/* fs/atomic.h: replacing or creating a file so that readers, and a crash at any instant, see
 * either the old file or the complete new one: a temporary file in the same directory, written,
 * fsync'd, then renamed (or linked without replacing) onto the final name, and the directory
 * fsync'd. Also the fast copy of one descriptor's data into another. */
#ifndef HERMES_FS_ATOMIC_H
#define HERMES_FS_ATOMIC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <hermes/hermes.h>

#include "core/fdio.h"
#include "core/verb.h"

typedef struct hermes_atomic {
	int dirfd;                  /* borrowed: the directory of the final name */
	int fd;                     /* the temporary file, open for writing; -1 once finished */
	char name[NAME_MAX + 1];    /* the final name */
	char tmpname[NAME_MAX + 1]; /* the temporary name in the same directory; "" while unnamed */
	const struct stat *expect;  /* borrowed, may be NULL: a replacing commit first checks that the
	                             * final name still names this file, unchanged (filelock.h) */
} hermes_atomic_t;

/* Starts a new version of name in dirfd (an O_PATH directory descriptor is fine). If like is not
 * NULL, the new file gets like's permission bits exactly (and its owner, if allowed); otherwise
 * 0666 minus the umask. Returns 0 or -errno. */
int hermes_atomic_begin(hermes_atomic_t *a, int dirfd, const char *name, const struct stat *like);

/* Writes all of buf to the temporary file. Returns 0 or -errno. */
int hermes_atomic_write(hermes_atomic_t *a, const void *buf, size_t len);

/* Makes the new content durable and puts it in place: replace = true renames it over any existing
 * file (if a->expect is set, only over that file unchanged, checked after an exchange so that no
 * other write slips in between: else HERMES_WS_ECHANGED); replace = false fails with -EEXIST if
 * name exists (no window in which it could be replaced). The directory is fsync'd. On failure the temporary file is removed. 0 or -errno. */
int hermes_atomic_commit(hermes_atomic_t *a, bool replace);

/* Removes the temporary file (after a failure). Safe to call after commit. */
void hermes_atomic_abort(hermes_atomic_t *a);

/* The whole sequence for a file written at once: begin (with like's mode, if like), write
 * data[0..len), commit replacing name (only over the file expect describes, unchanged, if expect
 * is not NULL). On success, *now (if not NULL) describes the new file. 0, -errno or
 * HERMES_WS_ECHANGED; nothing is left behind on failure. */
int hermes_atomic_replace(int dirfd, const char *name, const struct stat *like,
                          const struct stat *expect, const void *data, size_t len,
                          struct stat *now);

/* Copies everything from in (from its current offset) to out: reflink if the file system can,
 * else copy_file_range, else read/write, in chunks between which the call's cancel token is
 * looked at and its progress reported (bytes of total). Returns 0, -errno or
 * HERMES_WS_ECANCELLED. */
int hermes_copy_data(int in, int out, int64_t total, const hermes_call_t *call);

#endif
