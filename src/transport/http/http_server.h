/* transport/http/http_server.h: what the files of Streamable HTTP share (not a public header):
 * the server, its connections, a request and its channel, a 2025-era session, and the functions
 * one file gives another. The files, each calling only the ones after it (session/session.h):
 * http.c (hermes_http_run) -> http_request.c -> http_headers.c -> http_files.c -> http_auth.c -> http_sse.c
 * -> http_stream.c -> http_channel.c -> http_sessions.c -> http_respond.c -> http_listen.c. */
#ifndef HERMES_TRANSPORT_HTTP_SERVER_H
#define HERMES_TRANSPORT_HTTP_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "auth/oauth.h"
#include "auth/rights.h"
#include "core/buf.h"
#include "core/instance.h"
#include "session/session.h"
#include "transport/http/http.h"
#include "transport/http/mhd_lib.h"

#define ENDPOINT "/mcp"
#define FILES_PREFIX "/files/"    /* raw transfers of workspace files (http_files.c) */
#define MAX_LEGACY_SESSIONS 32          /* 2025-era clients at once; the idlest is ended past it */
#define LEGACY_IDLE_SECONDS (30 * 60)   /* a 2025 session unused this long is ended */
#define MAX_HEADER_BYTES (64 * 1024)    /* a request's line and headers */
#define MAX_TOKEN_BYTES 4096

typedef struct http_server http_server_t;

/* A connection, for the reaper: how long its current request has been arriving. */
typedef struct conn {
	struct conn *prev, *next;
	int fd;
	struct timespec reading_since;  /* zero while no request is being received */
	struct hreq *req;               /* the request being received or answered */
} conn_t;

typedef struct queued {
	struct queued *next;
	char *body;                     /* NULL for a comment */
	size_t len;
	bool note;                      /* a notification (HERMES_SEND_NOTIFICATION), not the reply */
	bool comment;                   /* an SSE comment (": keepalive"), no message: body NULL */
} queued_t;

#define STREAM_HELD_MAX 64              /* messages a 2025 session keeps while it has no GET stream */
#define STREAM_HELD_BYTES (256 * 1024)  /* and their bytes at most */
#define STREAM_QUEUED_MAX (1u << 20)    /* bytes a stream may have unsent; past it, dropped */

/* A 2025 session's default channel: what belongs to no request (notifications/resources/updated
 * of its subscriptions) goes to its standalone GET stream, or waits for one (http_stream.c). */
typedef struct standalone {
	hermes_channel_t ch;
	http_server_t *hs;
	pthread_mutex_t lock;           /* guards what follows; taken before a request's lock */
	struct hreq *q;                 /* the open GET stream (held), or NULL */
	queued_t *held, **held_tail;    /* sent while no stream was open (in the budget) */
	size_t n_held, held_bytes, dropped;
} standalone_t;

/* A 2025-era client's session (Mcp-Session-Id). */
typedef struct legacy {
	struct legacy *next;
	char id[HERMES_INSTANCE_MAX + 1 + 33]; /* <instance>.<128 random bits in hex> */
	hermes_session_t *s;
	pthread_mutex_t feed;           /* one thread at a time feeds a session */
	int users;                      /* the list's reference and each request using it */
	time_t last_used;
	bool ended;
	standalone_t out;               /* the session's default channel (its GET stream) */
} legacy_t;

/* One POST: its body as it arrives, then the channel its session answers on. */
typedef struct hreq {
	hermes_channel_t ch;            /* the session's way back: replies and notifications */
	http_server_t *hs;
	conn_t *conn;
	pthread_mutex_t lock;
	pthread_cond_t room;
	int refs;                       /* libmicrohttpd's, the SSE response's, the session's holds */
	int efd;                        /* eventfd: a message was queued; made (under lock) only once
	                                   the request's thread has to wait: -1 until then, so a reply
	                                   made on that thread (INSTANT verbs) costs no descriptor */
	queued_t *head, **tail;
	size_t queued;
	size_t charged;                 /* bytes sent to it and held in the server's budget: until
	                                   handed to libmicrohttpd whole (SSE), or until the request
	                                   is freed (its JSON response with it) */
	bool final_queued;              /* the reply to the request is in the queue */
	bool ended;                     /* a stream with no reply (GET) ends after what is queued */
	bool keepalive;                 /* a long-lived stream (GET, subscriptions/listen): a comment
	                                   when it has been quiet for a while */
	bool standalone;                /* the GET stream of q->legacy */
	bool gone;                      /* the client left: what is sent is dropped */
	bool headers_seen, too_large, answered;
	hermes_buf_t body;
	char *id_text;                  /* the request's id as sent, for the reply's prefix */
	legacy_t *legacy;               /* the 2025 session it belongs to, or NULL */
	const hermes_rights_t *rights;  /* what its credential may do (NULL: everything) */
	hermes_rights_t oauth_rights;   /* an OAuth token's, which rights then points to */
	bool initialize;                /* a 2025 initialize: the reply names its new session */
	char *raw_uri;                  /* a /files/ request's URI as sent (percent-encoded) */
	struct hermes_http_put *put;    /* a PUT of /files/ being received (http_files.c) */
	/* the SSE stream being written: the message being handed to libmicrohttpd, framed as an
	 * event on the fly (no copy), and how much of it was handed; it counts in the budget until
	 * all of it was */
	queued_t *cur;
	size_t cur_off;
	bool stream_done;
	/* for the reaper: when libmicrohttpd last took bytes of the stream (monotonic ms), and
	 * whether the stream waits for the session (then the client is not the one holding it) */
	atomic_llong taken_at;
	atomic_bool streaming, idle;
} hreq_t;

struct http_server {
	const hermes_server_options_t *opts;
	const hermes_http_options_t *http;
	hermes_session_options_t sopts;
	hermes_budget_t *budget;        /* the memory of every session (sopts.budget) */
	hermes_token_file_t *tokens;    /* --auth-token-file, or NULL */
	hermes_oauth_t *oauth;          /* --oauth-issuer, or NULL */
	char *prm_url;                  /* with oauth: where its Protected Resource Metadata is */
	char *prm_path;                 /* the path of that URL on this server */
	size_t max_body;
	int timeout;
	struct MHD_Daemon *daemon;
	int listen_fd;
	char *unix_path;                /* the Unix socket made, removed at the end if it is still */
	dev_t unix_dev;                 /* ours (another server may have replaced a stale one) */
	ino_t unix_ino;
	int stop_efd;                   /* readable once the server stops: wakes every waiting request */
	int wake_pipe[2];               /* signals and sessions wake the main loop */
	hermes_channel_t drop;          /* the default channel: nothing is asked of HTTP clients */
	hermes_session_t *modern;       /* the shared session of 2026-07-28 requests */
	pthread_mutex_t modern_feed;
	pthread_mutex_t lock;           /* guards what follows */
	pthread_cond_t room;            /* a session made room */
	conn_t *conns;
	legacy_t *legacies;
	size_t n_legacies;
	bool stopping;
	size_t n_conns;                 /* connections open (libmicrohttpd's) */
	pthread_cond_t conn_room;       /* one closed */
	unsigned max_conns;
	pthread_t acceptor;             /* accepts while there is room (hermes_http_accept_loop) */
	bool acceptor_started;
	int accept_stop;                /* eventfd: stop accepting */
};


/* The CLOCK_REALTIME time ms from now, for pthread_cond_timedwait. */
static inline struct timespec hermes_http_deadline_in(int ms)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static inline void hermes_http_now(struct timespec *t)
{
	clock_gettime(CLOCK_MONOTONIC, t);
}

static inline double hermes_http_since(const struct timespec *t)
{
	struct timespec n;
	hermes_http_now(&n);
	return (double)(n.tv_sec - t->tv_sec) + (double)(n.tv_nsec - t->tv_nsec) / 1e9;
}

/* CLOCK_MONOTONIC in ms. */
static inline int64_t hermes_http_ms(void)
{
	struct timespec t;
	hermes_http_now(&t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static inline const char *hermes_http_header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* ---- http_request.c: libmicrohttpd's callbacks for a request (the request lifecycle) ------- */

void *hermes_http_uri_log(void *cls, const char *uri, struct MHD_Connection *c);
enum MHD_Result hermes_http_access_handler(void *cls, struct MHD_Connection *c, const char *url,
                                           const char *method, const char *version,
                                           const char *upload, size_t *upload_size,
                                           void **con_cls);
void hermes_http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                           enum MHD_RequestTerminationCode toe);

/* ---- http_headers.c ------------------------------------------------------------------------ */

/* The checks made once the headers are in: a response queued (MHD_YES/NO) if the request is
 * refused, -1 if it may go on. */
int hermes_http_check_headers(http_server_t *hs, hreq_t *q, struct MHD_Connection *c,
                              const char *url, const char *method);

/* The first of the headers that mirror the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name)
 * that c carries more than once, or NULL: libmicrohttpd's lookup sees only the first copy, so a
 * second one that contradicts the body would otherwise go unseen. */
const char *hermes_http_doubled_mirror(struct MHD_Connection *c);

/* ---- http_files.c: raw transfers of workspace files (/files/PATH) -------------------------- */

/* A request for FILES_PREFIX (its raw URI in q->raw_uri) once its Origin and credential passed:
 * a GET or HEAD answered, a refusal queued (MHD_YES/NO), or -1: a PUT whose body may come
 * (q->put set). */
int hermes_http_files_begin(http_server_t *hs, hreq_t *q, struct MHD_Connection *c,
                            const char *method);
/* A piece of a PUT's body: written to its temporary file (a failure is said at the end). */
void hermes_http_files_upload(hreq_t *q, const char *data, size_t len);
/* The PUT's body is all in: the file put in place (201, 204) or the refusal queued. */
enum MHD_Result hermes_http_files_put_end(hreq_t *q, struct MHD_Connection *c);
/* The request ends: a PUT not put in place leaves nothing behind. */
void hermes_http_files_done(hreq_t *q);

/* ---- http_sse.c ---------------------------------------------------------------------------- */

/* Queues on c an SSE response that streams q's messages until its reply (q held until the
 * stream ends); extra: a header name and value, or NULL. */
enum MHD_Result hermes_http_sse_respond(hreq_t *q, struct MHD_Connection *c,
                                        const char *const *extra);

/* ---- http_stream.c: the standalone GET stream of a 2025 session ---------------------------- */

/* The operations of a 2025 session's default channel (standalone_t.ch). */
extern const hermes_channel_ops_t hermes_http_standalone_ops;
/* q (a GET with Accept: text/event-stream, q->legacy set) becomes l's stream: what l held is
 * queued on it, and a stream l had ends (a client has one GET stream; the newest wins). */
void hermes_http_stream_attach(legacy_t *l, hreq_t *q);
/* The request q ends: if it is l's stream, l has none any more. */
void hermes_http_stream_detach(legacy_t *l, hreq_t *q);
/* l's stream ends (its session ends: DELETE). */
void hermes_http_stream_end(legacy_t *l);
/* Every 2025 session's stream ends (the server stops). */
void hermes_http_streams_end_all(http_server_t *hs);

/* ---- http_channel.c: a request's channel ---------------------------------------------------- */

/* A request of hs on connection k (or NULL), with libmicrohttpd's reference; NULL: no memory. */
hreq_t *hermes_http_req_new(http_server_t *hs, conn_t *k);
void hermes_http_req_hold(hreq_t *q);
/* Drops a reference; the last frees the request and what it holds in the budget. */
void hermes_http_req_unref(hreq_t *q);
/* The next queued message, or NULL. */
queued_t *hermes_http_req_pop(hreq_t *q);
/* The client closed its end: what the request started is stopped, and nothing more is queued. */
void hermes_http_req_gone(hreq_t *q, hermes_session_t *s);
/* Waits until a message is queued (or the stream ended): 1; 0 if the client hung up (then the
 * request is cancelled); -1 if the server stops; 2 if timeout_ms (>= 0) passed first. */
int hermes_http_req_wait(hreq_t *q, hermes_session_t *s, int timeout_ms);
/* The message a channel's send() was given, whole (r cleared); NULL if out of memory (logged). */
queued_t *hermes_http_message(hermes_reply_t *r, unsigned flags);
/* Queues m on q, counted in the budget; freed instead if q takes nothing more (its client left,
 * its reply or its end is queued). Any thread. */
void hermes_http_req_queue(hreq_t *q, queued_t *m);
/* Bytes queued on q and not yet taken by its stream. */
size_t hermes_http_req_queued(hreq_t *q);
/* A stream with no reply (GET) ends once what is queued is out; nothing more is queued. */
void hermes_http_req_end(hreq_t *q);

/* ---- http_sessions.c: the shared session and the table of 2025-era ones ------------------- */

/* The wake hook of every session: a session made room, or wants the main loop. */
void hermes_http_session_wake(void *ctx);
/* Hands a message to a session: when it has room (else false after the timeout). body taken. */
bool hermes_http_feed(http_server_t *hs, hermes_session_t *s, pthread_mutex_t *feed_lock,
                      hermes_channel_t *ch, char *body, size_t len);
/* A new 2025 session for an initialize, with a reference for the caller, its default channel
 * made of out_ops (hermes_http_standalone_ops); NULL (why said) if there is no room or memory. */
legacy_t *hermes_http_legacy_new(http_server_t *hs, const hermes_channel_ops_t *out_ops, char *why,
                                 size_t n);
/* The session named id, with a reference for the caller; NULL if there is none. */
legacy_t *hermes_http_legacy_find(http_server_t *hs, const char *id);
/* Ends l (no more requests find it); the references held go on until released. */
void hermes_http_legacy_drop(http_server_t *hs, legacy_t *l);
void hermes_http_legacy_unref(http_server_t *hs, legacy_t *l);
/* Ends a 2025 session left unused for LEGACY_IDLE_SECONDS (one a call: the main loop's tick). */
void hermes_http_reap_sessions(http_server_t *hs);
/* Calls fn on every session, each under its feed lock. */
void hermes_http_for_each_session(http_server_t *hs, void (*fn)(hermes_session_t *));
/* Calls fn on every 2025 session (held, no lock taken). */
void hermes_http_for_each_legacy(http_server_t *hs, void (*fn)(legacy_t *));
/* The protocols' ticks (MCP's subscriptions) of every session whose feed lock is free: the main
 * loop's; lowers *timeout_ms to when they want to run again. */
void hermes_http_tick_sessions(http_server_t *hs, int *timeout_ms);
/* True once every session is finished; *timeout_ms: when to look again (-1: no deadline). */
bool hermes_http_all_finished(http_server_t *hs, int *timeout_ms);
/* Frees the 2025 sessions still listed (the server stops; no request is left). */
void hermes_http_sessions_free(http_server_t *hs);

/* ---- http_respond.c: whole responses -------------------------------------------------------- */

/* Queues a response of body (taken; NULL for none) with its Content-Type and extra headers
 * (name, value pairs ending with NULL, or NULL). */
enum MHD_Result hermes_http_respond(struct MHD_Connection *c, unsigned status, const char *type,
                                    char *body, size_t len, const char *const *headers);
/* A JSON-RPC error as the whole response (id: raw JSON text, or NULL for none). */
enum MHD_Result hermes_http_respond_error(struct MHD_Connection *c, unsigned status,
                                          const char *id, int code, const char *message,
                                          const char *data, const char *const *headers);
enum MHD_Result hermes_http_respond_empty(struct MHD_Connection *c, unsigned status,
                                          const char *const *headers);

/* ---- http_listen.c: the socket, accepting, the connections --------------------------------- */

/* Binds and listens on spec ("systemd": takes the socket systemd passed); url: where, to print.
 * 0, or 2 with why said. */
int hermes_http_listen_on(http_server_t *hs, const char *spec, char *url, size_t url_len);

/* ---- http_systemd.c ------------------------------------------------------------------------ */

/* Takes the first listening stream socket of LISTEN_FDS (LISTEN_PID must be this process),
 * unsets the variables, marks every passed descriptor close-on-exec; url: where, to print.
 * 0 with hs->listen_fd set, or 2 with why said. */
int hermes_http_listen_systemd(http_server_t *hs, char *url, size_t url_len);
/* The acceptor thread (arg: hs). */
void *hermes_http_accept_loop(void *arg);
/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION: the table of connections. */
void hermes_http_notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                                   enum MHD_ConnectionNotificationCode code);
/* Shuts the connections whose request has been arriving longer than the timeout. */
void hermes_http_reap_connections(http_server_t *hs);
/* No new connections: the acceptor ends, and the listening socket is closed. */
void hermes_http_stop_accepting(http_server_t *hs);

/* ---- http_auth.c --------------------------------------------------------------------------- */

/* Reads the token file and sets up OAuth as http asks: 0, or -1 with why said on standard error. */
int hermes_http_read_credentials(http_server_t *hs, const hermes_http_options_t *http);
/* Frees what hermes_http_read_credentials made. */
void hermes_http_credentials_free(http_server_t *hs);
/* Who the request is (its Authorization header) and what it may do: sets q->rights, or queues a
 * 401 (MHD_YES/NO) naming why; -1 if it may go on. */
int hermes_http_authenticate(http_server_t *hs, hreq_t *q, struct MHD_Connection *c);
/* A GET of the Protected Resource Metadata (with OAuth): the document queued (MHD_YES/NO); -1 if
 * url is not its path. */
int hermes_http_resource_metadata(http_server_t *hs, struct MHD_Connection *c, const char *url,
                                  const char *method);
/* A tools/call of a verb q's OAuth scopes do not cover: 403 insufficient_scope queued
 * (MHD_YES/NO); -1 if it may go on. */
int hermes_http_check_scope(http_server_t *hs, hreq_t *q, struct MHD_Connection *c,
                            const char *tool);

#endif
