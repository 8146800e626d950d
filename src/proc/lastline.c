/* proc/lastline.c: the latest line of a program's output, for progress messages (lastline.h). */
#include <config.h>

#include <string.h>
#include <unistd.h>

#include "core/utf8.h"
#include "proc/lastline.h"

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] > ' ')
			return false;
	return true;
}

bool hermes_last_line(const char *text, size_t len, char *out, size_t size)
{
	if (size < HERMES_LASTLINE_MAX + 4)
		return false;
	size_t end = len;
	while (end > 0) {
		size_t start = end;
		while (start > 0 && text[start - 1] != '\n' && text[start - 1] != '\r')
			start--;
		if (!blank(text + start, end - start)) {
			size_t o = 0, i = start;
			while (i < end) {
				size_t n = hermes_utf8_sequence_length(text + i, end - i);
				if (o + (n ? n : 3) > HERMES_LASTLINE_MAX) {
					memcpy(out + o, "...", 3);
					o += 3;
					break;
				}
				if (n == 0) {
					memcpy(out + o, "\xEF\xBF\xBD", 3); /* U+FFFD */
					o += 3;
					i++;
				} else if (n == 1) {
					unsigned char c = (unsigned char)text[i++];
					out[o++] = c < ' ' || c == 0x7F ? ' ' : (char)c;
				} else {
					memcpy(out + o, text + i, n);
					o += n;
					i += n;
				}
			}
			out[o] = '\0';
			return true;
		}
		end = start > 0 ? start - 1 : 0;
	}
	return false;
}

bool hermes_last_line_of_file(int fd, int64_t size, char *out, size_t size_out)
{
	char buf[1024];
	int64_t at = size > (int64_t)sizeof buf ? size - (int64_t)sizeof buf : 0;
	ssize_t n = size > 0 ? pread(fd, buf, (size_t)(size - at), at) : 0;
	if (n <= 0)
		return false;
	/* A line cut at the front of the window is still the line's end: what a reader sees last. */
	return hermes_last_line(buf, (size_t)n, out, size_out);
}
