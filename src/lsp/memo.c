/* lsp/memo.c: values callers keep with an open document's current text, bounded in memory,
 * least recently used dropped first (client.h: hermes_lsp_memo_get, hermes_lsp_memo_put). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "lsp/client_internal.h"

void hermes_lsp_memo_drop(hermes_lsp_client_t *c, hermes_lsp_doc_t *d)
{
	if (!d->memo)
		return;
	c->memo_bytes -= d->memo_bytes;
	d->memo_free(d->memo);
	d->memo = NULL;
	d->memo_free = NULL;
	d->memo_bytes = 0;
}

/* The open document of uri, or NULL. c->lock held. */
static hermes_lsp_doc_t *doc_of(hermes_lsp_client_t *c, const char *uri)
{
	for (size_t i = 0; i < c->ndocs; i++)
		if (strcmp(c->docs[i].uri, uri) == 0)
			return &c->docs[i];
	return NULL;
}

bool hermes_lsp_memo_get(hermes_lsp_client_t *c, const char *uri, const char *text, size_t len,
                         int64_t *stamp, bool (*copy)(const void *memo, void *arg), void *arg)
{
	bool found = false;
	*stamp = -1;
	pthread_mutex_lock(&c->lock);
	hermes_lsp_doc_t *d = doc_of(c, uri);
	if (d && d->len == len && memcmp(d->text, text, len) == 0) {
		*stamp = d->stamp;
		if (d->memo) {
			d->memo_used = ++c->memo_clock;
			found = copy(d->memo, arg);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return found;
}

void hermes_lsp_memo_put(hermes_lsp_client_t *c, const char *uri, int64_t stamp, void *memo,
                         size_t bytes, void (*free_fn)(void *))
{
	pthread_mutex_lock(&c->lock);
	hermes_lsp_doc_t *d = stamp >= 0 ? doc_of(c, uri) : NULL;
	/* A text synced since the caller asked (stamp differs) made the memo stale. */
	if (!d || d->stamp != stamp || bytes > HERMES_LSP_MEMO_BYTES) {
		pthread_mutex_unlock(&c->lock);
		free_fn(memo);
		return;
	}
	hermes_lsp_memo_drop(c, d);
	d->memo = memo;
	d->memo_free = free_fn;
	d->memo_bytes = bytes;
	d->memo_used = ++c->memo_clock;
	c->memo_bytes += bytes;
	while (c->memo_bytes > HERMES_LSP_MEMO_BYTES) {
		hermes_lsp_doc_t *oldest = NULL;
		for (size_t i = 0; i < c->ndocs; i++)
			if (c->docs[i].memo && c->docs[i].memo != memo &&
			    (!oldest || c->docs[i].memo_used < oldest->memo_used))
				oldest = &c->docs[i];
		if (!oldest)
			break;
		hermes_lsp_memo_drop(c, oldest);
	}
	pthread_mutex_unlock(&c->lock);
}
