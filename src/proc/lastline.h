/* proc/lastline.h: the latest line a program wrote, shown as a running proc.run's progress message
 * (and by proc.list): short, printable, valid UTF-8. */
#ifndef HERMES_PROC_LASTLINE_H
#define HERMES_PROC_LASTLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest line kept, in bytes (a longer one is cut, at a character, and ends with "..."). */
#define HERMES_LASTLINE_MAX 200

/* The last line of text[0..len) that holds more than blanks: the finished one before the final
 * "\n", or the unfinished one after it; "\r" (a progress bar's rewrite) starts a line too. Written
 * to out (size > HERMES_LASTLINE_MAX + 4) without its ending, control characters as spaces, bytes
 * that are not UTF-8 as U+FFFD. False (out untouched) if there is no such line. */
bool hermes_last_line(const char *text, size_t len, char *out, size_t size);

/* The same for the last bytes of the file open as fd, whose size is size (read with pread). */
bool hermes_last_line_of_file(int fd, int64_t size, char *out, size_t size_out);

#endif
