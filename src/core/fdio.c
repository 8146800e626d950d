/* core/fdio.c: whole writes and bounded whole reads (see fdio.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
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

int hermes_write_all_timed(int fd, const void *buf, size_t len, int timeout_ms, size_t *written)
{
	const char *p = buf;
	size_t done = 0;
	int rc = 0;
	while (done < len) {
		ssize_t w = write(fd, p + done, len - done);
		if (w > 0) {
			done += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = {.fd = fd, .events = POLLOUT};
			int r = poll(&pf, 1, timeout_ms);
			if (r == 0) {
				rc = -ETIMEDOUT;
				break;
			}
			if (r > 0 && (pf.revents & (POLLERR | POLLHUP)) && !(pf.revents & POLLOUT)) {
				rc = -EPIPE;
				break;
			}
			continue;
		}
		rc = w < 0 && errno != EIO ? -errno : -EPIPE; /* EIO: a terminal nobody holds */
		break;
	}
	*written = done;
	return rc;
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
