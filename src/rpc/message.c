/* rpc/message.c: the refcounted message (see message.h): the last request to let go of a batch
 * frees its text and tree, and tells the session how much room that made. */
#include <config.h>

#include <malloc.h>
#include <stdlib.h>

#include "rpc/message.h"

message_t *hermes_message_new(char *body, size_t len, hermes_json_doc_t *doc,
                              void (*freed)(void *ctx, size_t bytes), void *ctx)
{
	message_t *m = malloc(sizeof *m);
	if (m == NULL)
		return NULL;
	m->body = body;
	m->len = len;
	m->doc = doc;
	/* what the blocks really take (a line read in pieces sits in a buffer grown by doubling) */
	m->bytes = malloc_usable_size(m) + malloc_usable_size(body) + 2 * 16 +
	           hermes_json_doc_bytes(doc);
	m->freed = freed;
	m->ctx = ctx;
	atomic_init(&m->refs, 1);
	return m;
}

message_t *hermes_message_ref(message_t *m)
{
	atomic_fetch_add(&m->refs, 1);
	return m;
}

void hermes_message_unref(message_t *m)
{
	if (m && atomic_fetch_sub(&m->refs, 1) == 1) {
		size_t bytes = m->bytes;
		void (*freed)(void *, size_t) = m->freed;
		void *ctx = m->ctx;
		hermes_json_doc_free(m->doc);
		free(m->body);
		free(m);
		if (freed)
			freed(ctx, bytes);
	}
}
