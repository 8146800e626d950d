/* rpc/requests.c: verb calls, whichever protocol sent them: queued on the worker pool (or run
 * at once by the reader, for INSTANT verbs), run there on the message's own tree, answered the
 * way the protocol asked (hermes_verb_answer_t), cancelled through the in-flight list. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/executor.h"
#include "core/verb.h"
#include "core/zalloc.h"
#include "rpc/jsonrpc.h"
#include "rpc/log.h"
#include "rpc/state.h"

/* Progress reports of the verb, to the request's channel in the protocol's shape. */
static void send_progress(void *ctx, double progress, double total, const char *message)
{
	request_t *req = ctx;
	req->answer->progress(req->ch, req->progress_token, progress, total, message);
}

/* Whether a request may start (want 0), or a result of want more bytes be built now. Its own
 * client reads its replies (fewer than the bound wait for it on the request's channel), and the
 * results being built in the budget leave room for it (or there are none: one result larger than
 * the bound still goes, alone). The replies the other clients have not read (over HTTP: the
 * budget's) stop only a result: past their bound, one still goes if the replies and the results
 * together stay under the replies' bound and half the results' (32 MiB). So a client that does
 * not read holds up the big results of the others until its timeout, never their small calls
 * (fs.exists, a small file). */
static bool result_room(request_t *req, size_t want, bool *stop)
{
	server_t *srv = req->srv;
	hermes_budget_t *b = srv->budget;
	hermes_channel_t *ch = req->ch;
	size_t queued = ch->ops->queued ? ch->ops->queued(ch) : 0;
	pthread_mutex_lock(&srv->lock);
	*stop = req->cancel_requested || atomic_load(&srv->client_gone);
	pthread_mutex_unlock(&srv->lock);
	pthread_mutex_lock(&b->lock);
	size_t held = b->results, replies = atomic_load(&b->queued);
	bool room = queued < HERMES_SERVER_MAX_QUEUED_BYTES &&
	            (held == 0 || (held < HERMES_SERVER_MAX_RESULT_BYTES &&
	                           want <= HERMES_SERVER_MAX_RESULT_BYTES - held));
	if (room && want && replies >= HERMES_SERVER_MAX_QUEUED_BYTES)
		room = want <= HERMES_SERVER_MAX_RESULT_BYTES / 2 &&
		       replies + held + want <= HERMES_SERVER_MAX_QUEUED_BYTES +
		                                HERMES_SERVER_MAX_RESULT_BYTES / 2;
	if (room && !*stop && want) {
		b->results += want;
		req->result_bytes += want;
	}
	if (!room && !*stop) {
		/* woken when a result is done or replies were written (the timeout: a safety net, and
		 * how a cancel is seen) */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 50 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		atomic_fetch_add(&b->waiters, 1);
		pthread_cond_timedwait(&b->room, &b->lock, &until);
		atomic_fetch_sub(&b->waiters, 1);
	}
	pthread_mutex_unlock(&b->lock);
	return room;
}

/* The memory hook of the verb (core/verb.h): it is about to build a result of bytes of content.
 * Waits until that fits (result_room), counting it until the reply is placed; a cancelled call
 * or a client gone stops the wait (the verb then fails as cancelled, or finishes unseen). */
static void hold_memory(void *ctx, size_t bytes)
{
	request_t *req = ctx;
	size_t copies = req->answer->result_copies ? req->answer->result_copies : 1;
	size_t want = bytes > SIZE_MAX / copies ? SIZE_MAX : bytes * copies;
	bool stop = false;
	while (want && !result_room(req, want, &stop) && !stop)
		;
}

/* A worker runs this for every pooled request. */
static void run_request(hermes_pool_job_t *job)
{
	request_t *req = (request_t *)job;
	server_t *srv = req->srv;
	hermes_reply_t r;

	/* Only a LONG verb watches a cancellation token (and a call that wants progress reports);
	 * the others run to the end anyway. Every call run by a worker gets a token for the memory
	 * hook (fs.readRange says what its lines hold), but an INSTANT one on the reader, which
	 * builds nothing big and is spared the descriptor it costs. */
	hermes_cancel_t *token = NULL;
	bool cancellable = req->job.blocking || req->progress_token;
	if (!(req->send_flags & HERMES_SEND_GATHER) && (token = hermes_cancel_new()) == NULL)
		hermes_log(HERMES_LOG_WARN, "no cancellation token for a request (out of descriptors?)");
	if (token && req->progress_token)
		hermes_cancel_set_progress(token, send_progress, req);
	if (token)
		hermes_cancel_set_memory(token, hold_memory, req);
	pthread_mutex_lock(&srv->lock);
	req->started = true;
	bool cancelled = req->cancel_requested;
	req->token = cancelled || !cancellable ? NULL : token;
	pthread_mutex_unlock(&srv->lock);
	if (cancelled) {
		/* cancelled between leaving the queue and starting: it never runs */
		hermes_cancel_free(token);
		hermes_reply_cancelled(&r, req->id, NULL);
		hermes_inflight_done(srv, req, &r);
		return;
	}
	/* Backpressure: no new reply while the client leaves too many unread, nor while the results
	 * being built fill their bound (see session.h). The reader (INSTANT calls) never waits: it
	 * runs them only while the replies leave room. */
	bool stop = false;
	while (!(req->send_flags & HERMES_SEND_GATHER) && !stop) {
		if (req->ch->ops->wait_room &&
		    !req->ch->ops->wait_room(req->ch, HERMES_SERVER_MAX_QUEUED_BYTES, 100)) {
			pthread_mutex_lock(&srv->lock);
			stop = req->cancel_requested || atomic_load(&srv->client_gone);
			pthread_mutex_unlock(&srv->lock);
			continue;
		}
		if (result_room(req, 0, &stop))
			break;
	}

	char *result = NULL;
	hermes_error_t err;
	hermes_error_clear(&err);
	hermes_outcome_t outcome = hermes_execute_json(req->ex, req->verb, req->params, req->msg->body,
	                                               0, token, &result, &err);
	if (token && cancellable) {
		pthread_mutex_lock(&srv->lock);
		req->token = NULL;
		cancelled = req->cancel_requested;
		pthread_mutex_unlock(&srv->lock);
	}
	hermes_cancel_free(token);

	if (req->id == NULL) {
		free(result);
		memset(&r, 0, sizeof r);
	} else if (req->answer->reply_call) {
		req->answer->reply_call(&r, req->id, outcome, result, &err, cancelled, req->params,
		                        req->ex);
	} else {
		req->answer->reply(&r, req->id, outcome, result, &err, cancelled);
	}
	/* the reply is placed (queued: counted there from now on) before its result stops counting */
	size_t held = req->result_bytes;
	hermes_budget_t *b = srv->budget;
	hermes_inflight_done(srv, req, &r);
	if (held) {
		pthread_mutex_lock(&b->lock);
		b->results -= held;
		pthread_cond_broadcast(&b->room);
		pthread_mutex_unlock(&b->lock);
	}
}

static void submit(server_t *srv, request_t *req)
{
	if (hermes_pool_submit(srv->pool, &req->job) != 0) {
		hermes_reply_t r;
		hermes_rpc_error(&r, req->id, HERMES_RPC_INTERNAL_ERROR, "cannot start a worker thread", NULL);
		hermes_inflight_done(srv, req, &r);
	}
}

/* An edit with diagnose: true waits for a language server (seconds, like a LONG verb): params are
 * the arguments, or with verb NULL an envelope holding them. */
static bool waits_for_server(const hermes_verb_desc_t *verb, const hermes_json_t *params)
{
	const hermes_json_t *args = verb ? params : hermes_json_member(params, "arguments");
	const hermes_json_t *d = args && args->type == HERMES_JSON_OBJECT
	                         ? hermes_json_member(args, "diagnose") : NULL;
	return d && d->type == HERMES_JSON_TRUE;
}

static bool run_here(server_t *srv, request_t *req);

void hermes_requests_queue(server_t *srv, call_t *c, const hermes_verb_desc_t *verb,
                           const hermes_json_t *params, const hermes_verb_answer_t *answer,
                           const char *progress_token, size_t progress_token_len)
{
	request_t *req = hermes_zalloc(sizeof *req);
	if (req == NULL) {
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	const hermes_verb_desc_t *runs = verb;
	if (runs == NULL) { /* the envelope's verb decides the lane; a bad one fails on a worker */
		const hermes_json_t *v = hermes_json_member(params, "verb");
		runs = hermes_json_is_c_string(v) ? hermes_executor_find(srv->ex, v->str) : NULL;
	}
	if (!answer->progress)
		progress_token = NULL;
	if (progress_token && (req->progress_token = malloc(progress_token_len + 1)) == NULL) {
		free(req);
		hermes_reply_error(c, HERMES_RPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	if (progress_token) {
		memcpy(req->progress_token, progress_token, progress_token_len);
		req->progress_token[progress_token_len] = '\0';
	}
	req->srv = srv;
	req->ex = srv->ex;
	req->answer = answer;
	req->ch = c->ch;
	hermes_channel_hold(req->ch);
	req->job.run = run_request;
	/* a LONG verb (proc.run, fs.search...) must not hold up a worker that quick requests need */
	req->job.blocking = runs && ((runs->traits & HERMES_TRAIT_LONG) ||
	                             waits_for_server(verb, params));
	bool instant = runs && (runs->traits & HERMES_TRAIT_INSTANT) && !req->job.blocking;
	req->msg = hermes_message_ref(c->msg);
	req->params = params;
	req->verb = verb ? verb->name : NULL;
	req->id = c->m.id;
	req->id_key = c->m.id_key;
	req->id_key_len = c->m.id_key_len;
	req->batch = c->batch;
	req->slot = c->slot;
	c->m.id = c->m.id_key = NULL; /* the request owns them now */

	hermes_inflight_add(srv, req);
	if (srv->collecting && instant && run_here(srv, req))
		return;
	submit(srv, req);
}

/* Replies of a run of instant calls written at a time, so that the client reads the first ones
 * while the next are made. With a second processor free for the client, 8: at 64 in flight
 * (a read holds all 64 requests) it answered 738-748k fs.exists/s where one writev() for the 64
 * answered 410-415k, `cat`'s echo being 820-880k (2026-11-27, quiet 2-processor VM): the client
 * takes in the first replies and sends the next requests while the server works on the rest,
 * where with one write per read each waits for the other. On one processor the overlap is not
 * there to win and every early write wakes the client to run in the server's place: 8 answered
 * 560k/s and 64 answered 699k (`taskset -c 0`), hence 64 there. */
int hermes_requests_flush_every(int processors)
{
	return processors > 1 ? 8 : 64;
}

/* Flushes the channels holding gathered replies, and lets go of them. */
static void flush_gathered(server_t *srv)
{
	for (int i = 0; i < srv->n_gathered; i++) {
		hermes_channel_t *ch = srv->gathered[i];
		if (ch->ops->flush)
			ch->ops->flush(ch);
		hermes_channel_release(ch);
	}
	srv->n_gathered = srv->gathered_calls = 0;
}

/* ch gets a reply gathered: held until flushed (the request's own hold goes with the request). */
static void gather(server_t *srv, hermes_channel_t *ch)
{
	int i = 0;
	while (i < srv->n_gathered && srv->gathered[i] != ch)
		i++;
	if (i == srv->n_gathered) {
		if (i == (int)(sizeof srv->gathered / sizeof srv->gathered[0])) {
			flush_gathered(srv);
			i = 0;
		}
		hermes_channel_hold(ch);
		srv->gathered[srv->n_gathered++] = ch;
	}
}

/* Bytes queued on the default channel (what the reader must not let grow: see session.h). */
static size_t queued(server_t *srv)
{
	hermes_channel_t *ch = srv->channel;
	return ch->ops->queued ? ch->ops->queued(ch) : 0;
}

/* INSTANT calls run right here, a few system calls each, as they are read: handing each to a
 * worker and its reply on to the writer cost more than the call (at 64 in flight, a quarter of
 * the server's time went to waking threads), and one run before the next is read reuses the
 * blocks the last one freed (run at the end of the read, 64 of them held each kind of block at
 * once, past malloc's per-thread cache). Their replies are gathered and flushed from here at the
 * end of the read, or every srv->flush_every (stdio: one writev() for what the pipe takes, the
 * rest by the writer): one request at a time is written at once too, with no hand-off. Only
 * while the replies waiting leave room: past that the calls go to the pool, whose workers wait
 * for the client. */
static bool run_here(server_t *srv, request_t *req)
{
	if (queued(srv) >= HERMES_SERVER_MAX_QUEUED_BYTES / 2)
		return false;
	gather(srv, req->ch);
	req->send_flags = HERMES_SEND_GATHER;
	run_request(&req->job);
	if (++srv->gathered_calls >= srv->flush_every)
		flush_gathered(srv);
	return true;
}

void hermes_requests_flush(server_t *srv)
{
	flush_gathered(srv);
}
