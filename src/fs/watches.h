/* fs/watches.h: the table of watches fs.watch started (fs/watch.h), by handle. At most `limit` at
 * once; handles are "<instance>.w<N>-<6 hex digits>" (core/instance.h; the digits drawn once per table, so a handle of an
 * earlier server is unknown, not another watch). References are counted, so a watch being read
 * (a fs.changes waiting) while another thread ends it stays valid until released.
 * Thread-safe: one lock for the table. */
#ifndef HERMES_FS_WATCHES_H
#define HERMES_FS_WATCHES_H

#include "core/instance.h"
#include "fs/watch.h"

typedef struct hermes_watches hermes_watches_t;
typedef struct hermes_watch_ref hermes_watch_ref_t;

#define HERMES_WATCH_ID_MAX HERMES_HANDLE_MAX

/* A new, empty table (limit: watches kept at once; instance: the handles' first part, NULL: the
 * host's name). NULL if out of memory. */
hermes_watches_t *hermes_watches_new(int limit, const char *instance);
/* The instance name the table's handles begin with. */
const char *hermes_watches_instance(const hermes_watches_t *t);
/* Frees every watch and the table. No call may be using it. NULL is fine; void * to be a
 * state_free. */
void hermes_watches_free(void *table);

/* Keeps w (the table owns it on success) and writes its handle to id. 0, or -EAGAIN when limit
 * watches are kept already, -ENOMEM (then the caller still owns w). */
int hermes_watches_add(hermes_watches_t *t, hermes_watch_t *w, char id[HERMES_WATCH_ID_MAX]);
/* A reference to the watch of id, or NULL. */
hermes_watch_ref_t *hermes_watches_find(hermes_watches_t *t, const char *id);
hermes_watch_t *hermes_watch_ref_get(hermes_watch_ref_t *r);
void hermes_watches_release(hermes_watches_t *t, hermes_watch_ref_t *r);
/* Forgets the watch of id: readers waiting on it answer at once; it is freed with the last
 * reference. 0 or -ENOENT. */
int hermes_watches_remove(hermes_watches_t *t, const char *id);

#endif
