/* transport/stdio/output.h: the single writer of stdout. Replies are queued whole by any thread and
 * written by one writer thread, so no reply is ever interleaved with another and no worker (nor the
 * reader) ever blocks on a client that is slow to read. */
#ifndef HERMES_SERVER_OUTPUT_H
#define HERMES_SERVER_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc/jsonrpc.h"
#include "session/server.h"

typedef struct hermes_output hermes_output_t;

/* Starts the writer thread on fd. on_broken(ctx) is called (from the writer thread, once) if
 * writing fails, e.g. because the client went away; later replies are then dropped. on_written(ctx)
 * (may be NULL) is called from the writer thread after each round of writes, when the bytes
 * queued have gone down. NULL on failure. */
hermes_output_t *hermes_output_start(int fd, void (*on_broken)(void *ctx),
                                     void (*on_written)(void *ctx), void *ctx);
/* Waits (at most timeout_ms) until the replies queued hold less than max bytes, or the output is
 * broken or stopping: true then, false on timeout. A worker calls it before producing a reply, so
 * that a client that does not read stops the work rather than filling the memory. */
bool hermes_output_wait_room(hermes_output_t *out, size_t max, int timeout_ms);
/* Memory held by replies queued and not yet written, in bytes (any thread). */
size_t hermes_output_queued(hermes_output_t *out);
/* Queues a message body framed for mode; takes ownership of its pieces (and clears *r). flags
 * (HERMES_OUTPUT_*): with WRITE_THROUGH (the worker of the only request in flight) the calling
 * thread writes it itself when nothing is queued, saving the hand-off to the writer thread, but
 * only what the output takes at once (a regular file, or a pipe through a non-blocking
 * description of its own): what a pipe does not take is left to the writer thread, so the caller
 * never waits for the client. With GATHER it is queued
 * without waking the writer, for hermes_output_flush_here: the replies of a run of quick
 * requests go out in one writev() (the reader's instant calls, one or many). */
enum { HERMES_OUTPUT_WRITE_THROUGH = 1, HERMES_OUTPUT_GATHER = 2 };
void hermes_output_send(hermes_output_t *out, hermes_framing_t mode, hermes_reply_t *r,
                        unsigned flags);
/* Writes what the output takes at once of the replies queued when the writer thread is idle
 * (never waiting for the client), and wakes the writer thread for the rest. */
void hermes_output_flush_here(hermes_output_t *out);
/* Writes what is queued, then stops the writer. Gives up if the client has read nothing for
 * stall_seconds (then the thread is left blocked and the output not freed; returns false). */
bool hermes_output_finish(hermes_output_t *out, int stall_seconds);

#endif
