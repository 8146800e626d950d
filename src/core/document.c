/* core/document.c: splitting an input stream into envelope documents (JSON values one after
 * another, or YAML documents between "---" / "..." marker lines). */
#include "config.h"

#include <string.h>

#include "core/decode.h"
#include "core/document.h"
#include "core/json.h"

size_t hermes_bom_length(const char *text, size_t len)
{
	return (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) ? 3 : 0;
}

hermes_format_t hermes_detect_format(const char *text, size_t len)
{
	size_t p = hermes_json_skip_ws(text, len, hermes_bom_length(text, len));
	return (p < len && text[p] == '{') ? HERMES_FORMAT_JSON : HERMES_FORMAT_YAML;
}

void hermes_doc_splitter_init(hermes_doc_splitter_t *s, const char *text, size_t len)
{
	s->text = text;
	s->len = len;
	s->pos = hermes_bom_length(text, len);
	s->line = 1;
	s->format = hermes_detect_format(text, len);
}

static void advance(hermes_doc_splitter_t *s, size_t to)
{
	for (size_t i = s->pos; i < to; i++)
		if (s->text[i] == '\n')
			s->line++;
	s->pos = to;
}

/* Is the line at p a document marker? Returns 1 for "---", 2 for "...", 0 otherwise. */
static int marker(const char *t, size_t len, size_t p)
{
	if (len - p < 3)
		return 0;
	int kind = memcmp(t + p, "---", 3) == 0 ? 1 : memcmp(t + p, "...", 3) == 0 ? 2 : 0;
	if (kind && (len - p == 3 || t[p + 3] == '\n' || t[p + 3] == '\r' || t[p + 3] == ' ' ||
	             t[p + 3] == '\t'))
		return kind;
	return 0;
}

/* Only blank lines, comments and a bare "---" marker (and, if directives is set, "%" directive
 * lines, which belong to the document that follows them)? */
static bool empty_yaml_(const char *t, size_t len, bool directives)
{
	size_t p = 0;
	while (p < len) {
		size_t eol = p;
		while (eol < len && t[eol] != '\n')
			eol++;
		size_t q = p;
		if (marker(t, len, p) == 1)
			q += 3;
		while (q < eol && (t[q] == ' ' || t[q] == '\t' || t[q] == '\r'))
			q++;
		if (q < eol && t[q] != '#' && !(directives && q == p && t[q] == '%'))
			return false;
		p = eol + 1;
	}
	return true;
}

static bool empty_yaml(const char *t, size_t len)
{
	return empty_yaml_(t, len, false);
}

static size_t next_line(const char *t, size_t len, size_t p)
{
	const char *nl = memchr(t + p, '\n', len - p);
	return nl ? (size_t)(nl - t) + 1 : len;
}

/* A JSON document that does not parse, with its error at offset bad: it runs to the end of the
 * line before the next line that starts a new envelope ('{' first on the line), so that one broken
 * envelope in a stream is reported alone and does not swallow the next; or to the end of text. */
static size_t resync(const char *t, size_t len, size_t bad)
{
	for (size_t p = bad > 0 ? bad : 1; p < len; p++)
		if (t[p] == '{' && t[p - 1] == '\n')
			return p; /* the error may be that very '{', where the broken one was cut short */
	return len;
}

int hermes_doc_next(hermes_doc_splitter_t *s, const char **doc, size_t *doc_len, int *first_line,
                    hermes_json_doc_t **json)
{
	if (json)
		*json = NULL;
	if (s->format == HERMES_FORMAT_JSON) {
		size_t start = hermes_json_skip_ws(s->text, s->len, s->pos);
		advance(s, start);
		if (start >= s->len)
			return 0;
		size_t end;
		hermes_json_doc_t *tree;
		if (hermes_json_parse(s->text + start, s->len - start, HERMES_MAX_NESTING, &tree, &end,
		                      NULL) != 0)
			end = resync(s->text + start, s->len - start, end); /* decoding it says why */
		else if (json)
			*json = tree;
		else
			hermes_json_doc_free(tree);
		*doc = s->text + start;
		*doc_len = end;
		*first_line = s->line;
		advance(s, start + end);
		return 1;
	}
	while (s->pos < s->len) {
		size_t start = s->pos;
		/* A document runs to the next marker line (a "---" line belongs to the next one). */
		size_t p = marker(s->text, s->len, start) == 1 ? next_line(s->text, s->len, start) : start;
		int kind = 0;
		for (;;) {
			kind = 0; /* the end of the text is no marker (a stale one looped forever) */
			while (p < s->len && !(kind = marker(s->text, s->len, p)))
				p = next_line(s->text, s->len, p);
			/* "%YAML 1.2" and other directives go with the "---" that follows them. */
			if (kind != 1 || empty_yaml(s->text + start, p - start) ||
			    !empty_yaml_(s->text + start, p - start, true))
				break;
			p = next_line(s->text, s->len, p);
		}
		size_t end = p;
		int line = s->line;
		advance(s, kind == 2 ? next_line(s->text, s->len, p) : p);
		if (!empty_yaml(s->text + start, end - start)) {
			*doc = s->text + start;
			*doc_len = end - start;
			*first_line = line;
			return 1;
		}
	}
	return 0;
}
