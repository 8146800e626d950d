/* fs/commit.h: a set of file changes committed all or nothing, also across a kill -9.
 *
 * The caller names the files of a change set (workspace-relative paths, confined like every other
 * write by fs/workspace.h) and gives a compute callback. hermes_commit_run() then:
 *   1. confines every path (symlinks inside the workspace are written through, as fs.writeFile
 *      does) and refuses two entries that name the same file;
 *   2. takes the writer locks of all of them in ONE global order, sorted by (device, inode), so
 *      two change sets never deadlock: an existing file is locked as fs/filelock.h does (flock of
 *      its open file description, taken again if the file was replaced meanwhile); a file that
 *      does not exist yet by a lock file .hermes/locks/<hh> chosen by a hash of its path, which
 *      every change set creating that file takes too (if the file appears meanwhile, all locks
 *      are dropped and taken again); a dry run takes no lock for a missing file;
 *   3. reads each file's current content and version under the lock, checks the flags
 *      (MUST_EXIST, MUST_NOT_EXIST) and the expected versions (stale: Conflict naming the path and
 *      both versions, nothing written);
 *   4. calls compute(ctx, files, n, err), which decides each file's new state from its current
 *      content (a read-modify-write across files: a patch whose hunks still match after a
 *      concurrent change applies to the new text);
 *   5. unless HERMES_COMMIT_DRY_RUN: writes every new content to a temporary file beside its
 *      target (fsync'd), records the set durably in a journal under <root>/.hermes/journal
 *      (targets, temporaries, hard links of the old files), renames each temporary over its target
 *      (or unlinks it for a delete) after checking that it is still the file that was read, and
 *      removes the journal; then fills each file's new version.
 * A process killed in step 5 leaves its journal; the next hermes_commit_recover() (run when an
 * executor is created, and by every commit before it locks anything) puts every file of that set
 * back as it was, so after recovery each set is wholly old or wholly new, never half-changed.
 *
 * A move is a DELETE of the old path plus a WRITE of the new path in the same set.
 *
 * Errors come back in a hermes_error_t with codes of defs/errors.def: InvalidArgument (empty set,
 * same file twice, a path that cannot be a file), NotFound (MUST_EXIST and absent),
 * AlreadyExists (MUST_NOT_EXIST and present), Conflict (stale expected version, or changed by a
 * writer that takes no lock until the retries ran out), OutsideWorkspace, PermissionDenied,
 * NoSpace, IoError, Timeout (a lock held too long), Cancelled, Internal; or whatever compute put
 * in err. The message names the path it concerns. */
#ifndef HERMES_FS_COMMIT_H
#define HERMES_FS_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

#include <hermes/hermes.h>

#include "fs/filelock.h"
#include "fs/workspace.h"

/* What becomes of one file (set by compute; KEEP unless it says otherwise). */
typedef enum hermes_commit_op {
	HERMES_COMMIT_KEEP = 0, /* left as it is (still locked and version-checked: part of the set) */
	HERMES_COMMIT_WRITE,    /* created or replaced by new_data[0..new_len) */
	HERMES_COMMIT_DELETE    /* removed (it must exist) */
} hermes_commit_op_t;

/* Entry flags (hermes_commit_file_t.flags), checked under the locks before compute runs. */
#define HERMES_COMMIT_MUST_EXIST     1u /* absent: NotFound */
#define HERMES_COMMIT_MUST_NOT_EXIST 2u /* present: AlreadyExists */

/* One file of a change set. The caller zero-initialises it and sets the "in" fields; the
 * mechanism fills the "read" fields before compute; compute sets the "compute" fields; the
 * mechanism fills the "out" fields after a successful commit (or dry run). */
typedef struct hermes_commit_file {
	/* in */
	const char *path;             /* workspace-relative, borrowed */
	unsigned flags;               /* HERMES_COMMIT_MUST_* */
	const char *expected_version; /* NULL, or the version token (filelock.h) the file must have;
	                               * "" means "must not exist" */
	/* read: owned by the mechanism, valid during compute and until hermes_commit_files_free() */
	bool exists;                  /* a regular file exists at path (under the lock) */
	char *old_data;               /* its whole content, NUL-terminated beyond old_len; NULL if
	                               * !exists */
	size_t old_len;
	char old_version[HERMES_FILE_VERSION_MAX]; /* "" if !exists */
	/* compute */
	hermes_commit_op_t op;
	char *new_data;               /* malloc'd by compute; the mechanism owns and frees it */
	size_t new_len;
	/* out */
	char new_version[HERMES_FILE_VERSION_MAX]; /* WRITE: the new file's version; KEEP: the old
	                                            * version; DELETE: "" (also "" after a dry run
	                                            * for WRITE) */
	/* private to the mechanism */
	void *priv;
} hermes_commit_file_t;

/* Decides the new state of every file from the current ones (files[i].exists, old_data, ...) by
 * setting files[i].op (and new_data/new_len for WRITE). Runs with every lock held, once per
 * commit attempt (it may run again if a writer that takes no lock changed a file meanwhile, with
 * the fields read anew and op/new_data reset). Returns 0, or -1 after filling err (nothing is
 * written). It must not touch the files itself. */
typedef int (*hermes_commit_compute_fn)(void *ctx, hermes_commit_file_t *files, size_t n,
                                         hermes_error_t *err);

#define HERMES_COMMIT_DRY_RUN 1u /* everything but the writing: locks, reads, checks, compute */

/* Commits the change set files[0..n) (n >= 1) as described at the top. cancel may be NULL.
 * Returns 0 (every file changed as compute said, out fields filled) or -1 (nothing changed, err
 * filled). Either way the caller must call hermes_commit_files_free() afterwards. Thread-safe:
 * any number of commits may run at once in one process or many. */
int hermes_commit_run(const hermes_ws_t *ws, const hermes_cancel_t *cancel,
                      hermes_commit_file_t *files, size_t n, unsigned flags,
                      hermes_commit_compute_fn compute, void *ctx, hermes_error_t *err);

/* Frees what the mechanism and compute left in files[0..n) (old_data, new_data, priv); the "in"
 * and "out" fields stay readable. */
void hermes_commit_files_free(hermes_commit_file_t *files, size_t n);

/* Finishes the journal of every commit whose process died in the middle (puts each of its files
 * back as it was before that commit) and removes it; commits still running in live processes are
 * left alone (their journal is locked). Serialised by a lock on the journal directory. Returns 0
 * (also when there is no .hermes/journal) or -1 with err filled. */
int hermes_commit_recover(const hermes_ws_t *ws, hermes_error_t *err);

/* Test-only fault injection (like HERMES_TEST_NO_OPENAT2 in workspace.c): if the environment
 * variable HERMES_TEST_COMMIT_CRASH_AT=N (N >= 1) is set, a commit calls _exit(137) at its N-th
 * step, steps counted across the commits of the process: each temporary written, the journal
 * written, each rename or unlink of a target, the journal removed. A test thereby stops a commit
 * at any point as kill -9 would. Read at every step, counted per process (a forked child starts
 * at 0); never set it outside tests. */

#endif
