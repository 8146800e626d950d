/* proc/tmpdir.h: a private temporary directory for a program Hermes starts on its own (a language
 * server): "hermes-tmp-<pid>-<n>" in $TMPDIR (or /tmp), mode 0700, given to the program as its
 * TMPDIR and removed with everything in it once the program has ended. What such a program leaves
 * there when it is stopped or killed (clangd's precompiled preambles, several MB each;
 * typescript-language-server's directories of cancellation pipes) no longer piles up in /tmp.
 * Those of Hermes processes that are gone (killed before they could remove theirs) are removed
 * when the first one is made. */
#ifndef HERMES_PROC_TMPDIR_H
#define HERMES_PROC_TMPDIR_H

/* Makes a fresh one; *path gets its malloc'd absolute path. 0, or -errno (*path is NULL then: the
 * program runs with the usual TMPDIR). */
int hermes_tmpdir_make(char **path);

/* Removes it with everything in it (never following a symbolic link, never leaving its file
 * system) and frees path. NULL: nothing. */
void hermes_tmpdir_remove(char *path);

#endif
