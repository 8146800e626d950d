/* core/document.h: splitting an input stream into envelope documents. A stream whose first
 * non-blank character is '{' is JSON (envelopes one after another, any whitespace between); any
 * other stream is YAML (documents separated by "---" lines, optionally ended by "..." lines). */
#ifndef HERMES_CORE_DOCUMENT_H
#define HERMES_CORE_DOCUMENT_H

#include <stdbool.h>
#include <stddef.h>

#include <hermes/hermes.h>

#include "core/json.h"

typedef enum hermes_format { HERMES_FORMAT_JSON, HERMES_FORMAT_YAML } hermes_format_t;

/* The length of a UTF-8 byte order mark at the start of text (3), or 0. Either format may start
 * with one. */
size_t hermes_bom_length(const char *text, size_t len);

/* The format of a text, from its first non-blank character. */
hermes_format_t hermes_detect_format(const char *text, size_t len);

typedef struct hermes_doc_splitter {
	const char *text;
	size_t len;
	size_t pos;        /* where the next document starts */
	int line;          /* 1-based line of pos */
	hermes_format_t format;
} hermes_doc_splitter_t;

void hermes_doc_splitter_init(hermes_doc_splitter_t *s, const char *text, size_t len);

/* The next document: returns 1 and sets doc and doc_len to its text and first_line to the 1-based
 * line where it starts; returns 0 at the end of the stream. JSON streams: the document is read
 * once, and if json is not NULL *json receives its tree (the caller frees it with
 * hermes_json_doc_free); a syntax error yields a document with *json NULL (decoding its text
 * reports the error) that runs up to the next line starting with '{', or to the end. YAML streams: *json is NULL; empty
 * documents are skipped. */
int hermes_doc_next(hermes_doc_splitter_t *s, const char **doc, size_t *doc_len, int *first_line,
                    hermes_json_doc_t **json);

#endif
