/* fs/commit.c: a change set over several files, committed all or nothing under their writer locks
 * taken in one global order; see commit.h (and journal.h for what survives a kill). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fdio.h"
#include "core/verb.h"
#include "fs/commit.h"
#include "fs/journal.h"

/* How many times a commit starts over when a writer that takes no lock changed a file between the
 * read and the rename, before it gives up with Conflict. */
#define COMMIT_TURNS 8

typedef struct entry {
	hermes_commit_file_t *f;
	hermes_ws_loc_t loc;
	bool located;
	bool nodir;                 /* dry run: its directory does not exist (so neither does it) */
	char *canon;                /* its canonical path from the root */
	int fd;                     /* the file, open for reading, or -1 */
	struct stat st;             /* of fd */
	int tmpfd;
	char tmpname[NAME_MAX + 1]; /* the new content (W), or where the old file goes (D) */
	struct stat newst;
	dev_t dir_dev;              /* its directory's identity (one fsync per directory) */
	ino_t dir_ino;
} entry_t;

typedef struct lock {
	dev_t dev;
	ino_t ino;
	int fd;
	bool dir;     /* the fd is a name lock (journal.h) opened for the lock (ours to close) */
	size_t entry; /* for a file: its entry */
} lock_t;

static void fail_rc(hermes_error_t *err, int rc, const char *action, const char *path)
{
	char shown[256], why[256];
	hermes_error_set(err, hermes_ws_errcode(rc), "cannot %s '%s': %s", action,
	                 hermes_ws_shown(path, shown, sizeof shown),
	                 hermes_ws_strerror(rc, why, sizeof why));
}

static int cmp_lock(const void *a_, const void *b_)
{
	const lock_t *a = a_, *b = b_;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return 0;
}

static int cmp_canon(const void *a_, const void *b_)
{
	const entry_t *const *a = a_, *const *b = b_;
	return strcmp((*a)->canon, (*b)->canon);
}

/* Confines every path and refuses two entries that name the same file. */
static int locate_all(const hermes_ws_t *ws, entry_t *es, size_t n, bool dry, hermes_error_t *err)
{
	char shown[256];
	for (size_t i = 0; i < n; i++) {
		entry_t *e = &es[i];
		const char *path = e->f->path ? e->f->path : "";
		size_t len = strlen(path);
		if (len > 1 && path[len - 1] == '/') {
			hermes_error_set(err, HERMES_E_INVALID_ARGUMENT,
			                 "cannot change '%s': a file's path cannot end with '/'",
			                 hermes_ws_shown(path, shown, sizeof shown));
			return -1;
		}
		int rc = hermes_ws_locate(ws, path, HERMES_WS_FOLLOW | (dry ? 0 : HERMES_WS_MKDIRS),
		                          &e->loc);
		if (rc == -ENOENT && dry) {
			e->nodir = true;
			if (!(e->canon = strdup(path))) {
				fail_rc(err, -ENOMEM, "change", path);
				return -1;
			}
			continue;
		}
		if (rc) {
			fail_rc(err, rc, "change", path);
			return -1;
		}
		e->located = true;
		struct stat ds;
		if (fstat(e->loc.dirfd, &ds) == 0) {
			e->dir_dev = ds.st_dev;
			e->dir_ino = ds.st_ino;
		}
		if (e->loc.is_root || (e->loc.exists && S_ISDIR(e->loc.st.st_mode))) {
			hermes_error_set(err, HERMES_E_IS_A_DIRECTORY, "cannot change '%s': it is a directory",
			                 hermes_ws_shown(path, shown, sizeof shown));
			return -1;
		}
		if (e->loc.exists && !S_ISREG(e->loc.st.st_mode)) {
			hermes_error_set(err, HERMES_E_INVALID_ARGUMENT,
			                 "cannot change '%s': it is not a regular file (a device, FIFO or socket)",
			                 hermes_ws_shown(path, shown, sizeof shown));
			return -1;
		}
		char *dir = NULL;
		rc = hermes_ws_dir_path(ws, e->loc.dirfd, &dir);
		if (rc) {
			fail_rc(err, rc, "change", path);
			return -1;
		}
		size_t dl = strlen(dir), nl = strlen(e->loc.name);
		e->canon = malloc(dl + 1 + nl + 1);
		if (e->canon)
			snprintf(e->canon, dl + 1 + nl + 1, "%s%s%s", dir, dl ? "/" : "", e->loc.name);
		free(dir);
		if (!e->canon) {
			fail_rc(err, -ENOMEM, "change", path);
			return -1;
		}
	}
	entry_t **by = malloc(n * sizeof *by);
	if (!by) {
		fail_rc(err, -ENOMEM, "change", es[0].f->path);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		by[i] = &es[i];
	qsort(by, n, sizeof *by, cmp_canon);
	int rc = 0;
	for (size_t i = 1; i < n && rc == 0; i++) {
		if (strcmp(by[i - 1]->canon, by[i]->canon) == 0) {
			char other[256];
			hermes_error_set(err, HERMES_E_INVALID_ARGUMENT,
			                 "cannot change '%s' and '%s' in one change set: both name the file '%s'",
			                 hermes_ws_shown(by[i - 1]->f->path, shown, sizeof shown),
			                 hermes_ws_shown(by[i]->f->path, other, sizeof other), by[i]->canon);
			rc = -1;
		}
	}
	free(by);
	return rc;
}

static void unlock_all(entry_t *es, size_t n, lock_t *locks, size_t nl)
{
	for (size_t i = 0; i < nl; i++)
		if (locks[i].dir && locks[i].fd >= 0)
			close(locks[i].fd);
	for (size_t i = 0; i < n; i++) {
		if (es[i].fd >= 0)
			close(es[i].fd);
		es[i].fd = -1;
	}
}

/* Opens every file (or, for one that does not exist, its name lock in .hermes/locks) and locks
 * them all in the order of (device, inode). 0 with every entry's file still at its name, 1 if a name changed
 * while we waited (all unlocked: try again), or an error code (all unlocked). */
static int lock_once(const hermes_ws_t *ws, bool dry, entry_t *es, size_t n, lock_t *locks,
                     size_t *nlocks, const hermes_cancel_t *cancel, size_t *bad, bool *name_lock)
{
	size_t nl = 0;
	*name_lock = false;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		entry_t *e = &es[i];
		e->fd = -1;
		if (e->nodir)
			continue;
		*bad = i;
		e->fd = openat(e->loc.dirfd, e->loc.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (e->fd >= 0) {
			if (fstat(e->fd, &e->st) < 0)
				rc = -errno;
			else if (!S_ISREG(e->st.st_mode))
				rc = S_ISDIR(e->st.st_mode) ? -EISDIR : -EINVAL;
			else
				locks[nl++] = (lock_t){e->st.st_dev, e->st.st_ino, e->fd, false, i};
		} else if (errno == ENOENT && dry) {
			continue; /* nothing to read, nothing will be written */
		} else if (errno == ENOENT) {
			int d = -1;
			struct stat ds;
			rc = hermes_journal_name_lock(ws, e->canon, &d);
			*name_lock = rc != 0;
			if (rc == 0 && fstat(d, &ds) < 0)
				rc = -errno;
			if (rc == 0)
				locks[nl++] = (lock_t){ds.st_dev, ds.st_ino, d, true, i};
			else if (d >= 0)
				close(d);
		} else {
			rc = -errno;
		}
	}
	if (rc == 0) {
		qsort(locks, nl, sizeof *locks, cmp_lock);
		for (size_t i = 0; i < nl && rc == 0; i++) {
			if (i > 0 && cmp_lock(&locks[i - 1], &locks[i]) == 0) {
				if (!locks[i].dir || !locks[i - 1].dir) {
					*bad = locks[i].entry;
					rc = -EEXIST; /* two names of one file (hard links) */
				}
				continue; /* one name lock, taken once */
			}
			*bad = locks[i].entry;
			rc = hermes_file_lock_fd(locks[i].fd, cancel);
		}
	}
	*nlocks = nl;
	if (rc) {
		unlock_all(es, n, locks, nl);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		entry_t *e = &es[i];
		if (e->nodir)
			continue;
		struct stat now;
		bool there = fstatat(e->loc.dirfd, e->loc.name, &now, AT_SYMLINK_NOFOLLOW) == 0;
		if (e->fd >= 0 ? !there || now.st_ino != e->st.st_ino || now.st_dev != e->st.st_dev ||
		                     fstat(e->fd, &e->st) < 0
		               : there) {
			unlock_all(es, n, locks, nl);
			*nlocks = 0;
			return 1;
		}
	}
	return 0;
}

/* Reads every locked file and checks flags and expected versions. */
static int read_all(entry_t *es, size_t n, hermes_error_t *err)
{
	char shown[256];
	for (size_t i = 0; i < n; i++) {
		entry_t *e = &es[i];
		hermes_commit_file_t *f = e->f;
		free(f->old_data);
		f->old_data = NULL;
		f->old_len = 0;
		f->old_version[0] = '\0';
		f->exists = e->fd >= 0;
		if (f->exists) {
			hermes_buf_t b = HERMES_BUF_INIT;
			int rc = lseek(e->fd, 0, SEEK_SET) < 0 ? -errno : hermes_read_all(e->fd, 0, &b);
			if (rc == 0 && !hermes_buf_reserve(&b, 1))
				rc = -ENOMEM;
			if (rc) {
				free(b.data);
				fail_rc(err, rc, "read", f->path);
				return -1;
			}
			b.data[b.len] = '\0';
			f->old_data = b.data;
			f->old_len = b.len;
			hermes_file_version(&e->st, f->old_version);
		}
		const char *shownp = hermes_ws_shown(f->path, shown, sizeof shown);
		if ((f->flags & HERMES_COMMIT_MUST_EXIST) && !f->exists) {
			hermes_error_set(err, HERMES_E_NOT_FOUND,
			                 "cannot change '%s': it does not exist; nothing was written", shownp);
			return -1;
		}
		if ((f->flags & HERMES_COMMIT_MUST_NOT_EXIST) && f->exists) {
			hermes_error_set(err, HERMES_E_ALREADY_EXISTS,
			                 "cannot create '%s': it already exists; nothing was written", shownp);
			return -1;
		}
		if (f->expected_version && strcmp(f->expected_version, f->old_version) != 0) {
			hermes_error_set(err, HERMES_E_CONFLICT,
			                 "cannot change '%s': it changed since version %.64s (it is now %s); "
			                 "nothing was written", shownp,
			                 f->expected_version[0] ? f->expected_version : "absent",
			                 f->exists ? f->old_version : "absent");
			return -1;
		}
	}
	return 0;
}

static int check_ops(entry_t *es, size_t n, hermes_error_t *err)
{
	char shown[256];
	for (size_t i = 0; i < n; i++) {
		hermes_commit_file_t *f = es[i].f;
		const char *what = NULL;
		if (f->op != HERMES_COMMIT_KEEP && f->op != HERMES_COMMIT_WRITE &&
		    f->op != HERMES_COMMIT_DELETE)
			what = "compute set an unknown operation";
		else if (f->op == HERMES_COMMIT_DELETE && !f->exists)
			what = "it does not exist, so it cannot be deleted";
		else if (f->op == HERMES_COMMIT_WRITE && !f->new_data && f->new_len)
			what = "compute gave no content";
		if (what) {
			hermes_error_set(err, f->op == HERMES_COMMIT_DELETE ? HERMES_E_NOT_FOUND
			                                                     : HERMES_E_INTERNAL,
			                 "cannot change '%s': %s; nothing was written",
			                 hermes_ws_shown(f->path, shown, sizeof shown), what);
			return -1;
		}
	}
	return 0;
}

/* Writes the new content of a WRITE entry to its temporary file (e->tmpname) beside its target. */
static int write_temp(entry_t *e)
{
	const struct stat *like = e->f->exists ? &e->st : NULL;
	/* Its name (random, with our pid) is already in the journal: a clash is not retried. */
	e->tmpfd = openat(e->loc.dirfd, e->tmpname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	                  like ? 0600 : 0666);
	if (e->tmpfd < 0) {
		e->tmpname[0] = '\0';
		return -errno;
	}
	int rc = 0;
	if (like) {
		struct stat now;
		if (fstat(e->tmpfd, &now) == 0 && (now.st_uid != like->st_uid || now.st_gid != like->st_gid))
			(void)!fchown(e->tmpfd, like->st_uid, like->st_gid);
		if (fchmod(e->tmpfd, like->st_mode & 07777) < 0)
			rc = -errno;
	}
	if (rc == 0)
		rc = hermes_write_all(e->tmpfd, e->f->new_data ? e->f->new_data : "", e->f->new_len);
	if (rc == 0 && fsync(e->tmpfd) < 0)
		rc = -errno;
	if (rc == 0 && fstat(e->tmpfd, &e->newst) < 0)
		rc = -errno;
	if (close(e->tmpfd) < 0 && rc == 0)
		rc = -errno;
	e->tmpfd = -1;
	return rc;
}

/* Puts one entry's change in place. 0, 1 if a writer that takes no lock changed the file since
 * it was read (nothing of this entry changed), or -errno. */
static int apply_one(entry_t *e)
{
	int dfd = e->loc.dirfd;
	const char *name = e->loc.name;
	int section = hermes_dir_section_enter(dfd); /* filelock.h */
	int rc = 0;
	if (e->f->op == HERMES_COMMIT_DELETE) {
		/* Moved aside first, so that what is removed is known to be the file that was read. */
		if (renameat(dfd, name, dfd, e->tmpname) < 0) {
			rc = errno == ENOENT ? 1 : -errno;
		} else if (hermes_file_unchanged(dfd, e->tmpname, &e->st)) {
			rc = unlinkat(dfd, e->tmpname, 0) < 0 ? -errno : 0;
		} else {
			if (renameat2(dfd, e->tmpname, dfd, name, RENAME_NOREPLACE) < 0)
				unlinkat(dfd, e->tmpname, 0); /* a newer file took the name meanwhile */
			rc = 1;
		}
	} else if (!e->f->exists) {
		if (renameat2(dfd, e->tmpname, dfd, name, RENAME_NOREPLACE) < 0) {
			rc = errno == EEXIST ? 1 : -errno;
			if (errno == EINVAL) {
				/* No RENAME_NOREPLACE on this file system: a hard link never replaces. */
				rc = linkat(dfd, e->tmpname, dfd, name, 0) < 0 ? (errno == EEXIST ? 1 : -errno)
				                                                : 0;
				if (rc == 0)
					unlinkat(dfd, e->tmpname, 0);
			}
		}
	} else if (renameat2(dfd, e->tmpname, dfd, name, RENAME_EXCHANGE) == 0) {
		/* Exchanged, then the file that came out is checked: a writer that takes no lock
		 * cannot slip its change in between a check and the rename (doc/DESIGN.md). */
		if (hermes_file_unchanged(dfd, e->tmpname, &e->st)) {
			rc = unlinkat(dfd, e->tmpname, 0) < 0 ? -errno : 0;
		} else {
			renameat2(dfd, e->tmpname, dfd, name, RENAME_EXCHANGE); /* theirs back in place */
			rc = 1;
		}
	} else if (errno != EINVAL && errno != ENOSYS) {
		rc = errno == ENOENT ? 1 : -errno;
	} else if (!hermes_file_unchanged(dfd, name, &e->st)) {
		rc = 1;
	} else {
		rc = renameat(dfd, e->tmpname, dfd, name) < 0 ? -errno : 0;
	}
	hermes_dir_section_leave(section);
	return rc;
}

static void remove_temps(entry_t *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (es[i].f->op == HERMES_COMMIT_WRITE && es[i].tmpname[0]) {
			unlinkat(es[i].loc.dirfd, es[i].tmpname, 0);
			es[i].tmpname[0] = '\0';
		}
}

/* Writes the temporaries and the journal, puts every change in place, removes the journal.
 * 0, 1 (changed by a writer that takes no lock: all undone, try again), -1 (err filled, all
 * undone). */
static int apply_all(const hermes_ws_t *ws, entry_t *es, size_t n, hermes_error_t *err)
{
	size_t nchg = 0;
	for (size_t i = 0; i < n; i++) {
		es[i].tmpname[0] = '\0';
		nchg += es[i].f->op != HERMES_COMMIT_KEEP;
	}
	if (nchg == 0)
		return 0;
	/* One change needs no journal: its rename is atomic by itself. */
	hermes_journal_t j = {-1, -1, -1, ""};
	hermes_journal_entry_t *je = NULL;
	size_t nje = 0, bad = 0;
	int rc = 0;
	if (nchg > 1) {
		je = calloc(nchg, sizeof *je);
		rc = je ? hermes_journal_begin(ws, &j) : -ENOMEM;
		if (rc) {
			free(je);
			hermes_error_set(err, hermes_ws_errcode(rc), "cannot start a journal in "
			                 ".hermes/journal: %s; nothing was written",
			                 hermes_ws_strerror(rc, (char[256]){0}, 256));
			return -1;
		}
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		entry_t *e = &es[i];
		if (e->f->op == HERMES_COMMIT_KEEP)
			continue;
		bad = i;
		hermes_journal_tmpname(e->loc.name, e->tmpname);
		if (e->f->op == HERMES_COMMIT_DELETE)
			continue;
		if (je) {
			/* Listed before it exists, so that a kill before the seal leaves no litter. */
			const char *slash = strrchr(e->canon, '/');
			size_t dl = slash ? (size_t)(slash - e->canon) + 1 : 0;
			char *tp = malloc(dl + strlen(e->tmpname) + 1);
			if (!tp) {
				rc = -ENOMEM;
				break;
			}
			memcpy(tp, e->canon, dl);
			strcpy(tp + dl, e->tmpname);
			rc = hermes_journal_note_temp(&j, tp);
			free(tp);
		}
		if (rc == 0)
			rc = write_temp(e);
		if (rc == 0)
			hermes_journal_crash_point();
	}
	if (rc) {
		hermes_journal_end(&j, false);
		free(je);
		remove_temps(es, n);
		fail_rc(err, rc, "write", es[bad].f->path);
		return -1;
	}
	if (je) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			entry_t *e = &es[i];
			hermes_commit_file_t *f = e->f;
			if (f->op == HERMES_COMMIT_KEEP)
				continue;
			bad = i;
			hermes_journal_entry_t *x = &je[nje];
			x->op = f->op == HERMES_COMMIT_WRITE ? 'W' : 'D';
			x->path = e->canon;
			memcpy(x->tmpname, e->tmpname, sizeof x->tmpname);
			x->backup = f->exists;
			x->old_ino = f->exists ? (unsigned long long)e->st.st_ino : 0;
			x->new_ino = f->op == HERMES_COMMIT_WRITE ? (unsigned long long)e->newst.st_ino : 0;
			if (f->exists)
				rc = hermes_journal_backup(&j, nje, e->loc.dirfd, e->loc.name, &e->st,
				                           f->old_data, f->old_len);
			nje++;
		}
		if (rc == 0)
			rc = hermes_journal_seal(&j, je, nje);
		if (rc) {
			hermes_journal_end(&j, false);
			free(je);
			remove_temps(es, n);
			char why[256], shown[256];
			hermes_error_set(err, hermes_ws_errcode(rc), "cannot record the change set in "
			                 ".hermes/journal (at '%s'): %s; nothing was written",
			                 hermes_ws_shown(es[bad].f->path, shown, sizeof shown),
			                 hermes_ws_strerror(rc, why, sizeof why));
			return -1;
		}
		hermes_journal_crash_point();
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (es[i].f->op == HERMES_COMMIT_KEEP)
			continue;
		bad = i;
		rc = apply_one(&es[i]);
		if (rc == 0)
			hermes_journal_crash_point();
	}
	if (rc) {
		if (je)
			hermes_journal_rollback(ws, j.dir_fd, je, nje);
		else
			remove_temps(es, n);
		hermes_journal_end(&j, false);
		free(je);
		if (rc == 1)
			return 1;
		fail_rc(err, rc, "write", es[bad].f->path);
		return -1;
	}
	/* Each directory that changed, once (a patch over 100 files in one directory: one fsync). */
	for (size_t i = 0; i < n; i++) {
		if (es[i].f->op == HERMES_COMMIT_KEEP)
			continue;
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = es[k].f->op != HERMES_COMMIT_KEEP && es[k].dir_dev == es[i].dir_dev &&
			       es[k].dir_ino == es[i].dir_ino;
		int d = seen ? -1 : openat(es[i].loc.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d >= 0) {
			fsync(d);
			close(d);
		}
	}
	if (je) {
		hermes_journal_end(&j, true);
		free(je);
		hermes_journal_crash_point();
	}
	return 0;
}

static void fill_versions(entry_t *es, size_t n, bool dry)
{
	for (size_t i = 0; i < n; i++) {
		hermes_commit_file_t *f = es[i].f;
		if (f->op == HERMES_COMMIT_KEEP)
			memcpy(f->new_version, f->old_version, sizeof f->new_version);
		else if (f->op == HERMES_COMMIT_WRITE && !dry)
			hermes_file_version(&es[i].newst, f->new_version);
		else
			f->new_version[0] = '\0';
	}
}

/* One attempt: lock, read, check, compute, commit. 0, 1 (start over), -1 (err filled). */
static int attempt(const hermes_ws_t *ws, const hermes_cancel_t *cancel, entry_t *es, size_t n,
                   lock_t *locks, unsigned flags, hermes_commit_compute_fn compute, void *ctx,
                   hermes_error_t *err)
{
	size_t nl = 0, bad = 0;
	bool name_lock = false;
	int rc;
	for (int turn = 0;; turn++) {
		rc = lock_once(ws, flags & HERMES_COMMIT_DRY_RUN, es, n, locks, &nl, cancel, &bad,
		               &name_lock);
		if (rc != 1)
			break;
		if (turn >= 10000) {
			rc = HERMES_WS_ELOCKED;
			break;
		}
	}
	if (rc == -EEXIST) {
		char shown[256];
		hermes_error_set(err, HERMES_E_INVALID_ARGUMENT,
		                 "cannot change '%s': another entry of the change set names the same file",
		                 hermes_ws_shown(es[bad].f->path, shown, sizeof shown));
		return -1;
	}
	if (rc && name_lock) {
		char shown[256], why[256];
		hermes_error_set(err, hermes_ws_errcode(rc),
		                 "cannot create '%s': its lock in .hermes/locks cannot be made: %s; nothing "
		                 "was written", hermes_ws_shown(es[bad].f->path, shown, sizeof shown),
		                 hermes_ws_strerror(rc, why, sizeof why));
		return -1;
	}
	if (rc) {
		fail_rc(err, rc, "lock", es[bad].f->path);
		return -1;
	}
	rc = read_all(es, n, err);
	if (rc == 0) {
		for (size_t i = 0; i < n; i++) {
			free(es[i].f->new_data);
			es[i].f->new_data = NULL;
			es[i].f->new_len = 0;
			es[i].f->op = HERMES_COMMIT_KEEP;
		}
		rc = compute(ctx, es[0].f, n, err) < 0 ? -1 : check_ops(es, n, err);
	}
	if (rc == 0 && !(flags & HERMES_COMMIT_DRY_RUN))
		rc = apply_all(ws, es, n, err);
	if (rc == 0)
		fill_versions(es, n, flags & HERMES_COMMIT_DRY_RUN);
	unlock_all(es, n, locks, nl);
	return rc;
}

int hermes_commit_run(const hermes_ws_t *ws, const hermes_cancel_t *cancel,
                      hermes_commit_file_t *files, size_t n, unsigned flags,
                      hermes_commit_compute_fn compute, void *ctx, hermes_error_t *err)
{
	if (n == 0 || !compute) {
		hermes_error_set(err, HERMES_E_INVALID_ARGUMENT, "a change set needs at least one file");
		return -1;
	}
	bool dry = flags & HERMES_COMMIT_DRY_RUN;
	/* An unfinished commit of a killed process is undone before anything is locked. */
	if (!dry && hermes_commit_recover(ws, err) < 0)
		return -1;
	entry_t *es = calloc(n, sizeof *es);
	lock_t *locks = calloc(n, sizeof *locks);
	int rc = -1;
	if (!es || !locks) {
		hermes_error_set(err, HERMES_E_INTERNAL, "cannot commit the change set: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		es[i].f = &files[i];
		es[i].fd = es[i].tmpfd = -1;
		files[i].new_version[0] = '\0';
	}
	if (locate_all(ws, es, n, dry, err) < 0)
		goto out;
	for (int turn = 0; turn < COMMIT_TURNS; turn++) {
		if (hermes_cancel_requested(cancel)) {
			fail_rc(err, HERMES_WS_ECANCELLED, "commit", files[0].path);
			rc = -1;
			break;
		}
		rc = attempt(ws, cancel, es, n, locks, flags, compute, ctx, err);
		if (rc != 1)
			break;
	}
	if (rc == 1) {
		hermes_error_set(err, HERMES_E_CONFLICT,
		                 "cannot commit the change set: its files kept changing under a writer "
		                 "that takes no lock (%d tries); nothing was written", COMMIT_TURNS);
		rc = -1;
	}
out:
	if (es)
		for (size_t i = 0; i < n; i++) {
			if (es[i].located)
				hermes_ws_loc_close(&es[i].loc);
			free(es[i].canon);
		}
	free(es);
	free(locks);
	return rc;
}

void hermes_commit_files_free(hermes_commit_file_t *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i].old_data);
		free(files[i].new_data);
		free(files[i].priv);
		files[i].old_data = files[i].new_data = NULL;
		files[i].priv = NULL;
		files[i].old_len = files[i].new_len = 0;
	}
}

int hermes_commit_recover(const hermes_ws_t *ws, hermes_error_t *err)
{
	return hermes_journal_recover(ws, err);
}
