/* core/instance.c: instance names and the instance part of handles (see instance.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/instance.h"

bool hermes_instance_valid(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n >= 1 && n <= HERMES_INSTANCE_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

void hermes_instance_default(char *buf, size_t n, int port)
{
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) != 0)
		host[0] = '\0';
	size_t o = 0;
	for (const char *p = host; *p && *p != '.' && o < HERMES_INSTANCE_MAX && o + 1 < n; p++) {
		char c = *p;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		buf[o++] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '-';
	}
	buf[o] = '\0';
	if (o == 0)
		snprintf(buf, n, "hermes");
	if (port > 0) {
		char suffix[16];
		int sl = snprintf(suffix, sizeof suffix, "-%d", port);
		size_t keep = strlen(buf);
		if (keep + (size_t)sl > HERMES_INSTANCE_MAX)
			keep = HERMES_INSTANCE_MAX - (size_t)sl;
		if (keep + (size_t)sl < n)
			snprintf(buf + keep, n - keep, "%s", suffix);
	}
}

bool hermes_handle_instance(const char *handle, char *buf, size_t n)
{
	const char *dot = strchr(handle, '.');
	size_t len = dot ? (size_t)(dot - handle) : 0;
	if (!dot || len == 0 || len > HERMES_INSTANCE_MAX || len >= n)
		return false;
	memcpy(buf, handle, len);
	buf[len] = '\0';
	return hermes_instance_valid(buf);
}

void hermes_handles_init(hermes_handles_t *h, const char *instance)
{
	if (hermes_instance_valid(instance))
		snprintf(h->instance, sizeof h->instance, "%s", instance);
	else
		hermes_instance_default(h->instance, sizeof h->instance, 0);
	h->seq = 0;
	if (getrandom(&h->tag, sizeof h->tag, GRND_NONBLOCK) != (ssize_t)sizeof h->tag) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		h->tag = (unsigned)ts.tv_nsec ^ (unsigned)getpid() * 2654435761u;
	}
	h->tag &= 0xffffff;
}

void hermes_handles_mint(hermes_handles_t *h, char letter, char *buf, size_t n)
{
	snprintf(buf, n, "%s.%c%u-%06x", h->instance, letter, ++h->seq, h->tag);
}

bool hermes_handle_elsewhere(const char *handle, const char *mine, char *owner, size_t n)
{
	return hermes_handle_instance(handle, owner, n) && strcmp(owner, mine) != 0;
}
