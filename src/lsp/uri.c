/* lsp/uri.c: file URIs and UTF-16 positions (uri.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "lsp/uri.h"

void hermes_lsp_uri_append(hermes_buf_t *b, const char *abs_path)
{
	static const char hex[] = "0123456789ABCDEF";
	hermes_buf_puts(b, "file://");
	for (const unsigned char *p = (const unsigned char *)abs_path; *p; p++) {
		unsigned char ch = *p;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '.' || ch == '_' || ch == '~' || ch == '/') {
			hermes_buf_putc(b, (char)ch);
		} else {
			char esc[3] = {'%', hex[ch >> 4], hex[ch & 15]};
			hermes_buf_append(b, esc, 3);
		}
	}
}

char *hermes_lsp_uri_path(const char *uri)
{
	if (strncmp(uri, "file://", 7) != 0)
		return NULL;
	const char *p = uri + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/')
		return NULL;
	char *out = malloc(strlen(p) + 1);
	if (!out)
		return NULL;
	size_t n = 0;
	for (; *p; p++) {
		if (*p == '%') {
			int hi = hermes_json_hexval(p[1]), lo = hi >= 0 ? hermes_json_hexval(p[2]) : -1;
			if (lo < 0 || (hi == 0 && lo == 0)) {
				free(out);
				return NULL;
			}
			out[n++] = (char)(hi * 16 + lo);
			p += 2;
		} else if (*p == '?' || *p == '#') {
			break;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return out;
}

/* Bytes of the UTF-8 sequence starting with byte b (1 for a stray byte). */
static size_t seq_len(unsigned char b)
{
	return b >= 0xF0 && b < 0xF8 ? 4 : b >= 0xE0 ? (b < 0xF0 ? 3 : 1) : b >= 0xC0 ? 2 : 1;
}

int64_t hermes_lsp_u16_to_chars(const char *line, size_t len, int64_t u16)
{
	int64_t chars = 0, units = 0;
	size_t i = 0;
	while (i < len && units < u16) {
		size_t n = seq_len((unsigned char)line[i]);
		if (i + n > len)
			n = 1;
		units += n == 4 ? 2 : 1;
		i += n;
		chars++;
	}
	return chars;
}

int64_t hermes_lsp_chars_to_u16(const char *line, size_t len, int64_t chars)
{
	int64_t units = 0;
	size_t i = 0;
	for (int64_t k = 0; k < chars; k++) {
		if (i >= len) {
			units += chars - k; /* past the end: counted as one unit each, as the server sees */
			break;
		}
		size_t n = seq_len((unsigned char)line[i]);
		if (i + n > len)
			n = 1;
		units += n == 4 ? 2 : 1;
		i += n;
	}
	return units;
}

ssize_t hermes_lsp_offset_of(const char *text, size_t len, int64_t line, int64_t u16)
{
	size_t pos = 0;
	for (int64_t i = 0; i < line; i++) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		if (!nl)
			return -1;
		pos = (size_t)(nl - text) + 1;
	}
	int64_t units = 0;
	while (pos < len && text[pos] != '\n' && units < u16) {
		unsigned char b = (unsigned char)text[pos];
		size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
		units += n == 4 ? 2 : 1;
		pos += n;
	}
	return pos > len ? (ssize_t)len : (ssize_t)pos;
}
