/* lsp/framing.c: reading and writing the Content-Length framing of LSP messages (framing.h). */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lsp/framing.h"

/* Parses one header line line[0..n) (no CRLF); sets *length from a Content-Length. */
static int header_line(const char *line, size_t n, size_t max_body, size_t *length, int *seen,
                       const char **why)
{
	const char *colon = memchr(line, ':', n);
	if (!colon) {
		*why = "a header line has no ':'";
		return -1;
	}
	size_t name_len = (size_t)(colon - line);
	if (name_len != 14 || strncasecmp(line, "Content-Length", 14) != 0)
		return 0; /* Content-Type and any other header are allowed and ignored */
	if (*seen) {
		*why = "Content-Length is given twice";
		return -1;
	}
	*seen = 1;
	const char *p = colon + 1, *end = line + n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p == end) {
		*why = "Content-Length has no value";
		return -1;
	}
	size_t v = 0;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9') {
			*why = "Content-Length is not a decimal number";
			return -1;
		}
		v = v * 10 + (size_t)(*p - '0');
		if (v > max_body) {
			*why = "the message body is larger than allowed";
			return -1;
		}
	}
	*length = v;
	return 0;
}

int hermes_lsp_frame_parse(const char *buf, size_t len, size_t max_body, size_t *body,
                           size_t *body_len, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	size_t pos = 0, length = 0;
	int seen = 0;
	for (;;) {
		size_t limit = len < HERMES_LSP_MAX_HEADER ? len : HERMES_LSP_MAX_HEADER;
		const char *nl = pos < limit ? memchr(buf + pos, '\n', limit - pos) : NULL;
		if (!nl) {
			if (len >= HERMES_LSP_MAX_HEADER) {
				*why = "the header block is longer than allowed";
				return -1;
			}
			return 0;
		}
		size_t eol = (size_t)(nl - buf);
		if (eol == pos || buf[eol - 1] != '\r') {
			*why = "a header line does not end with CRLF";
			return -1;
		}
		size_t n = eol - 1 - pos;
		if (n == 0) { /* the empty line ends the header block */
			pos = eol + 1;
			break;
		}
		if (header_line(buf + pos, n, max_body, &length, &seen, why) < 0)
			return -1;
		pos = eol + 1;
	}
	if (!seen) {
		*why = "the header block has no Content-Length";
		return -1;
	}
	if (len - pos < length)
		return 0;
	*body = pos;
	*body_len = length;
	return 1;
}

size_t hermes_lsp_frame_header(size_t len, char *out, size_t size)
{
	int n = snprintf(out, size, "Content-Length: %zu\r\n\r\n", len);
	return n < 0 ? 0 : (size_t)n;
}
