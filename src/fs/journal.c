/* fs/journal.c: the commit journal in .hermes/journal (written, sealed, ended, rolled back,
 * recovered after a kill); see journal.h. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fdio.h"
#include "core/verb.h"
#include "fs/journal.h"

/* ---- fault injection (test only, commit.h) ------------------------------------------------ */

void hermes_journal_crash_point(void)
{
	/* Read at every step (a test sets it in a forked child); steps counted per process. */
	static long step;
	static pid_t counted;
	const char *s = getenv("HERMES_TEST_COMMIT_CRASH_AT");
	long at = s ? strtol(s, NULL, 10) : 0;
	if (at <= 0)
		return;
	pid_t me = getpid();
	if (__atomic_exchange_n(&counted, me, __ATOMIC_RELAXED) != me)
		__atomic_store_n(&step, 0, __ATOMIC_RELAXED);
	if (__atomic_add_fetch(&step, 1, __ATOMIC_RELAXED) == at)
		_exit(137);
}

/* ---- small helpers ------------------------------------------------------------------------ */

static void random_hex(char out[9])
{
	unsigned char r[4];
	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		static unsigned counter;
		unsigned v = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 2654435761u ^
		             (unsigned)getpid();
		memcpy(r, &v, sizeof r);
	}
	snprintf(out, 9, "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
}

void hermes_journal_tmpname(const char *name, char out[NAME_MAX + 1])
{
	char rnd[9];
	random_hex(rnd);
	int keep = NAME_MAX - 1 - 1 - 10 - 1 - 8 - 11;
	snprintf(out, NAME_MAX + 1, ".%.*s.%ld.%s.hermes-tmp", keep, name, (long)getpid(), rnd);
}

static int fsync_dir(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fsync(fd) < 0 && errno != EINVAL ? -errno : 0;
	close(fd);
	return rc;
}

/* Creates .hermes/.gitignore (which keeps .hermes out of git) if it is missing. */
int hermes_journal_make_hermes_dir(const hermes_ws_t *ws)
{
	hermes_ws_loc_t loc;
	int rc = hermes_ws_locate(ws, ".hermes/.gitignore", HERMES_WS_MKDIRS, &loc);
	if (rc)
		return rc;
	if (!loc.exists) {
		int f = openat(loc.dirfd, loc.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		               0666);
		if (f >= 0) {
			static const char ignore[] = "# written by hermes\n*\n";
			(void)!write(f, ignore, sizeof ignore - 1);
			close(f);
		}
	}
	hermes_ws_loc_close(&loc);
	return 0;
}

int hermes_journal_name_lock(const hermes_ws_t *ws, const char *path, int *fd)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 16777619u;
	char rel[32];
	snprintf(rel, sizeof rel, ".hermes/locks/%02x", (unsigned)(h ^ (h >> 8) ^ (h >> 16) ^ (h >> 24)) & 0xff);
	int rc = hermes_journal_make_hermes_dir(ws);
	hermes_ws_loc_t loc;
	if (rc == 0)
		rc = hermes_ws_locate(ws, rel, HERMES_WS_MKDIRS, &loc);
	if (rc)
		return rc;
	*fd = openat(loc.dirfd, loc.name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	rc = *fd < 0 ? -errno : 0;
	hermes_ws_loc_close(&loc);
	return rc;
}

/* .hermes/journal (created with .hermes/.gitignore if create), opened O_RDONLY into *fd. */
int hermes_journal_open_dir(const hermes_ws_t *ws, const char *keep, bool create, int *fd)
{
	hermes_ws_loc_t loc;
	int rc;
	if (create && (rc = hermes_journal_make_hermes_dir(ws)) != 0)
		return rc;
	rc = hermes_ws_locate(ws, keep, create ? HERMES_WS_MKDIRS : 0, &loc);
	if (rc)
		return rc;
	*fd = openat(loc.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = *fd < 0 ? -errno : 0;
	hermes_ws_loc_close(&loc);
	return rc;
}

static int open_root(const hermes_ws_t *ws, bool create, int *fd)
{
	return hermes_journal_open_dir(ws, ".hermes/journal/.keep", create, fd);
}

void hermes_journal_remove_flat_dir(int root_fd, const char *name)
{
	int fd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		DIR *d = fdopendir(fd);
		if (d) {
			struct dirent *e;
			while ((e = readdir(d)) != NULL)
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
					unlinkat(dirfd(d), e->d_name, 0);
			closedir(d);
		} else {
			close(fd);
		}
	}
	unlinkat(root_fd, name, AT_REMOVEDIR);
}

/* ---- writing a journal -------------------------------------------------------------------- */

int hermes_journal_begin(const hermes_ws_t *ws, hermes_journal_t *j)
{
	j->root_fd = j->dir_fd = j->lock_fd = -1;
	int rc = open_root(ws, true, &j->root_fd);
	if (rc)
		return rc;
	for (int tries = 0;; tries++) {
		char rnd[9];
		random_hex(rnd);
		snprintf(j->name, sizeof j->name, "t-%ld-%s", (long)getpid(), rnd);
		if (mkdirat(j->root_fd, j->name, 0700) == 0)
			break;
		if (errno != EEXIST || tries >= 16) {
			rc = -errno;
			close(j->root_fd);
			j->root_fd = -1;
			return rc;
		}
	}
	j->dir_fd = openat(j->root_fd, j->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (j->dir_fd >= 0)
		j->lock_fd = openat(j->dir_fd, "lock", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (j->lock_fd < 0 || flock(j->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		rc = -errno;
		hermes_journal_end(j, false);
		return rc;
	}
	return 0;
}

static int write_file(int dirfd, const char *name, const void *data, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	int rc = hermes_write_all(fd, data, len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

int hermes_journal_backup(hermes_journal_t *j, size_t index, int dirfd, const char *name,
                          const struct stat *st, const void *data, size_t len)
{
	char b[32];
	snprintf(b, sizeof b, "b%zu", index);
	if (linkat(dirfd, name, j->dir_fd, b, 0) == 0) {
		struct stat now;
		if (fstatat(j->dir_fd, b, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_ino == st->st_ino &&
		    now.st_dev == st->st_dev)
			return 0;
		unlinkat(j->dir_fd, b, 0); /* replaced meanwhile: keep the text that was read */
	}
	return write_file(j->dir_fd, b, data, len);
}

static void hex_append(hermes_buf_t *b, const char *s);

int hermes_journal_note_temp(hermes_journal_t *j, const char *path)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hex_append(&b, path);
	hermes_buf_append(&b, "\n", 1);
	int rc = -ENOMEM;
	if (!b.failed) {
		/* Not fsync'd: after a power loss a temporary is only litter, which sweep.h removes. */
		int fd = openat(j->dir_fd, "temps", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		                0600);
		rc = fd < 0 ? -errno : hermes_write_all(fd, b.data, b.len);
		if (fd >= 0)
			close(fd);
	}
	free(b.data);
	return rc;
}

static void hex_append(hermes_buf_t *b, const char *s)
{
	static const char digits[] = "0123456789abcdef";
	for (; *s; s++) {
		char h[2] = {digits[(unsigned char)*s >> 4], digits[(unsigned char)*s & 15]};
		hermes_buf_append(b, h, 2);
	}
	hermes_buf_append(b, "-", 1); /* the end, so that an empty string is a word too */
}

int hermes_journal_seal(hermes_journal_t *j, const hermes_journal_entry_t *entries, size_t n)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	char line[128];
	snprintf(line, sizeof line, "hermes-journal 1 %zu\n", n);
	hermes_buf_append(&b, line, strlen(line));
	for (size_t i = 0; i < n; i++) {
		const hermes_journal_entry_t *e = &entries[i];
		snprintf(line, sizeof line, "%c %d %llu %llu ", e->op, e->backup ? 1 : 0, e->old_ino,
		         e->new_ino);
		hermes_buf_append(&b, line, strlen(line));
		hex_append(&b, e->tmpname);
		hermes_buf_append(&b, " ", 1);
		hex_append(&b, e->path);
		hermes_buf_append(&b, "\n", 1);
	}
	hermes_buf_append(&b, "end\n", 4);
	int rc = b.failed ? -ENOMEM : write_file(j->dir_fd, "intent", b.data, b.len);
	free(b.data);
	if (rc == 0)
		rc = fsync_dir(j->dir_fd);
	char sealed[64];
	snprintf(sealed, sizeof sealed, "j%s", j->name + 1);
	if (rc == 0 && renameat(j->root_fd, j->name, j->root_fd, sealed) < 0)
		rc = -errno;
	if (rc == 0) {
		memcpy(j->name, sealed, sizeof sealed);
		rc = fsync_dir(j->root_fd);
	}
	return rc;
}

void hermes_journal_end(hermes_journal_t *j, bool done)
{
	if (j->root_fd >= 0 && j->name[0]) {
		if (done && j->name[0] == 'j') {
			/* Durably done before anything is removed: a journal that came back after a
			 * crash would undo a commit already reported. */
			char fin[64];
			snprintf(fin, sizeof fin, "d%s", j->name + 1);
			if (renameat(j->root_fd, j->name, j->root_fd, fin) == 0) {
				memcpy(j->name, fin, sizeof fin);
				fsync_dir(j->root_fd);
			}
		}
		hermes_journal_remove_flat_dir(j->root_fd, j->name);
	}
	if (j->lock_fd >= 0)
		close(j->lock_fd);
	if (j->dir_fd >= 0)
		close(j->dir_fd);
	if (j->root_fd >= 0)
		close(j->root_fd);
	j->root_fd = j->dir_fd = j->lock_fd = -1;
}

/* ---- rolling back ------------------------------------------------------------------------- */

static bool is_ino(int dirfd, const char *name, unsigned long long ino)
{
	struct stat st;
	return name[0] && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       (unsigned long long)st.st_ino == ino;
}

static bool exists_at(int dirfd, const char *name)
{
	struct stat st;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Puts backup b (in dir_fd) at name in dirfd, replacing what is there. */
static int restore_backup(int dir_fd, const char *b, int dirfd, const char *name)
{
	char tmp[NAME_MAX + 1];
	for (int tries = 0; tries < 16; tries++) {
		hermes_journal_tmpname(name, tmp);
		if (linkat(dir_fd, b, dirfd, tmp, 0) == 0)
			break;
		if (errno != EEXIST)
			return -errno; /* EXDEV cannot happen: the backup was linked from there, or
			                * copied only because linking failed, in which case see below */
		tmp[0] = '\0';
	}
	if (!tmp[0])
		return -EEXIST;
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		int rc = -errno;
		unlinkat(dirfd, tmp, 0);
		return rc;
	}
	return 0;
}

/* Copies backup b to a new file at name in dirfd (when it cannot be linked there). */
static int copy_backup(int dir_fd, const char *b, int dirfd, const char *name, bool replace)
{
	int in = openat(dir_fd, b, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	hermes_buf_t data = HERMES_BUF_INIT;
	int rc = hermes_read_all(in, 0, &data);
	close(in);
	char tmp[NAME_MAX + 1];
	hermes_journal_tmpname(name, tmp);
	if (rc == 0)
		rc = write_file(dirfd, tmp, data.data ? data.data : "", data.len);
	free(data.data);
	if (rc == 0) {
		if (replace)
			rc = renameat(dirfd, tmp, dirfd, name) < 0 ? -errno : 0;
		else
			rc = renameat2(dirfd, tmp, dirfd, name, RENAME_NOREPLACE) < 0 ? -errno : 0;
	}
	if (rc)
		unlinkat(dirfd, tmp, 0);
	return rc;
}

static int rollback_entry(const hermes_ws_t *ws, int dir_fd, size_t index,
                          const hermes_journal_entry_t *e)
{
	hermes_ws_loc_t loc;
	int rc = hermes_ws_locate(ws, e->path, 0, &loc);
	if (rc)
		return rc == -ENOENT ? 0 : rc; /* its directory is gone: nothing of ours is there */
	char b[32];
	snprintf(b, sizeof b, "b%zu", index);
	rc = 0;
	if (e->op == 'W') {
		if (is_ino(loc.dirfd, e->tmpname, e->new_ino)) {
			unlinkat(loc.dirfd, e->tmpname, 0); /* never renamed */
		} else if (e->backup && is_ino(loc.dirfd, e->tmpname, e->old_ino)) {
			/* exchanged, not yet removed: exchange back by a plain rename */
			if (renameat(loc.dirfd, e->tmpname, loc.dirfd, loc.name) < 0)
				rc = -errno;
		}
		if (rc == 0 && is_ino(loc.dirfd, loc.name, e->new_ino)) {
			if (!e->backup) {
				if (unlinkat(loc.dirfd, loc.name, 0) < 0 && errno != ENOENT)
					rc = -errno;
			} else {
				rc = restore_backup(dir_fd, b, loc.dirfd, loc.name);
				if (rc == -EXDEV)
					rc = copy_backup(dir_fd, b, loc.dirfd, loc.name, true);
			}
		}
	} else if (e->backup) {
		if (is_ino(loc.dirfd, e->tmpname, e->old_ino)) {
			if (renameat2(loc.dirfd, e->tmpname, loc.dirfd, loc.name, RENAME_NOREPLACE) < 0) {
				if (errno == EEXIST)
					unlinkat(loc.dirfd, e->tmpname, 0); /* someone made a new one */
				else
					rc = -errno;
			}
		}
		if (rc == 0 && !exists_at(loc.dirfd, loc.name)) {
			if (linkat(dir_fd, b, loc.dirfd, loc.name, 0) < 0 && errno != EEXIST) {
				rc = errno == EXDEV ? copy_backup(dir_fd, b, loc.dirfd, loc.name, false) : -errno;
				if (rc == -EEXIST)
					rc = 0;
			}
		}
	}
	if (rc == 0)
		rc = fsync_dir(loc.dirfd);
	hermes_ws_loc_close(&loc);
	return rc;
}

int hermes_journal_rollback(const hermes_ws_t *ws, int dir_fd, const hermes_journal_entry_t *entries,
                            size_t n)
{
	int first = 0;
	for (size_t i = n; i-- > 0;) {
		int rc = rollback_entry(ws, dir_fd, i, &entries[i]);
		if (rc && !first)
			first = rc;
	}
	return first;
}

/* ---- recovery ----------------------------------------------------------------------------- */

static int unhex(const char *s, char **out)
{
	size_t n = strcspn(s, "-");
	if (s[n] != '-' || n % 2)
		return -EINVAL;
	char *r = malloc(n / 2 + 1);
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1) {
			free(r);
			return -EINVAL;
		}
		r[i] = (char)v;
	}
	r[n / 2] = '\0';
	if (strlen(r) != n / 2) {
		free(r);
		return -EINVAL;
	}
	*out = r;
	return 0;
}

static void free_entries(hermes_journal_entry_t *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
}

/* Reads the intent file of a journal directory. 0 or -errno (-EINVAL if it is malformed). */
static int read_intent(int dir_fd, hermes_journal_entry_t **out, size_t *count)
{
	int fd = openat(dir_fd, "intent", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	hermes_buf_t b = HERMES_BUF_INIT;
	int rc = hermes_read_all(fd, 64u << 20, &b);
	close(fd);
	if (rc || !b.data) {
		free(b.data);
		return rc ? rc : -EINVAL;
	}
	size_t n = 0;
	char *p = b.data;
	if (sscanf(p, "hermes-journal 1 %zu", &n) != 1 || n == 0 || n > 1u << 20 ||
	    b.len < 5 || memcmp(b.data + b.len - 4, "end\n", 4) != 0) {
		free(b.data);
		return -EINVAL;
	}
	hermes_journal_entry_t *e = calloc(n, sizeof *e);
	if (!e) {
		free(b.data);
		return -ENOMEM;
	}
	rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		p = strchr(p, '\n');
		if (!p) {
			rc = -EINVAL;
			break;
		}
		p++;
		int backup, used = 0;
		char tmp[2 * NAME_MAX + 3], path[2 * PATH_MAX + 3];
		if (sscanf(p, "%c %d %llu %llu %*s %*s%n", &e[i].op, &backup, &e[i].old_ino,
		           &e[i].new_ino, &used) != 4 || used == 0 ||
		    (e[i].op != 'W' && e[i].op != 'D') ||
		    sscanf(p + 2, "%*d %*u %*u %512s %8194s", tmp, path) != 2) {
			rc = -EINVAL;
			break;
		}
		e[i].backup = backup != 0;
		char *t = NULL;
		rc = unhex(tmp, &t);
		if (rc == 0 && strlen(t) > NAME_MAX)
			rc = -EINVAL;
		if (rc == 0)
			memcpy(e[i].tmpname, t, strlen(t) + 1);
		free(t);
		if (rc == 0)
			rc = unhex(path, &e[i].path);
	}
	free(b.data);
	if (rc) {
		free_entries(e, n);
		return rc;
	}
	*out = e;
	*count = n;
	return 0;
}

/* Removes the temporary files an unsealed journal lists (a commit killed before its seal). */
static void remove_temps(const hermes_ws_t *ws, int root_fd, const char *name)
{
	int dfd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd = dfd >= 0 ? openat(dfd, "temps", O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	hermes_buf_t b = HERMES_BUF_INIT;
	if (fd >= 0 && hermes_read_all(fd, 64u << 20, &b) == 0 && b.data) {
		for (char *line = b.data, *nl; (nl = memchr(line, '\n', b.len - (size_t)(line - b.data)));
		     line = nl + 1) {
			*nl = '\0';
			char *path = NULL;
			hermes_ws_loc_t loc;
			if (unhex(line, &path) == 0 && hermes_ws_locate(ws, path, 0, &loc) == 0) {
				size_t l = strlen(loc.name);
				if (loc.exists && S_ISREG(loc.st.st_mode) && l > 11 &&
				    strcmp(loc.name + l - 11, ".hermes-tmp") == 0)
					unlinkat(loc.dirfd, loc.name, 0);
				hermes_ws_loc_close(&loc);
			}
			free(path);
		}
	}
	free(b.data);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
}

/* Is the journal directory name locked by a live commit (journal.h)? A pid alone cannot tell
 * when the process lives in another PID namespace. */
static bool held(int root_fd, const char *name)
{
	int dfd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return false;
	int fd = openat(dfd, "lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return false;
	bool busy = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

static bool process_gone(const char *name)
{
	long pid = strtol(name + 2, NULL, 10);
	if (pid <= 0 || pid == (long)getpid())
		return false;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* Recovers one sealed journal if its process is dead (its lock is free). */
static int recover_one(const hermes_ws_t *ws, int root_fd, const char *name, hermes_error_t *err)
{
	hermes_journal_t j = {root_fd, -1, -1, ""};
	j.dir_fd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (j.dir_fd < 0)
		return 0; /* finished meanwhile */
	j.lock_fd = openat(j.dir_fd, "lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (j.lock_fd >= 0 && flock(j.lock_fd, LOCK_EX | LOCK_NB) < 0) {
		close(j.lock_fd);
		close(j.dir_fd);
		return 0; /* a live commit */
	}
	hermes_journal_entry_t *e = NULL;
	size_t n = 0;
	int rc = read_intent(j.dir_fd, &e, &n);
	if (rc == 0) {
		rc = hermes_journal_rollback(ws, j.dir_fd, e, n);
		free_entries(e, n);
	}
	if (rc) {
		char why[256];
		hermes_error_set(err, hermes_ws_errcode(rc),
		                 "cannot undo the unfinished commit in .hermes/journal/%s: %s", name,
		                 hermes_ws_strerror(rc, why, sizeof why));
		if (j.lock_fd >= 0)
			close(j.lock_fd);
		close(j.dir_fd);
		return -1;
	}
	snprintf(j.name, sizeof j.name, "%s", name);
	j.root_fd = dup(root_fd);
	if (j.root_fd < 0) {
		j.name[0] = '\0';
		hermes_journal_remove_flat_dir(root_fd, name);
	}
	hermes_journal_end(&j, false);
	return 0;
}

/* Does the journal directory hold any commit (t-, j- or d-)? */
static bool has_entries(int root_fd)
{
	int dfd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return true; /* let the full pass say what is wrong */
	}
	bool any = false;
	struct dirent *ent;
	while (!any && (ent = readdir(d)) != NULL)
		any = strchr("tjd", ent->d_name[0]) && ent->d_name[0] && ent->d_name[1] == '-';
	closedir(d);
	return any;
}

int hermes_journal_recover(const hermes_ws_t *ws, hermes_error_t *err)
{
	int root_fd;
	int rc = open_root(ws, false, &root_fd);
	if (rc == -ENOENT || rc == -ENOTDIR || rc == HERMES_WS_EOUTSIDE)
		return 0; /* no journal could have been written there (.hermes is not ours) */
	if (rc) {
		char why[256];
		hermes_error_set(err, hermes_ws_errcode(rc), "cannot open .hermes/journal: %s",
		                 hermes_ws_strerror(rc, why, sizeof why));
		return -1;
	}
	if (!has_entries(root_fd)) {
		close(root_fd); /* the common case, for every write: no lock taken */
		return 0;
	}
	/* One recoverer at a time; a commit never waits for this lock. */
	while (flock(root_fd, LOCK_EX) < 0 && errno == EINTR)
		;
	int dfd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		close(root_fd);
		return 0;
	}
	int result = 0;
	struct dirent *ent;
	while ((ent = readdir(d)) != NULL) {
		const char *name = ent->d_name;
		if ((name[0] != 't' && name[0] != 'j' && name[0] != 'd') || name[1] != '-')
			continue;
		if (name[0] == 'j') {
			if (recover_one(ws, root_fd, name, err) < 0)
				result = -1;
		} else if (process_gone(name) && !held(root_fd, name)) {
			if (name[0] == 't')
				remove_temps(ws, root_fd, name);
			hermes_journal_remove_flat_dir(root_fd, name); /* nothing touched yet, or all done */
		}
	}
	closedir(d);
	close(root_fd); /* drops the lock */
	return result;
}
