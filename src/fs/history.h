/* fs/history.h: the bounded record of the changes Hermes made, in <root>/.hermes/history, that
 * fs.history lists and fs.undo reverts.
 *
 * One change is one directory named by its id (a 16-digit sequence number): "meta" (time, verb,
 * and per file its canonical path, hex-encoded, whether it existed before, and the version it had
 * after the change) and "b<i>", the old content of file i (a hard link to the old file, which a
 * write replaces by a rename, so keeping it costs nothing; a copy where no link can be made).
 * Binary-safe: contents are kept as bytes, paths hex-encoded. A change is prepared in a staging
 * directory "s-<pid>-<rand>" and renamed to its id once made, so a listing never shows half a
 * record. At most HERMES_HISTORY_MAX_CHANGES changes and HERMES_HISTORY_MAX_BYTES bytes of old
 * contents are kept (the oldest go first; the newest always stays). Recording never makes a verb
 * fail: a change that cannot be recorded (say, .hermes is not a directory) is not recorded. */
#ifndef HERMES_FS_HISTORY_H
#define HERMES_FS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <hermes/hermes.h>

#include "fs/filelock.h"
#include "fs/workspace.h"

#define HERMES_HISTORY_MAX_CHANGES 100
#define HERMES_HISTORY_MAX_BYTES (64 * 1024 * 1024)
#define HERMES_HISTORY_MAX_FILES 4096 /* a change with more files is not recorded */

typedef struct hermes_history hermes_history_t;

/* Starts the record of one change made by verb. NULL if it cannot be recorded (or out of
 * memory): the other calls accept NULL and do nothing. */
hermes_history_t *hermes_history_start(const hermes_ws_t *ws, const char *verb);

/* Adds a file the change is about to touch: name in dirfd (the directory it is in), old its
 * status if it exists now (a regular file, whose content is kept), NULL if it does not. Call it
 * under the file's writer lock, before the change. Returns the file's index, or -1 (the change
 * then goes unrecorded). */
int hermes_history_file(hermes_history_t *h, int dirfd, const char *name, const struct stat *old);

/* The status of file index after the change (NULL: it no longer exists). */
void hermes_history_after(hermes_history_t *h, int index, const struct stat *now);

/* Ends the record: kept if the change was made (done), thrown away otherwise; frees h. */
void hermes_history_finish(hermes_history_t *h, bool done);

/* One recorded change, read back. */
typedef struct hermes_history_entry {
	char id[24];
	int64_t time;
	char verb[64];
	size_t count;
	char **paths;     /* canonical paths from the root */
	bool *existed;    /* before the change (then b<i> holds the content) */
	char (*after)[HERMES_FILE_VERSION_MAX]; /* version after the change, "" if it was removed */
} hermes_history_entry_t;

/* The recorded changes, newest first, at most limit. On success *out (caller frees with
 * hermes_history_entries_free) and *count; 0 or an error code. None recorded: 0 and *count 0. */
int hermes_history_list(const hermes_ws_t *ws, size_t limit, hermes_history_entry_t **out,
                        size_t *count);
void hermes_history_entries_free(hermes_history_entry_t *e, size_t count);

/* Reads change id into *out (free with hermes_history_entries_free(out, 1)). 0, -ENOENT if there
 * is no such change (or it was pruned), or an error code. */
int hermes_history_get(const hermes_ws_t *ws, const char *id, hermes_history_entry_t *out);

/* Reads the old content of file index of change id (malloc'd, NUL-terminated beyond *len). */
int hermes_history_old_content(const hermes_ws_t *ws, const char *id, size_t index, char **data,
                               size_t *len);

#endif
