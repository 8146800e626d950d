/* fs/journal.h: the commit journal of fs/commit.h, in <root>/.hermes/journal. Internal to
 * src/fs: commit.c writes it, and it (or a later process) undoes an unfinished commit with it.
 *
 * One commit is one directory, whose name says its state:
 *   t-<pid>-<rand>  being prepared: "temps" lists the temporary files being written, backups of
 *                   the old files; no target touched yet;
 *   j-<pid>-<rand>  sealed: "intent" lists every target, its temporary and its backup, durably,
 *                   and targets may be changing; held by a flock on its "lock" file while its
 *                   process lives;
 *   d-<pid>-<rand>  done: every target changed; only removal is left.
 * An unlocked j- directory belongs to a dead process: recovery puts each of its targets back
 * from the backups (an entry already old is left alone, so every step can run twice), then
 * removes it. t- directories of dead processes are removed with the temporaries they list, d-
 * directories simply removed. Backups are hard links
 * to the old files (copies where a link cannot be made), so keeping them costs nothing. */
#ifndef HERMES_FS_JOURNAL_H
#define HERMES_FS_JOURNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include <hermes/hermes.h>

#include "fs/workspace.h"

/* One target of a commit as the journal records it. */
typedef struct hermes_journal_entry {
	char op;                    /* 'W' (write) or 'D' (delete) */
	char *path;                 /* the target's canonical path from the root (malloc'd) */
	char tmpname[NAME_MAX + 1]; /* in the target's directory: 'W' the new file before its rename
	                             * (the old one after an exchange); 'D' where the old file is
	                             * moved before it is removed */
	bool backup;                /* "b<index>" in the journal holds the old file */
	unsigned long long old_ino; /* the old file's inode (if backup) */
	unsigned long long new_ino; /* 'W': the new file's inode */
} hermes_journal_entry_t;

typedef struct hermes_journal {
	int root_fd;   /* .hermes/journal, O_RDONLY directory */
	int dir_fd;    /* this commit's directory */
	int lock_fd;   /* its "lock" file, flock'd while the commit runs */
	char name[64]; /* its current name (t-, j- or d-) */
} hermes_journal_t;

/* Creates .hermes (with a .gitignore that keeps it out of git) if it is missing. 0 or an error
 * code. */
int hermes_journal_make_hermes_dir(const hermes_ws_t *ws);
/* Opens the directory of keep (".hermes/journal/.keep": the file need not exist) beneath the
 * workspace root, making .hermes and the directory first if create. 0 with *fd, or -errno. */
int hermes_journal_open_dir(const hermes_ws_t *ws, const char *keep, bool create, int *fd);
/* Removes the directory name in root_fd and the files in it (it holds no directories). */
void hermes_journal_remove_flat_dir(int root_fd, const char *name);

/* The lock of a file that does not exist yet (commit.h): one of 256 files .hermes/locks/<hh>, by
 * a hash of its canonical path, opened into *fd (created, with .hermes, if need be). Two commits
 * creating the same file take the same lock; a collision only serialises unrelated ones. 0 or an
 * error code. */
int hermes_journal_name_lock(const hermes_ws_t *ws, const char *path, int *fd);

/* Creates a t- directory for a commit, locked. 0 or -errno (or HERMES_WS_E*). */
int hermes_journal_begin(const hermes_ws_t *ws, hermes_journal_t *j);

/* Notes, before it is created, the temporary file path (canonical, from the root) of a commit
 * not sealed yet, so that it is removed if the process dies before the seal. 0 or -errno. */
int hermes_journal_note_temp(hermes_journal_t *j, const char *path);

/* Keeps the old file name in dirfd (whose status is st, content data[0..len)) as backup index:
 * a hard link, or a copy of data if no link can be made or name changed meanwhile. 0 or -errno. */
int hermes_journal_backup(hermes_journal_t *j, size_t index, int dirfd, const char *name,
                          const struct stat *st, const void *data, size_t len);

/* Writes "intent" (entries[0..n)) durably and renames the directory to j-. 0 or -errno. */
int hermes_journal_seal(hermes_journal_t *j, const hermes_journal_entry_t *entries, size_t n);

/* Marks the commit done (d-, durably) and removes its directory; closes j. Called after every
 * target changed, or (with done = false) after a rollback or before the seal. */
void hermes_journal_end(hermes_journal_t *j, bool done);

/* Puts every target of entries[0..n) back as it was before the commit, using the backups of j's
 * directory dir_fd; entries already old are left alone. 0, or -errno of the first step that
 * failed (the others are still tried). */
int hermes_journal_rollback(const hermes_ws_t *ws, int dir_fd, const hermes_journal_entry_t *entries,
                            size_t n);

/* A fresh temporary name next to name (".<name>.<pid>.<8 hex>.hermes-tmp", as atomic.c's, so a
 * killed process's leftovers are swept alike). */
void hermes_journal_tmpname(const char *name, char out[NAME_MAX + 1]);

/* The recovery of commit.h (hermes_commit_recover). 0 or -1 with err filled. */
int hermes_journal_recover(const hermes_ws_t *ws, hermes_error_t *err);

/* Test-only: the fault injection step of commit.h (HERMES_TEST_COMMIT_CRASH_AT). */
void hermes_journal_crash_point(void);

#endif
