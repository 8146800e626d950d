/* protocol/mcp/mcp_subscribe.c: resources/subscribe and resources/unsubscribe of the 2025 era,
 * and subscriptions/listen of 2026-07-28: notifications/resources/updated {uri} when a subscribed
 * file changes. One inotify watch of the workspace tree per session (fs/watch.h, every name,
 * ignored or hidden too), made at the first subscription and dropped with the last; at most
 * HERMES_MCP_MAX_SUBSCRIPTIONS files. Events are read by the session's loop (the protocol tick,
 * every HERMES_MCP_SUBSCRIPTION_POLL_MS while there are subscriptions), so subscriptions cost no
 * thread. The 2025 notifications belong to no request: they go to the session's default channel
 * (stdio's output; over HTTP the session's GET stream). A listen's go to its own channel (the
 * listen's response stream over HTTP). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/executor.h"
#include "fs/watch.h"
#include "fs/workspace.h"
#include "protocol/mcp/mcp.h"
#include "rpc/jsonrpc.h"

typedef struct subscription {
	char *rel; /* workspace-relative path, canonical */
	char *uri; /* as the client gave it */
} subscription_t;

/* A 2026 subscriptions/listen request, kept open: its notifications carry its id. */
typedef struct listener {
	call_t c;                 /* its id strings, a reference on its message, a hold on its channel */
	size_t n;                 /* its resourceSubscriptions */
	subscription_t *sub;
} listener_t;

typedef struct subs {
	listener_t listeners[HERMES_MCP_MAX_LISTENERS];
	size_t n_listeners;
	hermes_ws_t *ws;
	hermes_watch_t *watch;
	size_t n;
	subscription_t sub[HERMES_MCP_MAX_SUBSCRIPTIONS];
} subs_t;

static size_t total(const subs_t *s)
{
	size_t n = s->n;
	for (size_t i = 0; i < s->n_listeners; i++)
		n += s->listeners[i].n;
	return n;
}

/* Forgets listener i (no reply: the caller sent one or must not). */
static void listener_drop(subs_t *s, size_t i)
{
	listener_t *l = &s->listeners[i];
	for (size_t k = 0; k < l->n; k++) {
		free(l->sub[k].rel);
		free(l->sub[k].uri);
	}
	free(l->sub);
	hermes_rpc_message_clear(&l->c.m);
	hermes_message_unref(l->c.msg);
	hermes_channel_release(l->c.ch);
	s->listeners[i] = s->listeners[--s->n_listeners];
}

static void drop_watch(subs_t *s)
{
	hermes_watch_free(s->watch);
	hermes_ws_free(s->ws);
	s->watch = NULL;
	s->ws = NULL;
}

static void subs_free(void *state)
{
	subs_t *s = state;
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->sub[i].rel);
		free(s->sub[i].uri);
	}
	while (s->n_listeners)
		listener_drop(s, 0);
	drop_watch(s);
	free(s);
}

static subs_t *subs_of(server_t *srv)
{
	if (srv->protocol_state == NULL) {
		srv->protocol_state = calloc(1, sizeof(subs_t));
		if (srv->protocol_state)
			srv->protocol_state_free = subs_free;
	}
	return srv->protocol_state;
}

/* Whether rel is a canonical relative path: no empty, "." or ".." name (the watch reports those). */
static bool canonical(const char *rel)
{
	for (const char *p = rel; *p;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n + (e ? 1 : 0);
		if (e && !*p)
			return false;
	}
	return true;
}

/* The call's uri as a canonical workspace path the client may read (malloc'd), or NULL answered. */
static char *subscribed_path(server_t *srv, call_t *c, const char *method,
                             const hermes_json_t *uri)
{
	char why[512];
	if (!hermes_json_is_c_string(uri)) {
		snprintf(why, sizeof why, "%s needs params {\"uri\": a file:// URI of resources/list}", method);
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, why, NULL);
		return NULL;
	}
	if (srv->ex == NULL && hermes_server_workspace(srv, why, sizeof why) != 0) {
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, why, NULL);
		return NULL;
	}
	const hermes_verb_desc_t *d = hermes_executor_find(srv->ex, "fs.readBytes");
	if (d == NULL || !hermes_config_allows(hermes_executor_config(srv->ex), d) ||
	    !hermes_channel_allows(c->ch, d, why, sizeof why)) {
		if (d == NULL || !hermes_config_allows(hermes_executor_config(srv->ex), d))
			snprintf(why, sizeof why, "fs.readBytes is not allowed on this server, so neither "
			         "is %s", method);
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, why, NULL);
		return NULL;
	}
	char *rel = hermes_mcp_resource_path(srv, c, uri->str);
	if (rel && !canonical(rel)) {
		snprintf(why, sizeof why, "%s: '%.300s' has an empty, '.' or '..' name: give the URI "
		         "resources/list gives", method, uri->str);
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, why, NULL);
		free(rel);
		return NULL;
	}
	return rel;
}

/* Starts the session's watch if it has none: true, or false with c answered. */
static bool ensure_watch(server_t *srv, subs_t *s, call_t *c)
{
	if (s->watch)
		return true;
	hermes_error_t err;
	memset(&err, 0, sizeof err);
	const hermes_config_t *cfg = hermes_executor_config(srv->ex);
	hermes_watch_opts_t opts = {.recursive = true, .respect_ignore = false,
	                            .include_hidden = true, .keep = 4096};
	int rc = hermes_ws_open(cfg && cfg->root ? cfg->root : ".", &s->ws, &err);
	if (rc == 0)
		rc = hermes_watch_new(s->ws, ".", &opts, &s->watch);
	if (rc == 0)
		return true;
	char why[512], e[256];
	snprintf(why, sizeof why, "%s: cannot watch the workspace: %s", c->m.method,
	         err.message[0] ? err.message : hermes_ws_strerror(rc, e, sizeof e));
	hermes_watch_free(s->watch);
	hermes_ws_free(s->ws);
	s->watch = NULL;
	s->ws = NULL;
	hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, why, NULL);
	return false;
}

void hermes_mcp_resources_subscribe(server_t *srv, call_t *c)
{
	char *rel = subscribed_path(srv, c, "resources/subscribe",
	                            hermes_json_member(c->m.params, "uri"));
	if (rel == NULL)
		return;
	subs_t *s = subs_of(srv);
	const hermes_json_t *uri = hermes_json_member(c->m.params, "uri");
	for (size_t i = 0; s && i < s->n; i++)
		if (strcmp(s->sub[i].rel, rel) == 0) { /* already: nothing changes */
			free(rel);
			hermes_reply_result(c, strdup("{}"));
			return;
		}
	if (s && total(s) >= HERMES_MCP_MAX_SUBSCRIPTIONS) {
		free(rel);
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, "resources/subscribe: this session has "
		                   "64 subscriptions already (the most): unsubscribe one first", NULL);
		return;
	}
	char *copy = s ? strdup(uri->str) : NULL;
	if (copy == NULL) {
		free(rel);
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	if (!ensure_watch(srv, s, c)) {
		free(rel);
		free(copy);
		return;
	}
	s->sub[s->n].rel = rel;
	s->sub[s->n].uri = copy;
	s->n++;
	hermes_reply_result(c, strdup("{}"));
}

void hermes_mcp_resources_unsubscribe(server_t *srv, call_t *c)
{
	char *rel = subscribed_path(srv, c, "resources/unsubscribe",
	                            hermes_json_member(c->m.params, "uri"));
	if (rel == NULL)
		return;
	subs_t *s = srv->protocol_state;
	for (size_t i = 0; s && i < s->n; i++) {
		if (strcmp(s->sub[i].rel, rel) != 0)
			continue;
		free(s->sub[i].rel);
		free(s->sub[i].uri);
		s->sub[i] = s->sub[--s->n];
		break;
	}
	if (s && total(s) == 0)
		drop_watch(s);
	free(rel);
	hermes_reply_result(c, strdup("{}"));
}

/* notifications/resources/updated {uri} on ch; id: the listen request's (raw JSON), or NULL. */
static void notify_updated(hermes_channel_t *ch, const char *uri, const char *id)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{");
	if (id)
		hermes_buf_printf(&b, "\"_meta\":{\"" HERMES_MCP_META_SUBSCRIPTION "\":%s},", id);
	hermes_buf_puts(&b, "\"uri\":");
	hermes_buf_json_string(&b, uri, strlen(uri));
	hermes_buf_puts(&b, "}");
	hermes_notify_buf(ch, "notifications/resources/updated", &b);
}

static bool named(const hermes_watch_change_t *ev, const char *rel)
{
	return strcmp(ev->path, rel) == 0 || (ev->old_path && strcmp(ev->old_path, rel) == 0);
}

/* subscriptions/listen (2026-07-28): the request stays open; its acknowledgment, then
 * notifications/resources/updated for its resourceSubscriptions, carry its id; it ends with
 * notifications/cancelled (stdio; no reply), its client gone (HTTP: the stream closed), or the
 * session (a completion result). The other kinds of the filter (list changes) are left out of the
 * acknowledgment: Hermes' lists never announce. */
void hermes_mcp_subscriptions_listen(server_t *srv, call_t *c)
{
	const hermes_json_t *f = hermes_json_member(c->m.params, "notifications");
	const hermes_json_t *list = hermes_json_member(f, "resourceSubscriptions");
	if ((f && f->type != HERMES_JSON_OBJECT) ||
	    (list && list->type != HERMES_JSON_ARRAY && list->type != HERMES_JSON_NULL)) {
		hermes_reply_error(c, HERMES_RPC_INVALID_PARAMS, "subscriptions/listen needs params."
		                   "notifications {\"resourceSubscriptions\": [file:// URIs]}", NULL);
		return;
	}
	subs_t *s = subs_of(srv);
	size_t want = list && list->type == HERMES_JSON_ARRAY ? list->count : 0;
	if (s == NULL || s->n_listeners == HERMES_MCP_MAX_LISTENERS ||
	    total(s) + want > HERMES_MCP_MAX_SUBSCRIPTIONS) {
		char why[256];
		snprintf(why, sizeof why, "subscriptions/listen: at most %d open listens and %d "
		         "subscribed resources per session", HERMES_MCP_MAX_LISTENERS,
		         HERMES_MCP_MAX_SUBSCRIPTIONS);
		hermes_reply_error(c, s ? HERMES_RPC_INVALID_PARAMS : HERMES_RPC_INTERNAL_ERROR, why, NULL);
		return;
	}
	subscription_t *sub = want ? calloc(want, sizeof *sub) : NULL;
	if (want && sub == NULL) {
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	size_t n = 0;
	bool ok = true;
	for (const hermes_json_t *u = want ? list->child : NULL; u && ok; u = u->next) {
		char *rel = subscribed_path(srv, c, "subscriptions/listen", u);
		char *copy = rel ? strdup(u->str) : NULL;
		if (rel && copy == NULL)
			hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		ok = copy != NULL;
		if (ok) {
			sub[n].rel = rel;
			sub[n++].uri = copy;
		} else {
			free(rel);
		}
	}
	if (ok && n)
		ok = ensure_watch(srv, s, c);
	hermes_buf_t b = HERMES_BUF_INIT;
	if (ok) { /* the acknowledgment: what is honoured */
		hermes_buf_printf(&b, "{\"_meta\":{\"" HERMES_MCP_META_SUBSCRIPTION "\":%s},"
		                  "\"notifications\":{\"resourceSubscriptions\":[", c->m.id);
		for (size_t i = 0; i < n; i++) {
			if (i)
				hermes_buf_puts(&b, ",");
			hermes_buf_json_string(&b, sub[i].uri, strlen(sub[i].uri));
		}
		hermes_buf_puts(&b, "]}}");
		ok = !b.failed;
		if (!ok)
			hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
	}
	if (!ok) {
		for (size_t i = 0; i < n; i++) {
			free(sub[i].rel);
			free(sub[i].uri);
		}
		free(sub);
		free(hermes_buf_finish(&b));
		return;
	}
	listener_t *l = &s->listeners[s->n_listeners++];
	l->c = *c;
	l->n = n;
	l->sub = sub;
	c->m.id = NULL; /* the kept copy owns them now */
	c->m.id_key = NULL;
	hermes_message_ref(c->msg);
	hermes_channel_hold(c->ch);
	hermes_notify_buf(l->c.ch, "notifications/subscriptions/acknowledged", &b);
}

bool hermes_mcp_subscriptions_cancel(server_t *srv, const char *key, size_t key_len)
{
	subs_t *s = srv->protocol_state;
	for (size_t i = 0; s && i < s->n_listeners; i++) {
		const call_t *lc = &s->listeners[i].c;
		if (lc->m.id_key && lc->m.id_key_len == key_len && memcmp(lc->m.id_key, key, key_len) == 0) {
			listener_drop(s, i);
			if (total(s) == 0)
				drop_watch(s);
			return true;
		}
	}
	return false;
}

/* The session ends: each open listen gets its completion result (a graceful end). */
static void listeners_close(subs_t *s)
{
	while (s->n_listeners) {
		listener_t *l = &s->listeners[0];
		hermes_buf_t b = HERMES_BUF_INIT;
		hermes_buf_printf(&b, "{\"resultType\":\"complete\",\"_meta\":{\""
		                  HERMES_MCP_META_SUBSCRIPTION "\":%s}}", l->c.m.id);
		hermes_reply_result(&l->c, hermes_buf_finish(&b));
		listener_drop(s, 0);
	}
}

void hermes_mcp_subscriptions_tick(server_t *srv, int *timeout_ms)
{
	subs_t *s = srv->protocol_state;
	if (s && s->n_listeners && (srv->eof || srv->stop_reading || srv->graceful))
		listeners_close(s);
	for (size_t i = 0; s && i < s->n_listeners;) /* a client that left ends its listen */
		if (hermes_channel_gone(s->listeners[i].c.ch))
			listener_drop(s, i);
		else
			i++;
	if (s && s->watch && total(s) == 0)
		drop_watch(s);
	if (s && s->n_listeners && (*timeout_ms < 0 || *timeout_ms > HERMES_MCP_LISTEN_CHECK_MS))
		*timeout_ms = HERMES_MCP_LISTEN_CHECK_MS;
	if (s == NULL || s->watch == NULL || total(s) == 0)
		return;
	hermes_watch_batch_t batch;
	bool hit[HERMES_MCP_MAX_SUBSCRIPTIONS] = {false};
	bool lhit[HERMES_MCP_MAX_LISTENERS][HERMES_MCP_MAX_SUBSCRIPTIONS];
	memset(lhit, 0, sizeof lhit);
	/* a bounded number of events per tick: the rest wait for the next one */
	if (hermes_watch_read(s->watch, -1, 1024, 0, NULL, NULL, &batch) == 0) {
		for (size_t e = 0; e < batch.count; e++) {
			const hermes_watch_change_t *ev = &batch.events[e];
			for (size_t i = 0; i < s->n; i++)
				hit[i] |= named(ev, s->sub[i].rel);
			for (size_t l = 0; l < s->n_listeners; l++)
				for (size_t i = 0; i < s->listeners[l].n; i++)
					lhit[l][i] |= named(ev, s->listeners[l].sub[i].rel);
		}
		if (batch.overflow) { /* changes were lost: any of them may have changed */
			memset(hit, 1, sizeof hit);
			memset(lhit, 1, sizeof lhit);
		}
		hermes_watch_batch_clear(&batch);
	}
	for (size_t i = 0; i < s->n; i++)
		if (hit[i])
			notify_updated(srv->channel, s->sub[i].uri, NULL);
	for (size_t l = 0; l < s->n_listeners; l++)
		for (size_t i = 0; i < s->listeners[l].n; i++)
			if (lhit[l][i])
				notify_updated(s->listeners[l].c.ch, s->listeners[l].sub[i].uri,
				               s->listeners[l].c.m.id);
	if (*timeout_ms < 0 || *timeout_ms > HERMES_MCP_SUBSCRIPTION_POLL_MS)
		*timeout_ms = HERMES_MCP_SUBSCRIPTION_POLL_MS;
}
