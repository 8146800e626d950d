/* cli/console_entry.h: the console's submission boundary. Lines typed (or piped) into the
 * console are gathered into one envelope until it is complete: a JSON envelope when its top-level
 * object closes, a YAML envelope at a line holding only "---" or "...", or at an empty line after
 * at least one line of YAML, except inside a block scalar (`content: |` and the lines indented
 * under it), where an empty line is part of the text: such an envelope ends at "---" or "...".
 * Pure text logic (no I/O), so it is unit-tested on its own. */
#ifndef HERMES_CLI_CONSOLE_ENTRY_H
#define HERMES_CLI_CONSOLE_ENTRY_H

#include "core/buf.h"
#include <stdbool.h>
#include <stddef.h>

#define HERMES_ENTRY_STACK 64 /* bracket kinds remembered for mismatch detection */

typedef struct hermes_console_entry {
	hermes_buf_t text; /* the envelope so far, lines ending in '\n' (text.data NUL-terminated
	                      once anything was fed) */
	size_t limit;      /* past this many bytes text stops growing and `oversized` is set */
	bool oversized;
	int lines;         /* lines fed into the current envelope */
	bool json;         /* decided by the first non-blank character: '{' is JSON */
	/* YAML scanner */
	int block_indent;  /* a block scalar is open: its lines are indented more than this; or -1 */
	/* JSON scanner */
	int depth;
	bool in_string, escape;
	bool mismatch;     /* a closing bracket did not match: submit so the parser can say where */
	char stack[HERMES_ENTRY_STACK];
} hermes_console_entry_t;

typedef enum hermes_entry_status {
	HERMES_ENTRY_MORE,   /* the envelope is not finished (or nothing has been typed yet) */
	HERMES_ENTRY_SUBMIT  /* text holds a complete envelope: execute it, then reset */
} hermes_entry_status_t;

/* limit: the largest envelope kept (0: no limit). */
void hermes_entry_init(hermes_console_entry_t *e, size_t limit);
void hermes_entry_free(hermes_console_entry_t *e);
/* Forgets the envelope being typed (keeps the buffer for reuse). */
void hermes_entry_reset(hermes_console_entry_t *e);
/* True if nothing but blank lines has been fed since the last reset. */
bool hermes_entry_empty(const hermes_console_entry_t *e);

/* Feeds one line (without its line ending). On HERMES_ENTRY_SUBMIT, *consumed is how much of the
 * line belongs to the envelope: a JSON envelope may close in the middle of a line, and what follows
 * is fed again by the caller as the start of the next one. Returns -1 if out of memory. */
int hermes_entry_feed(hermes_console_entry_t *e, const char *line, size_t len, size_t *consumed);

/* True if text is blank (spaces, tabs, CR, LF) or a YAML comment/document marker only. */
bool hermes_entry_text_blank(const char *text, size_t len);

#endif
