/* lsp/uri.h: file URIs (RFC 8089) as LSP uses them, to and from absolute paths, and LSP's UTF-16
 * positions to and from Hermes' columns (characters of a line's UTF-8 text). */
#ifndef HERMES_LSP_URI_H
#define HERMES_LSP_URI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/buf.h"

/* Appends the file URI of the absolute path to b: "file://" and the path with every byte outside
 * RFC 3986's unreserved set and '/' percent-encoded. */
void hermes_lsp_uri_append(hermes_buf_t *b, const char *abs_path);

/* The absolute path of a file URI (malloc'd, caller frees), or NULL if uri is not a "file://"
 * URI of an absolute path, has a bad %-escape, or decodes to a NUL byte. */
char *hermes_lsp_uri_path(const char *uri);

/* The 0-based character index in line[0..len) (UTF-8) of the UTF-16 offset u16 (a character
 * outside the BMP counts 2 UTF-16 units); past the end: the line's length in characters. */
int64_t hermes_lsp_u16_to_chars(const char *line, size_t len, int64_t u16);

/* The UTF-16 offset of the 0-based character index chars in line[0..len). */
int64_t hermes_lsp_chars_to_u16(const char *line, size_t len, int64_t chars);
/* The byte offset in text[0..len) of LSP position (line from 0, u16: UTF-16 units into it); at
 * most the line's end; -1 if the line is past the end of the text. */
ssize_t hermes_lsp_offset_of(const char *text, size_t len, int64_t line, int64_t u16);

#endif
