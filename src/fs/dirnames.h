/* fs/dirnames.h: the names of one directory, read whole and sorted by bytes (as strcmp). */
#ifndef HERMES_FS_DIRNAMES_H
#define HERMES_FS_DIRNAMES_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* The names of one directory, read whole and sorted. Sorting 100k names with strcmp on strdup'd
 * strings was a third of a big listing's time, in cache misses: the names now lie in one arena,
 * and each carries as its sort key the 8 bytes that follow the prefix all of them share (big
 * endian, so that comparing keys compares bytes as strcmp does), so that most comparisons touch
 * no string at all. */
typedef struct hermes_dirname {
	uint64_t key;
	size_t off;            /* of the name in the arena (NUL-terminated) */
	uint32_t len;
	unsigned char type;    /* d_type: DT_UNKNOWN where the file system does not say */
} hermes_dirname_t;

typedef struct hermes_dirnames {
	hermes_dirname_t *v;
	size_t n, cap;
	hermes_buf_t arena;
	size_t common;         /* length of the prefix every name shares */
} hermes_dirnames_t;

#define HERMES_DIRNAMES_INIT {.arena = HERMES_BUF_INIT}

/* Reads every name of dir except . and .. into d (HERMES_DIRNAMES_INIT), sorted. 0, or -errno;
 * hermes_dirnames_free() either way. */
int hermes_dirnames_read(DIR *dir, hermes_dirnames_t *d);

void hermes_dirnames_free(hermes_dirnames_t *d);

#endif
