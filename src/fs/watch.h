/* fs/watch.h: watching a directory tree for changes with inotify, and keeping them for readers.
 * What it guarantees:
 *  - Every change below the tree (filtered like fs.search: ignore files as they were when the
 *    watch started, hidden names unless asked, never .git) is kept as an event, or its loss is:
 *    the kernel's queue overflowing (IN_Q_OVERFLOW), a new directory that cannot be watched, or
 *    more than `keep` events since a reader's cursor all show as overflow to that reader.
 *  - Events are numbered from 0 (the cursor). Reading again from a cursor still kept returns the
 *    same events; a burst of writes to one file is merged into one event only while nobody has
 *    been handed it yet.
 *  - A rename inside the tree is one moved event (IN_MOVED_FROM/IN_MOVED_TO paired by cookie);
 *    a directory created or moved in is watched, then listed, so files put in it at once are
 *    reported (a file may be reported twice: created by the listing, then by its own event,
 *    merged when neither was read yet).
 *  - Symlinks are never followed: every directory is opened beneath its parent with O_NOFOLLOW,
 *    the first beneath the workspace root, so a watch never leaves the workspace.
 *  - Events are read from the kernel by whoever asks for them (hermes_watch_read), so a watch costs
 *    no thread; one waiting reader wakes within microseconds of the change.
 * Thread-safe: one lock per watch. */
#ifndef HERMES_FS_WATCH_H
#define HERMES_FS_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hermes/hermes.h>

#include "fs/workspace.h"

typedef struct hermes_watch hermes_watch_t;

typedef enum hermes_watch_kind {
	HERMES_WATCH_CREATED,
	HERMES_WATCH_MODIFIED,
	HERMES_WATCH_DELETED,
	HERMES_WATCH_MOVED,
	HERMES_WATCH_OVERFLOW, /* a marker: changes were lost here (never handed out as an event) */
} hermes_watch_kind_t;

typedef struct hermes_watch_opts {
	bool recursive;      /* the whole tree, not only the directory's own entries */
	bool respect_ignore; /* leave out what ignore files ignore */
	bool include_hidden; /* report names starting with '.' (never .git) */
	int keep;            /* events kept (the oldest dropped past it, seen as overflow) */
} hermes_watch_opts_t;

/* Starts watching the directory at path (workspace-relative, confined like every path). On
 * success 0 and *out is the watch (free with hermes_watch_free). -errno, HERMES_WS_E* (path), or
 * -ENOSPC: the kernel allows no more inotify watches (fs.inotify.max_user_watches) or
 * instances. Nothing is left behind on failure. */
int hermes_watch_new(const hermes_ws_t *ws, const char *path, const hermes_watch_opts_t *opts,
                     hermes_watch_t **out);
/* Closes the inotify instance and frees everything. No reader may be using w. NULL is fine. */
void hermes_watch_free(hermes_watch_t *w);

/* One event handed out (strings owned by the caller once returned). */
typedef struct hermes_watch_change {
	hermes_watch_kind_t kind;
	bool is_dir;
	char *path;     /* workspace-relative */
	char *old_path; /* MOVED only, else NULL */
} hermes_watch_change_t;

typedef struct hermes_watch_batch {
	hermes_watch_change_t *events; /* malloc'd array of count (caller frees with the strings) */
	size_t count;
	int64_t next;   /* the cursor after them */
	bool more;      /* more events are kept past next */
	bool overflow;  /* changes were lost between the cursor and next */
} hermes_watch_batch_t;

/* Reads the events from cursor on (cursor < 0: where the previous read stopped), at most max,
 * waiting up to wait_ms for the first one if there is none yet. stop, if not NULL, is looked at
 * every 50 ms while waiting: when it returns true the wait ends (HERMES_WS_ECANCELLED). 0 with
 * *batch filled, -EINVAL (cursor past the newest event), -ENOMEM, HERMES_WS_ECANCELLED, or
 * -ESHUTDOWN (hermes_watch_close was called). */
int hermes_watch_read(hermes_watch_t *w, int64_t cursor, size_t max, int wait_ms,
                      bool (*stop)(void *ctx), void *ctx, hermes_watch_batch_t *batch);
void hermes_watch_batch_clear(hermes_watch_batch_t *batch);

/* Makes readers waiting on w answer at once with -ESHUTDOWN, and later reads fail so. */
void hermes_watch_close(hermes_watch_t *w);

#endif
