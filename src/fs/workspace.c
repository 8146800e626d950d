/* fs/workspace.c: path confinement beneath the workspace root (see workspace.h for the rules).
 * The walk below mirrors the kernel's path resolution, one component at a time over directory
 * descriptors, so that what it decides is exactly what the operation then touches. */
#include <config.h>

#include "fs/workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#endif

#include "core/verb.h"

#define WS_MAX_LINKS 40 /* like the kernel's MAXSYMLINKS */

/* ---- lexical helpers --------------------------------------------------------------------- */

/* Checks the length rules: the whole path under PATH_MAX, each component at most NAME_MAX. */
static int check_lengths(const char *path)
{
	size_t len = strlen(path);
	if (len == 0)
		return HERMES_WS_EEMPTY;
	if (len >= PATH_MAX)
		return HERMES_WS_ETOOLONG;
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n > NAME_MAX)
			return HERMES_WS_ETOOLONG;
		p += n;
	}
	return 0;
}

/* If path (absolute) lies under root (absolute), compared component by component so that "/w/ws"
 * does not admit "/w/ws-evil", returns the rest of path after root's components (maybe ""), else
 * NULL. Empty and "." components are skipped on both sides; ".." is left for the resolver. */
static const char *strip_root(const char *root, const char *path)
{
	const char *r = root, *p = path;
	for (;;) {
		while (*r == '/' || (r[0] == '.' && (r[1] == '/' || r[1] == '\0')))
			r++;
		while (*p == '/' || (p[0] == '.' && (p[1] == '/' || p[1] == '\0')))
			p++;
		if (*r == '\0')
			return p;
		size_t rn = strcspn(r, "/"), pn = strcspn(p, "/");
		if (rn != pn || memcmp(r, p, rn) != 0)
			return NULL;
		r += rn;
		p += pn;
	}
}

/* Turns a request path into one relative to the root (malloc'd into *rel). */
static int make_relative(const hermes_ws_t *ws, const char *path, char **rel)
{
	int rc = check_lengths(path);
	if (rc)
		return rc;
	const char *rest = path;
	if (path[0] == '/') {
		rest = strip_root(ws->root, path);
		if (!rest && ws->given_root)
			rest = strip_root(ws->given_root, path);
		if (!rest)
			return HERMES_WS_EOUTSIDE;
	}
	*rel = strdup(*rest ? rest : ".");
	return *rel ? 0 : -ENOMEM;
}

/* ---- the descriptor walk ----------------------------------------------------------------- */

/* Re-opens the directory whose path from the root is canon ("" = root), component by component
 * with O_NOFOLLOW: used for "..", so that a directory renamed away meanwhile cannot lead out. */
static int reopen_canonical(const hermes_ws_t *ws, const char *canon, int *out)
{
	int dfd = openat(ws->root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	char name[NAME_MAX + 1];
	const char *p = canon;
	while (*p) {
		size_t n = strcspn(p, "/");
		memcpy(name, p, n);
		name[n] = '\0';
		int fd = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(dfd);
		if (fd < 0)
			return -e;
		dfd = fd;
		p += n;
		if (*p == '/')
			p++;
	}
	*out = dfd;
	return 0;
}

/* The state of one resolution by walk(): where it stands (dfd, and its path from the root in
 * canon), what is left to resolve (p, within todo), and how many links it followed. */
typedef struct walker {
	const hermes_ws_t *ws;
	char canon[PATH_MAX * 2];
	size_t clen;
	int dfd;
	char *todo; /* malloc'd: the path, rewritten when a symlink is followed */
	const char *p;
	int links;
} walker_t;

/* Moves to the directory at canon (from the root): after "..", or a link back to the root. */
static int walker_reopen(walker_t *w)
{
	int nfd;
	int rc = reopen_canonical(w->ws, w->canon, &nfd);
	if (rc)
		return rc;
	close(w->dfd);
	w->dfd = nfd;
	return 0;
}

/* "..": one level up, never above the root. */
static int walker_up(walker_t *w)
{
	if (w->clen == 0) {
		if (strcmp(w->ws->root, "/") == 0)
			return 0; /* with --root /, "/.." is "/" as everywhere else */
		return HERMES_WS_EOUTSIDE;
	}
	char *slash = strrchr(w->canon, '/');
	w->clen = slash ? (size_t)(slash - w->canon) : 0;
	w->canon[w->clen] = '\0';
	return walker_reopen(w);
}

/* The symlink open as fd (consumed) replaces its component: what is left to resolve becomes
 * its target followed by the rest (from p). An absolute target must lead inside the root. */
static int walker_follow(walker_t *w, int fd)
{
	char target[PATH_MAX + 1];
	ssize_t tn = readlinkat(fd, "", target, sizeof target);
	close(fd);
	if (tn < 0)
		return -errno;
	if ((size_t)tn >= sizeof target || tn == 0)
		return tn == 0 ? -ENOENT : -ENAMETOOLONG;
	target[tn] = '\0';
	if (++w->links > WS_MAX_LINKS)
		return -ELOOP;
	const char *tstart = target;
	if (target[0] == '/') {
		tstart = strip_root(w->ws->root, target);
		if (!tstart)
			return HERMES_WS_EOUTSIDE;
		/* Absolute and inside: start again from the root. */
		w->clen = 0;
		w->canon[0] = '\0';
		int rc = walker_reopen(w);
		if (rc)
			return rc;
	}
	/* todo = target + "/" + rest; the rest starts at p (a '/' or the end). */
	size_t tl = strlen(tstart), rl = strlen(w->p);
	if (tl + rl + 2 > PATH_MAX * 2)
		return -ENAMETOOLONG;
	char *next = malloc(tl + rl + 2);
	if (!next)
		return -ENOMEM;
	memcpy(next, tstart, tl);
	next[tl] = '/';
	memcpy(next + tl + (rl ? 1 : 0), w->p, rl + 1); /* no '/' added after a final link */
	free(w->todo);
	w->todo = next;
	w->p = next;
	return 0;
}

/* The directory open as fd (consumed) becomes where the walk stands. */
static int walker_enter(walker_t *w, int fd, const char *name, size_t n)
{
	if (w->clen + n + 2 > sizeof w->canon) {
		close(fd);
		return -ENAMETOOLONG;
	}
	if (w->clen)
		w->canon[w->clen++] = '/';
	memcpy(w->canon + w->clen, name, n + 1);
	w->clen += n;
	close(w->dfd);
	w->dfd = fd;
	return 0;
}

/* Opens component name of the current directory without following it (creating it as a
 * directory first if mkdirs and it is missing). The descriptor (O_PATH) in *fd, its status in st. */
static int walker_open(walker_t *w, const char *name, bool mkdirs, int *fd, struct stat *st)
{
	*fd = openat(w->dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0 && errno == ENOENT && mkdirs) {
		if (mkdirat(w->dfd, name, 0777) < 0 && errno != EEXIST)
			return -errno;
		*fd = openat(w->dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (*fd < 0)
		return -errno;
	if (fstat(*fd, st) < 0) {
		int rc = -errno;
		close(*fd);
		return rc;
	}
	return 0;
}

/* Resolves rel beneath the root the way the kernel would, but refusing to leave the root. On
 * success the final object is opened with oflags into *out (if out), and its path from the root
 * is left in canon (if canon; size PATH_MAX*2) when it is a directory. mkdirs creates missing
 * components as directories. */
static int walk(const hermes_ws_t *ws, const char *rel, int oflags, bool mkdirs, int *out,
                char *canon_out)
{
	walker_t w = {.ws = ws, .clen = 0, .links = 0};
	w.canon[0] = '\0';
	char name[NAME_MAX + 1];
	if ((w.todo = strdup(rel)) == NULL)
		return -ENOMEM;
	if ((w.dfd = openat(ws->root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		free(w.todo);
		return -errno;
	}
	int rc = 0;
	w.p = w.todo;
	for (;;) {
		while (*w.p == '/')
			w.p++;
		if (*w.p == '\0') {
			/* The path ends at a directory (the current one). */
			if (out && (*out = openat(w.dfd, ".", oflags | O_CLOEXEC)) < 0)
				rc = -errno;
			else if (canon_out)
				memcpy(canon_out, w.canon, w.clen + 1);
			break;
		}
		size_t n = strcspn(w.p, "/");
		if (n > NAME_MAX) {
			rc = HERMES_WS_ETOOLONG;
			break;
		}
		memcpy(name, w.p, n);
		name[n] = '\0';
		w.p += n;
		bool slash_after = (*w.p == '/');
		const char *q = w.p;
		while (*q == '/')
			q++;
		bool last = (*q == '\0');
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			if ((rc = walker_up(&w)) != 0)
				break;
			continue;
		}
		int fd;
		struct stat st;
		if ((rc = walker_open(&w, name, mkdirs, &fd, &st)) != 0)
			break;
		if (S_ISLNK(st.st_mode)) {
			if ((rc = walker_follow(&w, fd)) != 0)
				break;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if ((rc = walker_enter(&w, fd, name, n)) != 0)
				break;
			continue;
		}
		/* Not a directory: only acceptable as the final component, without a trailing slash. */
		close(fd);
		if (!last || slash_after) {
			rc = -ENOTDIR;
			break;
		}
		if (out && (*out = openat(w.dfd, name, oflags | O_NOFOLLOW | O_CLOEXEC)) < 0)
			rc = errno == ELOOP ? -EAGAIN : -errno; /* swapped for a symlink meanwhile */
		else if (canon_out)
			canon_out[0] = '\0'; /* not a directory: no canonical directory path */
		break;
	}
	close(w.dfd);
	free(w.todo);
	return rc;
}

#ifdef SYS_openat2
static int try_openat2(const hermes_ws_t *ws, const char *rel, int oflags, int *out)
{
#ifdef HAVE_LINUX_OPENAT2_H
	struct open_how how;
	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)(oflags | O_CLOEXEC);
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	for (int tries = 0; tries < 3; tries++) {
		long fd = syscall(SYS_openat2, ws->root_fd, rel, &how, sizeof how);
		if (fd >= 0) {
			*out = (int)fd;
			return 0;
		}
		if (errno != EAGAIN)
			return -errno;
	}
	return -EAGAIN;
#else
	(void)ws; (void)rel; (void)oflags; (void)out;
	return -ENOSYS;
#endif
}
#endif

/* Opens rel (relative) beneath the root. openat2 answers most requests in one call; whatever it
 * refuses for a reason the walk can settle (an escape, an absolute symlink, a retry) goes to the
 * walk, which is authoritative. */
static int open_beneath(const hermes_ws_t *ws, const char *rel, int oflags, bool mkdirs, int *out)
{
#ifdef SYS_openat2
	if (ws->use_openat2) {
		int rc = try_openat2(ws, rel, oflags, out);
		if (rc == 0)
			return 0;
		switch (-rc) {
		case EXDEV: case ELOOP: case EAGAIN: case ENOSYS: case EPERM: case EINVAL: case E2BIG:
			break; /* let the walk decide */
		case ENOENT:
			if (mkdirs)
				break;
			return rc;
		default:
			return rc;
		}
	}
#endif
	int rc = walk(ws, rel, oflags, mkdirs, out, NULL);
	if (rc == -EAGAIN)
		rc = walk(ws, rel, oflags, mkdirs, out, NULL);
	return rc;
}

int hermes_ws_open_path(const hermes_ws_t *ws, const char *path, int oflags, int *fd)
{
	char *rel = NULL;
	int rc = make_relative(ws, path, &rel);
	if (rc)
		return rc;
	rc = open_beneath(ws, rel, oflags, false, fd);
	free(rel);
	return rc;
}

/* ---- locating a final component ---------------------------------------------------------- */

void hermes_ws_loc_close(hermes_ws_loc_t *loc)
{
	if (loc->dirfd >= 0 && !loc->borrowed)
		close(loc->dirfd);
	loc->dirfd = -1;
	loc->borrowed = false;
}

/* Fills loc for a directory given by its canonical path from the root (the ".", ".." case). */
static int locate_canonical(const hermes_ws_t *ws, const char *canon, hermes_ws_loc_t *loc)
{
	if (canon[0] == '\0') {
		loc->is_root = true;
		loc->exists = true;
		return fstat(ws->root_fd, &loc->st) < 0 ? -errno : 0;
	}
	char dir[PATH_MAX * 2];
	const char *slash = strrchr(canon, '/');
	size_t dn = slash ? (size_t)(slash - canon) : 0;
	memcpy(dir, canon, dn);
	dir[dn] = '\0';
	const char *nm = slash ? slash + 1 : canon;
	if (strlen(nm) > NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(loc->name, nm);
	int rc = reopen_canonical(ws, dir, &loc->dirfd);
	if (rc)
		return rc;
	if (fstatat(loc->dirfd, loc->name, &loc->st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = -errno;
		hermes_ws_loc_close(loc);
		return rc;
	}
	loc->exists = true;
	return 0;
}

int hermes_ws_locate(const hermes_ws_t *ws, const char *path, unsigned flags, hermes_ws_loc_t *loc)
{
	memset(loc, 0, sizeof *loc);
	loc->dirfd = -1;
	char *rel = NULL;
	int rc = make_relative(ws, path, &rel);
	if (rc)
		return rc;
	size_t plen = strlen(path);
	loc->trailing_slash = plen > 1 && path[plen - 1] == '/';
	for (int links = 0;; links++) {
		if (links > WS_MAX_LINKS) {
			rc = -ELOOP;
			break;
		}
		/* Split rel into its directory part and final component. */
		size_t len = strlen(rel);
		while (len > 1 && rel[len - 1] == '/')
			rel[--len] = '\0';
		char *slash = strrchr(rel, '/');
		const char *last = slash ? slash + 1 : rel;
		if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0 || strcmp(rel, "/") == 0) {
			char canon[PATH_MAX * 2];
			rc = walk(ws, rel, O_PATH | O_DIRECTORY, (flags & HERMES_WS_MKDIRS) != 0, NULL, canon);
			if (rc == 0)
				rc = locate_canonical(ws, canon, loc);
			break;
		}
		if (strlen(last) > NAME_MAX) {
			rc = HERMES_WS_ETOOLONG;
			break;
		}
		strcpy(loc->name, last);
		char *dirpart;
		if (slash) {
			dirpart = strndup(rel, (size_t)(slash - rel) + 1); /* keeps "/" for "/x" */
		} else {
			dirpart = strdup(".");
		}
		if (!dirpart) {
			rc = -ENOMEM;
			break;
		}
		if (slash) {
			rc = open_beneath(ws, dirpart, O_PATH | O_DIRECTORY, (flags & HERMES_WS_MKDIRS) != 0,
			                  &loc->dirfd);
		} else { /* a name in the root: its descriptor, rather than opening "." beneath it again
			  * (fs.exists of such a name: one system call instead of three) */
			loc->dirfd = ws->root_fd;
			loc->borrowed = true;
			rc = 0;
		}
		if (rc) {
			free(dirpart);
			break;
		}
		if (fstatat(loc->dirfd, loc->name, &loc->st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = errno == ENOENT ? 0 : -errno;
			free(dirpart);
			if (rc)
				hermes_ws_loc_close(loc);
			break;
		}
		loc->exists = true;
		if (!S_ISLNK(loc->st.st_mode)) {
			free(dirpart);
			break;
		}
		/* A symlink: where does it lead? */
		char target[PATH_MAX + 1];
		ssize_t tn = readlinkat(loc->dirfd, loc->name, target, sizeof target);
		if (tn <= 0 || (size_t)tn >= sizeof target) {
			rc = tn < 0 ? -errno : -ENAMETOOLONG;
			free(dirpart);
			hermes_ws_loc_close(loc);
			break;
		}
		target[tn] = '\0';
		char *chased;
		if (target[0] == '/') {
			const char *in = strip_root(ws->root, target);
			if (!in) {
				rc = HERMES_WS_EOUTSIDE;
				free(dirpart);
				hermes_ws_loc_close(loc);
				break;
			}
			chased = strdup(*in ? in : ".");
		} else {
			chased = malloc(strlen(dirpart) + strlen(target) + 2);
			if (chased)
				sprintf(chased, "%s/%s", slash ? dirpart : ".", target);
		}
		free(dirpart);
		if (!chased) {
			rc = -ENOMEM;
			hermes_ws_loc_close(loc);
			break;
		}
		if (flags & HERMES_WS_FOLLOW) {
			hermes_ws_loc_close(loc);
			free(rel);
			rel = chased;
			memset(&loc->st, 0, sizeof loc->st);
			loc->exists = false;
			continue;
		}
		/* Not following: the link is what the verb acts on, but it may not lead outside. */
		int fd;
		int crc = open_beneath(ws, chased, O_PATH, false, &fd);
		free(chased);
		if (crc == 0)
			close(fd);
		if (crc == HERMES_WS_EOUTSIDE) {
			rc = crc;
			hermes_ws_loc_close(loc);
		}
		break;
	}
	free(rel);
	return rc;
}

/* ---- opening the workspace ---------------------------------------------------------------- */

/* The absolute, lexically normalised form of p ("." and ".." folded, no symlinks resolved). */
static char *lexical_absolute(const char *p)
{
	char *buf = malloc(PATH_MAX * 2);
	if (!buf)
		return NULL;
	size_t len = 0;
	if (p[0] != '/') {
		if (!getcwd(buf, PATH_MAX)) {
			free(buf);
			return NULL;
		}
		len = strlen(buf);
		if (len == 1)
			len = 0;
	}
	while (*p) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && buf[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
		} else {
			if (len + n + 2 > PATH_MAX * 2) {
				free(buf);
				return NULL;
			}
			buf[len++] = '/';
			memcpy(buf + len, p, n);
			len += n;
		}
		p += n;
	}
	if (len == 0)
		buf[len++] = '/';
	buf[len] = '\0';
	return buf;
}

int hermes_ws_open(const char *root, hermes_ws_t **out, hermes_error_t *err)
{
	const char *given = root ? root : ".";
	char shown[256];
	char *resolved = realpath(given, NULL);
	if (!resolved) {
		int e = errno;
		hermes_error_set(err, e == ENOENT ? HERMES_E_NOT_FOUND : hermes_ws_errcode(-e),
		                 "cannot use '%s' as the workspace root: %s",
		                 hermes_ws_shown(given, shown, sizeof shown), strerror(e));
		return -1;
	}
	int fd = open(resolved, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		hermes_error_set(err, hermes_ws_errcode(-e), "cannot use '%s' as the workspace root: %s",
		                 hermes_ws_shown(given, shown, sizeof shown),
		                 e == ENOTDIR ? "not a directory" : strerror(e));
		free(resolved);
		return -1;
	}
	hermes_ws_t *ws = calloc(1, sizeof *ws);
	char *lex = lexical_absolute(given);
	if (!ws || !lex) {
		free(ws);
		free(lex);
		free(resolved);
		close(fd);
		hermes_error_set(err, HERMES_E_INTERNAL, "cannot open the workspace: out of memory");
		return -1;
	}
	ws->root_fd = fd;
	ws->root = resolved;
	/* The root as given is a second spelling of it only if it names the same directory: "a/.."
	 * where a is a symlink names the directory above a's target, not the one that holds a. */
	char *lex_resolved = strcmp(lex, resolved) != 0 ? realpath(lex, NULL) : NULL;
	if (lex_resolved && strcmp(lex_resolved, resolved) == 0) {
		ws->given_root = lex;
	} else {
		free(lex);
	}
	free(lex_resolved);
	const char *no2 = getenv("HERMES_TEST_NO_OPENAT2");
	ws->use_openat2 = !(no2 && *no2 && strcmp(no2, "0") != 0);
#ifdef SYS_openat2
	if (ws->use_openat2) {
		int probe;
		if (try_openat2(ws, ".", O_PATH | O_DIRECTORY, &probe) == 0)
			close(probe);
		else
			ws->use_openat2 = false;
	}
#else
	ws->use_openat2 = false;
#endif
	*out = ws;
	return 0;
}

void hermes_ws_free(void *p)
{
	hermes_ws_t *ws = p;
	if (!ws)
		return;
	close(ws->root_fd);
	free(ws->root);
	free(ws->given_root);
	free(ws);
}

/* ---- the canonical path of a directory (fs.search, fs.glob) ------------------------------- */

/* The name under which parent lists the object st describes, into name (NAME_MAX + 1 bytes). */
static int name_in_parent(int parent, const struct stat *st, char *name)
{
	int dfd = openat(parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		int e = errno;
		close(dfd);
		return -e;
	}
	/* d_ino first; a mount point's d_ino is not its root's, so then compare with fstatat. */
	int rc = -ENOENT;
	for (int pass = 0; pass < 2 && rc == -ENOENT; pass++) {
		rewinddir(d);
		struct dirent *de;
		while ((de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (pass == 0 && de->d_ino != st->st_ino)
				continue;
			struct stat est;
			if (fstatat(parent, de->d_name, &est, AT_SYMLINK_NOFOLLOW) == 0 &&
			    est.st_ino == st->st_ino && est.st_dev == st->st_dev) {
				snprintf(name, NAME_MAX + 1, "%s", de->d_name);
				rc = 0;
				break;
			}
		}
	}
	closedir(d);
	return rc;
}

int hermes_ws_dir_path(const hermes_ws_t *ws, int dirfd, char **out)
{
	struct stat root, st;
	if (fstat(ws->root_fd, &root) < 0)
		return -errno;
	int cur = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	char *buf = malloc(PATH_MAX * 2);
	if (!buf) {
		close(cur);
		return -ENOMEM;
	}
	size_t pos = PATH_MAX * 2 - 1; /* the path is built backwards from the end of buf */
	buf[pos] = '\0';
	int rc = 0;
	for (;;) {
		if (fstat(cur, &st) < 0) {
			rc = -errno;
			break;
		}
		if (st.st_ino == root.st_ino && st.st_dev == root.st_dev)
			break;
		int parent = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0) {
			rc = -errno;
			break;
		}
		struct stat pst;
		if (fstat(parent, &pst) < 0 || (pst.st_ino == st.st_ino && pst.st_dev == st.st_dev)) {
			close(parent);
			rc = HERMES_WS_EOUTSIDE; /* reached "/" without meeting the root */
			break;
		}
		char name[NAME_MAX + 1];
		rc = name_in_parent(parent, &st, name);
		if (rc) {
			close(parent);
			break;
		}
		size_t n = strlen(name);
		if (n + 1 > pos) {
			close(parent);
			rc = -ENAMETOOLONG;
			break;
		}
		if (buf[pos])
			buf[--pos] = '/';
		pos -= n;
		memcpy(buf + pos, name, n);
		close(cur);
		cur = parent;
	}
	close(cur);
	if (rc) {
		free(buf);
		return rc;
	}
	memmove(buf, buf + pos, PATH_MAX * 2 - pos);
	*out = buf;
	return 0;
}
