/* core/fdio.h: the loops around read(2) and write(2) that every layer needs: write a whole
 * buffer, read a whole descriptor (bounded). The only two; core itself opens nothing. */
#ifndef HERMES_CORE_FDIO_H
#define HERMES_CORE_FDIO_H

#include <stddef.h>

#include "core/buf.h"

/* Writes all of buf[0..len) to fd, through short writes and EINTR. 0, or -errno. */
int hermes_write_all(int fd, const void *buf, size_t len);

/* Appends everything fd yields until its end to out, but stops as soon as more than limit bytes
 * came (limit 0: no limit): 0, -EFBIG past the limit, -ENOMEM, or -errno of read(2). Reads at most
 * limit + 1 bytes, so a huge input costs no more memory than the limit. */
int hermes_read_all(int fd, size_t limit, hermes_buf_t *out);

#endif
