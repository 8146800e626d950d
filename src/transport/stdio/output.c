/* transport/stdio/output.c: the writer thread (see output.h). Frames waiting together are written
 * with one writev(), which is what keeps throughput up when thousands of small replies are in
 * flight. A thread other than the writer (the reader, a lone worker) writes only what the pipe
 * takes at once, through a non-blocking description of its own; the rest waits for the writer. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "transport/stdio/framing.h"
#include "rpc/log.h"
#include "transport/stdio/output.h"

typedef struct frame {
	struct frame *next;
	hermes_reply_t reply;
	char header[48];
	size_t header_len;
	size_t len;              /* of the whole frame: header, body, trailer */
	const char *trailer;
	size_t copied;           /* a small body is copied here (reply then empty): one block */
	bool small;              /* a block of SMALL_FRAME bytes, kept for the next frame */
	char body[];
} frame_t;

/* Frames whose copy of the body fits SMALL_BODY are blocks of one size, and up to MAX_SPARE of
 * them are kept when written, for the next replies: the 64 replies of a read were 64 blocks freed
 * together, past malloc's per-thread cache (its slow path was a tenth of the server's time). */
#define SMALL_BODY 256
#define SMALL_FRAME (sizeof(frame_t) + SMALL_BODY)
#define MAX_SPARE 128

/* Bodies up to this size are copied into their frame, and their pieces freed at once by the
 * thread that made them: a small reply waiting for the client then takes one block of about its
 * size (its pieces, grown by doubling, took 560 bytes for a 60-byte fs.exists reply), and the
 * writer frees one block instead of three, allocated by another thread. */
#define COPY_MAX 1024

struct hermes_output {
	int fd;                  /* blocking: the writer thread's */
	int nbfd;                /* the same pipe opened again, non-blocking: the writes of the
	                            threads that must not wait for the client; -1: none */
	bool regular;            /* fd is a regular file: a write cannot wait for a reader */
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t more;     /* a frame was queued, or stopping */
	pthread_cond_t idle;     /* the writer finished */
	pthread_cond_t written;  /* a round of writes is done: maybe room for more */
	frame_t *head, *tail;
	size_t head_done;        /* bytes of head already written (a non-blocking write in part) */
	bool stopping, done, broken;
	bool writing;            /* the writer thread is writing a list it took */
	atomic_uint_fast64_t progress; /* bytes written, to tell a slow client from a stuck one */
	size_t queued;           /* bytes of the frames queued or being written */
	frame_t *spare;          /* small frames kept for reuse (at most MAX_SPARE) */
	int n_spare;
	void (*on_broken)(void *);
	void (*on_written)(void *);
	void *ctx;
};

/* The memory a queued frame takes: its blocks as the allocator sized them (a reply's text often
 * sits in a buffer grown by doubling: counting its length alone let 16 MiB of counted replies
 * take 35 to 55 MiB) and their overhead. */
static size_t frame_bytes(const frame_t *f)
{
	size_t bytes = malloc_usable_size((void *)f) + 16; /* 16: malloc's header, rounding */
	for (int i = 0; i < 2; i++)
		if (f->reply.part[i])
			bytes += malloc_usable_size(f->reply.part[i]) + 16;
	return bytes;
}

/* Frees a list of frames, or keeps them as spares (lock held, or no other thread left); returns
 * the bytes they held. */
static size_t free_frames(hermes_output_t *out, frame_t *f)
{
	size_t bytes = 0;
	while (f) {
		frame_t *next = f->next;
		bytes += frame_bytes(f);
		hermes_reply_clear(&f->reply);
		if (f->small && out->n_spare < MAX_SPARE) {
			f->next = out->spare;
			out->spare = f;
			out->n_spare++;
		} else {
			free(f);
		}
		f = next;
	}
	return bytes;
}

/* Writes all of iov[0..n), resuming after short writes. 0, or an errno value. */
static int write_all(hermes_output_t *out, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(out->fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		atomic_fetch_add(&out->progress, (uint64_t)w);
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* Drops the first skip bytes of iov[0..n) (they were written); returns the iovecs left. */
static int skip_iov(struct iovec **iov, int n, size_t skip)
{
	while (n > 0 && skip >= (*iov)->iov_len) {
		skip -= (*iov)->iov_len;
		(*iov)++;
		n--;
	}
	if (n > 0) {
		(*iov)->iov_base = (char *)(*iov)->iov_base + skip;
		(*iov)->iov_len -= skip;
	}
	return n;
}

#define BATCH_IOV 240 /* 5 pieces per frame, under IOV_MAX (1024) */

/* The pieces of a frame (at most 5) into iov; returns how many. */
static int frame_iov(const frame_t *f, struct iovec *iov)
{
	int n = 0;
	if (f->header_len)
		iov[n++] = (struct iovec){(void *)f->header, f->header_len};
	if (f->copied)
		iov[n++] = (struct iovec){(void *)f->body, f->copied};
	for (int i = 0; i < 2; i++)
		if (f->reply.len[i])
			iov[n++] = (struct iovec){f->reply.part[i], f->reply.len[i]};
	if (f->reply.tail && *f->reply.tail)
		iov[n++] = (struct iovec){(void *)f->reply.tail, strlen(f->reply.tail)};
	if (*f->trailer)
		iov[n++] = (struct iovec){(void *)f->trailer, strlen(f->trailer)};
	return n;
}

/* Whether a thread other than the writer may write now: nothing being written by the writer
 * (the order of the replies stays), and a write that cannot wait for the client. Lock held. */
static bool can_write_here(const hermes_output_t *out)
{
	return !out->writing && !out->broken && !out->stopping && (out->regular || out->nbfd >= 0);
}

/* Writes what the output takes at once of the frames queued (lock held, can_write_here): the
 * frames written whole are freed, one written in part stays first, head_done saying how much of
 * it went; the rest waits for the writer thread. Returns the bytes of the frames freed, and sets
 * *err to an errno value if writing failed (EAGAIN, a full pipe, is no failure). */
static size_t write_here(hermes_output_t *out, int *err)
{
	struct iovec iov[BATCH_IOV];
	int fd = out->regular ? out->fd : out->nbfd;
	size_t freed = 0;
	*err = 0;
	while (out->head) {
		int n = 0;
		for (frame_t *f = out->head; f && n + 5 <= BATCH_IOV; f = f->next)
			n += frame_iov(f, iov + n);
		struct iovec *v = iov;
		n = skip_iov(&v, n, out->head_done);
		size_t want = 0;
		for (int i = 0; i < n; i++)
			want += v[i].iov_len;
		ssize_t w = writev(fd, v, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				*err = errno;
			break;
		}
		atomic_fetch_add(&out->progress, (uint64_t)w);
		size_t done = out->head_done + (size_t)w;
		while (out->head && done >= out->head->len) {
			frame_t *f = out->head;
			done -= f->len;
			out->head = f->next;
			f->next = NULL;
			freed += free_frames(out, f);
		}
		if (out->head == NULL)
			out->tail = NULL;
		out->head_done = done;
		if ((size_t)w < want)
			break; /* the pipe is full: the writer thread waits for the client */
	}
	out->queued -= freed;
	return freed;
}

static void *writer_main(void *arg)
{
	hermes_output_t *out = arg;
	struct iovec iov[BATCH_IOV];
	pthread_mutex_lock(&out->lock);
	for (;;) {
		while (out->head == NULL && !out->stopping)
			pthread_cond_wait(&out->more, &out->lock);
		if (out->head == NULL)
			break;
		frame_t *list = out->head;
		size_t skip = out->head_done;
		out->head = out->tail = NULL;
		out->head_done = 0;
		out->writing = true;
		pthread_mutex_unlock(&out->lock);

		bool was_broken = out->broken;
		for (frame_t *f = list; f && !out->broken;) {
			int n = 0;
			while (f && n + 5 <= BATCH_IOV) {
				n += frame_iov(f, iov + n);
				f = f->next;
			}
			struct iovec *v = iov;
			n = skip_iov(&v, n, skip);
			skip = 0;
			int err = write_all(out, v, n);
			if (err != 0) {
				if (err != EPIPE)
					hermes_log(HERMES_LOG_ERROR, "cannot write a reply: %s", strerror(err));
				else
					hermes_log(HERMES_LOG_INFO, "the client closed the output pipe");
				pthread_mutex_lock(&out->lock);
				out->broken = true;
				pthread_mutex_unlock(&out->lock);
			}
		}
		pthread_mutex_lock(&out->lock);
		size_t written = free_frames(out, list);
		out->writing = false;
		out->queued -= written;
		pthread_cond_broadcast(&out->written);
		if (out->on_written) {
			void (*cb)(void *) = out->on_written;
			pthread_mutex_unlock(&out->lock);
			cb(out->ctx);
			pthread_mutex_lock(&out->lock);
		}
		if (out->broken && !was_broken && out->on_broken) {
			void (*cb)(void *) = out->on_broken;
			void *ctx = out->ctx;
			pthread_mutex_unlock(&out->lock);
			cb(ctx);
			pthread_mutex_lock(&out->lock);
		}
	}
	out->done = true;
	pthread_cond_broadcast(&out->idle);
	pthread_mutex_unlock(&out->lock);
	return NULL;
}

/* The pipe fd writes to, opened again for a description of our own that can be made
 * non-blocking (O_NONBLOCK on fd itself would be shared with the client, or with a shell that
 * handed us its pipe); -1 if it cannot be (no /proc: then the writer thread writes everything). */
static int open_nonblocking(int fd)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
}

hermes_output_t *hermes_output_start(int fd, void (*on_broken)(void *ctx),
                                     void (*on_written)(void *ctx), void *ctx)
{
	hermes_output_t *out = calloc(1, sizeof *out);
	if (out == NULL)
		return NULL;
	out->fd = fd;
	out->nbfd = -1;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		out->regular = true;
	else if (S_ISFIFO(st.st_mode))
		out->nbfd = open_nonblocking(fd);
	out->on_broken = on_broken;
	out->on_written = on_written;
	out->ctx = ctx;
	pthread_mutex_init(&out->lock, NULL);
	pthread_cond_init(&out->more, NULL);
	pthread_cond_init(&out->idle, NULL);
	pthread_cond_init(&out->written, NULL);
	if (pthread_create(&out->tid, NULL, writer_main, out) != 0) {
		pthread_mutex_destroy(&out->lock);
		pthread_cond_destroy(&out->more);
		pthread_cond_destroy(&out->idle);
		pthread_cond_destroy(&out->written);
		if (out->nbfd >= 0)
			close(out->nbfd);
		free(out);
		return NULL;
	}
	return out;
}

/* After a write from this thread (lock released): what failed is logged and reported, and the
 * session hears that room was made. */
static void after_write_here(hermes_output_t *out, int err, size_t freed)
{
	if (err) {
		hermes_log(err == EPIPE ? HERMES_LOG_INFO : HERMES_LOG_ERROR, "cannot write a reply: %s",
		           strerror(err));
		if (out->on_broken)
			out->on_broken(out->ctx);
	}
	if (freed && out->on_written)
		out->on_written(out->ctx);
}

void hermes_output_send(hermes_output_t *out, hermes_framing_t mode, hermes_reply_t *r,
                        unsigned flags)
{
	size_t body_len = hermes_reply_length(r);
	size_t copy = body_len <= COPY_MAX ? body_len : 0;
	bool small = copy <= SMALL_BODY;
	pthread_mutex_lock(&out->lock);
	if (out->broken || out->stopping) {
		pthread_mutex_unlock(&out->lock);
		hermes_reply_clear(r);
		return;
	}
	frame_t *f = small ? out->spare : NULL;
	if (f) {
		out->spare = f->next;
		out->n_spare--;
	} else {
		f = malloc(small ? SMALL_FRAME : sizeof *f + copy);
	}
	if (f == NULL) {
		pthread_mutex_unlock(&out->lock);
		hermes_log(HERMES_LOG_ERROR, "out of memory queueing a reply; it is lost");
		hermes_reply_clear(r);
		return;
	}
	f->next = NULL;
	f->small = small;
	f->copied = copy;
	if (copy) {
		size_t at = 0;
		for (int i = 0; i < 2; i++) {
			if (r->len[i])
				memcpy(f->body + at, r->part[i], r->len[i]);
			at += r->len[i];
		}
		if (r->tail)
			memcpy(f->body + at, r->tail, body_len - at);
		hermes_reply_clear(r);
	}
	f->reply = *r;
	memset(r, 0, sizeof *r);
	f->header_len = hermes_frame_header(mode, body_len, f->header);
	f->trailer = hermes_frame_trailer(mode);
	f->len = f->header_len + body_len + strlen(f->trailer);
	bool through = (flags & HERMES_OUTPUT_WRITE_THROUGH) && !out->head && can_write_here(out);
	if (out->tail)
		out->tail->next = f;
	else
		out->head = f;
	out->tail = f;
	out->queued += frame_bytes(f);
	int err = 0;
	size_t freed = 0;
	if (through) /* one request at a time: no hand-off to the writer thread and back */
		freed = write_here(out, &err);
	if (err)
		out->broken = true;
	else if (out->head && !(flags & HERMES_OUTPUT_GATHER))
		pthread_cond_signal(&out->more);
	if (freed)
		pthread_cond_broadcast(&out->written);
	pthread_mutex_unlock(&out->lock);
	after_write_here(out, err, freed);
}

void hermes_output_flush_here(hermes_output_t *out)
{
	int err = 0;
	size_t freed = 0;
	pthread_mutex_lock(&out->lock);
	/* Written under the lock, as a write-through is: the writer thread cannot start meanwhile;
	 * what the pipe does not take at once is the writer's. */
	if (out->head && can_write_here(out))
		freed = write_here(out, &err);
	if (err)
		out->broken = true;
	else if (out->head)
		pthread_cond_signal(&out->more);
	if (freed)
		pthread_cond_broadcast(&out->written);
	pthread_mutex_unlock(&out->lock);
	after_write_here(out, err, freed);
}

bool hermes_output_wait_room(hermes_output_t *out, size_t max, int timeout_ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)timeout_ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&out->lock);
	while (out->queued >= max && !out->broken && !out->stopping)
		if (pthread_cond_timedwait(&out->written, &out->lock, &ts) == ETIMEDOUT)
			break;
	bool room = out->queued < max || out->broken || out->stopping;
	pthread_mutex_unlock(&out->lock);
	return room;
}

size_t hermes_output_queued(hermes_output_t *out)
{
	pthread_mutex_lock(&out->lock);
	size_t n = out->queued;
	pthread_mutex_unlock(&out->lock);
	return n;
}

bool hermes_output_finish(hermes_output_t *out, int stall_seconds)
{
	pthread_mutex_lock(&out->lock);
	out->stopping = true;
	pthread_cond_signal(&out->more);
	uint64_t last = atomic_load(&out->progress);
	int stalled = 0;
	while (!out->done) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		if (pthread_cond_timedwait(&out->idle, &out->lock, &ts) == ETIMEDOUT) {
			if (atomic_load(&out->progress) != last) {
				last = atomic_load(&out->progress);
				stalled = 0;
			} else if (++stalled >= stall_seconds) {
				out->on_broken = NULL; /* the caller's state is going away */
				out->on_written = NULL;
				pthread_mutex_unlock(&out->lock);
				hermes_log(HERMES_LOG_WARN, "the client has read no reply for %d s; giving up "
				           "on the replies still queued", stall_seconds);
				return false;
			}
		}
	}
	pthread_mutex_unlock(&out->lock);
	pthread_join(out->tid, NULL);
	free_frames(out, out->head);
	while (out->spare) {
		frame_t *next = out->spare->next;
		free(out->spare);
		out->spare = next;
	}
	if (out->nbfd >= 0)
		close(out->nbfd);
	pthread_mutex_destroy(&out->lock);
	pthread_cond_destroy(&out->more);
	pthread_cond_destroy(&out->idle);
	pthread_cond_destroy(&out->written);
	free(out);
	return true;
}
