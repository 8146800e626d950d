/* fs/watch.c: a watched tree (see watch.h). The kernel's events are read under the watch's lock
 * by whichever reader asks; each directory watched is a node that knows its path, its parent and
 * its ignore files; events go into a ring of `keep` slots numbered by cursor. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs/ignore.h"
#include "fs/watch.h"

#define MASK (IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | \
              IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
#define MAX_DEPTH 256     /* directories deeper than this below the watch are not entered */
#define MERGE_LOOKBACK 256 /* unread events looked at when merging a burst */

typedef struct wdir {
	int wd;
	char *path;          /* workspace-relative, "" for the workspace root */
	struct wdir *parent; /* NULL for the watched directory */
	int depth;
	bool doomed; /* being forgotten with a directory above it */
	hermes_ignore_dir_t ign;
} wdir_t;

typedef struct ev {
	hermes_watch_kind_t kind;
	bool is_dir;
	char *path, *old_path;
} ev_t;

struct hermes_watch {
	pthread_mutex_t lock;
	int fd;      /* the inotify instance */
	int root_fd; /* the workspace root as the watch started (a server may move on to another) */
	hermes_watch_opts_t opts;
	hermes_ignore_dir_t *above; /* the ignore files of the directories above the watched one */
	size_t above_n;
	wdir_t **dirs; /* by watch descriptor */
	size_t dirs_cap;
	wdir_t *root;
	bool gone; /* the watched directory itself was deleted or moved */
	atomic_bool closed;
	ev_t *ring;
	int64_t first, next; /* cursors of the oldest event kept and of the next one */
	int64_t handed;      /* events before it were handed to a reader: never merged into */
	int64_t read_at;     /* where the previous read stopped */
	bool from_pending;   /* an IN_MOVED_FROM waiting for its IN_MOVED_TO */
	uint32_t from_cookie;
	char *from_path;
	bool from_dir, from_shown;
	/* the last save through a temporary name (hidden -> shown), for the second half of an
	 * exchange (renameat2 RENAME_EXCHANGE, Hermes' own writes): shown -> that same hidden name */
	char *saved_shown, *saved_hidden;
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
};

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);
	if (!p)
		return NULL;
	memcpy(p, dir, a);
	if (a)
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

/* ---- the ring ----------------------------------------------------------------------------- */

static ev_t *slot(hermes_watch_t *w, int64_t seq)
{
	return &w->ring[seq % w->opts.keep];
}

static void ev_clear(ev_t *e)
{
	free(e->path);
	free(e->old_path);
	e->path = e->old_path = NULL;
}

/* Keeps an event (path and old_path are copied). Out of memory, it is kept as an overflow. */
static void push(hermes_watch_t *w, hermes_watch_kind_t kind, bool is_dir, const char *path,
                 const char *old_path)
{
	if (kind == HERMES_WATCH_CREATED || kind == HERMES_WATCH_MODIFIED) {
		/* A burst for one path nobody has read yet is one event. */
		int64_t stop = w->handed > w->first ? w->handed : w->first;
		if (w->next - stop > MERGE_LOOKBACK)
			stop = w->next - MERGE_LOOKBACK;
		for (int64_t s = w->next - 1; s >= stop; s--) {
			ev_t *e = slot(w, s);
			if (e->kind == HERMES_WATCH_OVERFLOW)
				break;
			bool same = strcmp(e->path, path) == 0;
			if (!same && !(e->old_path && strcmp(e->old_path, path) == 0))
				continue;
			if (same && (e->kind == HERMES_WATCH_CREATED || e->kind == HERMES_WATCH_MODIFIED))
				return;
			break;
		}
	}
	if (w->next - w->first == w->opts.keep) {
		ev_clear(slot(w, w->first)); /* a reader before it sees overflow */
		w->first++;
	}
	ev_t *e = slot(w, w->next);
	e->kind = kind;
	e->is_dir = is_dir;
	e->path = kind == HERMES_WATCH_OVERFLOW ? NULL : strdup(path[0] ? path : ".");
	e->old_path = old_path ? strdup(old_path) : NULL;
	if ((kind != HERMES_WATCH_OVERFLOW && !e->path) || (old_path && !e->old_path)) {
		ev_clear(e);
		e->kind = HERMES_WATCH_OVERFLOW;
	}
	w->next++;
}

/* ---- the directories watched -------------------------------------------------------------- */

static bool under(const wdir_t *d, const wdir_t *top)
{
	for (; d; d = d->parent)
		if (d == top)
			return true;
	return false;
}

/* Forgets top and every directory below it (asking the kernel to drop their watches if rm). */
static void forget_tree(hermes_watch_t *w, wdir_t *top, bool rm)
{
	/* Marked first, then freed: under() walks parents, which must all still be there. */
	for (size_t i = 0; i < w->dirs_cap; i++)
		if (w->dirs[i] && w->dirs[i] != top && under(w->dirs[i], top))
			w->dirs[i]->doomed = true;
	for (size_t i = 0; i < w->dirs_cap; i++) {
		wdir_t *d = w->dirs[i];
		if (!d || !d->doomed)
			continue;
		w->dirs[i] = NULL;
		if (rm)
			inotify_rm_watch(w->fd, d->wd);
		hermes_ignore_dir_clear(&d->ign);
		free(d->path);
		free(d);
	}
	w->dirs[top->wd] = NULL;
	if (rm)
		inotify_rm_watch(w->fd, top->wd);
	if (top == w->root)
		w->root = NULL;
	hermes_ignore_dir_clear(&top->ign);
	free(top->path);
	free(top);
}

static wdir_t *find_path(hermes_watch_t *w, const char *path)
{
	for (size_t i = 0; i < w->dirs_cap; i++)
		if (w->dirs[i] && strcmp(w->dirs[i]->path, path) == 0)
			return w->dirs[i];
	return NULL;
}

static bool skipped(hermes_watch_t *w, const wdir_t *d, const char *path, const char *name,
                    bool is_dir)
{
	if (strcmp(name, ".git") == 0)
		return true;
	hermes_ignore_opts_t o = {.respect_ignore = w->opts.respect_ignore,
	                          .include_hidden = w->opts.include_hidden};
	return hermes_ignore_skips(&d->ign, &o, path, strlen(path), name, is_dir);
}

/* Watches the directory open as fd (path: its workspace path; parent: its node, NULL for the
 * watched directory). 0 with *out its node (NULL if the kernel already watched that directory
 * under another path: a bind mount), or -errno. */
static int add_dir(hermes_watch_t *w, int fd, const char *path, wdir_t *parent, wdir_t **out)
{
	char proc[64];
	*out = NULL;
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	int wd = inotify_add_watch(w->fd, proc, MASK);
	if (wd < 0)
		return -errno;
	if ((size_t)wd >= w->dirs_cap) {
		size_t cap = w->dirs_cap ? w->dirs_cap : 64;
		while (cap <= (size_t)wd)
			cap *= 2;
		wdir_t **dirs = realloc(w->dirs, cap * sizeof *dirs);
		if (!dirs)
			goto nomem;
		memset(dirs + w->dirs_cap, 0, (cap - w->dirs_cap) * sizeof *dirs);
		w->dirs = dirs;
		w->dirs_cap = cap;
	}
	if (w->dirs[wd])
		return 0; /* the same directory again */
	wdir_t *d = calloc(1, sizeof *d);
	if (!d || !(d->path = strdup(path))) {
		free(d);
		goto nomem;
	}
	d->wd = wd;
	d->parent = parent;
	d->depth = parent ? parent->depth + 1 : 0;
	d->ign.parent = parent ? &parent->ign : (w->above_n ? &w->above[w->above_n - 1] : NULL);
	d->ign.skip = path[0] ? strlen(path) + 1 : 0;
	if (w->opts.respect_ignore && hermes_ignore_dir_load(&d->ign, fd) < 0) {
		hermes_ignore_dir_clear(&d->ign);
		free(d->path);
		free(d);
		goto nomem;
	}
	w->dirs[wd] = d;
	*out = d;
	return 0;
nomem:
	inotify_rm_watch(w->fd, wd);
	return -ENOMEM;
}

/* Lists the directory of node d (open as fd): with emit, a created event for each entry kept;
 * with recursive, watches and lists each subdirectory too. 0, or the first -errno of a watch
 * (-ENOSPC: the kernel's limit), having gone on with the rest. */
static int scan(hermes_watch_t *w, wdir_t *d, int fd, bool emit)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!dir) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0; /* gone or unreadable meanwhile: its parent's event says so */
	}
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		const char *name = de->d_name;
		if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
			continue;
		bool is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			is_dir = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		}
		char *path = join(d->path, name);
		if (!path) {
			rc = rc ? rc : -ENOMEM;
			continue;
		}
		if (!skipped(w, d, path, name, is_dir)) {
			if (emit)
				push(w, HERMES_WATCH_CREATED, is_dir, path, NULL);
			if (is_dir && w->opts.recursive && d->depth < MAX_DEPTH) {
				int r = 0, cfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				wdir_t *c = NULL;
				if (cfd >= 0) {
					r = add_dir(w, cfd, path, d, &c);
					if (r == 0 && c)
						r = scan(w, c, cfd, emit);
					close(cfd);
				}
				if (r && !rc)
					rc = r;
			}
		}
		free(path);
	}
	closedir(dir);
	return rc;
}

/* Opens the directory at path (workspace-relative, names as the watch found them) beneath the
 * workspace root, one component at a time without following a symlink: -1 with errno if that
 * cannot be done (gone, replaced by a symlink or a file). */
static int open_rel(hermes_watch_t *w, const char *path)
{
	int fd = openat(w->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *p = path;
	while (fd >= 0 && *p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		char name[NAME_MAX + 1];
		if (n == 0 || n > NAME_MAX) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		errno = e;
		fd = next;
		p += n + (slash != NULL);
	}
	return fd;
}

/* A directory that appeared at path in d (created, or moved in): watched and listed, its
 * entries reported. A failure to watch it is reported as an overflow: its changes may be missed. */
static void enter_new(hermes_watch_t *w, wdir_t *d, const char *path)
{
	if (!w->opts.recursive || d->depth >= MAX_DEPTH)
		return;
	int fd = open_rel(w, path);
	if (fd < 0)
		return; /* gone again, or not a directory any more: its own events say so */
	wdir_t *c = NULL;
	int rc = add_dir(w, fd, path, d, &c);
	if (rc == 0 && c)
		rc = scan(w, c, fd, true);
	close(fd);
	if (rc < 0)
		push(w, HERMES_WATCH_OVERFLOW, false, "", NULL);
}

/* After the kernel's queue overflowed, the directories made, moved or removed meanwhile are
 * unknown: each one watched is checked to still be at its path (else forgotten: its new place,
 * if in the tree, is found below), then every one is listed for subdirectories not yet watched,
 * which are watched (and listed) without events: the overflow tells readers to rescan. So changes
 * made after the overflow are all reported again. A failure to watch is another overflow. */
static void rescan(hermes_watch_t *w)
{
	size_t cap = w->dirs_cap;
	for (size_t i = 0; i < cap && i < w->dirs_cap; i++) {
		wdir_t *d = w->dirs[i];
		if (!d || d == w->root)
			continue;
		int fd = open_rel(w, d->path);
		int wd = -1;
		if (fd >= 0) {
			char proc[64];
			snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
			wd = inotify_add_watch(w->fd, proc, MASK); /* the same directory: its own wd */
			close(fd);
			if (wd >= 0 && wd != d->wd && ((size_t)wd >= w->dirs_cap || !w->dirs[wd]))
				inotify_rm_watch(w->fd, wd); /* another one: watched once its parent is listed */
		}
		if (wd != d->wd)
			forget_tree(w, d, true);
	}
	int rc = 0;
	cap = w->dirs_cap;
	for (size_t i = 0; i < cap && i < w->dirs_cap; i++) {
		wdir_t *d = w->dirs[i];
		if (!d)
			continue;
		int fd = open_rel(w, d->path);
		if (fd < 0)
			continue;
		int r = scan(w, d, fd, false);
		close(fd);
		if (r && !rc)
			rc = r;
	}
	if (rc)
		push(w, HERMES_WATCH_OVERFLOW, false, "", NULL);
}

/* ---- the kernel's events ------------------------------------------------------------------ */

/* An IN_MOVED_FROM whose IN_MOVED_TO did not follow: moved out of the tree. */
static void resolve_from(hermes_watch_t *w)
{
	if (!w->from_pending)
		return;
	w->from_pending = false;
	if (w->from_shown)
		push(w, HERMES_WATCH_DELETED, w->from_dir, w->from_path, NULL);
	wdir_t *d = w->from_dir ? find_path(w, w->from_path) : NULL;
	if (d)
		forget_tree(w, d, true);
	free(w->from_path);
	free(w->saved_shown);
	free(w->saved_hidden);
	w->saved_shown = w->saved_hidden = NULL;
	w->from_path = NULL;
}

/* A directory of the tree moved from old to path, now in parent: its nodes follow. */
static void move_dirs(hermes_watch_t *w, const char *old, const char *path, wdir_t *parent)
{
	wdir_t *top = find_path(w, old);
	if (!top)
		return;
	size_t olen = strlen(old), nlen = strlen(path);
	for (size_t i = 0; i < w->dirs_cap; i++) {
		wdir_t *d = w->dirs[i];
		if (!d || !under(d, top))
			continue;
		size_t rest = strlen(d->path) - olen; /* what follows old in d's path */
		char *p = malloc(nlen + rest + 1);
		if (!p) {
			push(w, HERMES_WATCH_OVERFLOW, false, "", NULL);
			continue;
		}
		memcpy(p, path, nlen);
		memcpy(p + nlen, d->path + olen, rest + 1);
		free(d->path);
		d->path = p;
		d->ign.skip = p[0] ? strlen(p) + 1 : 0;
	}
	top->parent = parent;
	top->ign.parent = &parent->ign;
	/* depths below top change with it */
	for (size_t i = 0; i < w->dirs_cap; i++) {
		wdir_t *d = w->dirs[i];
		if (d && under(d, top)) {
			int depth = 0;
			for (wdir_t *q = d->parent; q; q = q->parent)
				depth++;
			d->depth = depth;
		}
	}
}

static void handle(hermes_watch_t *w, const struct inotify_event *e)
{
	if (e->mask & IN_Q_OVERFLOW) {
		resolve_from(w);
		push(w, HERMES_WATCH_OVERFLOW, false, "", NULL);
		rescan(w);
		return;
	}
	wdir_t *d = e->wd >= 0 && (size_t)e->wd < w->dirs_cap ? w->dirs[e->wd] : NULL;
	if (e->mask & IN_IGNORED) {
		if (d)
			forget_tree(w, d, false);
		return;
	}
	if (!d || w->gone)
		return;
	if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
		/* A directory below reports this through its parent; the watched one has none here. */
		if (d == w->root) {
			resolve_from(w);
			push(w, HERMES_WATCH_DELETED, true, d->path, NULL);
			w->gone = true;
		}
		return;
	}
	if (!e->len)
		return;
	const char *name = e->name;
	bool is_dir = (e->mask & IN_ISDIR) != 0;
	char *path = join(d->path, name);
	if (!path) {
		push(w, HERMES_WATCH_OVERFLOW, false, "", NULL);
		return;
	}
	bool skip = skipped(w, d, path, name, is_dir);
	bool paired = (e->mask & IN_MOVED_TO) && w->from_pending && w->from_cookie == e->cookie;
	if (!paired)
		resolve_from(w);
	if (e->mask & IN_MOVED_FROM) {
		w->from_pending = true;
		w->from_cookie = e->cookie;
		w->from_path = path;
		w->from_dir = is_dir;
		w->from_shown = !skip;
		return;
	}
	if (paired) {
		char *old = w->from_path;
		bool old_shown = w->from_shown;
		w->from_pending = false;
		w->from_path = NULL;
		wdir_t *moved = is_dir ? find_path(w, old) : NULL;
		if (moved && skip)
			forget_tree(w, moved, true);
		else if (moved)
			move_dirs(w, old, path, d);
		bool exchange = old_shown && skip && w->saved_shown && !strcmp(w->saved_shown, old) &&
		                !strcmp(w->saved_hidden, path);
		free(w->saved_shown);
		free(w->saved_hidden);
		w->saved_shown = w->saved_hidden = NULL;
		if (old_shown && !skip) {
			push(w, HERMES_WATCH_MOVED, is_dir, path, old);
		} else if (old_shown && !exchange) {
			push(w, HERMES_WATCH_DELETED, is_dir, old, NULL);
		} else if (!old_shown && !skip) {
			/* From an ignored or hidden name: a file saved through a temporary one. */
			push(w, is_dir ? HERMES_WATCH_CREATED : HERMES_WATCH_MODIFIED, is_dir, path, NULL);
			if (is_dir && !moved)
				enter_new(w, d, path);
			else if (!is_dir) { /* the old file may come back under the temporary name */
				w->saved_shown = path;
				w->saved_hidden = old;
				return;
			}
		}
		free(old);
		free(path);
		return;
	}
	if (!skip) {
		if (e->mask & (IN_CREATE | IN_MOVED_TO)) {
			push(w, HERMES_WATCH_CREATED, is_dir, path, NULL);
			if (is_dir)
				enter_new(w, d, path);
		} else if (e->mask & IN_DELETE) {
			push(w, HERMES_WATCH_DELETED, is_dir, path, NULL);
		} else if ((e->mask & (IN_MODIFY | IN_CLOSE_WRITE)) && !is_dir) {
			push(w, HERMES_WATCH_MODIFIED, false, path, NULL);
		}
	}
	free(path);
}

/* Reads what the kernel has queued (never waits). */
static void drain(hermes_watch_t *w)
{
	for (;;) {
		ssize_t n = read(w->fd, w->buf, sizeof w->buf);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break; /* EAGAIN: nothing more */
		}
		for (char *p = w->buf; p < w->buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)(void *)p;
			handle(w, e);
			p += sizeof *e + e->len;
		}
	}
	resolve_from(w); /* the pair of a rename is queued at once: alone, it left the tree */
}

/* ---- the watch ---------------------------------------------------------------------------- */

int hermes_watch_new(const hermes_ws_t *ws, const char *path, const hermes_watch_opts_t *opts,
                     hermes_watch_t **out)
{
	int fd = -1, rc;
	char *canon = NULL;
	rc = hermes_ws_open_path(ws, path, O_RDONLY | O_DIRECTORY, &fd);
	if (rc == 0)
		rc = hermes_ws_dir_path(ws, fd, &canon);
	if (rc) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	hermes_watch_t *w = calloc(1, sizeof *w);
	if (!w) {
		rc = -ENOMEM;
		goto fail;
	}
	pthread_mutex_init(&w->lock, NULL);
	w->fd = w->root_fd = -1;
	w->opts = *opts;
	if (!(w->ring = calloc((size_t)opts->keep, sizeof *w->ring))) {
		rc = -ENOMEM;
		goto fail;
	}
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->root_fd = fcntl(ws->root_fd, F_DUPFD_CLOEXEC, 0);
	if (w->fd < 0 || w->root_fd < 0) {
		rc = errno == EMFILE ? -ENOSPC : -errno;
		goto fail;
	}
	/* The ignore files of the directories above it, the workspace root's first. */
	if (opts->respect_ignore && canon[0]) {
		size_t levels = 1;
		for (const char *c = canon; *c; c++)
			levels += *c == '/';
		if (!(w->above = calloc(levels, sizeof *w->above))) {
			rc = -ENOMEM;
			goto fail;
		}
		for (size_t i = 0, at = 0; i < levels; i++) {
			char prefix[PATH_MAX];
			snprintf(prefix, sizeof prefix, "%.*s", (int)at, canon);
			int afd = open_rel(w, prefix);
			w->above[i].parent = i ? &w->above[i - 1] : NULL;
			w->above[i].skip = at ? at + 1 : 0;
			w->above_n = i + 1;
			if (afd >= 0) {
				int r = hermes_ignore_dir_load(&w->above[i], afd);
				close(afd);
				if (r < 0) {
					rc = -ENOMEM;
					goto fail;
				}
			}
			const char *slash = strchr(canon + at + (at > 0), '/');
			at = slash ? (size_t)(slash - canon) : strlen(canon);
		}
	}
	rc = add_dir(w, fd, canon, NULL, &w->root);
	if (rc == 0 && !w->root)
		rc = -EEXIST; /* cannot happen: a new inotify instance watches nothing */
	if (rc == 0)
		rc = scan(w, w->root, fd, false);
	if (rc)
		goto fail;
	close(fd);
	free(canon);
	*out = w;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(canon);
	hermes_watch_free(w);
	return rc;
}

void hermes_watch_free(hermes_watch_t *w)
{
	if (!w)
		return;
	if (w->root)
		forget_tree(w, w->root, false);
	for (size_t i = 0; i < w->dirs_cap; i++)
		if (w->dirs[i])
			forget_tree(w, w->dirs[i], false);
	free(w->dirs);
	for (size_t i = w->above_n; i-- > 0;)
		hermes_ignore_dir_clear(&w->above[i]);
	free(w->above);
	if (w->ring)
		for (int64_t s = w->first; s < w->next; s++)
			ev_clear(slot(w, s));
	free(w->ring);
	free(w->from_path);
	free(w->saved_shown);
	free(w->saved_hidden);
	w->saved_shown = w->saved_hidden = NULL;
	if (w->fd >= 0)
		close(w->fd);
	if (w->root_fd >= 0)
		close(w->root_fd);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

void hermes_watch_close(hermes_watch_t *w)
{
	atomic_store(&w->closed, true);
}

void hermes_watch_batch_clear(hermes_watch_batch_t *b)
{
	for (size_t i = 0; b->events && i < b->count; i++) {
		free(b->events[i].path);
		free(b->events[i].old_path);
	}
	free(b->events);
	memset(b, 0, sizeof *b);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Collects up to max events from *at into b. 0 or -ENOMEM. */
static int collect(hermes_watch_t *w, int64_t at, size_t max, hermes_watch_batch_t *b)
{
	if (at < w->first) {
		b->overflow = true; /* dropped from the ring since */
		at = w->first;
	}
	size_t want = (size_t)(w->next - at) < max ? (size_t)(w->next - at) : max;
	if (!(b->events = calloc(want ? want : 1, sizeof *b->events)))
		return -ENOMEM;
	for (; at < w->next && b->count < max; at++) {
		const ev_t *e = slot(w, at);
		if (e->kind == HERMES_WATCH_OVERFLOW) {
			b->overflow = true;
			continue;
		}
		hermes_watch_change_t *o = &b->events[b->count];
		o->kind = e->kind;
		o->is_dir = e->is_dir;
		o->path = strdup(e->path);
		o->old_path = e->old_path ? strdup(e->old_path) : NULL;
		b->count++;
		if (!o->path || (e->old_path && !o->old_path))
			return -ENOMEM;
	}
	b->next = at;
	b->more = at < w->next;
	return 0;
}

int hermes_watch_read(hermes_watch_t *w, int64_t cursor, size_t max, int wait_ms,
                      bool (*stop)(void *ctx), void *ctx, hermes_watch_batch_t *batch)
{
	hermes_watch_batch_t b = {0};
	const int64_t deadline = now_ms() + wait_ms;
	for (;;) {
		if (atomic_load(&w->closed))
			return -ESHUTDOWN;
		pthread_mutex_lock(&w->lock);
		drain(w);
		int64_t at = cursor < 0 ? w->read_at : cursor;
		if (at > w->next) {
			pthread_mutex_unlock(&w->lock);
			return -EINVAL;
		}
		bool ready = at < w->next || at < w->first;
		int64_t left = deadline - now_ms();
		if (ready || left <= 0) {
			int rc = collect(w, at, max, &b);
			if (rc == 0) {
				if (b.next > w->handed)
					w->handed = b.next;
				w->read_at = b.next;
			}
			pthread_mutex_unlock(&w->lock);
			if (rc) {
				hermes_watch_batch_clear(&b);
				return rc;
			}
			*batch = b;
			return 0;
		}
		pthread_mutex_unlock(&w->lock);
		if (stop && stop(ctx))
			return HERMES_WS_ECANCELLED;
		struct pollfd p = {.fd = w->fd, .events = POLLIN};
		poll(&p, 1, left < 50 ? (int)left : 50);
	}
}
