/* transport/stdio/output.c: the writer thread (see output.h). Frames waiting together are written
 * with one writev(), which is what keeps throughput up when thousands of small replies are in
 * flight. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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
	const char *trailer;
} frame_t;

struct hermes_output {
	int fd;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t more;     /* a frame was queued, or stopping */
	pthread_cond_t idle;     /* the writer finished */
	pthread_cond_t written;  /* a round of writes is done: maybe room for more */
	frame_t *head, *tail;
	bool stopping, done, broken;
	bool writing;            /* the writer thread is writing a list it took */
	long pipe_size;          /* the output is a pipe this big; 0: a regular file; -1: other */
	atomic_uint_fast64_t progress; /* bytes written, to tell a slow client from a stuck one */
	size_t queued;           /* bytes of the frames queued or being written */
	void (*on_broken)(void *);
	void (*on_written)(void *);
	void *ctx;
};

/* The memory a queued frame takes: its blocks as the allocator sized them (a reply's text often
 * sits in a buffer grown by doubling: counting its length alone let 16 MiB of counted replies
 * take 35 to 55 MiB) and their overhead. */
static size_t frame_bytes(const frame_t *f)
{
	size_t parts = 0;
	for (int i = 0; i < 2; i++)
		if (f->reply.part[i])
			parts += malloc_usable_size(f->reply.part[i]);
	return parts + malloc_usable_size((void *)f) + 3 * 16;
}

/* Frees a list of frames; returns the bytes they held. */
static size_t free_frames(frame_t *f)
{
	size_t bytes = 0;
	while (f) {
		frame_t *next = f->next;
		bytes += frame_bytes(f);
		hermes_reply_clear(&f->reply);
		free(f);
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

#define BATCH_IOV 240 /* 5 pieces per frame, under IOV_MAX (1024) */

/* The pieces of a frame (at most 5) into iov; returns how many. */
static int frame_iov(const frame_t *f, struct iovec *iov)
{
	int n = 0;
	iov[n++] = (struct iovec){(void *)f->header, f->header_len};
	for (int i = 0; i < 2; i++)
		if (f->reply.len[i])
			iov[n++] = (struct iovec){f->reply.part[i], f->reply.len[i]};
	if (f->reply.tail && *f->reply.tail)
		iov[n++] = (struct iovec){(void *)f->reply.tail, strlen(f->reply.tail)};
	if (*f->trailer)
		iov[n++] = (struct iovec){(void *)f->trailer, strlen(f->trailer)};
	return n;
}

/* Can len bytes be written now without any risk of blocking: nothing being written, and a regular
 * file or a pipe with that much free (only this process writes there: the room can only grow).
 * Lock held. */
static bool has_room(hermes_output_t *out, size_t len)
{
	if (out->writing || out->pipe_size < 0)
		return false;
	if (out->pipe_size == 0)
		return true;
	int unread = 0;
	return ioctl(out->fd, FIONREAD, &unread) == 0 && unread >= 0 &&
	       (size_t)(out->pipe_size - unread) >= len;
}

/* Can a frame of len bytes be written at once by the thread that has it, without waking the
 * writer? Only with nothing queued or being written (the order of the replies stays) and room
 * for all of it. Lock held. */
static bool can_write_through(hermes_output_t *out, size_t len)
{
	return !out->head && has_room(out, len);
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
		out->head = out->tail = NULL;
		out->writing = true;
		pthread_mutex_unlock(&out->lock);

		bool was_broken = out->broken;
		uint64_t count = 0;
		for (frame_t *f = list; f && !out->broken;) {
			int n = 0;
			while (f && n + 5 <= BATCH_IOV) {
				n += frame_iov(f, iov + n);
				f = f->next;
				count++;
			}
			int err = write_all(out, iov, n);
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
		size_t written = free_frames(list);
		pthread_mutex_lock(&out->lock);
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

hermes_output_t *hermes_output_start(int fd, void (*on_broken)(void *ctx),
                                     void (*on_written)(void *ctx), void *ctx)
{
	hermes_output_t *out = calloc(1, sizeof *out);
	if (out == NULL)
		return NULL;
	out->fd = fd;
	struct stat st;
	out->pipe_size = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		out->pipe_size = 0;
#ifdef F_GETPIPE_SZ
	else if (S_ISFIFO(st.st_mode))
		out->pipe_size = fcntl(fd, F_GETPIPE_SZ) > 0 ? fcntl(fd, F_GETPIPE_SZ) : -1;
#endif
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
		free(out);
		return NULL;
	}
	return out;
}

void hermes_output_send(hermes_output_t *out, hermes_framing_t mode, hermes_reply_t *r,
                        unsigned flags)
{
	frame_t *f = malloc(sizeof *f);
	if (f == NULL) {
		hermes_log(HERMES_LOG_ERROR, "out of memory queueing a reply; it is lost");
		hermes_reply_clear(r);
		return;
	}
	f->next = NULL;
	f->reply = *r;
	memset(r, 0, sizeof *r);
	f->header_len = hermes_frame_header(mode, hermes_reply_length(&f->reply), f->header);
	f->trailer = hermes_frame_trailer(mode);
	pthread_mutex_lock(&out->lock);
	if (out->broken || out->stopping) {
		pthread_mutex_unlock(&out->lock);
		free_frames(f);
		return;
	}
	size_t len = f->header_len + hermes_reply_length(&f->reply) + strlen(f->trailer);
	if ((flags & HERMES_OUTPUT_WRITE_THROUGH) && can_write_through(out, len)) {
		/* one request at a time: no hand-off to the writer thread and back */
		struct iovec iov[5];
		int err = write_all(out, iov, frame_iov(f, iov));
		if (err)
			out->broken = true;
		pthread_mutex_unlock(&out->lock);
		free_frames(f);
		if (err) {
			hermes_log(err == EPIPE ? HERMES_LOG_INFO : HERMES_LOG_ERROR, "cannot write a reply: %s",
			           strerror(err));
			if (out->on_broken)
				out->on_broken(out->ctx);
		}
		return;
	}
	if (out->tail)
		out->tail->next = f;
	else
		out->head = f;
	out->tail = f;
	out->queued += frame_bytes(f);
	if (!(flags & HERMES_OUTPUT_GATHER))
		pthread_cond_signal(&out->more);
	pthread_mutex_unlock(&out->lock);
}

void hermes_output_flush_here(hermes_output_t *out)
{
	pthread_mutex_lock(&out->lock);
	if (!out->head || out->broken || out->stopping || !has_room(out, out->queued)) {
		if (out->head)
			pthread_cond_signal(&out->more); /* the writer's job after all */
		pthread_mutex_unlock(&out->lock);
		return;
	}
	/* Written under the lock, as a write-through is: the writer thread cannot start meanwhile,
	 * and the room was checked for all of it (queued counts more than the bytes). */
	frame_t *list = out->head;
	out->head = out->tail = NULL;
	struct iovec iov[BATCH_IOV];
	int err = 0;
	for (frame_t *f = list; f && !err;) {
		int n = 0;
		while (f && n + 5 <= BATCH_IOV) {
			n += frame_iov(f, iov + n);
			f = f->next;
		}
		err = write_all(out, iov, n);
	}
	if (err)
		out->broken = true;
	out->queued -= free_frames(list);
	pthread_cond_broadcast(&out->written);
	pthread_mutex_unlock(&out->lock);
	if (err) {
		hermes_log(err == EPIPE ? HERMES_LOG_INFO : HERMES_LOG_ERROR, "cannot write a reply: %s",
		           strerror(err));
		if (out->on_broken)
			out->on_broken(out->ctx);
	}
	if (out->on_written)
		out->on_written(out->ctx);
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
	free_frames(out->head);
	pthread_mutex_destroy(&out->lock);
	pthread_cond_destroy(&out->more);
	pthread_cond_destroy(&out->idle);
	pthread_cond_destroy(&out->written);
	free(out);
	return true;
}
