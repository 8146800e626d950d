/* verbs/fs_watch.c: fs.watch, fs.changes and fs.unwatch: a watched tree (fs/watch.h) kept in the
 * executor's table of watches (fs/watches.h, the verbs' state), so every front door and
 * connection sharing the executor shares its watches, and they end with it. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/lines.h"
#include "fs/watches.h"
#include "fs/workspace.h"
#include "verbs/handlers.h"
#include "verbs/state.h"

static hermes_watches_t *table_of(const hermes_call_t *call, void *result, const char *verb)
{
	hermes_watches_t *t = hermes_verbs_watches(call);
	if (!t)
		hermes_result_fail(result, HERMES_E_NOT_ALLOWED, "%s is not available here: this "
		                   "executor keeps no watches", verb);
	return t;
}

static void unknown_handle(const hermes_call_t *call, void *result, const char *verb,
                           const char *handle)
{
	char shown[256], what[64];
	snprintf(what, sizeof what, "%s: the watch", verb);
	if (hermes_verbs_held_elsewhere(result, what, handle,
	                                hermes_watches_instance(hermes_verbs_watches(call))))
		return;
	hermes_result_fail(result, HERMES_E_NOT_FOUND,
	                   "%s: no watch has the handle '%s' (ended with fs.unwatch, or started by "
	                   "another server)", verb, hermes_ws_shown(handle, shown, sizeof shown));
}

void hermes_verb_fs_watch(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_watch_args_t *args = args_;
	hermes_fs_watch_result_t *result = result_;
	hermes_watches_t *t = table_of(call, result, "fs.watch");
	if (!t)
		return;
	hermes_watch_opts_t opts = {
		.recursive = args->recursive,
		.respect_ignore = args->respect_ignore,
		.include_hidden = args->include_hidden,
		.keep = call->config->max_watch_events,
	};
	char shown[256], id[HERMES_WATCH_ID_MAX];
	hermes_watch_t *w;
	int rc = hermes_watch_new(call->host, args->path, &opts, &w);
	if (rc == -ENOSPC) {
		hermes_result_fail(result, HERMES_E_TOO_LARGE,
		                   "cannot watch '%s': the kernel allows no more inotify watches for this "
		                   "user (it has more directories than fs.inotify.max_user_watches lets "
		                   "one watch hold, or too many watches: fs.inotify.max_user_instances)",
		                   hermes_ws_shown(args->path, shown, sizeof shown));
		return;
	}
	if (rc) {
		hermes_ws_fail(result, rc, "watch", args->path);
		return;
	}
	rc = hermes_watches_add(t, w, id);
	if (rc) {
		hermes_watch_free(w);
		if (rc == -EAGAIN)
			hermes_result_fail(result, HERMES_E_LIMIT_REACHED,
			                   "cannot watch '%s': %d watches are kept already (--max-watches): "
			                   "end one with fs.unwatch", hermes_ws_shown(args->path, shown,
			                   sizeof shown), (int)call->config->max_watches);
		else
			hermes_ws_fail(result, rc, "watch", args->path);
		return;
	}
	if (!(result->handle = strdup(id))) {
		hermes_watches_remove(t, id);
		hermes_ws_fail(result, -ENOMEM, "watch", args->path);
	}
	result->cursor = 0;
}

static bool cancelled(void *ctx)
{
	return hermes_cancel_requested(ctx);
}

static const char *const kind_names[] = {"created", "modified", "deleted", "moved"};

void hermes_verb_fs_changes(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_changes_args_t *args = args_;
	hermes_fs_changes_result_t *result = result_;
	hermes_watches_t *t = table_of(call, result, "fs.changes");
	if (!t)
		return;
	hermes_watch_ref_t *r = hermes_watches_find(t, args->handle);
	if (!r) {
		unknown_handle(call, result, "fs.changes", args->handle);
		return;
	}
	hermes_watch_batch_t b;
	int rc = hermes_watch_read(hermes_watch_ref_get(r), args->has_cursor ? args->cursor : -1,
	                           (size_t)args->max_events, args->wait_seconds * 1000, cancelled,
	                           call->cancel, &b);
	hermes_watches_release(t, r);
	if (rc == -ESHUTDOWN) {
		unknown_handle(call, result, "fs.changes", args->handle);
		return;
	}
	if (rc == -EINVAL) {
		hermes_result_fail(result, HERMES_E_INVALID_ARGUMENT,
		                   "fs.changes: cursor %lld is past the newest change of this watch "
		                   "(pass a cursor an earlier fs.changes returned)",
		                   (long long)args->cursor);
		return;
	}
	if (rc) {
		hermes_ws_fail(result, rc, "read the changes of", args->handle);
		return;
	}
	result->events = calloc(b.count ? b.count : 1, sizeof *result->events);
	bool ok = result->events != NULL;
	for (size_t i = 0; ok && i < b.count; i++) {
		const hermes_watch_change_t *c = &b.events[i];
		hermes_watch_event_t *e = &result->events[i];
		result->events_count = i + 1;
		e->kind = strdup(kind_names[c->kind]);
		e->path = hermes_text_lossy(c->path);
		e->old_path = c->old_path ? hermes_text_lossy(c->old_path) : NULL;
		e->is_directory = c->is_dir;
		ok = e->kind && e->path && (!c->old_path || e->old_path);
	}
	result->cursor = b.next;
	result->more = b.more;
	result->overflow = b.overflow;
	hermes_watch_batch_clear(&b);
	if (!ok)
		hermes_ws_fail(result, -ENOMEM, "read the changes of", args->handle);
}

void hermes_verb_fs_unwatch(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_fs_unwatch_args_t *args = args_;
	hermes_watches_t *t = table_of(call, result_, "fs.unwatch");
	if (t && hermes_watches_remove(t, args->handle) != 0)
		unknown_handle(call, result_, "fs.unwatch", args->handle);
}
