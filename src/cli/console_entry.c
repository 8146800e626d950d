/* cli/console_entry.c: where an envelope typed into the console ends (see console_entry.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/console_entry.h"

static bool is_blank_char(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

void hermes_entry_init(hermes_console_entry_t *e, size_t limit)
{
	memset(e, 0, sizeof *e);
	e->limit = limit;
	e->block_indent = -1;
}

void hermes_entry_free(hermes_console_entry_t *e)
{
	hermes_buf_free(&e->text);
}

void hermes_entry_reset(hermes_console_entry_t *e)
{
	e->text.len = 0;
	if (e->text.data)
		e->text.data[0] = '\0';
	e->oversized = false;
	e->lines = 0;
	e->json = false;
	e->depth = 0;
	e->in_string = e->escape = e->mismatch = false;
	e->block_indent = -1;
}

bool hermes_entry_empty(const hermes_console_entry_t *e)
{
	return e->lines == 0;
}

/* Appends s[0..n) and a line ending, unless the envelope is already over its limit. */
static int append_line(hermes_console_entry_t *e, const char *s, size_t n)
{
	if (e->oversized)
		return 0;
	if (e->limit && e->text.len + n + 1 > e->limit) {
		e->oversized = true;
		return 0;
	}
	hermes_buf_append(&e->text, s, n);
	hermes_buf_putc(&e->text, '\n');
	return e->text.failed ? -1 : 0;
}

/* A line holding only a YAML document marker ("---" or "..."), trailing blanks allowed. */
static bool is_doc_marker(const char *line, size_t len)
{
	if (len < 3 || (memcmp(line, "---", 3) != 0 && memcmp(line, "...", 3) != 0))
		return false;
	for (size_t i = 3; i < len; i++)
		if (!is_blank_char(line[i]))
			return false;
	return true;
}

bool hermes_entry_text_blank(const char *text, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t end = i;
		while (end < len && text[end] != '\n')
			end++;
		size_t j = i;
		while (j < end && is_blank_char(text[j]))
			j++;
		if (j < end && text[j] != '#' && !is_doc_marker(text + i, end - i))
			return false;
		i = end + 1;
	}
	return true;
}

/* Scans JSON text; returns the index just past the top-level object's closing brace, or len. */
static size_t scan_json(hermes_console_entry_t *e, const char *s, size_t len, bool *closed)
{
	*closed = false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (e->in_string) {
			if (e->escape)
				e->escape = false;
			else if (c == '\\')
				e->escape = true;
			else if (c == '"')
				e->in_string = false;
			continue;
		}
		if (c == '"') {
			e->in_string = true;
		} else if (c == '{' || c == '[') {
			if (e->depth < HERMES_ENTRY_STACK)
				e->stack[e->depth] = c;
			e->depth++;
		} else if (c == '}' || c == ']') {
			if (e->depth == 0) {
				e->mismatch = true;
				return len;
			}
			e->depth--;
			if (e->depth < HERMES_ENTRY_STACK && e->stack[e->depth] != (c == '}' ? '{' : '[')) {
				e->mismatch = true;
				return len;
			}
			if (e->depth == 0) {
				*closed = true;
				return i + 1;
			}
		}
	}
	return len;
}

/* Is t[0..n) a block scalar header: | or >, then at most a chomping (+ -) and an indentation
 * (1-9) indicator, in either order? */
static bool is_block_header(const char *t, size_t n)
{
	if (n == 0 || (t[0] != '|' && t[0] != '>') || n > 3)
		return false;
	bool chomp = false, indent = false;
	for (size_t i = 1; i < n; i++) {
		if ((t[i] == '+' || t[i] == '-') && !chomp)
			chomp = true;
		else if (t[i] >= '1' && t[i] <= '9' && !indent)
			indent = true;
		else
			return false;
	}
	return true;
}

/* If this YAML line opens a block scalar (`key: |`, `- >-`, `key: |2 # note`), the indentation
 * its content lines must exceed: the column of the key (or of the "-" of a sequence entry whose
 * value it is); otherwise -1. */
static int block_opened(const char *line, size_t len)
{
	/* the line without a trailing comment (a '#' after a blank) and trailing blanks */
	size_t end = len;
	for (size_t i = 1; i < len; i++)
		if (line[i] == '#' && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
			end = i;
			break;
		}
	while (end > 0 && is_blank_char(line[end - 1]))
		end--;
	size_t start = end;
	while (start > 0 && !is_blank_char(line[start - 1]))
		start--;
	if (!is_block_header(line + start, end - start))
		return -1;
	/* what comes before the header: "key:" or "-" (or "?"), then blanks */
	size_t before = start;
	while (before > 0 && is_blank_char(line[before - 1]))
		before--;
	if (before == 0 || before == start)
		return -1;
	char c = line[before - 1];
	if (c != ':' && c != '-' && c != '?')
		return -1;
	/* the column of the key: past the indentation and any "- " sequence entries */
	size_t col = 0, last_dash = 0;
	for (;;) {
		while (col < len && line[col] == ' ')
			col++;
		if (col + 1 < len && line[col] == '-' && (line[col + 1] == ' ' || line[col + 1] == '\t')) {
			last_dash = col;
			col += 2;
			continue;
		}
		break;
	}
	if (col >= start) /* "- |": the value of the sequence entry itself */
		return (int)last_dash;
	return (int)col;
}

static int indentation(const char *line, size_t len, bool *blank)
{
	size_t i = 0;
	while (i < len && line[i] == ' ')
		i++;
	size_t j = i;
	while (j < len && is_blank_char(line[j]))
		j++;
	*blank = j == len;
	return (int)i;
}

int hermes_entry_feed(hermes_console_entry_t *e, const char *line, size_t len, size_t *consumed)
{
	*consumed = len;
	if (e->lines == 0) {
		/* Blank lines, comments and document markers before an envelope start are not part of
		 * it: they neither submit nor show the continuation prompt. */
		size_t i = 0;
		while (i < len && is_blank_char(line[i]))
			i++;
		if (i == len || line[i] == '#' || is_doc_marker(line, len))
			return HERMES_ENTRY_MORE;
		e->json = line[i] == '{';
	}
	if (e->json && e->lines > 0 && e->depth > 0 && !e->in_string && len > 0 && line[0] == '{') {
		/* A line that starts a new envelope while one is still open: the open one is broken
		 * (an unclosed bracket). It is submitted as it is, to be reported, and this line starts
		 * the next one, rather than being swallowed by it. */
		*consumed = 0;
		return HERMES_ENTRY_SUBMIT;
	}
	if (e->json) {
		bool closed;
		size_t end = scan_json(e, line, len, &closed);
		e->lines++;
		if (append_line(e, line, end) < 0)
			return -1;
		*consumed = end;
		/* A JSON string cannot hold a raw line break: an open string at the end of a line is an
		 * error the parser should report now, not a reason to wait for more. */
		if (closed || e->mismatch || e->in_string)
			return HERMES_ENTRY_SUBMIT;
		return HERMES_ENTRY_MORE;
	}
	if (e->block_indent >= 0) {
		/* Inside a block scalar an empty line is text; the block ends at a line indented no
		 * more than its key, which is then read as any other line. */
		bool blank;
		int ind = indentation(line, len, &blank);
		if (blank || ind > e->block_indent) {
			e->lines++;
			return append_line(e, line, len) < 0 ? -1 : HERMES_ENTRY_MORE;
		}
		e->block_indent = -1;
	}
	if (len == 0 || is_doc_marker(line, len))
		return HERMES_ENTRY_SUBMIT;
	e->lines++;
	if (append_line(e, line, len) < 0)
		return -1;
	e->block_indent = block_opened(line, len);
	return HERMES_ENTRY_MORE;
}
