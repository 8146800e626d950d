/* verbs/fs_list.c: fs.listDir: a directory's entries, sorted, to a depth, under the ignore rules
 * where asked, bounded by maxEntries. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs/handlers.h"
#include "core/buf.h"
#include "fs/dirnames.h"
#include "fs/ignore.h"
#include "fs/lines.h"
#include "fs/workspace.h"

static int cmp_entries(const void *a, const void *b)
{
	return strcmp(((const hermes_dir_entry_t *)a)->name, ((const hermes_dir_entry_t *)b)->name);
}

/* One listing in progress. */
typedef struct listing {
	const hermes_fs_list_dir_args_t *args;
	const hermes_call_t *call;
	hermes_dir_entry_t *entries;
	size_t count, cap;
	bool truncated;
	bool nested;       /* a subdirectory was entered: the walk's order is not the paths' order */
	hermes_ignore_opts_t filter;
	hermes_buf_t path; /* workspace-relative path of the directory being read, then '/' */
	size_t base;       /* bytes of path before the part relative to the listed directory */
	/* Every entry's name, NUL-terminated, one after the other: the result's one block of strings
	 * (an allocation per name was a fifth of a big listing's CPU). Until the listing is done,
	 * each entry's name holds its offset here (the block moves as it grows). */
	hermes_buf_t strings;
} listing_t;

/* Lists the directory open as fd (consumed) whose path is l->path, `depth` levels down (0: all),
 * under the ignore rules of parent (NULL if not respected). 0, or -errno. */
static int list_into(listing_t *l, int fd, int depth, const hermes_ignore_dir_t *parent)
{
	DIR *dir = fdopendir(fd);
	if (!dir) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	hermes_ignore_dir_t here = {0};
	if (l->args->respect_ignore) {
		here.parent = parent;
		here.skip = l->path.len;
		if (hermes_ignore_dir_load(&here, dirfd(dir)) != 0) {
			closedir(dir);
			return -ENOMEM;
		}
	}
	const hermes_ignore_dir_t *rules = l->args->respect_ignore ? &here : NULL;
	/* this directory's names, sorted, so that the walk meets entries in name order */
	hermes_dirnames_t names = HERMES_DIRNAMES_INIT;
	int rc = hermes_dirnames_read(dir, &names);
	if (rc == 0 && l->cap - l->count < names.n) {
		size_t ncap = l->count + names.n;
		hermes_dir_entry_t *ne = realloc(l->entries, ncap * sizeof *ne);
		if (ne) {
			l->entries = ne;
			l->cap = ncap;
		}
	}
	size_t mark = l->path.len;
	for (size_t i = 0; rc == 0 && i < names.n && !l->truncated; i++) {
		if ((i & 1023) == 0 && hermes_cancel_requested(l->call->cancel)) {
			rc = HERMES_WS_ECANCELLED;
			break;
		}
		const hermes_dirname_t *dn = &names.v[i];
		const char *name = names.arena.data + dn->off;
		bool is_dir = dn->type == DT_DIR;
		struct stat st;
		if (dn->type == DT_UNKNOWN) /* only where the file system does not say */
			is_dir = fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		l->path.len = mark;
		hermes_buf_append(&l->path, name, dn->len);
		if (rules && ((is_dir && strcmp(name, ".git") == 0) ||
		              hermes_ignore_skips(rules, &l->filter, l->path.data, l->path.len, name, is_dir)))
			continue;
		if (l->count == (size_t)l->args->max_entries) {
			l->truncated = true;
			break;
		}
		if (l->count == l->cap) {
			size_t ncap = l->cap ? l->cap * 2 : 64;
			hermes_dir_entry_t *ne = realloc(l->entries, ncap * sizeof *ne);
			if (!ne) {
				rc = -ENOMEM;
				break;
			}
			l->entries = ne;
			l->cap = ncap;
		}
		hermes_dir_entry_t *e = &l->entries[l->count];
		e->name = (char *)(uintptr_t)l->strings.len; /* an offset until the listing is done */
		hermes_buf_append_lossy(&l->strings, l->path.data + l->base, l->path.len - l->base);
		hermes_buf_putc(&l->strings, '\0');
		if (l->strings.failed) {
			rc = -ENOMEM;
			break;
		}
		e->is_directory = is_dir;
		l->count++;
		if (is_dir && depth != 1) {
			int sub = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) { /* one that cannot be read is listed, not entered */
				hermes_buf_putc(&l->path, '/');
				l->nested = true;
				rc = list_into(l, sub, depth ? depth - 1 : 0, rules);
			}
		}
		if (l->path.failed)
			rc = -ENOMEM;
	}
	l->path.len = mark;
	hermes_dirnames_free(&names);
	hermes_ignore_dir_clear(&here);
	closedir(dir);
	return rc;
}

/* The ignore rules of the directories above canon (a canonical workspace path, not included),
 * root first, chained. dirs has room for every level. 0, or -errno. */
static int load_parents(const hermes_ws_t *ws, const char *canon, hermes_ignore_dir_t *dirs,
                        size_t *count)
{
	*count = 0;
	size_t len = strlen(canon);
	char *prefix = malloc(len + 2);
	if (!prefix)
		return -ENOMEM;
	int rc = 0;
	for (size_t at = 0; rc == 0 && len > 0;) {
		/* the directory canon[0..at): "" is the root */
		memcpy(prefix, canon, at);
		prefix[at] = '\0';
		int fd;
		if (hermes_ws_open_path(ws, at ? prefix : ".", O_RDONLY | O_DIRECTORY, &fd) == 0) {
			hermes_ignore_dir_t *d = &dirs[*count];
			memset(d, 0, sizeof *d);
			d->parent = *count ? &dirs[*count - 1] : NULL;
			d->skip = at ? at + 1 : 0;
			rc = hermes_ignore_dir_load(d, fd) == 0 ? 0 : -ENOMEM;
			close(fd);
			(*count)++;
		}
		const char *slash = strchr(canon + at + (at ? 1 : 0), '/');
		if (!slash)
			break; /* the next one would be canon itself */
		at = (size_t)(slash - canon);
	}
	free(prefix);
	return rc;
}

void hermes_verb_fs_list_dir(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_list_dir_args_t *args = args_;
	hermes_fs_list_dir_result_t *result = result_;
	int fd;
	int rc = hermes_ws_open_path(call->host, args->path, O_RDONLY | O_DIRECTORY, &fd);
	if (rc == -ENOTDIR && hermes_ws_open_path(call->host, args->path, O_PATH, &fd) == 0) {
		close(fd); /* the path itself, not a directory on the way, is the file */
		char shown[256];
		hermes_result_fail(result, HERMES_E_NOT_A_DIRECTORY, "cannot list '%s': it is not a directory",
		                   hermes_ws_shown(args->path, shown, sizeof shown));
		return;
	}
	if (rc) {
		hermes_ws_fail(result, rc, "list", args->path);
		return;
	}
	listing_t l = {.args = args, .call = call};
	l.filter.respect_ignore = true;
	l.filter.include_hidden = true;
	char *canon = NULL;
	hermes_ignore_dir_t *parents = NULL;
	size_t nparents = 0;
	if (args->respect_ignore) {
		/* the listed directory's path in the workspace, and the ignore files above it */
		rc = hermes_ws_dir_path(call->host, fd, &canon);
		if (rc == 0) {
			size_t levels = 2;
			for (const char *c = canon; *c; c++)
				levels += *c == '/';
			parents = calloc(levels, sizeof *parents);
			rc = parents ? load_parents(call->host, canon, parents, &nparents) : -ENOMEM;
		}
		if (rc == 0 && canon[0]) {
			hermes_buf_puts(&l.path, canon);
			hermes_buf_putc(&l.path, '/');
		}
		l.base = l.path.len; /* names are given relative to the listed directory */
	}
	hermes_buf_append(&l.path, "", 0);
	if (rc == 0) {
		rc = list_into(&l, fd, args->depth, nparents ? &parents[nparents - 1] : NULL);
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < nparents; i++)
		hermes_ignore_dir_clear(&parents[i]);
	free(parents);
	free(canon);
	hermes_buf_free(&l.path);
	if (rc) {
		hermes_ws_fail(result, rc, "list", args->path);
		hermes_buf_free(&l.strings);
		free(l.entries);
		return;
	}
	for (size_t i = 0; i < l.count; i++)
		l.entries[i].name = l.strings.data + (uintptr_t)l.entries[i].name;
	result->common.strings = l.strings.data; /* freed with the result, names and all */
	if (l.count > 1 && l.nested) /* one level comes sorted already */
		qsort(l.entries, l.count, sizeof *l.entries, cmp_entries);
	if (l.count == 0) {
		free(l.entries);
		l.entries = calloc(1, sizeof *l.entries); /* an empty list, not a missing one */
	}
	result->entries = l.entries;
	result->entries_count = l.count;
	result->truncated = l.truncated;
}
