/* rpc/message.h: one message as the session read it: its text and the tree core/json.c made of
 * it, kept together and shared by the requests it holds (a batch's elements run at once). */
#ifndef HERMES_SERVER_MESSAGE_H
#define HERMES_SERVER_MESSAGE_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/json.h"

typedef struct message {
	char *body;               /* the message text; the tree's positions are offsets into it */
	size_t len;
	hermes_json_doc_t *doc;
	atomic_size_t refs;
	size_t bytes;             /* the memory it holds (text, tree, itself) */
	/* Called (from the thread dropping the last reference) with bytes once it is freed: the
	 * session counts what messages hold and makes room through it. */
	void (*freed)(void *ctx, size_t bytes);
	void *ctx;
} message_t;

/* A message holding body (malloc'd, NUL-terminated at len) and doc, both taken, with one
 * reference (the caller's). NULL if out of memory (body and doc untouched then). */
message_t *hermes_message_new(char *body, size_t len, hermes_json_doc_t *doc,
                              void (*freed)(void *ctx, size_t bytes), void *ctx);
/* Takes a reference. */
message_t *hermes_message_ref(message_t *m);
/* Drops one; the last frees the message and calls freed. NULL is fine. */
void hermes_message_unref(message_t *m);

#endif
