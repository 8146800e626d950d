/* core/cancel.c: a call's token: cancellation (an atomic flag plus an eventfd that pollers can
 * watch), the host's progress callback, rate-limited here for every verb, and its memory hook. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <hermes/hermes.h>

#include "core/verb.h"

/* Progress reports at most this often. */
#define PROGRESS_INTERVAL_NS (100 * 1000 * 1000LL)

struct hermes_cancel {
	atomic_bool requested;
	atomic_bool urgent;
	int fd;
	/* progress: set before the call, then used by the verb's thread only */
	hermes_progress_fn progress;
	void *progress_ctx;
	int64_t last_ns;      /* when the last report went out; 0: none yet */
	double last_progress;
	hermes_memory_fn memory; /* set before the call */
	void *memory_ctx;
};

hermes_cancel_t *hermes_cancel_new(void)
{
	hermes_cancel_t *c = malloc(sizeof *c);
	if (!c)
		return NULL;
	atomic_init(&c->requested, false);
	atomic_init(&c->urgent, false);
	c->progress = NULL;
	c->progress_ctx = NULL;
	c->last_ns = 0;
	c->last_progress = 0;
	c->memory = NULL;
	c->memory_ctx = NULL;
	c->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->fd < 0) {
		free(c);
		return NULL;
	}
	return c;
}

void hermes_cancel_free(hermes_cancel_t *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c);
}

void hermes_cancel_request(hermes_cancel_t *c)
{
	if (!c || atomic_exchange(&c->requested, true))
		return;
	uint64_t one = 1;
	ssize_t r;
	do
		r = write(c->fd, &one, sizeof one);
	while (r < 0 && errno == EINTR);
}

void hermes_cancel_request_urgent(hermes_cancel_t *c)
{
	if (!c)
		return;
	atomic_store(&c->urgent, true); /* before the flag: whoever sees it cancelled sees this */
	hermes_cancel_request(c);
}

bool hermes_cancel_urgent(const hermes_cancel_t *c)
{
	return c && atomic_load(&((hermes_cancel_t *)c)->urgent);
}

bool hermes_cancel_requested(const hermes_cancel_t *c)
{
	return c && atomic_load(&((hermes_cancel_t *)c)->requested);
}

int hermes_cancel_fd(const hermes_cancel_t *c)
{
	return c ? c->fd : -1;
}

void hermes_cancel_set_progress(hermes_cancel_t *c, hermes_progress_fn fn, void *ctx)
{
	if (!c)
		return;
	c->progress = fn;
	c->progress_ctx = ctx;
}

void hermes_cancel_set_memory(hermes_cancel_t *c, hermes_memory_fn fn, void *ctx)
{
	if (!c)
		return;
	c->memory = fn;
	c->memory_ctx = ctx;
}

bool hermes_call_hold_memory(const hermes_call_t *call, size_t bytes)
{
	hermes_cancel_t *c = call ? call->cancel : NULL;
	if (c && c->memory)
		c->memory(c->memory_ctx, bytes);
	return !hermes_cancel_requested(c);
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void hermes_call_progress(const hermes_call_t *call, double progress, double total,
                          const char *fmt, ...)
{
	hermes_cancel_t *c = call ? call->cancel : NULL;
	if (!c || !c->progress || (c->last_ns && progress <= c->last_progress))
		return;
	int64_t now = monotonic_ns();
	if (c->last_ns && now - c->last_ns < PROGRESS_INTERVAL_NS)
		return;
	char message[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	c->last_ns = now;
	c->last_progress = progress;
	c->progress(c->progress_ctx, progress, total, message);
}
