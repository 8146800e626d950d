/* lsp/documents.c: the documents a client keeps open at its server, and the diagnostics the
 * server publishes for them (client.h: hermes_lsp_sync, hermes_lsp_diagnostics). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/verb.h"
#include "lsp/client_internal.h"

/* The document of uri, or NULL. c->lock held. */
static hermes_lsp_doc_t *find_doc(hermes_lsp_client_t *c, const char *uri)
{
	for (size_t i = 0; i < c->ndocs; i++)
		if (strcmp(c->docs[i].uri, uri) == 0)
			return &c->docs[i];
	return NULL;
}

static void doc_clear(hermes_lsp_client_t *c, hermes_lsp_doc_t *d)
{
	hermes_lsp_memo_drop(c, d);
	free(d->uri);
	free(d->text);
	free(d->diagnostics);
	memset(d, 0, sizeof *d);
}

void hermes_lsp_docs_free(hermes_lsp_client_t *c)
{
	for (size_t i = 0; i < c->ndocs; i++)
		doc_clear(c, &c->docs[i]);
	c->ndocs = 0;
}

static void text_document(hermes_buf_t *b, const char *uri, int64_t version)
{
	hermes_buf_puts(b, "{\"textDocument\":{\"uri\":");
	hermes_buf_json_string(b, uri, strlen(uri));
	if (version >= 0)
		hermes_buf_printf(b, ",\"version\":%lld", (long long)version);
}

int hermes_lsp_sync(hermes_lsp_client_t *c, const char *uri, const char *language_id,
                    const char *text, size_t len, bool *changed, hermes_error_t *err)
{
	if (changed)
		*changed = false;
	pthread_mutex_lock(&c->docs_lock);
	pthread_mutex_lock(&c->lock);
	hermes_lsp_doc_t *d = find_doc(c, uri);
	if (d && d->len == len && memcmp(d->text, text, len) == 0) {
		d->synced_ms = hermes_lsp_now_ms();
		pthread_mutex_unlock(&c->lock);
		pthread_mutex_unlock(&c->docs_lock);
		return 0;
	}
	char *copy = malloc(len + 1);
	char *uri_copy = d ? NULL : strdup(uri);
	hermes_lsp_doc_t closed = {0};
	if (copy && !d && uri_copy && c->ndocs == HERMES_LSP_MAX_OPEN_DOCS) {
		size_t oldest = 0;
		for (size_t i = 1; i < c->ndocs; i++)
			if (c->docs[i].synced_ms < c->docs[oldest].synced_ms)
				oldest = i;
		closed = c->docs[oldest];
		c->docs[oldest] = c->docs[--c->ndocs];
	}
	if (!copy || (!d && !uri_copy)) {
		pthread_mutex_unlock(&c->lock);
		pthread_mutex_unlock(&c->docs_lock);
		free(copy);
		free(uri_copy);
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory for a document");
		return -1;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	bool open = !d;
	if (!d) {
		d = &c->docs[c->ndocs++];
		memset(d, 0, sizeof *d);
		d->uri = uri_copy;
	}
	free(d->text);
	d->text = copy;
	d->len = len;
	d->version++;
	d->stamp = ++c->stamps;
	hermes_lsp_memo_drop(c, d); /* it was of the old text */
	d->synced_ms = hermes_lsp_now_ms();
	d->diag_fresh = false;
	d->text_since = d->version;
	int64_t version = d->version;
	pthread_mutex_unlock(&c->lock);

	int rc = 0;
	hermes_buf_t b = HERMES_BUF_INIT;
	if (closed.uri) {
		text_document(&b, closed.uri, -1);
		hermes_buf_puts(&b, "}}");
		rc = b.failed ? -1 : 0;
		if (rc == 0)
			rc = hermes_lsp_notify(c, "textDocument/didClose", b.data, err);
		hermes_buf_free(&b);
		pthread_mutex_lock(&c->lock);
		doc_clear(c, &closed);
		pthread_mutex_unlock(&c->lock);
	}
	text_document(&b, uri, version);
	if (open) {
		hermes_buf_puts(&b, ",\"languageId\":");
		hermes_buf_json_string(&b, language_id, strlen(language_id));
		hermes_buf_puts(&b, ",\"text\":");
		hermes_buf_json_string(&b, text, len);
		hermes_buf_puts(&b, "}}");
	} else {
		hermes_buf_puts(&b, "},\"contentChanges\":[{\"text\":");
		hermes_buf_json_string(&b, text, len);
		hermes_buf_puts(&b, "}]}");
	}
	if (rc == 0 && b.failed) {
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory for a document");
		rc = -1;
	}
	if (rc == 0)
		rc = hermes_lsp_notify(c, open ? "textDocument/didOpen" : "textDocument/didChange",
		                       b.data, err);
	hermes_buf_free(&b);
	pthread_mutex_unlock(&c->docs_lock);
	if (changed)
		*changed = rc == 0;
	return rc;
}

void hermes_lsp_docs_published(hermes_lsp_client_t *c, const char *body,
                               const hermes_json_t *params)
{
	const hermes_json_t *uri = hermes_json_member(params, "uri");
	const hermes_json_t *diags = hermes_json_member(params, "diagnostics");
	if (!uri || !hermes_json_is_c_string(uri) || !diags || diags->type != HERMES_JSON_ARRAY)
		return;
	int64_t version = -1;
	const hermes_json_t *v = hermes_json_member(params, "version");
	if (v)
		hermes_json_integer(v, 0, INT64_MAX, &version);
	pthread_mutex_lock(&c->lock);
	hermes_lsp_doc_t *d = find_doc(c, uri->str);
	/* Diagnostics of an older text than the one last sent are stale: a newer set follows. A
	 * version sent again with the same text (hermes_lsp_reanalyse) has the same diagnostics:
	 * a server that coalesced the two publishes those of the first only. */
	if (d && (version < 0 || (version >= d->text_since && version <= d->version))) {
		char *text = strndup(body + diags->start, diags->end - diags->start);
		if (text) {
			free(d->diagnostics);
			d->diagnostics = text;
			d->diag_version = version;
			d->diag_fresh = true;
			pthread_cond_broadcast(&c->cond);
		}
	}
	pthread_mutex_unlock(&c->lock);
}

int hermes_lsp_open_documents(hermes_lsp_client_t *c, char ***out, size_t *count)
{
	pthread_mutex_lock(&c->lock);
	size_t n = c->ndocs;
	char **uris = calloc(n ? n : 1, sizeof *uris);
	size_t i = 0;
	for (; uris && i < n; i++)
		if (!(uris[i] = strdup(c->docs[i].uri)))
			break;
	pthread_mutex_unlock(&c->lock);
	if (!uris || i < n) {
		for (size_t j = 0; uris && j < i; j++)
			free(uris[j]);
		free(uris);
		return -1;
	}
	*out = uris;
	*count = n;
	return 0;
}

/* With c->lock held: waits on c->cond for at most 50 ms; false (nothing waited) once the server
 * is dead, the deadline has passed or the call is cancelled. */
static bool wait_a_while(hermes_lsp_client_t *c, int64_t deadline, const hermes_cancel_t *cancel)
{
	int64_t now = hermes_lsp_now_ms();
	if (c->dead || now >= deadline || hermes_cancel_requested(cancel))
		return false;
	int64_t until = now + (deadline - now < 50 ? deadline - now : 50);
	struct timespec ts = {until / 1000, (until % 1000) * 1000000};
	pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	return true;
}

char *hermes_lsp_diagnostics(hermes_lsp_client_t *c, const char *uri, int timeout_ms,
                             const hermes_cancel_t *cancel)
{
	int64_t deadline = hermes_lsp_now_ms() + timeout_ms;
	char *out = NULL;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		hermes_lsp_doc_t *d = find_doc(c, uri);
		if (d && d->diag_fresh && d->diagnostics) {
			out = strdup(d->diagnostics);
			break;
		}
		if (!wait_a_while(c, deadline, cancel))
			break;
	}
	pthread_mutex_unlock(&c->lock);
	return out;
}

int hermes_lsp_diagnostics_of(hermes_lsp_client_t *c, const char *uri, const char *text,
                              size_t len, int timeout_ms, const hermes_cancel_t *cancel,
                              char **out)
{
	int64_t deadline = hermes_lsp_now_ms() + timeout_ms;
	int rc = -1;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		hermes_lsp_doc_t *d = find_doc(c, uri);
		/* Another text synced since: the server drops this one's analysis (and the reader
		 * drops what it would publish for an older version), so it never comes. */
		if (!d || d->len != len || memcmp(d->text, text, len) != 0) {
			rc = 1;
			break;
		}
		if (d->diag_fresh && d->diagnostics) {
			if ((*out = strdup(d->diagnostics)))
				rc = 0;
			break;
		}
		if (!wait_a_while(c, deadline, cancel))
			break;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int hermes_lsp_reanalyse(hermes_lsp_client_t *c, const char *uri, hermes_error_t *err)
{
	/* docs_lock keeps the document and its text as they are (only syncs change them, under
	 * it); c->lock guards what the reader touches. */
	pthread_mutex_lock(&c->docs_lock);
	pthread_mutex_lock(&c->lock);
	hermes_lsp_doc_t *d = find_doc(c, uri);
	int64_t version = d ? ++d->version : -1;
	if (d) {
		d->diag_fresh = false;
		d->synced_ms = hermes_lsp_now_ms();
	}
	pthread_mutex_unlock(&c->lock);
	int rc = 1;
	if (d) {
		hermes_buf_t b = HERMES_BUF_INIT;
		text_document(&b, uri, version);
		hermes_buf_puts(&b, "},\"contentChanges\":[{\"text\":");
		hermes_buf_json_string(&b, d->text, d->len);
		hermes_buf_puts(&b, "}]}");
		if (b.failed) {
			hermes_error_set(err, HERMES_E_INTERNAL, "out of memory for a document");
			rc = -1;
		} else {
			rc = hermes_lsp_notify(c, "textDocument/didChange", b.data, err);
		}
		hermes_buf_free(&b);
	}
	pthread_mutex_unlock(&c->docs_lock);
	return rc;
}
