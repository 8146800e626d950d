/* core/fdio.h: the loops around read(2) and write(2) that every layer needs: write a whole
 * buffer (blocking, or to a non-blocking descriptor with a deadline), read a whole descriptor
 * (bounded). The only ones; core itself opens nothing. */
#ifndef HERMES_CORE_FDIO_H
#define HERMES_CORE_FDIO_H

#include <stddef.h>

#include "core/buf.h"

/* Writes all of buf[0..len) to fd, through short writes and EINTR. 0, or -errno. */
int hermes_write_all(int fd, const void *buf, size_t len);

/* Writes all of buf[0..len) to fd, a non-blocking descriptor, through short writes and EINTR,
 * waiting for room (poll) up to timeout_ms at a time: a reader that takes nothing for that long
 * ends the write. *written: how many bytes went, whatever the outcome. 0; -ETIMEDOUT; -EPIPE if
 * the reader is gone (EPIPE, POLLHUP or POLLERR without room, or EIO: a terminal nobody holds);
 * or -errno of write(2). SIGPIPE is the caller's to block. */
int hermes_write_all_timed(int fd, const void *buf, size_t len, int timeout_ms, size_t *written);

/* Appends everything fd yields until its end to out, but stops as soon as more than limit bytes
 * came (limit 0: no limit): 0, -EFBIG past the limit, -ENOMEM, or -errno of read(2). Reads at most
 * limit + 1 bytes, so a huge input costs no more memory than the limit. */
int hermes_read_all(int fd, size_t limit, hermes_buf_t *out);

#endif
