/* fs/glob.h: glob patterns over '/'-separated relative paths, in the syntax of gitignore and of
 * ripgrep's -g: '*' and '?' within one component, [...] classes, {a,b} alternatives, '\' escapes,
 * and "**" as a whole component for any number of components (zero included). */
#ifndef HERMES_FS_GLOB_H
#define HERMES_FS_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* Shell rule for hidden names: '*', '?', classes and "**" never match a component's leading '.',
 * so only a literal '.' in the pattern reaches a hidden file or directory. */
#define HERMES_GLOB_PERIOD 1u

/* The most alternatives a pattern may expand to ({a,b}{c,d} is four), and the most {...}
 * groups it may hold (a pattern comes from ignore files too: its cost must stay bounded). */
#define HERMES_GLOB_MAX_ALTERNATIVES 64
#define HERMES_GLOB_MAX_GROUPS 16

typedef struct hermes_glob hermes_glob_t;

/* Compiles pattern (len bytes, NUL not required). The pattern is matched against whole paths:
 * "*.c" matches "x.c" but not "src/x.c" (that takes "**" and "*.c" as two components); a "**" that is not a whole component
 * is a plain '*'; an empty component never matches. On success *out owns the glob (free with
 * hermes_glob_free) and 0 is returned; on a syntax error -1 and why (if not NULL) says what is
 * wrong, *out untouched; -2 if out of memory. */
int hermes_glob_compile(const char *pattern, size_t len, unsigned flags, hermes_glob_t **out,
                        char *why, size_t whysize);
void hermes_glob_free(hermes_glob_t *glob); /* NULL is fine */

/* Whether path (relative, components separated by single '/', no leading or trailing '/')
 * matches. Thread-safe, allocates nothing. */
bool hermes_glob_match(const hermes_glob_t *glob, const char *path, size_t len);

/* Whether some path strictly below the directory dir ("" is the top) could match: a walk may skip
 * directories for which this is false. */
bool hermes_glob_may_match_below(const hermes_glob_t *glob, const char *dir, size_t len);

#endif
