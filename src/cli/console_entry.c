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
	if (len == 0 || is_doc_marker(line, len))
		return HERMES_ENTRY_SUBMIT;
	e->lines++;
	if (append_line(e, line, len) < 0)
		return -1;
	return HERMES_ENTRY_MORE;
}
