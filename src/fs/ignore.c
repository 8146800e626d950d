/* fs/ignore.c: gitignore rules and the skip decision of the walks (see ignore.h). The rules
 * follow git's gitignore(5) as ripgrep's ignore crate reads it, since fs.search must skip exactly
 * what rg skips. */
#include <config.h>

#include "fs/ignore.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/glob.h"

typedef struct rule {
	hermes_glob_t *glob;
	bool keep;     /* a negation ("!x"), or an include glob */
	bool dir_only; /* the line ended with '/' */
} rule_t;

struct hermes_ignore_rules {
	rule_t *rules;
	size_t count, cap;
	size_t keeps; /* rules with keep set */
};

hermes_ignore_rules_t *hermes_ignore_new(void)
{
	return calloc(1, sizeof(hermes_ignore_rules_t));
}

void hermes_ignore_free(hermes_ignore_rules_t *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->count; i++)
		hermes_glob_free(r->rules[i].glob);
	free(r->rules);
	free(r);
}

size_t hermes_ignore_count(const hermes_ignore_rules_t *r)
{
	return r ? r->count : 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Compiles the glob of a line already stripped of its "!" and leading "/" and adds the rule. */
static int add_rule(hermes_ignore_rules_t *r, const char *p, size_t n, bool anchored, bool keep,
                    char *why, size_t whysize)
{
	bool dir_only = false;
	if (n > 0 && p[n - 1] == '/') {
		dir_only = true;
		n--;
	}
	/* A glob without '/' matches a name at any depth: "**\/" in front, unless already there. */
	bool prefix = !anchored && !memchr(p, '/', n) &&
	              !((n >= 3 && memcmp(p, "**/", 3) == 0) || (n == 2 && memcmp(p, "**", 2) == 0));
	/* A final slash and "**" is what is inside the directory, not the directory itself. */
	bool suffix = n >= 3 && memcmp(p + n - 3, "/**", 3) == 0;
	char *glob = malloc(n + 6);
	if (!glob)
		return -2;
	size_t gl = 0;
	if (prefix) {
		memcpy(glob, "**/", 3);
		gl = 3;
	}
	memcpy(glob + gl, p, n);
	gl += n;
	if (suffix) {
		memcpy(glob + gl, "/*", 2);
		gl += 2;
	}
	if (r->count == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 16;
		rule_t *nr = realloc(r->rules, ncap * sizeof *nr);
		if (!nr) {
			free(glob);
			return -2;
		}
		r->rules = nr;
		r->cap = ncap;
	}
	hermes_glob_t *g;
	int rc = hermes_glob_compile(glob, gl, 0, &g, why, whysize);
	free(glob);
	if (rc)
		return rc;
	r->rules[r->count++] = (rule_t){g, keep, dir_only};
	if (keep)
		r->keeps++;
	return 0;
}

int hermes_ignore_add(hermes_ignore_rules_t *r, const char *p, size_t n, char *why, size_t whysize)
{
	if (n > 0 && p[0] == '#')
		return 0;
	if (!(n >= 2 && p[n - 2] == '\\' && p[n - 1] == ' '))
		while (n > 0 && is_space(p[n - 1]))
			n--;
	if (n == 0)
		return 0;
	bool keep = false, anchored = false;
	if (n >= 2 && p[0] == '\\' && (p[1] == '!' || p[1] == '#')) {
		p++;
		n--;
	} else {
		if (p[0] == '!') {
			keep = true;
			p++;
			n--;
		}
		if (n > 0 && p[0] == '/') {
			anchored = true;
			p++;
			n--;
		}
	}
	return add_rule(r, p, n, anchored, keep, why, whysize);
}

int hermes_ignore_add_text(hermes_ignore_rules_t *r, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if (hermes_ignore_add(r, p, (size_t)(e - p), NULL, 0) == -2)
			return -2;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int hermes_ignore_add_override(hermes_ignore_rules_t *r, const char *glob, bool include, char *why,
                               size_t whysize)
{
	size_t n = strlen(glob);
	if (!(n >= 2 && glob[n - 2] == '\\' && glob[n - 1] == ' '))
		while (n > 0 && is_space(glob[n - 1]))
			n--;
	bool anchored = false;
	if (n > 0 && glob[0] == '/') {
		anchored = true;
		glob++;
		n--;
	}
	return add_rule(r, glob, n, anchored, include, why, whysize);
}

hermes_ignore_match_t hermes_ignore_match(const hermes_ignore_rules_t *r, const char *path,
                                          size_t len, bool is_dir)
{
	if (!r)
		return HERMES_IGNORE_NONE;
	for (size_t i = r->count; i-- > 0;) {
		const rule_t *rule = &r->rules[i];
		if (rule->dir_only && !is_dir)
			continue;
		if (hermes_glob_match(rule->glob, path, len))
			return rule->keep ? HERMES_IGNORE_KEEP : HERMES_IGNORE_SKIP;
	}
	return HERMES_IGNORE_NONE;
}

/* ---- per-directory files ------------------------------------------------------------------ */

/* Reads an ignore file opened (or not) at fd into *out (NULL if it has no rules). */
static int load_file(int fd, hermes_ignore_rules_t **out)
{
	*out = NULL;
	if (fd < 0)
		return 0;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return 0;
	}
	size_t want = st.st_size > HERMES_IGNORE_MAX_FILE ? HERMES_IGNORE_MAX_FILE : (size_t)st.st_size;
	char *buf = malloc(want);
	if (!buf) {
		close(fd);
		return -2;
	}
	size_t got = 0;
	while (got < want) {
		ssize_t n = read(fd, buf + got, want - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got == want && want == HERMES_IGNORE_MAX_FILE) {
		/* Cut: drop the partial last line. */
		while (got > 0 && buf[got - 1] != '\n')
			got--;
	}
	hermes_ignore_rules_t *r = hermes_ignore_new();
	if (!r || hermes_ignore_add_text(r, buf, got) < 0) {
		free(buf);
		hermes_ignore_free(r);
		return -2;
	}
	free(buf);
	if (r->count == 0) {
		hermes_ignore_free(r);
		r = NULL;
	}
	*out = r;
	return 0;
}

static int open_file(int dirfd, const char *name)
{
	/* O_NONBLOCK: a FIFO named .gitignore must not hang the walk (load_file refuses it). */
	return openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

int hermes_ignore_dir_load(hermes_ignore_dir_t *d, int dirfd)
{
	d->gitignore = d->dotignore = d->exclude = NULL;
	d->has_git = false;
	if (load_file(open_file(dirfd, ".gitignore"), &d->gitignore) < 0 ||
	    load_file(open_file(dirfd, ".ignore"), &d->dotignore) < 0)
		goto oom;
	struct stat st;
	if (fstatat(dirfd, ".git", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		d->has_git = true;
		/* Component by component without following symlinks: a .git/info that leads out of the
		 * workspace is not read. A .git file (a worktree's link) is not followed either. */
		int git = openat(dirfd, ".git", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int info = git < 0 ? -1 : openat(git, "info", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int rc = load_file(info < 0 ? -1 : open_file(info, "exclude"), &d->exclude);
		if (info >= 0)
			close(info);
		if (git >= 0)
			close(git);
		if (rc < 0)
			goto oom;
	}
	return 0;
oom:
	hermes_ignore_dir_clear(d);
	return -2;
}

void hermes_ignore_dir_clear(hermes_ignore_dir_t *d)
{
	hermes_ignore_free(d->gitignore);
	hermes_ignore_free(d->dotignore);
	hermes_ignore_free(d->exclude);
	d->gitignore = d->dotignore = d->exclude = NULL;
}

/* ---- the decision ------------------------------------------------------------------------- */

static hermes_ignore_match_t match_in(const hermes_ignore_rules_t *r, const hermes_ignore_dir_t *d,
                                      const char *path, size_t len, bool is_dir)
{
	if (!r || d->skip > len)
		return HERMES_IGNORE_NONE;
	return hermes_ignore_match(r, path + d->skip, len - d->skip, is_dir);
}

bool hermes_ignore_skips(const hermes_ignore_dir_t *dir, const hermes_ignore_opts_t *opts,
                         const char *path, size_t len, const char *name, bool is_dir)
{
	const hermes_ignore_rules_t *ov = opts->overrides;
	if (ov && ov->count > 0) {
		size_t skip = opts->root_skip <= len ? opts->root_skip : len;
		hermes_ignore_match_t m = hermes_ignore_match(ov, path + skip, len - skip, is_dir);
		if (m == HERMES_IGNORE_NONE && ov->keeps > 0 && !is_dir)
			return true;
		if (m != HERMES_IGNORE_NONE)
			return m == HERMES_IGNORE_SKIP;
	}
	bool kept = false;
	if (opts->respect_ignore) {
		hermes_ignore_match_t m_ignore = HERMES_IGNORE_NONE, m_git = HERMES_IGNORE_NONE,
		                      m_exclude = HERMES_IGNORE_NONE;
		bool saw_git = false;
		for (const hermes_ignore_dir_t *d = dir; d; d = d->parent) {
			if (m_ignore == HERMES_IGNORE_NONE)
				m_ignore = match_in(d->dotignore, d, path, len, is_dir);
			if (!saw_git && m_git == HERMES_IGNORE_NONE)
				m_git = match_in(d->gitignore, d, path, len, is_dir);
			if (!saw_git && m_exclude == HERMES_IGNORE_NONE)
				m_exclude = match_in(d->exclude, d, path, len, is_dir);
			saw_git = saw_git || d->has_git;
		}
		hermes_ignore_match_t m = m_ignore != HERMES_IGNORE_NONE ? m_ignore
		                        : m_git != HERMES_IGNORE_NONE    ? m_git
		                                                          : m_exclude;
		if (m == HERMES_IGNORE_SKIP)
			return true;
		kept = m == HERMES_IGNORE_KEEP;
	}
	return !kept && !opts->include_hidden && name[0] == '.';
}
