/* session/session.h: a session of `hermes serve` / `hermes mcp` that knows no bytes: the API a
 * transport (stdio, Streamable HTTP) drives. The transport cuts its input into messages
 * and hands each one in with the channel it came on; every reply and notification comes back out
 * through a channel's send(), already a whole JSON-RPC message body, for the transport to frame.
 *
 * Rooms of the server, from the top: each file calls only the files after it, and no room calls a
 * room above it (tests/server_callgraph.sh checks both, from the built objects):
 *
 *   src/transport/  stdio/stdio.c (hermes_server_run: descriptors, signals, the reader loop)
 *                    -> stdio/output.c (the writer thread) -> stdio/framing.c (bytes <-> messages)
 *                   http/http.c (hermes_http_run: Streamable HTTP; setting up, the main loop)
 *                    -> http_request.c (a POST's life: its body, its session, its answer)
 *                    -> http_headers.c (endpoint, Origin, method, types, length)
 *                    -> http_files.c (GET/PUT /files/PATH: raw transfers of workspace files)
 *                    -> http_auth.c (credentials: the token file's rights, OAuth access tokens)
 *                    -> http_sse.c (an answer streamed as events)
 *                    -> http_stream.c (a 2025 session's GET stream: what belongs to no request)
 *                    -> http_channel.c (a request's channel: what comes back, queued; the wait)
 *                    -> http_sessions.c (the shared 2026 session, the table of 2025-era ones)
 *                    -> http_respond.c (whole responses)
 *                    -> http_listen.c (the socket, accepting, connections)
 *                    -> http_systemd.c (a socket passed by systemd's socket activation)
 *                    -> mhd_lib.c (libmicrohttpd, loaded on first use),
 *                       http_check.c (Origin, bearer token, mirrored headers, status codes)
 *   src/session/    session.c (new/end/free, messages in, end of input, signals, bounds, grace)
 *   src/protocol/   hermes/hermes_methods.c -> hermes_lifecycle.c, hermes_introspect.c  (Hermes)
 *                   mcp/mcp.c -> mcp_subscribe.c (resources/subscribe, subscriptions/listen)
 *                    -> mcp_resources.c (resources/list, read, templates) -> mcp_tools.c
 *                    -> mcp_meta.c (2026 _meta, complete results), mcp_bytes.c (image and
 *                       resource content of bytes)                                      (MCP)
 *                   side by side: neither calls the other; each has its method table
 *   src/rpc/        the core: dispatch.c (a message -> its rows -> the handlers)
 *                    -> requests.c (verb calls on the worker pool)
 *                    -> inflight.c (requests in flight, cancellation, owed shutdown replies)
 *                    -> replies.c (a reply to its channel, or into its batch)
 *                    -> workspace.c (the session's executor), message.c (a refcounted message)
 *                   the leaves: jsonrpc.c (JSON-RPC bodies), pool.c (worker threads), log.c
 *
 * The core never calls a protocol module by name: session.c hands it the protocols' method
 * tables, and handlers are reached through them. Nothing below session.c calls back up into the
 * transport: the session wakes the transport's loop through the wake hook it was given.
 *
 * Threads: messages, end of input and the other events are fed from one thread at a time (the
 * transport's reader, or under the transport's lock); replies are sent from that thread and from
 * the worker threads, so the channel callbacks must be thread-safe. */
#ifndef HERMES_SERVER_SESSION_H
#define HERMES_SERVER_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include <hermes/hermes.h>

#include "rpc/jsonrpc.h"
#include "session/server.h"

/* ---- channels: where replies go ------------------------------------------------------------
 *
 * A channel is the transport's way back to a client: for stdio the one output, for HTTP the
 * response (or SSE stream) of the connection that carried the request. Every message comes in
 * with its channel; the reply to a request, the reply of a batch, and the notifications that
 * belong to a request (progress) go to the channel the request came on. Messages that belong to
 * no request (log notifications, the server's own requests such as MCP's roots/list) go to the
 * session's default channel, given to hermes_session_new.
 *
 * A transport embeds a hermes_channel_t in its own connection struct and recovers that struct in
 * the callbacks (e.g. with offsetof).
 *
 * When a channel is done: whatever will be sent on a channel after hermes_session_message
 * returns is covered by a hold (a request in flight, a batch, an owed shutdown reply each take
 * one and release it after their last send). So a channel other than the default one gets
 * nothing more once hermes_session_message has returned and every hold() was release()d: an
 * HTTP transport ends the response then (and answers 202 if nothing was sent at all). */
typedef struct hermes_channel hermes_channel_t;
struct hermes_verb_desc;

enum {
	/* The reply of the only request in flight: the transport may write it from the calling
	 * thread if that cannot block (stdio skips the hand-off to its writer thread). */
	HERMES_SEND_ALONE = 1,
	/* One of several replies made in a row by this thread (INSTANT requests): the transport may
	 * hold it until flush() is called, to write them together. */
	HERMES_SEND_GATHER = 2,
	/* Not a reply: a notification (progress, log) or a request of the server's own (MCP's
	 * roots/list). An HTTP transport streams these (SSE) ahead of the reply. */
	HERMES_SEND_NOTIFICATION = 4
};

typedef struct hermes_channel_ops {
	/* Sends one message body (r: up to three pieces, taken: cleared on return, whatever happens).
	 * Called from any thread; must not block on the client (queue, and apply backpressure through
	 * queued()/wait_room()). flags: HERMES_SEND_* hints, which may be ignored. A channel whose
	 * client is gone drops what it is sent. */
	void (*send)(hermes_channel_t *ch, hermes_reply_t *r, unsigned flags);
	/* Writes out the messages this thread sent with HERMES_SEND_GATHER. NULL: nothing gathers. */
	void (*flush)(hermes_channel_t *ch);
	/* Bytes sent and not yet written to the client (any thread). NULL: 0. */
	size_t (*queued)(hermes_channel_t *ch);
	/* Waits at most timeout_ms until less than max bytes are queued, or the client is gone:
	 * true then, false on timeout. A worker calls it before it runs a request, so that a client
	 * that does not read stops the work rather than filling the memory. NULL: always room. */
	bool (*wait_room)(hermes_channel_t *ch, size_t max, int timeout_ms);
	/* A reference for a request or batch that will reply on the channel later, from another
	 * thread: the channel (and its struct) must stay valid until the matching release(). NULL
	 * for a channel that outlives the session (stdio). */
	void (*hold)(hermes_channel_t *ch);
	void (*release)(hermes_channel_t *ch);
	/* The framing the initialize result reports ("ndjson", "content-length"), or NULL (then
	 * the capability is left out). NULL op: NULL. */
	const char *(*framing)(hermes_channel_t *ch);
	/* Whether the client on this channel may call the verb (its credential's rights: a token's
	 * read-only, allow= and deny=, an OAuth token's scopes), on top of the server's own policy;
	 * false with why (of size n) saying so. tools/list shows only what it allows, and a call of
	 * anything else is refused (NotAllowed), nothing run. NULL op: everything the policy allows. */
	bool (*allows)(hermes_channel_t *ch, const struct hermes_verb_desc *desc, char *why, size_t n);
	/* Whether the client is gone for good (HTTP: it closed the stream): what is sent is dropped,
	 * so a long-lived request answering on ch (MCP's subscriptions/listen) may end. Any thread.
	 * NULL op: never. */
	bool (*gone)(hermes_channel_t *ch);
} hermes_channel_ops_t;

struct hermes_channel {
	const hermes_channel_ops_t *ops;
};

/* ---- the session ------------------------------------------------------------------------- */

typedef struct hermes_session_options {
	hermes_config_t config;     /* root NULL unless --root was given; strings outlive the session */
	bool root_given;            /* --root was given: initialize and MCP roots may not change it */
	hermes_protocol_t protocol; /* AUTO: MCP if the first initialize has params.protocolVersion */
	int jobs;                   /* worker threads; 0 = processor count */
	int grace_seconds;          /* after shutdown, a signal or the end of input, work still
	                               running gets this long, then is cancelled */
	bool no_log_hook;           /* leave the log hook alone: the transport runs several sessions
	                               and asks nothing of a client outside a request (HTTP) */
	hermes_executor_t *executor; /* the workspace, shared with other sessions (borrowed: never
	                               freed or replaced by the session); NULL: the session opens
	                               its own on first need */
	struct hermes_budget *budget; /* the memory budget shared with the process's other sessions
	                               (borrowed); NULL: the session has its own */
} hermes_session_options_t;

typedef struct server hermes_session_t;

/* The memory budget of a process: what its sessions hold together (messages, results being
 * built, replies queued) stays under the bounds below. A transport that runs several sessions
 * (HTTP) makes one and names it in each session's options; a session given none has its own
 * (stdio: one session, one budget). */
typedef struct hermes_budget hermes_budget_t;
hermes_budget_t *hermes_budget_new(void); /* NULL if memory lacks */
void hermes_budget_free(hermes_budget_t *b); /* after the last session using it; NULL is fine */
/* A transport holds bytes of replies past what its channels' queued() report (HTTP: from send()
 * until they are written): counted against the replies' bound, while held, where a result waits
 * for room before it is built; they do not stop the reading (another client's request must not
 * wait for a client that does not read). Any thread. */
void hermes_budget_hold_replies(hermes_budget_t *b, size_t bytes);
/* They are gone (written, or the client left): waiting work may go on. Any thread. */
void hermes_budget_release_replies(hermes_budget_t *b, size_t bytes);

/* What the sessions of a budget (the process's) hold for their clients at most, all together
 * (requests in flight too); past one of these hermes_session_may_read says no until
 * there is room again (backpressure), so memory stays bounded whatever the clients send and
 * however slowly they read. Documented in PROTOCOL.md. */
#define HERMES_SERVER_MAX_VALUES       (256 * 1024)  /* JSON values in one message */
#define HERMES_SERVER_MAX_INFLIGHT     1024u         /* requests queued or running */
#define HERMES_SERVER_MAX_HELD_BYTES   (32u << 20)   /* messages (text and tree) they hold */
#define HERMES_SERVER_MAX_QUEUED_BYTES (16u << 20)   /* replies not yet written */
#define HERMES_SERVER_MAX_RESULT_BYTES (32u << 20)   /* results being built, as their verbs
                                                        announce them (fs.readFile: the file's
                                                        size, times the copies a reply makes) */

/* A new session with its worker pool started. channel: the default channel (see above), valid
 * until hermes_session_free. wake(ctx) is called from any thread when the transport's loop
 * should look at the session again: room was made after hermes_session_may_read said no, or
 * the last work in flight ended once the session is finishing. It must not call into the
 * session (write to a self-pipe, signal a condition). opts is copied. Also sets the log hook
 * (MCP's notifications/message) until hermes_session_end, unless opts->no_log_hook, and tunes
 * malloc for the workers (the same for every session: a transport that runs several, HTTP, sets
 * no_log_hook). NULL if threads or memory lack (logged). */
hermes_session_t *hermes_session_new(const hermes_session_options_t *opts,
                                     hermes_channel_t *channel, void (*wake)(void *ctx),
                                     void *ctx);
/* Ends the session: stops the pool (running what is queued), sends the shutdown replies still
 * owed and takes the log hook back. After it nothing is sent on any channel; the session may
 * still be asked (exit status, protocol) and told that room was made (which may call wake) until
 * it is freed: so a transport ends it, stops its own threads, then frees it. */
void hermes_session_end(hermes_session_t *s);
/* Frees the session (ending it first if it was not). NULL is fine. */
void hermes_session_free(hermes_session_t *s);

/* A message arrived on ch: body is malloc'd, NUL-terminated at len and taken. Read, dispatched,
 * answered on ch (at once, or later from a worker). */
void hermes_session_message(hermes_session_t *s, hermes_channel_t *ch, char *body, size_t len);
/* A frame the transport could not read (code: -32700 broken, -32600 too large; message: why):
 * answered on ch with id null. */
void hermes_session_frame_error(hermes_session_t *s, hermes_channel_t *ch, int code,
                                const char *message);
/* Brackets the messages of one read: the INSTANT verb calls among them run on the calling thread
 * as they come, while the channels' queued replies leave room (past that they go to the pool);
 * their replies are sent with HERMES_SEND_GATHER and flushed at read_end (and every 64). */
void hermes_session_read_begin(hermes_session_t *s);
void hermes_session_read_end(hermes_session_t *s);

/* The client's input ended: Hermes finishes the work in flight; MCP cancels its long calls
 * (unanswered) and lets the quick ones finish. */
void hermes_session_eof(hermes_session_t *s);
/* A first stop request (SIGTERM): no new work, the work in flight finishes (within the grace). */
void hermes_session_wind_down(hermes_session_t *s);
/* A second one: everything in flight is cancelled and the session stops reading. */
void hermes_session_cancel_all(hermes_session_t *s);
/* The client of the requests answering on ch went away (HTTP: it closed their stream): they
 * are cancelled, unanswered (any thread). */
void hermes_session_cancel_channel(hermes_session_t *s, hermes_channel_t *ch);
/* The client cannot be written to any more: cancel everything, stop; exit status 1. */
void hermes_session_client_gone(hermes_session_t *s);

/* Whether the session takes input at all (false after end of input, exit, a second signal). */
bool hermes_session_open(hermes_session_t *s);
/* Whether to read more input now: open, and the client does not hold too much (requests in
 * flight, message bytes, replies queued on the default channel). Once it said no, half of each
 * bound must be free before it says yes again, and wake() is called when room is made. */
bool hermes_session_may_read(hermes_session_t *s);
/* True once the session is over (its input ended or it was stopped, and nothing is in flight).
 * Otherwise *timeout_ms says how long the loop may sleep before calling it again (-1: until
 * woken); past the grace it cancels the work still running. */
bool hermes_session_finished(hermes_session_t *s, int *timeout_ms);
/* The transport made room (replies it had queued are written): wakes its loop if the session
 * waits for room (any thread). */
void hermes_session_room(hermes_session_t *s);
/* The exit status the session ended with (0, or 1 after exit without shutdown or a lost
 * client). */
int hermes_session_exit_status(hermes_session_t *s);
/* The protocol the session speaks (AUTO until the first initialize decides). */
hermes_protocol_t hermes_session_protocol(hermes_session_t *s);

#endif
