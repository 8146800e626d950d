/* fs/chunks.h: a file taken in chunks twice, once to check it and once to write it out, with a
 * checksum that tells whether a chunk is still what was checked (hermes_chunk_sum), and, for a
 * file mapped under the SIGBUS guard (mapguard.h), the second pass made on two threads: each
 * chunk copied out of the mapping, compared with its sum and escaped as the inside of a JSON
 * string, handed out in order (hermes_escaped_chunks_*). fs.readFile under hermes exec. */
#ifndef HERMES_FS_CHUNKS_H
#define HERMES_FS_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A chunk's checksum (n bytes at p): equal sums say the bytes are the same (see chunks.c). */
uint64_t hermes_chunk_sum(const char *p, size_t n);

/* Where the chunks of a mapped file of size bytes start, for chunks of `chunk` bytes: bounds[k]
 * is k * chunk moved past the continuation bytes that start it (at most 3), so that no UTF-8
 * sequence spans two chunks; bounds[0] = 0 and bounds[n] = size, n = the chunk count
 * (size / chunk rounded up). To be read under the guard: it reads the mapping. */
void hermes_chunk_bounds(const char *map, size_t size, size_t chunk, size_t *bounds, size_t n);

/* The chunk count of size bytes (at least 1). */
static inline size_t hermes_chunk_count(size_t size, size_t chunk)
{
	return size == 0 ? 1 : (size + chunk - 1) / chunk;
}

typedef struct hermes_escaped_chunks hermes_escaped_chunks_t;

/* Starts the second pass over map (map_len bytes): n chunks, [bounds[k], bounds[k + 1]) each,
 * whose sums the first pass took over the same bounds. A second thread makes every other chunk
 * ahead of the caller (none if it cannot be started: the caller then makes them all). The
 * arrays stay the caller's and must outlive the pass. NULL if out of memory. */
hermes_escaped_chunks_t *hermes_escaped_chunks_start(const char *map, size_t map_len,
                                                     const size_t *bounds, const uint64_t *sums,
                                                     size_t n);

/* The next chunk, escaped: *data, *len, readable until the next call. 1; 0 after the last; -1 if
 * the chunk is no longer what was checked (changed, or cut short: SIGBUS) and *at is where it
 * starts (what came before was written as checked); -2 if memory ran out (*at likewise). After
 * a negative return, nothing more comes. */
int hermes_escaped_chunks_next(hermes_escaped_chunks_t *c, const char **data, size_t *len,
                               size_t *at);

/* Stops the second thread and frees the pass. NULL is allowed. */
void hermes_escaped_chunks_free(hermes_escaped_chunks_t *c);

#endif
