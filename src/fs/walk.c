/* fs/walk.c: the parallel, confined directory walk (see walk.h). Work is a LIFO stack of jobs
 * shared by the workers: "open and read this directory" or "handle these files of that
 * directory". A directory's descriptor stays open while jobs still need it (to open children with
 * openat), which a LIFO stack keeps to about depth x workers descriptors; below HOLD_DEPTH,
 * children are reopened from the root instead, so deep trees cannot exhaust descriptors. */
#include <config.h>

#include "core/processors.h"
#include "fs/walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOLD_DEPTH 32      /* directories deeper than this do not keep their descriptor */
#define FILES_PER_JOB 16   /* files handed out together (a big directory is shared this way) */
#define DENTS_BUF 32768
#define WALK_PATH_MAX PATH_MAX /* longer paths could not be named to the workspace API anyway */

typedef struct node {
	hermes_ignore_dir_t ign; /* its parent is the parent node's */
	struct node *parent;
	atomic_int refs;         /* child nodes, queued jobs, and the worker reading it */
	atomic_int fd_users;     /* jobs that will still use fd, and the worker reading it */
	int fd;                  /* open for reading while fd_users > 0, else -1 */
	int depth;               /* 0 for the walk's root, negative above it */
	size_t len;
	char path[];             /* workspace-relative */
} node_t;

enum { JOB_DIR, JOB_FILES };

typedef struct job {
	struct job *next;
	int kind;
	node_t *node;  /* JOB_DIR: the parent (may be NULL for the workspace root); JOB_FILES: the
	                  directory holding the files. The job holds a reference to it. */
	bool uses_fd;  /* JOB_DIR: opens the name with openat(node->fd) (and holds an fd_users) */
	int fd;        /* JOB_DIR: already open (the root), or -1 */
	size_t count;  /* JOB_FILES: how many names */
	char names[];  /* JOB_DIR: the name; JOB_FILES: count NUL-terminated names */
} job_t;

typedef struct walk {
	const hermes_walk_opts_t *opts;
	hermes_ignore_opts_t filter;
	size_t root_skip;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	job_t *stack;
	int active;
	atomic_bool stop;
	int result;
} walk_t;

typedef struct worker {
	walk_t *w;
	int index;
	char *dents;
	char *names;          /* the current directory's files, NUL-separated */
	size_t names_len, names_cap;
	job_t *dirs;          /* directory jobs to push, gathered while reading */
	char path[WALK_PATH_MAX];
} worker_t;

int hermes_walk_threads(int requested)
{
	int n = requested;
	if (n <= 0)
		n = hermes_processor_count(); /* at least 1 */
	return n > HERMES_WALK_MAX_THREADS ? HERMES_WALK_MAX_THREADS : n;
}

/* ---- nodes -------------------------------------------------------------------------------- */

static node_t *node_new(node_t *parent, const char *name, int depth)
{
	size_t plen = parent ? parent->len : 0, nlen = strlen(name);
	size_t len = plen + (plen && nlen ? 1 : 0) + nlen;
	node_t *n = malloc(sizeof *n + len + 1);
	if (!n)
		return NULL;
	memset(&n->ign, 0, sizeof n->ign);
	n->ign.parent = parent ? &parent->ign : NULL;
	n->ign.skip = len ? len + 1 : 0;
	n->parent = parent; /* takes over the caller's reference */
	atomic_init(&n->refs, 1);
	atomic_init(&n->fd_users, 1);
	n->fd = -1;
	n->depth = depth;
	n->len = len;
	if (plen)
		memcpy(n->path, parent->path, plen);
	if (plen && nlen)
		n->path[plen] = '/';
	memcpy(n->path + len - nlen, name, nlen);
	n->path[len] = '\0';
	return n;
}

static void node_unref(node_t *n)
{
	while (n && atomic_fetch_sub(&n->refs, 1) == 1) {
		node_t *p = n->parent;
		hermes_ignore_dir_clear(&n->ign);
		if (n->fd >= 0)
			close(n->fd);
		free(n);
		n = p;
	}
}

static void node_ref(node_t *n)
{
	if (n)
		atomic_fetch_add(&n->refs, 1);
}

static void fd_release(node_t *n)
{
	if (atomic_fetch_sub(&n->fd_users, 1) == 1) {
		close(n->fd);
		n->fd = -1;
	}
}

/* Opens the directory at a canonical workspace path, one component at a time without following
 * symlinks. Returns the descriptor or -errno. */
static int open_by_path(const hermes_ws_t *ws, const char *path, int oflags)
{
	int dfd = openat(ws->root_fd, ".", (*path ? O_PATH : oflags) | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	char name[NAME_MAX + 1];
	const char *p = path;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n > NAME_MAX) {
			close(dfd);
			return -ENAMETOOLONG;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		while (*p == '/')
			p++;
		int fd = openat(dfd, name, (*p ? O_PATH : oflags) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(dfd);
		if (fd < 0)
			return -e;
		dfd = fd;
	}
	return dfd;
}

int hermes_walk_resolve(const hermes_ws_t *ws, const char *path, char **canon, mode_t *mode)
{
	int fd;
	int rc = hermes_ws_open_path(ws, path, O_PATH, &fd);
	if (rc)
		return rc;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	*mode = st.st_mode;
	if (S_ISDIR(st.st_mode)) {
		rc = hermes_ws_dir_path(ws, fd, canon);
		close(fd);
		return rc;
	}
	close(fd);
	/* A file: its directory's canonical path and the name it has there (after symlinks). */
	hermes_ws_loc_t loc;
	rc = hermes_ws_locate(ws, path, HERMES_WS_FOLLOW, &loc);
	if (rc)
		return rc;
	char *dir = NULL;
	rc = loc.is_root ? -EINVAL : hermes_ws_dir_path(ws, loc.dirfd, &dir);
	if (rc == 0) {
		size_t dl = strlen(dir), nl = strlen(loc.name);
		char *full = malloc(dl + nl + 2);
		if (!full) {
			rc = -ENOMEM;
		} else {
			memcpy(full, dir, dl);
			if (dl)
				full[dl++] = '/';
			memcpy(full + dl, loc.name, nl + 1);
			*canon = full;
		}
	}
	free(dir);
	hermes_ws_loc_close(&loc);
	return rc;
}

/* ---- the job stack ------------------------------------------------------------------------ */

static void push_jobs(walk_t *w, job_t *first, job_t *last)
{
	if (!first)
		return;
	pthread_mutex_lock(&w->mu);
	last->next = w->stack;
	w->stack = first;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static void fail(walk_t *w, int rc)
{
	pthread_mutex_lock(&w->mu);
	if (!w->result)
		w->result = rc;
	atomic_store(&w->stop, true);
	pthread_mutex_unlock(&w->mu);
}

static void job_free(job_t *j)
{
	if (j->kind == JOB_DIR) {
		if (j->fd >= 0)
			close(j->fd);
		if (j->uses_fd)
			fd_release(j->node);
	} else {
		fd_release(j->node);
	}
	node_unref(j->node);
	free(j);
}

/* ---- work --------------------------------------------------------------------------------- */

static int build_path(worker_t *wk, const node_t *dir, const char *name, size_t *len)
{
	size_t nlen = strlen(name);
	size_t total = dir->len + (dir->len ? 1 : 0) + nlen;
	if (total >= sizeof wk->path)
		return -1;
	memcpy(wk->path, dir->path, dir->len);
	size_t at = dir->len;
	if (at)
		wk->path[at++] = '/';
	memcpy(wk->path + at, name, nlen + 1);
	*len = total;
	return 0;
}

static void do_files(worker_t *wk, node_t *dir, const char *names, size_t count)
{
	walk_t *w = wk->w;
	const char *name = names;
	for (size_t i = 0; i < count; i++, name += strlen(name) + 1) {
		if (atomic_load_explicit(&w->stop, memory_order_relaxed))
			return;
		size_t len;
		if (build_path(wk, dir, name, &len) < 0)
			continue;
		int rc = w->opts->on_file(w->opts->ctx, wk->index, dir->fd, name, wk->path, len);
		if (rc) {
			fail(w, rc);
			return;
		}
	}
}

static int add_name(worker_t *wk, const char *name)
{
	size_t n = strlen(name) + 1;
	if (wk->names_len + n > wk->names_cap) {
		size_t ncap = wk->names_cap ? wk->names_cap * 2 : 4096;
		while (ncap < wk->names_len + n)
			ncap *= 2;
		char *nb = realloc(wk->names, ncap);
		if (!nb)
			return -1;
		wk->names = nb;
		wk->names_cap = ncap;
	}
	memcpy(wk->names + wk->names_len, name, n);
	wk->names_len += n;
	return 0;
}

static void do_dir(worker_t *wk, job_t *job)
{
	walk_t *w = wk->w;
	const hermes_walk_opts_t *o = w->opts;
	node_t *parent = job->node;
	int fd = job->fd;
	job->fd = -1;
	if (fd < 0 && job->uses_fd) {
		fd = openat(parent->fd, job->names, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	} else if (fd < 0) {
		char *full = malloc((parent ? parent->len : 0) + strlen(job->names) + 2);
		if (!full) {
			fail(w, -ENOMEM);
			return;
		}
		strcpy(full, parent ? parent->path : "");
		if (full[0] && job->names[0])
			strcat(full, "/");
		strcat(full, job->names);
		fd = open_by_path(o->ws, full, O_RDONLY);
		free(full);
	}
	if (job->uses_fd) {
		fd_release(parent);
		job->uses_fd = false;
	}
	if (fd < 0)
		return; /* unreadable, or replaced meanwhile: skipped */
	node_t *node = node_new(parent, job->names, parent ? parent->depth + 1 : 0);
	if (!node) {
		close(fd);
		fail(w, -ENOMEM);
		return;
	}
	job->node = NULL; /* the node holds the reference now */
	node->fd = fd;
	if (w->filter.respect_ignore && hermes_ignore_dir_load(&node->ign, fd) < 0) {
		fail(w, -ENOMEM);
		goto done;
	}
	bool hold = node->depth < HOLD_DEPTH;
	job_t *dirs_first = NULL, *dirs_last = NULL;
	wk->names_len = 0;
	size_t nfiles = 0;
	for (;;) {
		ssize_t n = getdents64(fd, wk->dents, DENTS_BUF);
		if (n <= 0)
			break;
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(void *)(wk->dents + off);
			off += de->d_reclen;
			const char *name = de->d_name;
			if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
				continue;
			if (strcmp(name, ".git") == 0)
				continue; /* the repository's own database */
			unsigned char type = de->d_type;
			if (type == DT_UNKNOWN) {
				struct stat st;
				if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
					continue;
				type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
			}
			if (type != DT_DIR && type != DT_REG)
				continue;
			size_t len;
			if (build_path(wk, node, name, &len) < 0)
				continue;
			bool is_dir = type == DT_DIR;
			if (hermes_ignore_skips(&node->ign, &w->filter, wk->path, len, name, is_dir))
				continue;
			if (!is_dir) {
				if (add_name(wk, name) < 0) {
					fail(w, -ENOMEM);
					goto done_dirs;
				}
				nfiles++;
				continue;
			}
			if (o->on_dir) {
				int rc = o->on_dir(o->ctx, wk->index, wk->path, len);
				if (rc) {
					fail(w, rc);
					goto done_dirs;
				}
			}
			if (o->prune && !hermes_glob_may_match_below(o->prune, wk->path + w->root_skip,
			                                             len - w->root_skip))
				continue;
			size_t nlen = strlen(name);
			job_t *j = malloc(sizeof *j + nlen + 1);
			if (!j) {
				fail(w, -ENOMEM);
				goto done_dirs;
			}
			j->kind = JOB_DIR;
			j->next = NULL;
			j->node = node;
			node_ref(node);
			j->uses_fd = hold;
			if (hold)
				atomic_fetch_add(&node->fd_users, 1);
			j->fd = -1;
			j->count = 0;
			memcpy(j->names, name, nlen + 1);
			if (dirs_last)
				dirs_last->next = j;
			else
				dirs_first = j;
			dirs_last = j;
		}
	}
	push_jobs(w, dirs_first, dirs_last);
	dirs_first = NULL;
	/* Hand out all but the first FILES_PER_JOB files to whoever is idle; do those here. */
	{
		const char *p = wk->names;
		size_t k = 0;
		for (; k < nfiles && k < FILES_PER_JOB; k++)
			p += strlen(p) + 1;
		job_t *jf = NULL, *jl = NULL;
		while (k < nfiles) {
			const char *start = p;
			size_t c = 0;
			for (; k < nfiles && c < FILES_PER_JOB; k++, c++)
				p += strlen(p) + 1;
			job_t *j = malloc(sizeof *j + (size_t)(p - start));
			if (!j) {
				fail(w, -ENOMEM);
				break;
			}
			j->kind = JOB_FILES;
			j->next = NULL;
			j->node = node;
			node_ref(node);
			atomic_fetch_add(&node->fd_users, 1);
			j->uses_fd = false;
			j->fd = -1;
			j->count = c;
			memcpy(j->names, start, (size_t)(p - start));
			if (jl)
				jl->next = j;
			else
				jf = j;
			jl = j;
		}
		push_jobs(w, jf, jl);
	}
	do_files(wk, node, wk->names, nfiles < FILES_PER_JOB ? nfiles : FILES_PER_JOB);
done_dirs:
	while (dirs_first) {
		job_t *next = dirs_first->next;
		job_free(dirs_first);
		dirs_first = next;
	}
done:
	fd_release(node);
	node_unref(node);
}

static void run_job(worker_t *wk, job_t *job)
{
	walk_t *w = wk->w;
	if (!atomic_load(&w->stop) && hermes_cancel_requested(w->opts->cancel))
		fail(w, HERMES_WS_ECANCELLED);
	if (!atomic_load(&w->stop)) {
		if (job->kind == JOB_DIR)
			do_dir(wk, job);
		else
			do_files(wk, job->node, job->names, job->count);
	}
	job_free(job); /* whatever do_dir did not take over */
}

static void *worker_main(void *arg)
{
	worker_t *wk = arg;
	walk_t *w = wk->w;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stack && w->active > 0)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->stack)
			break; /* nothing queued and nobody working: done */
		job_t *job = w->stack;
		w->stack = job->next;
		w->active++;
		pthread_mutex_unlock(&w->mu);
		run_job(wk, job);
		pthread_mutex_lock(&w->mu);
		w->active--;
		if (w->active == 0 && !w->stack)
			pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* The nodes of the directories above the root (workspace root first), with their ignore files;
 * *out is the one just above the root, or NULL if the root is the workspace root. */
static int ancestors(const hermes_walk_opts_t *o, bool load, node_t **out)
{
	*out = NULL;
	if (!o->root[0])
		return 0;
	node_t *cur = NULL;
	const char *p = o->root;
	char name[NAME_MAX + 1] = "";
	int depth = -1;
	/* Count the components first: the top one gets the most negative depth. */
	for (const char *q = o->root; *q; q++)
		if (*q == '/')
			depth--;
	for (bool top = true;; top = false) {
		const char *name_src = top ? "" : name;
		node_t *n = node_new(cur, name_src, depth++);
		if (!n) {
			node_unref(cur);
			return -ENOMEM;
		}
		atomic_store(&n->fd_users, 0);
		cur = n;
		if (load) {
			int fd = open_by_path(o->ws, n->path, O_RDONLY);
			if (fd < 0) {
				node_unref(cur);
				return fd;
			}
			int rc = hermes_ignore_dir_load(&n->ign, fd);
			close(fd);
			if (rc < 0) {
				node_unref(cur);
				return -ENOMEM;
			}
		}
		size_t len = strcspn(p, "/");
		if (!p[len])
			break; /* what is left is the root's own name */
		memcpy(name, p, len);
		name[len] = '\0';
		p += len + 1;
	}
	*out = cur;
	return 0;
}

int hermes_walk_run(const hermes_walk_opts_t *o)
{
	walk_t w;
	memset(&w, 0, sizeof w);
	w.opts = o;
	w.filter = o->filter;
	size_t rlen = strlen(o->root);
	w.root_skip = rlen ? rlen + 1 : 0;
	w.filter.root_skip = w.root_skip;
	atomic_init(&w.stop, false);
	node_t *above;
	int rc = ancestors(o, o->filter.respect_ignore, &above);
	if (rc)
		return rc;
	int fd = open_by_path(o->ws, o->root, O_RDONLY);
	if (fd < 0) {
		node_unref(above);
		return fd;
	}
	const char *slash = strrchr(o->root, '/');
	const char *rname = slash ? slash + 1 : o->root;
	job_t *root = malloc(sizeof *root + strlen(rname) + 1);
	if (!root) {
		close(fd);
		node_unref(above);
		return -ENOMEM;
	}
	root->next = NULL;
	root->kind = JOB_DIR;
	root->node = above;
	root->uses_fd = false;
	root->fd = fd;
	root->count = 0;
	strcpy(root->names, rname);
	w.stack = root;
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);

	int n = hermes_walk_threads(o->threads);
	worker_t *wks = calloc((size_t)n, sizeof *wks);
	pthread_t *tids = calloc((size_t)n, sizeof *tids);
	int started = 0;
	if (!wks || !tids)
		goto oom;
	for (int i = 0; i < n; i++) {
		wks[i].w = &w;
		wks[i].index = i;
		wks[i].dents = malloc(DENTS_BUF);
		if (!wks[i].dents)
			goto oom;
	}
	for (int i = 1; i < n; i++) {
		if (pthread_create(&tids[i], NULL, worker_main, &wks[i]) != 0)
			break; /* fewer workers is fine */
		started = i;
	}
	worker_main(&wks[0]);
	for (int i = 1; i <= started; i++)
		pthread_join(tids[i], NULL);
	rc = w.result;
	goto out;
oom:
	/* Nothing started: run what is queued here, serially, to release it. */
	rc = -ENOMEM;
	while (w.stack) {
		job_t *j = w.stack;
		w.stack = j->next;
		job_free(j);
	}
out:
	for (int i = 0; wks && i < n; i++) {
		free(wks[i].dents);
		free(wks[i].names);
	}
	free(wks);
	free(tids);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.cv);
	return rc;
}
