/* auth/rights.h: what one caller of hermes mcp --listen may do, from its credential: the lines of
 * a static token file (`TOKEN [read-only] [allow=GLOBS] [deny=GLOBS]`, the words of the policy
 * options) or an OAuth token's scopes. Rights only take away: the server's own --read-only,
 * --allow and --deny apply to every caller first. */
#ifndef HERMES_AUTH_RIGHTS_H
#define HERMES_AUTH_RIGHTS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/desc.h"

/* OAuth scopes, one per kind of verb (by trait, never by name): READ_ONLY verbs need
 * hermes:read, verbs that SPAWN programs need hermes:exec, every other verb hermes:write. */
#define HERMES_SCOPE_READ  0x1u
#define HERMES_SCOPE_WRITE 0x2u
#define HERMES_SCOPE_EXEC  0x4u
#define HERMES_SCOPE_ALL   (HERMES_SCOPE_READ | HERMES_SCOPE_WRITE | HERMES_SCOPE_EXEC)
#define HERMES_SCOPES_SUPPORTED "hermes:read hermes:write hermes:exec"

typedef struct hermes_rights {
	unsigned scopes;  /* HERMES_SCOPE_* bits held (a static token holds all) */
	bool read_only;   /* only read-only verbs */
	char *allow;      /* comma-separated globs of verb names that may run, or NULL: all */
	char *deny;       /* comma-separated globs of verb names that may not, or NULL: none */
} hermes_rights_t;

/* The scope word a verb needs ("hermes:read", "hermes:write" or "hermes:exec"). */
const char *hermes_rights_scope_needed(const hermes_verb_desc_t *desc);
/* The HERMES_SCOPE_* bits of a space-separated scope string (unknown words are ignored). */
unsigned hermes_rights_scopes_parse(const char *scopes);
/* True if r lets its holder call the verb; r NULL means every right. */
bool hermes_rights_allow(const hermes_rights_t *r, const hermes_verb_desc_t *desc);
/* Frees what r holds (not r) and zeroes it. */
void hermes_rights_clear(hermes_rights_t *r);

/* The credentials of a static token file, each with its rights. */
typedef struct hermes_token_file hermes_token_file_t;

/* Reads the token file at path: one token per line, optionally followed by `read-only`,
 * `allow=GLOBS` and `deny=GLOBS` (comma-separated verb-name globs, as --allow and --deny take
 * them); blank lines and lines starting with '#' are skipped. A file holding just a token works as
 * it always has (every right). Refused, with a sentence in why (of size n): anything but a regular
 * file (a FIFO would hang the start), a file others may read, one with no token, one over 1 MiB,
 * a token over 4096 bytes or with a character that is not printable ASCII, a repeated token, an
 * unknown word. Returns 0 and *out (free with hermes_token_file_free), or -1. */
int hermes_token_file_load(const char *path, hermes_token_file_t **out, char *why, size_t n);
/* The rights of the token that equals bearer[0..len), or NULL if none does. Every token is
 * compared, each in constant time, so the time taken says nothing of which came close. */
const hermes_rights_t *hermes_token_file_match(const hermes_token_file_t *f, const char *bearer,
                                               size_t len);
/* The number of tokens. */
size_t hermes_token_file_count(const hermes_token_file_t *f);
/* Frees the file, wiping the tokens from memory. NULL is fine. */
void hermes_token_file_free(hermes_token_file_t *f);

#endif
