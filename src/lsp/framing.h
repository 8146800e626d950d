/* lsp/framing.h: the base protocol of the Language Server Protocol: messages framed by a header
 * block ("Content-Length: N\r\n", optionally "Content-Type: ...\r\n", then "\r\n") and N bytes of
 * JSON. Reading is a pure function over a buffer, so a stream reader and the fuzzer share it; both
 * the header block and the body are bounded, so a server cannot make Hermes hold unbounded text. */
#ifndef HERMES_LSP_FRAMING_H
#define HERMES_LSP_FRAMING_H

#include <stddef.h>

#define HERMES_LSP_MAX_HEADER 4096               /* bytes of one header block */
#define HERMES_LSP_MAX_BODY (64u * 1024 * 1024)  /* bytes of one message body */

/* Looks for one whole message at the start of buf[0..len). Returns 1 if there is one: *body is
 * its offset, *body_len its length, and the message ends at *body + *body_len; 0 if more bytes are
 * needed; -1 if the bytes are not a valid frame (why gets a sentence, if not NULL): a header line
 * without ':', no or a repeated or a non-decimal Content-Length, a body over max_body bytes, a
 * header block over HERMES_LSP_MAX_HEADER bytes. */
int hermes_lsp_frame_parse(const char *buf, size_t len, size_t max_body, size_t *body,
                           size_t *body_len, const char **why);

/* Writes the header for a body of len bytes into out (at least 40 bytes); returns its length. */
size_t hermes_lsp_frame_header(size_t len, char *out, size_t size);

#endif
