/* core/cancel.c: cancellation tokens: an atomic flag plus an eventfd that pollers can watch. */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <hermes/hermes.h>

struct hermes_cancel {
	atomic_bool requested;
	int fd;
};

hermes_cancel_t *hermes_cancel_new(void)
{
	hermes_cancel_t *c = malloc(sizeof *c);
	if (!c)
		return NULL;
	atomic_init(&c->requested, false);
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

bool hermes_cancel_requested(const hermes_cancel_t *c)
{
	return c && atomic_load(&((hermes_cancel_t *)c)->requested);
}

int hermes_cancel_fd(const hermes_cancel_t *c)
{
	return c ? c->fd : -1;
}
