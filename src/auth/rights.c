/* auth/rights.c: a caller's rights (see rights.h): scopes by trait, and the static token file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth/rights.h"
#include "core/executor.h"

#define MAX_FILE_BYTES (1 << 20)
#define MAX_TOKEN_BYTES 4096

const char *hermes_rights_scope_needed(const hermes_verb_desc_t *desc)
{
	if (desc->traits & HERMES_TRAIT_SPAWNS)
		return "hermes:exec";
	return desc->traits & HERMES_TRAIT_READ_ONLY ? "hermes:read" : "hermes:write";
}

static unsigned scope_bit(const char *word, size_t len)
{
	static const struct { const char *name; unsigned bit; } words[] = {
		{"hermes:read", HERMES_SCOPE_READ},
		{"hermes:write", HERMES_SCOPE_WRITE},
		{"hermes:exec", HERMES_SCOPE_EXEC},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i].name) == len && !memcmp(words[i].name, word, len))
			return words[i].bit;
	return 0;
}

unsigned hermes_rights_scopes_parse(const char *scopes)
{
	unsigned bits = 0;
	for (const char *p = scopes; p && *p;) {
		p += strspn(p, " ");
		size_t l = strcspn(p, " ");
		bits |= scope_bit(p, l);
		p += l;
	}
	return bits;
}

bool hermes_rights_allow(const hermes_rights_t *r, const hermes_verb_desc_t *desc)
{
	if (!r)
		return true;
	const char *need = hermes_rights_scope_needed(desc);
	if (!(r->scopes & scope_bit(need, strlen(need))))
		return false;
	hermes_config_t policy = {0};
	policy.read_only = r->read_only;
	policy.allow = r->allow;
	policy.deny = r->deny;
	return hermes_config_allows(&policy, desc);
}

void hermes_rights_clear(hermes_rights_t *r)
{
	free(r->allow);
	free(r->deny);
	memset(r, 0, sizeof(*r));
}

/* ---- the static token file ---------------------------------------------------------------- */

typedef struct entry {
	char *token;
	size_t len;
	hermes_rights_t rights;
} entry_t;

struct hermes_token_file {
	entry_t *entries;
	size_t count;
};

size_t hermes_token_file_count(const hermes_token_file_t *f)
{
	return f ? f->count : 0;
}

void hermes_token_file_free(hermes_token_file_t *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->count; i++) {
		if (f->entries[i].token) /* NULL where a line was refused before its token was kept */
			explicit_bzero(f->entries[i].token, f->entries[i].len);
		free(f->entries[i].token);
		hermes_rights_clear(&f->entries[i].rights);
	}
	free(f->entries);
	free(f);
}

/* Constant time in the length of the longer of a and the token. */
static bool same(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen > blen ? alen : blen;
	unsigned char diff = (unsigned char)(alen != blen);
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)((i < alen ? a[i] : 0) ^ (i < blen ? b[i] : 0));
	return diff == 0;
}

const hermes_rights_t *hermes_token_file_match(const hermes_token_file_t *f, const char *bearer,
                                               size_t len)
{
	const hermes_rights_t *found = NULL;
	for (size_t i = 0; f && i < f->count; i++) /* no early exit: every token costs the same */
		if (same(bearer, len, f->entries[i].token, f->entries[i].len) && !found)
			found = &f->entries[i].rights;
	return found;
}

static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* Reads one line's words into e; false with why. */
static bool parse_line(char *line, int lineno, const char *path, entry_t *e, char *why, size_t n)
{
	char *save = NULL, *word = strtok_r(line, " \t", &save);
	size_t tl = strlen(word);
	if (tl > MAX_TOKEN_BYTES || !printable(word, tl)) {
		snprintf(why, n, "%s:%d: the token is longer than 4096 bytes or holds a character that "
		         "is not printable ASCII", path, lineno);
		return false;
	}
	e->token = strdup(word);
	e->len = tl;
	e->rights.scopes = HERMES_SCOPE_ALL;
	if (!e->token)
		return snprintf(why, n, "out of memory reading %s", path), false;
	while ((word = strtok_r(NULL, " \t", &save))) {
		char **list = NULL;
		if (!strcmp(word, "read-only"))
			e->rights.read_only = true;
		else if (!strncmp(word, "allow=", 6))
			list = &e->rights.allow;
		else if (!strncmp(word, "deny=", 5))
			list = &e->rights.deny;
		else {
			snprintf(why, n, "%s:%d: unknown word '%.64s' after the token (expected read-only, "
			         "allow=GLOBS or deny=GLOBS)", path, lineno, word);
			return false;
		}
		if (list) {
			const char *globs = strchr(word, '=') + 1;
			if (!*globs || *list) {
				snprintf(why, n, "%s:%d: %s", path, lineno,
				         *list ? "allow= or deny= given twice" : "allow= or deny= with no globs");
				return false;
			}
			if (!(*list = strdup(globs)))
				return snprintf(why, n, "out of memory reading %s", path), false;
		}
	}
	return true;
}

static int parse(hermes_token_file_t *f, char *text, const char *path, char *why, size_t n)
{
	size_t lines = 1;
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	f->entries = calloc(lines, sizeof(*f->entries));
	if (!f->entries)
		return snprintf(why, n, "out of memory reading %s", path), -1;
	int lineno = 0;
	for (char *save = NULL, *line = text; line; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		line[strcspn(line, "\r")] = '\0';
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		entry_t *e = &f->entries[f->count];
		bool ok = parse_line(line, lineno, path, e, why, n);
		f->count++; /* freed with the others, whole or not */
		if (!ok)
			return -1;
		for (size_t i = 0; i + 1 < f->count; i++)
			if (f->entries[i].len == e->len && !memcmp(f->entries[i].token, e->token, e->len))
				return snprintf(why, n, "%s:%d: the token is given twice", path, lineno), -1;
	}
	if (f->count == 0)
		return snprintf(why, n, "the token file %s is empty: it holds no token", path), -1;
	return 0;
}

int hermes_token_file_load(const char *path, hermes_token_file_t **out, char *why, size_t n)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; then anything but a file is refused */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(why, n, "cannot read the token file %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077) || st.st_size > MAX_FILE_BYTES) {
		snprintf(why, n, "the token file %s %s", path,
		         !S_ISREG(st.st_mode) ? "is not a regular file"
		         : (st.st_mode & 077) ? "can be read by others (chmod 600 it)"
		                              : "is larger than 1 MiB");
		close(fd);
		return -1;
	}
	char *text = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	ssize_t r = 1;
	while (text && got < (size_t)st.st_size && (r = read(fd, text + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)r;
	close(fd);
	if (!text || r < 0) {
		snprintf(why, n, "cannot read the token file %s: %s", path, text ? strerror(errno) : "out of memory");
		free(text);
		return -1;
	}
	text[got] = '\0';
	if (strlen(text) != got) {
		snprintf(why, n, "the token file %s holds a NUL byte", path);
		free(text);
		return -1;
	}
	hermes_token_file_t *f = calloc(1, sizeof(*f));
	int rc = f ? parse(f, text, path, why, n) : (snprintf(why, n, "out of memory"), -1);
	explicit_bzero(text, got);
	free(text);
	if (rc != 0) {
		hermes_token_file_free(f);
		return -1;
	}
	*out = f;
	return 0;
}
