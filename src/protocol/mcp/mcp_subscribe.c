/* protocol/mcp/mcp_subscribe.c: resources/subscribe and resources/unsubscribe of the 2025 era:
 * notifications/resources/updated {uri} when a subscribed file changes. One inotify watch of the
 * workspace tree per session (fs/watch.h, every name, ignored or hidden too), made at the first
 * subscription and dropped with the last; at most HERMES_MCP_MAX_SUBSCRIPTIONS files. Events are
 * read by the session's loop (the protocol tick, every HERMES_MCP_SUBSCRIPTION_POLL_MS while
 * there are subscriptions), so subscriptions cost no thread. The notifications go to the channel
 * of the latest subscribe: stdio's; a 2025 HTTP session has no stream for them. */
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

typedef struct subs {
	hermes_ws_t *ws;
	hermes_watch_t *watch;
	hermes_channel_t *ch; /* held */
	size_t n;
	subscription_t sub[HERMES_MCP_MAX_SUBSCRIPTIONS];
} subs_t;

static void drop_watch(subs_t *s)
{
	hermes_watch_free(s->watch);
	hermes_ws_free(s->ws);
	s->watch = NULL;
	s->ws = NULL;
	if (s->ch)
		hermes_channel_release(s->ch);
	s->ch = NULL;
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
static char *subscribed_path(server_t *srv, call_t *c, const char *method)
{
	char why[512];
	const hermes_json_t *uri = hermes_json_member(c->m.params, "uri");
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

void hermes_mcp_resources_subscribe(server_t *srv, call_t *c)
{
	char *rel = subscribed_path(srv, c, "resources/subscribe");
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
	if (s && s->n == HERMES_MCP_MAX_SUBSCRIPTIONS) {
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
	if (s->watch == NULL) {
		hermes_error_t err;
		memset(&err, 0, sizeof err);
		const hermes_config_t *cfg = hermes_executor_config(srv->ex);
		hermes_watch_opts_t opts = {.recursive = true, .respect_ignore = false,
		                            .include_hidden = true, .keep = 4096};
		int rc = hermes_ws_open(cfg && cfg->root ? cfg->root : ".", &s->ws, &err);
		if (rc == 0)
			rc = hermes_watch_new(s->ws, ".", &opts, &s->watch);
		if (rc != 0) {
			char why[512], e[256];
			snprintf(why, sizeof why, "resources/subscribe: cannot watch the workspace: %s",
			         err.message[0] ? err.message : hermes_ws_strerror(rc, e, sizeof e));
			drop_watch(s);
			free(rel);
			free(copy);
			hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, why, NULL);
			return;
		}
	}
	if (s->ch != c->ch) { /* the latest subscriber's channel hears of them all */
		if (s->ch)
			hermes_channel_release(s->ch);
		hermes_channel_hold(c->ch);
		s->ch = c->ch;
	}
	s->sub[s->n].rel = rel;
	s->sub[s->n].uri = copy;
	s->n++;
	hermes_reply_result(c, strdup("{}"));
}

void hermes_mcp_resources_unsubscribe(server_t *srv, call_t *c)
{
	char *rel = subscribed_path(srv, c, "resources/unsubscribe");
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
	if (s && s->n == 0)
		drop_watch(s);
	free(rel);
	hermes_reply_result(c, strdup("{}"));
}

static void notify_updated(subs_t *s, size_t i)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"uri\":");
	hermes_buf_json_string(&b, s->sub[i].uri, strlen(s->sub[i].uri));
	hermes_buf_puts(&b, "}");
	size_t n = b.len;
	char *params = hermes_buf_finish(&b);
	if (params)
		hermes_notify(s->ch, "notifications/resources/updated", params, n);
	free(params);
}

void hermes_mcp_subscriptions_tick(server_t *srv, int *timeout_ms)
{
	subs_t *s = srv->protocol_state;
	if (s == NULL || s->watch == NULL || s->n == 0)
		return;
	hermes_watch_batch_t batch;
	bool hit[HERMES_MCP_MAX_SUBSCRIPTIONS] = {false};
	/* a bounded number of events per tick: the rest wait for the next one */
	if (hermes_watch_read(s->watch, -1, 1024, 0, NULL, NULL, &batch) == 0) {
		for (size_t e = 0; e < batch.count; e++) {
			const hermes_watch_change_t *ev = &batch.events[e];
			for (size_t i = 0; i < s->n; i++)
				if (strcmp(ev->path, s->sub[i].rel) == 0 ||
				    (ev->old_path && strcmp(ev->old_path, s->sub[i].rel) == 0))
					hit[i] = true;
		}
		for (size_t i = 0; batch.overflow && i < s->n; i++)
			hit[i] = true; /* changes were lost: any of them may have changed */
		hermes_watch_batch_clear(&batch);
	}
	for (size_t i = 0; i < s->n; i++)
		if (hit[i])
			notify_updated(s, i);
	if (*timeout_ms < 0 || *timeout_ms > HERMES_MCP_SUBSCRIPTION_POLL_MS)
		*timeout_ms = HERMES_MCP_SUBSCRIPTION_POLL_MS;
}
