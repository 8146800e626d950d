/* fs/linecount.h: the number of newlines in a file, remembered between calls, so that numbering
 * the last lines of a big file that has not changed, or has only grown (a log), costs the new
 * bytes only instead of a count of the whole file each time. */
#ifndef HERMES_FS_LINECOUNT_H
#define HERMES_FS_LINECOUNT_H

#include <stdint.h>
#include <sys/stat.h>

#include <hermes/hermes.h>

/* How many files are remembered (the least recently used one is forgotten first): a fixed table
 * of small entries, whatever the sizes of the files. */
#define HERMES_LINECOUNT_FILES 64

/* The number of '\n' bytes in fd's first st->st_size bytes (st: fd's fstat), into *newlines.
 * What an earlier count of the same file (device and inode) learned is reused when its size and
 * modification time are the same, or when it only grew: the bytes counted before are then taken
 * as they were if two samples of them still match (its first 4 KiB and the 4 KiB before its old
 * end; a file rewritten in place to a longer one with both unchanged would fool it, as it would
 * fool `make`). Only the rest is read. Thread-safe: the table is locked only to look up and
 * store, never while reading the file. 0, -ECANCELED (cancel was requested: nothing is
 * remembered) or -errno. */
int hermes_linecount_newlines(int fd, const struct stat *st, const hermes_cancel_t *cancel,
                              int64_t *newlines);

/* Forgets everything (for the tests and the benchmarks). */
void hermes_linecount_forget(void);

#endif
