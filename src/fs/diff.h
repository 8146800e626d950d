/* fs/diff.h: a unified diff of two texts, line by line (Myers' algorithm), as `diff -u` prints
 * it: "--- a/NAME", "+++ b/NAME", hunks with `context` lines around each change, and "\ No
 * newline at end of file" where a text's last line has none. */
#ifndef HERMES_FS_DIFF_H
#define HERMES_FS_DIFF_H

#include <stddef.h>

/* The diff of a[0..alen) and b[0..blen), both named name; "" if they are equal. malloc'd; NULL if
 * out of memory. */
char *hermes_unified_diff(const char *name, const char *a, size_t alen, const char *b, size_t blen,
                          int context);

#endif
