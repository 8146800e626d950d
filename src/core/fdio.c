/* core/fdio.c: whole writes and bounded whole reads (see fdio.h). */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "core/fdio.h"

int hermes_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len > (1u << 30) ? (1u << 30) : len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int hermes_read_all(int fd, size_t limit, hermes_buf_t *out)
{
	char chunk[65536];
	for (;;) {
		size_t want = sizeof chunk;
		if (limit && limit - (out->len < limit ? out->len : limit) + 1 < want)
			want = limit - (out->len < limit ? out->len : limit) + 1;
		ssize_t n = read(fd, chunk, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return out->failed ? -ENOMEM : 0;
		hermes_buf_append(out, chunk, (size_t)n);
		if (out->failed)
			return -ENOMEM;
		if (limit && out->len > limit)
			return -EFBIG;
	}
}
