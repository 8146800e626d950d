/* transport/http/http_token.c: the bearer token of --auth-token-file (see http_server.h), read
 * once at the start: a regular file only its owner can read, one line of printable ASCII. The
 * check of a request's Authorization header against it is http_check.c's (constant time). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport/http/http_server.h"

int hermes_http_read_token(http_server_t *hs, const char *path)
{
	/* O_NONBLOCK: a FIFO must not hold the start until someone writes to it */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "hermes mcp: cannot read the token file %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "hermes mcp: the token file %s is not a regular file\n", path);
		close(fd);
		return -1;
	}
	if (st.st_mode & 077) {
		fprintf(stderr, "hermes mcp: the token file %s can be read by others (chmod 600 it)\n",
		        path);
		close(fd);
		return -1;
	}
	char buf[MAX_TOKEN_BYTES + 2];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0 || n > MAX_TOKEN_BYTES) {
		fprintf(stderr, "hermes mcp: the token file %s %s\n", path,
		        n < 0 ? "cannot be read" : "is longer than 4096 bytes");
		return -1;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	if (n == 0) {
		fprintf(stderr, "hermes mcp: the token file %s is empty\n", path);
		return -1;
	}
	for (ssize_t i = 0; i < n; i++)
		if ((unsigned char)buf[i] <= 0x20 || (unsigned char)buf[i] >= 0x7f) {
			fprintf(stderr, "hermes mcp: the token in %s holds a space or a character that is not "
			        "printable ASCII\n", path);
			return -1;
		}
	hs->token = strdup(buf);
	hs->token_len = (size_t)n;
	explicit_bzero(buf, sizeof buf);
	return hs->token ? 0 : -1;
}
