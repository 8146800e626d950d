/* fs/linecount.c: newline counts remembered per file (see linecount.h): a fixed table under one
 * lock, and the count of what an entry does not cover. */
#include <config.h>

#include "fs/linecount.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/lines.h"

enum { SAMPLE = 4096 };

typedef struct entry {
	dev_t dev;
	ino_t ino;
	int64_t size;          /* the bytes counted: [0, size) */
	struct timespec mtime; /* the file's modification time when they were */
	int64_t newlines;      /* in [0, size) */
	uint64_t head, tail;   /* hashes of [0, 4 KiB) and of the 4 KiB before size */
	uint64_t used;         /* when it was last used (0: free) */
} entry_t;

static entry_t table[HERMES_LINECOUNT_FILES];
static uint64_t clock_now; /* counts uses; under the lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void hermes_linecount_forget(void)
{
	pthread_mutex_lock(&lock);
	memset(table, 0, sizeof table);
	pthread_mutex_unlock(&lock);
}

/* Reads fd's [off, off + len) whole into buf. 0 or -errno. */
static int read_at(int fd, char *buf, size_t len, int64_t off)
{
	for (size_t got = 0; got < len;) {
		ssize_t r = pread(fd, buf + got, len - got, off + (int64_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		got += (size_t)r;
	}
	return 0;
}

/* A hash of fd's [off, off + len) (len <= SAMPLE), into *h. 0 or -errno. */
static int sample(int fd, int64_t off, size_t len, uint64_t *h)
{
	char buf[SAMPLE];
	int rc = read_at(fd, buf, len, off);
	if (rc)
		return rc;
	uint64_t x = 0x9e3779b97f4a7c15u ^ len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, buf + i, 8);
		x = (x ^ w) * 0xff51afd7ed558ccdu;
		x ^= x >> 32;
	}
	for (; i < len; i++)
		x = (x ^ (unsigned char)buf[i]) * 0x100000001b3u;
	*h = x;
	return 0;
}

/* The two samples of fd's first size bytes. */
static int samples(int fd, int64_t size, uint64_t *head, uint64_t *tail)
{
	size_t n = size < SAMPLE ? (size_t)size : SAMPLE;
	int rc = sample(fd, 0, n, head);
	return rc ? rc : sample(fd, size - (int64_t)n, n, tail);
}

/* The newlines in fd's [from, to). */
static int count_span(int fd, int64_t from, int64_t to, const hermes_cancel_t *cancel, int64_t *n)
{
	if (from >= to) {
		*n = 0;
		return 0;
	}
	char *buf = hermes_lines_buffer();
	if (!buf)
		return -ENOMEM;
	int64_t count = 0;
	int rc = 0;
	for (int64_t at = from; at < to;) {
		if (hermes_cancel_requested(cancel)) {
			rc = -ECANCELED;
			break;
		}
		size_t want = to - at > HERMES_LINES_BUFSIZE ? HERMES_LINES_BUFSIZE : (size_t)(to - at);
		ssize_t r = pread(fd, buf, want, at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : -EIO; /* shorter than fstat said: truncated meanwhile */
			break;
		}
		count += (int64_t)hermes_count_newlines(buf, (size_t)r);
		at += r;
	}
	free(buf);
	*n = count;
	return rc;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

int hermes_linecount_newlines(int fd, const struct stat *st, const hermes_cancel_t *cancel,
                              int64_t *newlines)
{
	const int64_t size = (int64_t)st->st_size;
	entry_t known = {0};
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < HERMES_LINECOUNT_FILES; i++) {
		if (table[i].used && table[i].dev == st->st_dev && table[i].ino == st->st_ino) {
			known = table[i];
			table[i].used = ++clock_now;
			break;
		}
	}
	pthread_mutex_unlock(&lock);

	/* what was counted before still holds if the file is the same, or longer with the counted
	 * bytes unchanged as far as the samples tell */
	int64_t from = 0, before = 0;
	uint64_t head, tail;
	if (known.used && known.size <= size &&
	    (known.size < size || same_time(known.mtime, st->st_mtim)) &&
	    samples(fd, known.size, &head, &tail) == 0 && head == known.head && tail == known.tail) {
		from = known.size;
		before = known.newlines;
	}
	if (from == size && same_time(known.mtime, st->st_mtim)) {
		*newlines = before;
		return 0;
	}
	int64_t more;
	int rc = count_span(fd, from, size, cancel, &more);
	if (rc)
		return rc;
	*newlines = before + more;

	entry_t e = {.dev = st->st_dev, .ino = st->st_ino, .size = size, .mtime = st->st_mtim,
	             .newlines = *newlines};
	if (samples(fd, size, &e.head, &e.tail) != 0)
		return 0;
	pthread_mutex_lock(&lock);
	size_t slot = 0;
	for (size_t i = 0; i < HERMES_LINECOUNT_FILES; i++) {
		if (table[i].used && table[i].dev == e.dev && table[i].ino == e.ino) {
			slot = i;
			break;
		}
		if (table[i].used < table[slot].used)
			slot = i; /* a free entry, or the least recently used */
	}
	e.used = ++clock_now;
	table[slot] = e;
	pthread_mutex_unlock(&lock);
	return 0;
}
