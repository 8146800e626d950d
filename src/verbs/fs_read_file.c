/* verbs/fs_read_file.c: fs.readFile, the whole of a text file: read into one buffer (what the
 * result holds), or, where the result is written out as it is encoded (hermes exec) and the file
 * is big, checked in a first pass and streamed from the file in a second (both from a mapping of
 * the file where the program installed the SIGBUS guard, fs/mapguard.h: hermes exec). */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs/handlers.h"
#include "core/buf.h"
#include "core/utf8.h"
#include "fs/chunks.h"
#include "fs/filelock.h"
#include "fs/lines.h"
#include "fs/mapguard.h"
#include "fs/workspace.h"

/* The most one read(2) of fs.readFile takes: small enough that the chunk is still in the cache
 * when it is validated. */
#define READ_CHUNK ((size_t)512 << 10)

static void fail_grew(void *result, const char *path, int64_t max)
{
	char shown[256];
	hermes_result_fail(result, HERMES_E_TOO_LARGE,
	                   "cannot read '%s': it grew past the read limit of %lld bytes",
	                   hermes_ws_shown(path, shown, sizeof shown), (long long)max);
}

/* fs.readFile into one buffer of the file's size (what the result holds), from fd's offset, which
 * it closes. st: the file as opened (its size and version). */
static void read_whole(const hermes_call_t *call, const char *path,
                       hermes_fs_read_file_result_t *result, int fd, const struct stat *st)
{
	int64_t max = call->config->max_read_bytes;
	/* The host may bound the memory that results hold: it may make this wait for room. */
	if (!hermes_call_hold_memory(call, (size_t)st->st_size)) {
		hermes_ws_fail(result, HERMES_WS_ECANCELLED, "read", path);
		close(fd);
		return;
	}
	/* A buffer of the file's size (with room to notice that it grew meanwhile), filled a chunk
	 * at a time so that each is validated while it is still in the cache: validating 50 MB
	 * after one read was a pass through memory of its own. */
	hermes_buf_t buf = HERMES_BUF_INIT;
	size_t want = (size_t)st->st_size + 1, checked = 0;
	bool text = true;
	for (;;) {
		if (!hermes_buf_reserve(&buf, want)) {
			hermes_ws_fail(result, -ENOMEM, "read", path);
			goto fail;
		}
		size_t room = buf.cap - buf.len - 1; /* the last byte is for the NUL */
		if (room > (size_t)max + 1 - buf.len)
			room = (size_t)max + 1 - buf.len; /* one past the limit is enough to know */
		if (room > READ_CHUNK)
			room = READ_CHUNK;
		ssize_t n = read(fd, buf.data + buf.len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			hermes_ws_fail(result, -errno, "read", path);
			goto fail;
		}
		if (n == 0)
			break;
		buf.len += (size_t)n;
		if (text) /* after the first bad byte, read on only to tell TooLarge as before */
			text = hermes_text_validate_more(buf.data, buf.len, &checked, false);
		if ((int64_t)buf.len > max) {
			fail_grew(result, path, max);
			goto fail;
		}
		want = buf.cap - buf.len > 1 ? 0 : buf.len; /* full: double it */
		hermes_call_progress(call, (double)buf.len, (double)st->st_size, "read %zu of %lld bytes",
		                     buf.len, (long long)st->st_size);
	}
	close(fd);
	size_t used = buf.len;
	buf.data[used] = '\0'; /* room was kept for it */
	char *content = hermes_buf_finish(&buf);
	if (!content) {
		hermes_ws_fail(result, -ENOMEM, "read", path);
		return;
	}
	if (text)
		text = hermes_text_validate_more(content, used, &checked, true);
	if (!text) {
		hermes_verbs_fail_not_text(result, path, content[checked] == '\0', checked,
		                           1 + (long long)hermes_count_newlines(content, checked));
		free(content);
		return;
	}
	result->content = content;
	if (!(result->version = hermes_file_version_dup(st)))
		hermes_ws_fail(result, -ENOMEM, "read", path);
	return;
fail:
	hermes_buf_free(&buf);
	close(fd);
}

/* Where the result is written out as it is encoded (hermes exec), a file bigger than this is not
 * held whole: 50 MB of fresh pages cost the kernel more to clear than the rest of the read. It is
 * read twice instead: once to check it is text, a chunk at a time, and once as it is written,
 * each chunk compared with the first pass's before it goes out. */
#define STREAM_MIN ((size_t)1 << 20)
/* What both passes read at a time: it stays in the cache while it is checked and escaped. */
#define STREAM_CHUNK ((size_t)128 << 10)
/* First passes over a file that changes meanwhile, before it is read whole as before. */
#define STREAM_TRIES 3
/* From this size on, the first pass is made in two parts at once (a thread for the second). */
#define STREAM_SPLIT_MIN ((size_t)4 << 20)

typedef struct streamed {
	int fd;
	hermes_fs_read_file_result_t *result;
	char *path;      /* as asked, for messages */
	size_t size;     /* bytes the first pass checked */
	uint64_t *sums;  /* the checksum of each chunk of them */
	size_t *bounds;  /* mapped: where each chunk starts (fs/chunks.h), its sum taken over them */
	hermes_escaped_chunks_t *ahead; /* mapped: the second pass, on two threads */
	const char *map; /* the file mapped (map_len bytes), read in place of read(2); or NULL */
	size_t map_len;
	bool map_on;     /* whether to map it (hermes_map_guard_on(), till it is cut short once) */
	size_t off;      /* second pass: where its next chunk starts */
	size_t kept;     /* bytes of buf from kept_from on: the last piece's end, a sequence it cut */
	size_t kept_from;
	char buf[STREAM_CHUNK + 8];
	char buf2[STREAM_CHUNK + 8]; /* the first pass's second part's */
} streamed_t;

/* Reads len bytes at off into p, or as many as the file has there; -errno on failure. */
static ssize_t fill(int fd, char *p, size_t len, size_t off)
{
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, p + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* The line of the byte at offset end of the file (for NotText), counted a chunk at a time. */
static long long line_at(streamed_t *s, size_t end)
{
	long long line = 1;
	for (size_t off = 0; off < end;) {
		ssize_t n = fill(s->fd, s->buf, end - off < STREAM_CHUNK ? end - off : STREAM_CHUNK, off);
		if (n <= 0)
			break;
		line += (long long)hermes_count_newlines(s->buf, (size_t)n);
		off += (size_t)n;
	}
	return line;
}

/* One part of the first pass: the chunks of [from, to), or from `from` to the file's end if last.
 * A big file's first pass is made in two parts at once, the second on a thread of its own: the
 * processor that will read the output has nothing to do until the pass is over. */
typedef struct part {
	int fd;
	char *buf;                 /* STREAM_CHUNK + 8 bytes */
	uint64_t *sums;            /* where the chunks' checksums go, by chunk number */
	size_t from, to, size;     /* size: the file's, as the pass began */
	bool last;
	int64_t max;
	const hermes_call_t *call; /* progress is told from one part only; else NULL */
	/* what it found */
	int err;                   /* -errno of a read that failed, or 0 */
	bool too_large, changed;   /* it grew past max; it grew past size or was cut short */
	size_t bad;                /* the first byte that is not text, or SIZE_MAX */
	bool nul;                  /* ... and it is a NUL */
	size_t end;                /* where it stopped */
	char edge[8];              /* bytes left to check with the other part: those the end of a */
	size_t edge_len;           /* first part cuts (a sequence) and the continuation bytes that */
	                           /* start a last part, at most 4 */
} part_t;

static void scan_part(part_t *p)
{
	size_t off = p->from, kept = 0;
	p->bad = SIZE_MAX;
	while (p->last || off < p->to) {
		ssize_t n = fill(p->fd, p->buf + kept, STREAM_CHUNK, off);
		if (n < 0) {
			p->err = (int)n;
			return;
		}
		if ((int64_t)(off + (size_t)n) > p->max) {
			p->too_large = true;
			return;
		}
		if (off + (size_t)n > p->size || (!p->last && (size_t)n < STREAM_CHUNK)) {
			p->changed = true; /* it grew, or was cut short */
			break;
		}
		if (p->bad == SIZE_MAX) { /* after the first bad byte, read on only to tell TooLarge */
			size_t len = kept + (size_t)n, checked = 0;
			p->sums[off / STREAM_CHUNK] = hermes_chunk_sum(p->buf + kept, (size_t)n);
			if (off == p->from && off > 0) { /* a sequence the other part started: its own */
				while (checked < 3 && checked < len &&
				       ((unsigned char)p->buf[checked] & 0xC0) == 0x80)
					checked++;
				memcpy(p->edge, p->buf, checked);
				p->edge_len = checked;
			}
			if (hermes_text_validate_more(p->buf, len, &checked,
			                              p->last && (size_t)n < STREAM_CHUNK)) {
				kept = len - checked; /* at most 4 bytes: a sequence the chunk's end may cut */
				memmove(p->buf, p->buf + checked, kept);
			} else {
				p->bad = off - kept + checked;
				p->nul = p->buf[checked] == '\0';
				kept = 0;
			}
		}
		off += (size_t)n;
		if (p->call)
			hermes_call_progress(p->call, (double)off, (double)p->size,
			                     "read %zu of %zu bytes", off, p->size);
		if ((size_t)n < STREAM_CHUNK)
			break;
	}
	p->end = off;
	if (!p->last && p->bad == SIZE_MAX && !p->changed) {
		memcpy(p->edge, p->buf, kept);
		p->edge_len = kept;
	}
}

static void *scan_part_thread(void *arg)
{
	scan_part(arg);
	return NULL;
}

static int still_same(streamed_t *s, struct stat *st, size_t off, size_t size, const char *path,
                      void *result);

static void unmap(streamed_t *s)
{
	if (s->map)
		munmap((void *)s->map, s->map_len);
	s->map = NULL;
}

/* Maps the file's first size bytes (again if it was mapped at another size). False if it cannot:
 * then it is read with read(2). */
static bool map(streamed_t *s, size_t size)
{
	if (s->map && s->map_len == size)
		return true;
	unmap(s);
	/* Populated at once (the page tables in one go, not a fault per page: 1.8x cat's time
	 * against 1.9x to 2.1x with MADV_WILLNEED instead, README "readexec"); shared: the pages are
	 * the page cache's, none copied. */
	void *m = mmap(NULL, size, PROT_READ, MAP_SHARED | MAP_POPULATE, s->fd, 0);
	if (m == MAP_FAILED)
		return false;
	madvise(m, size, MADV_SEQUENTIAL);
	s->map = m;
	s->map_len = size;
	return true;
}

/* The first pass over the mapped file: one part of it, [from, to), checked in place under the
 * guard. The second part starts at `start`, the bound of its first chunk (>= from: past the
 * continuation bytes that start it, at most 3, which the first part's end checks), and checks to
 * the file's end. */
typedef struct mapped_part {
	const char *map;
	uint64_t *sums;
	const size_t *bounds;      /* the chunks' bounds, over which their sums are taken */
	size_t from, to, start, size;
	bool last;
	const hermes_call_t *call; /* progress is told from one part only; else NULL */
	size_t checked;            /* what it found: text up to here, */
	bool bad;                  /* ... where a byte is not text */
	bool cut;                  /* left by SIGBUS: the file was cut short */
} mapped_part_t;

static void scan_mapped_part(void *arg)
{
	mapped_part_t *p = arg;
	p->checked = p->start;
	for (size_t off = p->from; off < p->to;) {
		size_t n = p->to - off < STREAM_CHUNK ? p->to - off : STREAM_CHUNK;
		if (!p->bad) { /* after the first bad byte, nothing more to know */
			size_t k = off / STREAM_CHUNK;
			p->sums[k] = hermes_chunk_sum(p->map + p->bounds[k], p->bounds[k + 1] - p->bounds[k]);
			if (!hermes_text_validate_more(p->map, off + n, &p->checked,
			                               p->last && off + n == p->to))
				p->bad = true;
		}
		off += n;
		if (p->call)
			hermes_call_progress(p->call, (double)off, (double)p->size,
			                     "read %zu of %zu bytes", off, p->size);
	}
}

static void *scan_mapped_thread(void *arg)
{
	mapped_part_t *p = arg;
	if (!hermes_map_guard_run(p->map, p->size, scan_mapped_part, p))
		p->cut = true;
	return NULL;
}

/* Checks the edge between the parts: what the first part left unchecked, up to the second's
 * start, must be whole text of its own. */
static void check_edge(void *arg)
{
	mapped_part_t *p = arg; /* the first part, its `to` moved to the second's start */
	if (!hermes_text_validate_more(p->map, p->to, &p->checked, true))
		p->bad = true;
}

typedef struct bounds {
	const char *map;
	size_t size, *bounds, n;
} bounds_t;

static void set_bounds(void *arg)
{
	bounds_t *b = arg;
	hermes_chunk_bounds(b->map, b->size, STREAM_CHUNK, b->bounds, b->n);
}

/* scan() over the mapped file, without read(2): the same outcomes; a file cut short meanwhile
 * (SIGBUS on the mapping) gives 0, and the file is read with read(2) from then on. */
static int scan_mapped(const hermes_call_t *call, streamed_t *s, struct stat *st,
                       const char *path, void *result)
{
	size_t size = (size_t)st->st_size;
	if ((int64_t)size > call->config->max_read_bytes) { /* it grew past it since it was opened */
		fail_grew(result, path, call->config->max_read_bytes);
		return -1;
	}
	size_t n = hermes_chunk_count(size, STREAM_CHUNK);
	free(s->bounds);
	if (!(s->bounds = malloc((n + 1) * sizeof *s->bounds))) {
		hermes_ws_fail(result, -ENOMEM, "read", path);
		return -1;
	}
	bounds_t bounds = { s->map, size, s->bounds, n };
	bool whole = hermes_map_guard_run(s->map, size, set_bounds, &bounds), split = false;
	size_t mid = size >= STREAM_SPLIT_MIN ? size / STREAM_CHUNK / 2 * STREAM_CHUNK : 0;
	mapped_part_t a = { .map = s->map, .sums = s->sums, .bounds = s->bounds, .from = 0,
	                    .to = mid ? mid : size, .size = size, .last = mid == 0, .call = call };
	mapped_part_t b = a;
	b.from = mid;
	b.start = whole ? s->bounds[mid / STREAM_CHUNK] : mid; /* cut short: unused */
	b.to = size;
	b.last = true;
	b.call = NULL;
	pthread_t thread;
	if (whole && mid)
		split = pthread_create(&thread, NULL, scan_mapped_thread, &b) == 0;
	if (mid && !split) { /* no thread: one part, the whole file */
		a.to = size;
		a.last = true;
	}
	whole = whole && hermes_map_guard_run(s->map, size, scan_mapped_part, &a);
	if (split) {
		pthread_join(thread, NULL);
		whole = whole && !b.cut;
	}
	if (whole && split && !a.bad) {
		a.to = b.start;
		whole = hermes_map_guard_run(s->map, size, check_edge, &a);
	}
	if (!whole) { /* cut short: read(2) from now on, and the file's new stat */
		unmap(s);
		s->map_on = false;
		if (fstat(s->fd, st) < 0) {
			hermes_ws_fail(result, -errno, "read", path);
			return -1;
		}
		return 0;
	}
	if (a.bad || (split && b.bad)) {
		/* Not text, unless it changed meanwhile: a file cut short inside the mapping's last
		 * page reads as zeros there, not SIGBUS. */
		int same = still_same(s, st, size, size, path, result);
		if (same != 1)
			return same;
		size_t bad = a.bad ? a.checked : b.checked;
		char c = 1; /* read, not from the mapping, now unguarded */
		bool nul = pread(s->fd, &c, 1, (off_t)bad) == 1 && c == '\0';
		hermes_verbs_fail_not_text(result, path, nul, bad, line_at(s, bad));
		return -1;
	}
	return still_same(s, st, size, size, path, result);
}

/* The first pass: checks that the file is text a chunk at a time, keeping each chunk's
 * checksum. 1 if it is, and fstat after it still gives *st's version and size (s->size); 0 if the
 * file changed meanwhile (*st: the new stat); -1 once result says why it failed. */
static int scan(const hermes_call_t *call, streamed_t *s, struct stat *st, const char *path,
                void *result)
{
	size_t size = (size_t)st->st_size;
	free(s->sums);
	if (!(s->sums = malloc((size / STREAM_CHUNK + 1) * sizeof *s->sums))) {
		hermes_ws_fail(result, -ENOMEM, "read", path);
		return -1;
	}
	if (s->map_on && size > 0 && map(s, size))
		return scan_mapped(call, s, st, path, result);
	/* the second part starts at a chunk boundary near the middle */
	size_t mid = size >= STREAM_SPLIT_MIN ? size / STREAM_CHUNK / 2 * STREAM_CHUNK : 0;
	part_t a = { .fd = s->fd, .buf = s->buf, .sums = s->sums, .from = 0, .to = mid,
	             .size = size, .last = mid == 0, .max = call->config->max_read_bytes,
	             .call = call };
	part_t b = a;
	b.buf = s->buf2;
	b.from = mid;
	b.last = true;
	b.call = NULL;
	pthread_t thread;
	bool split = mid > 0 && pthread_create(&thread, NULL, scan_part_thread, &b) == 0;
	if (!split)
		a.last = true; /* no thread: one part, the whole file */
	scan_part(&a);
	if (split)
		pthread_join(thread, NULL);
	part_t *end = split ? &b : &a;
	if (a.err || (split && b.err)) {
		hermes_ws_fail(result, a.err ? a.err : b.err, "read", path);
		return -1;
	}
	if (a.too_large || (split && b.too_large)) {
		fail_grew(result, path, call->config->max_read_bytes);
		return -1;
	}
	size_t bad = a.bad;
	bool nul = a.nul;
	if (split && bad == SIZE_MAX && !a.changed) { /* the edge: what a left, and b skipped */
		char edge[16];
		size_t len = a.edge_len + b.edge_len;
		memcpy(edge, a.edge, a.edge_len);
		memcpy(edge + a.edge_len, b.edge, b.edge_len);
		size_t at = hermes_text_validate(edge, len);
		if (at < len) {
			bad = mid - a.edge_len + at;
			nul = edge[at] == '\0';
		}
	}
	if (split && bad == SIZE_MAX) {
		bad = b.bad;
		nul = b.nul;
	}
	if (bad != SIZE_MAX) {
		/* Not text, unless it changed meanwhile: a file cut short inside a multi-byte character
		 * (or while the second part was read) ends in what looks like broken text. */
		int same = still_same(s, st, size, size, path, result);
		if (same != 1)
			return same;
		hermes_verbs_fail_not_text(result, path, nul, bad, line_at(s, bad));
		return -1;
	}
	size_t off = a.changed || (split && b.changed) ? SIZE_MAX : end->end;
	return still_same(s, st, off, size, path, result);
}

/* The end of a first pass that found text up to off: 1 if that is the file's size and fstat
 * still gives *st's version, else 0 (*st: the new stat); -1 once result says why it failed. */
static int still_same(streamed_t *s, struct stat *st, size_t off, size_t size, const char *path,
                      void *result)
{
	struct stat now;
	char before[HERMES_FILE_VERSION_MAX], after[HERMES_FILE_VERSION_MAX];
	if (fstat(s->fd, &now) < 0) {
		hermes_ws_fail(result, -errno, "read", path);
		return -1;
	}
	hermes_file_version(st, before);
	hermes_file_version(&now, after);
	if (off != size || strcmp(before, after) != 0) {
		*st = now;
		return 0;
	}
	s->size = size;
	return 1;
}

/* The second pass ends early: the chunk at s->off no longer is what the first pass checked (or
 * cannot be read). What was written stays (it was the file as checked); the result fails. */
static int stop_stream(streamed_t *s, int err)
{
	hermes_fs_read_file_result_t *result = s->result;
	char shown[256];
	if (err)
		hermes_ws_fail(result, err, "read", s->path);
	else
		hermes_result_fail(result, HERMES_E_CONFLICT,
		                   "cannot read '%s': it changed while it was written out (content holds "
		                   "its first %zu of %zu bytes, as they were when checked); read it again",
		                   hermes_ws_shown(s->path, shown, sizeof shown), s->off - s->kept,
		                   s->size);
	result->common.keep_fields = true; /* content was written in part: it stays, closed */
	free(result->version);
	result->version = NULL; /* null: no version holds for part of the content */
	return -1;
}

/* The second pass read with read(2), as the result is written: the next chunk, if it is what the
 * first pass saw, up to its last whole sequence (the rest starts the next piece). */
static int next_piece(void *ctx, const char **data, size_t *len)
{
	streamed_t *s = ctx;
	if (s->off == s->size)
		return 0;
	memmove(s->buf, s->buf + s->kept_from, s->kept);
	size_t want = s->size - s->off < STREAM_CHUNK ? s->size - s->off : STREAM_CHUNK;
	ssize_t n = fill(s->fd, s->buf + s->kept, want, s->off);
	if (n < 0)
		return stop_stream(s, (int)n);
	if ((size_t)n != want ||
	    hermes_chunk_sum(s->buf + s->kept, want) != s->sums[s->off / STREAM_CHUNK])
		return stop_stream(s, 0);
	size_t total = s->kept + want;
	s->off += want;
	size_t cut = s->off == s->size ? total : hermes_utf8_whole_prefix(s->buf, total);
	*data = s->buf;
	*len = cut;
	s->kept_from = cut;
	s->kept = total - cut;
	return 1;
}

/* The second pass over the mapping: the next chunk, checked and escaped (by this thread or the
 * one making every other chunk ahead of it). */
static int next_escaped(void *ctx, const char **data, size_t *len)
{
	streamed_t *s = ctx;
	size_t at;
	int r = hermes_escaped_chunks_next(s->ahead, data, len, &at);
	if (r >= 0)
		return r;
	s->off = at; /* what was written: the chunks before it, as checked */
	s->kept = 0;
	return stop_stream(s, r == -2 ? -ENOMEM : 0);
}

/* Frees s, the second pass's thread stopped first; its fd stays open. */
static void free_streamed(streamed_t *s)
{
	hermes_escaped_chunks_free(s->ahead);
	unmap(s);
	free(s->bounds);
	free(s->sums);
	free(s->path);
	free(s);
}

static void release_streamed(void *ctx)
{
	streamed_t *s = ctx;
	close(s->fd);
	free_streamed(s);
}

/* fs.readFile streamed: the first pass now, the second as the result is written. True once it
 * took fd (the content is left to the stream, or the result failed); false if the file kept
 * changing during the first pass: *st is its latest stat, and it is read whole instead. */
static bool read_streamed(const hermes_call_t *call, const char *path,
                          hermes_fs_read_file_result_t *result, int fd, struct stat *st)
{
	streamed_t *s = malloc(sizeof *s);
	char *copy = strdup(path);
	if (!s || !copy) {
		free(s);
		free(copy);
		return false; /* read whole, which fails as memory runs out */
	}
	/* the fields one by one: a compound literal would clear the two buffers too (256 KiB) */
	s->fd = fd;
	s->result = result;
	s->path = copy;
	s->size = s->off = s->kept = s->kept_from = 0;
	s->sums = NULL;
	s->bounds = NULL;
	s->ahead = NULL;
	s->map = NULL;
	s->map_len = 0;
	s->map_on = hermes_map_guard_on();
	for (int tries = 0; tries < STREAM_TRIES; tries++) {
		int r = scan(call, s, st, path, result);
		if (r == 0)
			continue;
		if (r == 1 && !(result->version = hermes_file_version_dup(st))) {
			hermes_ws_fail(result, -ENOMEM, "read", path);
			r = -1;
		}
		if (r == 1 && s->map &&
		    !(s->ahead = hermes_escaped_chunks_start(s->map, s->map_len, s->bounds, s->sums,
		                                             hermes_chunk_count(s->size, STREAM_CHUNK)))) {
			hermes_ws_fail(result, -ENOMEM, "read", path);
			r = -1;
		}
		if (r < 0) {
			release_streamed(s);
			return true;
		}
		hermes_string_source_t source = { next_piece, release_streamed, s, false };
		if (s->map) /* checked and escaped on two threads: handed to the writer as they are */
			source = (hermes_string_source_t){ next_escaped, release_streamed, s, true };
		hermes_call_stream_string(call, &result->content, &source);
		return true;
	}
	free_streamed(s); /* fd is read whole */
	return false;
}

void hermes_verb_fs_read_file(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_read_file_args_t *args = args_;
	hermes_fs_read_file_result_t *result = result_;
	int64_t max = call->config->max_read_bytes;
	char shown[256];
	struct stat st;
	int fd = hermes_verbs_open_regular(call, args->path, "read", result, &st);
	if (fd < 0)
		return;
	if (st.st_size > max) {
		hermes_result_fail(result, HERMES_E_TOO_LARGE,
		                   "cannot read '%s': it is %lld bytes, over the read limit of %lld bytes "
		                   "(read it in parts with fs.readRange)",
		                   hermes_ws_shown(args->path, shown, sizeof shown),
		                   (long long)st.st_size, (long long)max);
		close(fd);
		return;
	}
	if (call->stream && (size_t)st.st_size > STREAM_MIN &&
	    read_streamed(call, args->path, result, fd, &st))
		return;
	read_whole(call, args->path, result, fd, &st);
}
