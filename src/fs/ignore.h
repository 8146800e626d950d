/* fs/ignore.h: ignore rules in the gitignore format (.gitignore, .ignore, .git/info/exclude,
 * and the include/exclude globs of fs.search), and the decision a walk makes for each entry, with
 * ripgrep's precedence so that fs.search skips exactly what `rg` skips. */
#ifndef HERMES_FS_IGNORE_H
#define HERMES_FS_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum hermes_ignore_match {
	HERMES_IGNORE_NONE,   /* no rule says anything */
	HERMES_IGNORE_SKIP,   /* the last matching rule ignores it */
	HERMES_IGNORE_KEEP,   /* the last matching rule is a negation ("!pattern"): keep it */
} hermes_ignore_match_t;

/* The most bytes read from one ignore file; the lines past it are not read. */
#define HERMES_IGNORE_MAX_FILE (1024 * 1024)

/* The rules of one ignore file, in order. */
typedef struct hermes_ignore_rules hermes_ignore_rules_t;

hermes_ignore_rules_t *hermes_ignore_new(void); /* NULL if out of memory */
void hermes_ignore_free(hermes_ignore_rules_t *rules); /* NULL is fine */
size_t hermes_ignore_count(const hermes_ignore_rules_t *rules);

/* Adds one line in gitignore syntax: blank lines and "#" comments add nothing; trailing spaces
 * are dropped unless escaped ("\ "); "!" negates, "\!" and "\#" are literal; a final "/" matches
 * directories only; a pattern with a "/" before its end (or a leading "/") is anchored to the
 * rules' directory, one without matches a name at any depth; "**" spans directories; "dir/"
 * followed by "**" matches what is inside dir, not dir. Returns 0; -1 if the glob is invalid (why
 * says how, nothing added); -2 if out of memory. */
int hermes_ignore_add(hermes_ignore_rules_t *rules, const char *line, size_t len, char *why,
                      size_t whysize);

/* Adds every line of an ignore file's text (a UTF-8 byte order mark is skipped); lines with
 * invalid globs are left out, as git and ripgrep do. 0, or -2 if out of memory. */
int hermes_ignore_add_text(hermes_ignore_rules_t *rules, const char *text, size_t len);

/* What the rules say about path (relative to the rules' directory, no leading "./"): the last
 * matching rule decides; directory-only rules apply only when is_dir. */
hermes_ignore_match_t hermes_ignore_match(const hermes_ignore_rules_t *rules, const char *path,
                                          size_t len, bool is_dir);

/* The ignore files of one directory, chained to those of its parent. A walk keeps one per
 * directory it has entered (and one per directory above where it started). */
typedef struct hermes_ignore_dir {
	const struct hermes_ignore_dir *parent;
	size_t skip;                      /* bytes of a workspace path before the part relative to
	                                     this directory: 0 for the root, else its length + 1 */
	hermes_ignore_rules_t *gitignore; /* .gitignore, or NULL */
	hermes_ignore_rules_t *dotignore; /* .ignore, or NULL */
	hermes_ignore_rules_t *exclude;   /* .git/info/exclude if .git is a directory here, or NULL */
	bool has_git;                     /* .git exists here: a repository starts */
} hermes_ignore_dir_t;

/* Reads the ignore files of the directory open as dirfd into d (whose parent and skip the caller
 * set). Files are opened without following symlinks (like git); a missing or unreadable one is
 * simply absent. 0, or -2 if out of memory. */
int hermes_ignore_dir_load(hermes_ignore_dir_t *d, int dirfd);
void hermes_ignore_dir_clear(hermes_ignore_dir_t *d); /* frees the rules d holds */

/* How a walk filters. */
typedef struct hermes_ignore_opts {
	bool respect_ignore;                    /* apply the ignore files */
	bool include_hidden;                    /* keep names starting with '.' */
	const hermes_ignore_rules_t *overrides; /* include/exclude globs (hermes_ignore_add_override),
	                                           matched against the path after root_skip bytes; or NULL */
	size_t root_skip;
} hermes_ignore_opts_t;

/* Adds an include (whitelist = true) or exclude glob of fs.search to an override set. The glob is
 * read like a gitignore line without negation, comments or "\ " (so "#x" is a name). 0, -1 if
 * invalid (why filled), -2 if out of memory. */
int hermes_ignore_add_override(hermes_ignore_rules_t *overrides, const char *glob, bool include,
                               char *why, size_t whysize);

/* Whether a walk skips the entry at path (workspace-relative, len bytes; name is its last
 * component) found in directory dir, with ripgrep's order: an override glob that matches decides
 * (and when there are include globs, a file none matches is skipped); then the ignore files, the
 * nearest matching file of each kind winning and .ignore before .gitignore before
 * .git/info/exclude, .gitignore files above a repository's top (a directory holding .git) not
 * applying inside it; then, unless a rule kept it, a hidden name is skipped. */
bool hermes_ignore_skips(const hermes_ignore_dir_t *dir, const hermes_ignore_opts_t *opts,
                         const char *path, size_t len, const char *name, bool is_dir);

#endif
