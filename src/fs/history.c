/* fs/history.c: the bounded record of changes in .hermes/history (recorded, listed, read back,
 * pruned); see history.h. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fdio.h"
#include "fs/history.h"
#include "fs/journal.h"

typedef struct hfile {
	char *path;
	bool existed;
	char after[HERMES_FILE_VERSION_MAX];
} hfile_t;

struct hermes_history {
	const hermes_ws_t *ws;
	int root_fd;   /* .hermes/history */
	int dir_fd;    /* the staging directory */
	char stage[64];
	char verb[64];
	hfile_t *files;
	size_t count;
	bool broken;   /* something could not be kept: the change goes unrecorded */
};

/* .hermes/history, opened O_RDONLY (created, with .hermes, if create). */
static int open_root(const hermes_ws_t *ws, bool create, int *fd)
{
	return hermes_journal_open_dir(ws, ".hermes/history/.keep", create, fd);
}

hermes_history_t *hermes_history_start(const hermes_ws_t *ws, const char *verb)
{
	hermes_history_t *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->ws = ws;
	h->dir_fd = -1;
	snprintf(h->verb, sizeof h->verb, "%s", verb);
	if (open_root(ws, true, &h->root_fd) != 0) {
		free(h);
		return NULL;
	}
	for (int tries = 0; tries < 16; tries++) {
		char tmp[NAME_MAX + 1];
		hermes_journal_tmpname("h", tmp); /* only for its random part */
		snprintf(h->stage, sizeof h->stage, "s-%ld-%.8s", (long)getpid(), tmp + strlen(tmp) - 19);
		if (mkdirat(h->root_fd, h->stage, 0700) == 0) {
			h->dir_fd = openat(h->root_fd, h->stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			                   O_CLOEXEC);
			break;
		}
		if (errno != EEXIST)
			break;
	}
	if (h->dir_fd < 0) {
		if (h->stage[0])
			unlinkat(h->root_fd, h->stage, AT_REMOVEDIR);
		close(h->root_fd);
		free(h);
		return NULL;
	}
	return h;
}

int hermes_history_file(hermes_history_t *h, int dirfd, const char *name, const struct stat *old)
{
	if (!h || h->broken)
		return -1;
	if (h->count >= HERMES_HISTORY_MAX_FILES) {
		h->broken = true;
		return -1;
	}
	hfile_t *nf = realloc(h->files, (h->count + 1) * sizeof *nf);
	char *dir = NULL;
	if (!nf || hermes_ws_dir_path(h->ws, dirfd, &dir) != 0) {
		if (nf)
			h->files = nf;
		h->broken = true;
		return -1;
	}
	h->files = nf;
	hfile_t *f = &h->files[h->count];
	memset(f, 0, sizeof *f);
	size_t dl = strlen(dir), size = dl + 1 + strlen(name) + 1;
	f->path = malloc(size);
	if (f->path)
		snprintf(f->path, size, "%s%s%s", dir, dl ? "/" : "", name);
	free(dir);
	if (!f->path) {
		h->broken = true;
		return -1;
	}
	f->existed = old != NULL;
	int index = (int)h->count++;
	if (old) {
		char b[32];
		snprintf(b, sizeof b, "b%d", index);
		struct stat now;
		bool linked = linkat(dirfd, name, h->dir_fd, b, 0) == 0;
		if (linked && (fstatat(h->dir_fd, b, &now, AT_SYMLINK_NOFOLLOW) != 0 ||
		               now.st_ino != old->st_ino || now.st_dev != old->st_dev)) {
			unlinkat(h->dir_fd, b, 0); /* replaced meanwhile by a writer that takes no lock */
			linked = false;
		}
		if (!linked) {
			/* Another file system (or replaced): a copy of what is there, if it is the file. */
			int in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			int out = openat(h->dir_fd, b, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			struct stat ist;
			hermes_buf_t data = HERMES_BUF_INIT;
			bool ok = in >= 0 && out >= 0 && fstat(in, &ist) == 0 && ist.st_ino == old->st_ino &&
			          hermes_read_all(in, 0, &data) == 0 &&
			          hermes_write_all(out, data.data ? data.data : "", data.len) == 0;
			free(data.data);
			if (in >= 0)
				close(in);
			if (out >= 0)
				close(out);
			if (!ok)
				h->broken = true;
		}
	}
	return h->broken ? -1 : index;
}

void hermes_history_after(hermes_history_t *h, int index, const struct stat *now)
{
	if (!h || index < 0 || (size_t)index >= h->count)
		return;
	if (now)
		hermes_file_version(now, h->files[index].after);
	else
		h->files[index].after[0] = '\0';
}

static void hex_append(hermes_buf_t *b, const char *s)
{
	static const char digits[] = "0123456789abcdef";
	for (; *s; s++) {
		char x[2] = {digits[(unsigned char)*s >> 4], digits[(unsigned char)*s & 15]};
		hermes_buf_append(b, x, 2);
	}
	hermes_buf_append(b, "-", 1);
}

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
		if (sscanf(s + 2 * i, "%2x", &v) != 1 || v == 0) {
			free(r);
			return -EINVAL;
		}
		r[i] = (char)v;
	}
	r[n / 2] = '\0';
	*out = r;
	return 0;
}

static int cmp_names_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

/* The ids in the history directory (16 digits), newest first. */
static int list_ids(int root_fd, char ***out, size_t *count)
{
	int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	char **ids = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strlen(e->d_name) != 16 || strspn(e->d_name, "0123456789") != 16)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **ni = realloc(ids, cap * sizeof *ni);
			if (!ni) {
				rc = -ENOMEM;
				break;
			}
			ids = ni;
		}
		if (!(ids[n] = strdup(e->d_name))) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(ids[i]);
		free(ids);
		return rc;
	}
	if (n)
		qsort(ids, n, sizeof *ids, cmp_names_desc);
	*out = ids;
	*count = n;
	return 0;
}

static void free_ids(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

static int64_t dir_bytes(int root_fd, const char *id)
{
	int fd = openat(root_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	int64_t sum = 0;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] == 'b' && fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			sum += st.st_size;
	closedir(d);
	return sum;
}

/* Keeps the newest changes within the bounds (the newest always), and removes staging
 * directories of processes that are gone. Under the lock of the history directory. Adding up the
 * kept contents reads every record, so it is done only when sizes is set (see finish). */
static void prune(int root_fd, bool sizes)
{
	char **ids;
	size_t n;
	if (list_ids(root_fd, &ids, &n) != 0)
		return;
	int64_t bytes = 0;
	for (size_t i = 0; i < n; i++) {
		if (sizes || i >= HERMES_HISTORY_MAX_CHANGES)
			bytes += dir_bytes(root_fd, ids[i]);
		if (i > 0 && (i >= HERMES_HISTORY_MAX_CHANGES || bytes > HERMES_HISTORY_MAX_BYTES))
			hermes_journal_remove_flat_dir(root_fd, ids[i]);
	}
	free_ids(ids, n);
	int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "s-", 2) != 0)
			continue;
		long pid = strtol(e->d_name + 2, NULL, 10);
		if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			hermes_journal_remove_flat_dir(root_fd, e->d_name);
	}
	closedir(d);
}

void hermes_history_finish(hermes_history_t *h, bool done)
{
	if (!h)
		return;
	bool kept = false;
	if (done && !h->broken && h->count > 0) {
		hermes_buf_t b = HERMES_BUF_INIT;
		char line[160];
		snprintf(line, sizeof line, "hermes-history 1\ntime %lld\nverb %s\nfiles %zu\n",
		         (long long)time(NULL), h->verb, h->count);
		hermes_buf_append(&b, line, strlen(line));
		for (size_t i = 0; i < h->count; i++) {
			hermes_buf_append(&b, h->files[i].existed ? "1 " : "0 ", 2);
			hermes_buf_append(&b, h->files[i].after[0] ? h->files[i].after : "-",
			                  strlen(h->files[i].after[0] ? h->files[i].after : "-"));
			hermes_buf_append(&b, " ", 1);
			hex_append(&b, h->files[i].path);
			hermes_buf_append(&b, "\n", 1);
		}
		int fd = b.failed ? -1 : openat(h->dir_fd, "meta", O_WRONLY | O_CREAT | O_EXCL |
		                                O_CLOEXEC, 0600);
		bool ok = fd >= 0 && hermes_write_all(fd, b.data, b.len) == 0;
		if (fd >= 0)
			close(fd);
		free(b.data);
		/* The id: one more than the newest, taken under the directory's lock. */
		while (ok && flock(h->root_fd, LOCK_EX) < 0 && errno == EINTR)
			;
		char **ids;
		size_t n;
		if (ok && list_ids(h->root_fd, &ids, &n) == 0) {
			unsigned long long next = n ? strtoull(ids[0], NULL, 10) + 1 : 1;
			free_ids(ids, n);
			char id[24];
			snprintf(id, sizeof id, "%016llu", next);
			kept = renameat(h->root_fd, h->stage, h->root_fd, id) == 0;
			/* The sizes are added up every 16th change, and after any change that kept
			 * more than 1 MiB: the byte bound is overshot by at most 15 small changes. */
			if (kept)
				prune(h->root_fd, next % 16 == 0 || dir_bytes(h->root_fd, id) > (1 << 20));
		}
		flock(h->root_fd, LOCK_UN);
	}
	if (!kept)
		hermes_journal_remove_flat_dir(h->root_fd, h->stage);
	close(h->dir_fd);
	close(h->root_fd);
	for (size_t i = 0; i < h->count; i++)
		free(h->files[i].path);
	free(h->files);
	free(h);
}

/* ---- reading ------------------------------------------------------------------------------ */

void hermes_history_entries_free(hermes_history_entry_t *e, size_t count)
{
	if (!e)
		return;
	for (size_t i = 0; i < count; i++) {
		for (size_t k = 0; k < e[i].count; k++)
			free(e[i].paths[k]);
		free(e[i].paths);
		free(e[i].existed);
		free(e[i].after);
	}
}

static int read_meta(int root_fd, const char *id, hermes_history_entry_t *out)
{
	memset(out, 0, sizeof *out);
	int dfd = openat(root_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	int fd = openat(dfd, "meta", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return -errno;
	hermes_buf_t b = HERMES_BUF_INIT;
	int rc = hermes_read_all(fd, 16u << 20, &b);
	close(fd);
	if (rc == 0 && (!b.data || !hermes_buf_reserve(&b, 1)))
		rc = b.data ? -ENOMEM : -EINVAL;
	if (rc) {
		free(b.data);
		return rc;
	}
	b.data[b.len] = '\0';
	long long t;
	size_t n;
	char verb[64];
	const char *p = b.data;
	if (sscanf(p, "hermes-history 1\ntime %lld\nverb %63s\nfiles %zu\n", &t, verb, &n) != 3 ||
	    n == 0 || n > HERMES_HISTORY_MAX_FILES) {
		free(b.data);
		return -EINVAL;
	}
	snprintf(out->id, sizeof out->id, "%s", id);
	snprintf(out->verb, sizeof out->verb, "%s", verb);
	out->time = t;
	out->paths = calloc(n, sizeof *out->paths);
	out->existed = calloc(n, sizeof *out->existed);
	out->after = calloc(n, sizeof *out->after);
	rc = out->paths && out->existed && out->after ? 0 : -ENOMEM;
	for (int skip = 0; skip < 4 && p; skip++)
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	for (size_t i = 0; i < n && rc == 0; i++) {
		int existed;
		char after[HERMES_FILE_VERSION_MAX], hex[2 * PATH_MAX + 2];
		if (!p || sscanf(p, "%d %63s %8193s", &existed, after, hex) != 3) {
			rc = -EINVAL;
			break;
		}
		out->existed[i] = existed != 0;
		snprintf(out->after[i], HERMES_FILE_VERSION_MAX, "%s", strcmp(after, "-") ? after : "");
		rc = unhex(hex, &out->paths[i]);
		if (rc == 0)
			out->count = i + 1;
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	}
	free(b.data);
	if (rc) {
		hermes_history_entries_free(out, 1);
		memset(out, 0, sizeof *out);
	}
	return rc;
}

int hermes_history_list(const hermes_ws_t *ws, size_t limit, hermes_history_entry_t **out,
                        size_t *count)
{
	int root_fd;
	int rc = open_root(ws, false, &root_fd);
	if (rc == -ENOENT || rc == -ENOTDIR) {
		*out = NULL;
		*count = 0;
		return 0;
	}
	if (rc)
		return rc;
	char **ids;
	size_t n;
	rc = list_ids(root_fd, &ids, &n);
	if (rc) {
		close(root_fd);
		return rc;
	}
	hermes_history_entry_t *e = calloc(n ? n : 1, sizeof *e);
	size_t got = 0;
	for (size_t i = 0; e && i < n && got < limit; i++)
		if (read_meta(root_fd, ids[i], &e[got]) == 0)
			got++; /* one pruned meanwhile, or unreadable: not listed */
	free_ids(ids, n);
	close(root_fd);
	if (!e)
		return -ENOMEM;
	*out = e;
	*count = got;
	return 0;
}

static bool valid_id(const char *id)
{
	return strlen(id) == 16 && strspn(id, "0123456789") == 16;
}

int hermes_history_get(const hermes_ws_t *ws, const char *id, hermes_history_entry_t *out)
{
	if (!valid_id(id))
		return -ENOENT;
	int root_fd;
	int rc = open_root(ws, false, &root_fd);
	if (rc == -ENOTDIR)
		rc = -ENOENT;
	if (rc)
		return rc;
	rc = read_meta(root_fd, id, out);
	close(root_fd);
	return rc;
}

int hermes_history_old_content(const hermes_ws_t *ws, const char *id, size_t index, char **data,
                               size_t *len)
{
	if (!valid_id(id))
		return -ENOENT;
	int root_fd;
	int rc = open_root(ws, false, &root_fd);
	if (rc)
		return rc;
	char rel[64];
	snprintf(rel, sizeof rel, "%s/b%zu", id, index);
	int fd = openat(root_fd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(root_fd);
	if (fd < 0)
		return -errno;
	hermes_buf_t b = HERMES_BUF_INIT;
	rc = hermes_read_all(fd, 0, &b);
	close(fd);
	if (rc == 0 && !hermes_buf_reserve(&b, 1))
		rc = -ENOMEM;
	if (rc) {
		free(b.data);
		return rc;
	}
	b.data[b.len] = '\0';
	*data = b.data;
	*len = b.len;
	return 0;
}
