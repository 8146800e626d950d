/* lsp/client.c: one language server's process, its reader thread and its requests (client.h).
 * The documents and diagnostics it keeps are in documents.c. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/verb.h"
#include "lsp/client_internal.h"
#include "lsp/framing.h"

#define WRITE_MS 10000          /* longest a write waits for the server to read */
#define MAX_VALUES (8u << 20)   /* JSON values in one message */
#define SHUTDOWN_MS 1000

int64_t hermes_lsp_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Writes all of buf to the server's stdin, never raising SIGPIPE. write_lock held. */
static int write_all(hermes_lsp_client_t *c, const char *buf, size_t len)
{
	if (c->in_w < 0)
		return -EPIPE;
	sigset_t pipe_set, old, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	bool was_pending = sigismember(&pending, SIGPIPE);
	int rc = 0;
	int64_t deadline = hermes_lsp_now_ms() + WRITE_MS;
	while (len > 0) {
		ssize_t w = write(c->in_w, buf, len);
		if (w > 0) {
			buf += w;
			len -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			int64_t left = deadline - hermes_lsp_now_ms();
			if (left <= 0) {
				rc = -ETIMEDOUT;
				break;
			}
			struct pollfd pfd = {c->in_w, POLLOUT, 0};
			poll(&pfd, 1, (int)left);
			continue;
		}
		rc = w < 0 ? -errno : -EIO;
		break;
	}
	if (rc == -EPIPE && !was_pending) {
		struct timespec zero = {0, 0};
		sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int hermes_lsp_send(hermes_lsp_client_t *c, const char *body, size_t len, hermes_error_t *err)
{
	char header[64];
	size_t hlen = hermes_lsp_frame_header(len, header, sizeof header);
	pthread_mutex_lock(&c->write_lock);
	int rc = write_all(c, header, hlen);
	if (rc == 0)
		rc = write_all(c, body, len);
	pthread_mutex_unlock(&c->write_lock);
	if (rc != 0)
		hermes_error_set(err, HERMES_E_UNAVAILABLE,
		                 "the language server %s does not read its input (%s)", c->command,
		                 rc == -ETIMEDOUT ? "it read nothing for 10 s" : strerror(-rc));
	return rc ? -1 : 0;
}

int hermes_lsp_notify(hermes_lsp_client_t *c, const char *method, const char *params_json,
                      hermes_error_t *err)
{
	if (!hermes_lsp_client_alive(c)) {
		hermes_lsp_dead_error(c, err);
		return -1;
	}
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":");
	hermes_buf_json_string(&b, method, strlen(method));
	hermes_buf_puts(&b, ",\"params\":");
	hermes_buf_puts(&b, params_json ? params_json : "null");
	hermes_buf_putc(&b, '}');
	if (b.failed) {
		hermes_buf_free(&b);
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory for an LSP message");
		return -1;
	}
	int rc = hermes_lsp_send(c, b.data, b.len, err);
	hermes_buf_free(&b);
	return rc;
}

void hermes_lsp_dead_error(hermes_lsp_client_t *c, hermes_error_t *err)
{
	pthread_mutex_lock(&c->lock);
	hermes_error_set(err, HERMES_E_UNAVAILABLE, "the language server %s is not running: %s",
	                 c->command, c->last_error[0] ? c->last_error : "it ended");
	pthread_mutex_unlock(&c->lock);
}

int hermes_lsp_request(hermes_lsp_client_t *c, const char *method, const char *params_json,
                       int timeout_ms, const hermes_cancel_t *cancel, hermes_json_doc_t **doc,
                       const hermes_json_t **result, hermes_error_t *err)
{
	hermes_lsp_pending_t p = {0};
	pthread_mutex_lock(&c->lock);
	if (c->dead) {
		pthread_mutex_unlock(&c->lock);
		hermes_lsp_dead_error(c, err);
		return -1;
	}
	p.id = ++c->next_id;
	p.next = c->pending;
	c->pending = &p;
	c->requests++;
	c->last_used_ms = hermes_lsp_now_ms();
	pthread_mutex_unlock(&c->lock);

	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":", (long long)p.id);
	hermes_buf_json_string(&b, method, strlen(method));
	hermes_buf_puts(&b, ",\"params\":");
	hermes_buf_puts(&b, params_json ? params_json : "null");
	hermes_buf_putc(&b, '}');
	int rc = -1;
	if (b.failed)
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory for an LSP message");
	else
		rc = hermes_lsp_send(c, b.data, b.len, err);
	hermes_buf_free(&b);

	int64_t deadline = hermes_lsp_now_ms() + timeout_ms;
	bool cancelled = false, timed_out = false;
	pthread_mutex_lock(&c->lock);
	while (rc == 0 && !p.done && !c->dead) {
		if (hermes_cancel_requested(cancel)) {
			cancelled = true;
			break;
		}
		int64_t now = hermes_lsp_now_ms();
		if (now >= deadline) {
			timed_out = true;
			break;
		}
		/* Slices of 50 ms at most, to see the cancel flag soon after it is set. */
		int64_t until = now + (deadline - now < 50 ? deadline - now : 50);
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec = until / 1000;
		ts.tv_nsec = (until % 1000) * 1000000;
		pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	}
	for (hermes_lsp_pending_t **pp = &c->pending; *pp; pp = &(*pp)->next) {
		if (*pp == &p) {
			*pp = p.next;
			break;
		}
	}
	bool dead = c->dead;
	pthread_mutex_unlock(&c->lock);
	if (rc != 0) {
		hermes_json_doc_free(p.doc);
		return -1;
	}
	if (!p.done) {
		if (cancelled || timed_out) {
			char params[64];
			snprintf(params, sizeof params, "{\"id\":%lld}", (long long)p.id);
			hermes_lsp_notify(c, "$/cancelRequest", params, NULL);
			if (cancelled)
				hermes_error_set(err, HERMES_E_CANCELLED, "%s was cancelled", method);
			else
				hermes_error_set(err, HERMES_E_TIMEOUT,
				                 "the language server %s did not answer %s within %d ms",
				                 c->command, method, timeout_ms);
		} else if (dead) {
			pthread_mutex_lock(&c->lock);
			hermes_error_set(err, HERMES_E_UNAVAILABLE,
			                 "the language server %s ended before it answered %s: %s",
			                 c->command, method, c->last_error[0] ? c->last_error : "it ended");
			pthread_mutex_unlock(&c->lock);
		}
		return -1;
	}
	const hermes_json_t *root = hermes_json_root(p.doc);
	const hermes_json_t *e = hermes_json_member(root, "error");
	if (e && e->type == HERMES_JSON_OBJECT) {
		const hermes_json_t *m = hermes_json_member(e, "message");
		const hermes_json_t *code = hermes_json_member(e, "code");
		int64_t n = 0;
		if (code)
			hermes_json_integer(code, INT32_MIN, INT32_MAX, &n);
		/* A server's refusal (no symbol there, bad parameters) is the request's fault; its
		 * internal error, or an unknown method, is the server's. */
		hermes_errcode_t ec = n == -32800 ? HERMES_E_CANCELLED
		                        : n == -32801 ? HERMES_E_CONFLICT
		                        : n == -32603 || n == -32601 ? HERMES_E_UNAVAILABLE
		                                                     : HERMES_E_INVALID_ARGUMENT;
		hermes_error_set(err, ec,
		                 "the language server %s answered %s with error %lld: %.300s",
		                 c->command, method, (long long)n,
		                 m && m->type == HERMES_JSON_STRING ? m->str : "(no message)");
		hermes_json_doc_free(p.doc);
		return -1;
	}
	const hermes_json_t *r = hermes_json_member(root, "result");
	if (!r) {
		hermes_error_set(err, HERMES_E_UNAVAILABLE,
		                 "the language server %s answered %s without a result", c->command, method);
		hermes_json_doc_free(p.doc);
		return -1;
	}
	*doc = p.doc;
	*result = r;
	return 0;
}

/* Answers a request of the server: what Hermes does not offer is answered so the server goes on
 * (configuration: no settings; progress and capability registration: accepted). */
static void answer_server(hermes_lsp_client_t *c, const char *body, const hermes_json_t *id,
                          const char *method, const hermes_json_t *params)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
	hermes_buf_append(&b, body + id->start, id->end - id->start);
	if (strcmp(method, "workspace/configuration") == 0) {
		const hermes_json_t *items = hermes_json_member(params, "items");
		hermes_buf_puts(&b, ",\"result\":[");
		uint32_t n = items && items->type == HERMES_JSON_ARRAY ? items->count : 0;
		for (uint32_t i = 0; i < n; i++)
			hermes_buf_puts(&b, i ? ",null" : "null");
		hermes_buf_puts(&b, "]}");
	} else if (strcmp(method, "window/workDoneProgress/create") == 0 ||
	           strcmp(method, "client/registerCapability") == 0 ||
	           strcmp(method, "client/unregisterCapability") == 0 ||
	           strcmp(method, "window/showMessageRequest") == 0 ||
	           strcmp(method, "workspace/workspaceFolders") == 0) {
		hermes_buf_puts(&b, ",\"result\":null}");
	} else {
		hermes_buf_puts(&b, ",\"error\":{\"code\":-32601,\"message\":\"Hermes does not offer ");
		hermes_buf_puts(&b, "this method\"}}");
	}
	if (!b.failed)
		hermes_lsp_send(c, b.data, b.len, NULL);
	hermes_buf_free(&b);
}

/* Counts work-done progress that begins and ends. */
static void progress(hermes_lsp_client_t *c, const hermes_json_t *params)
{
	const hermes_json_t *kind = hermes_json_member(hermes_json_member(params, "value"), "kind");
	if (!kind || kind->type != HERMES_JSON_STRING)
		return;
	pthread_mutex_lock(&c->lock);
	if (strcmp(kind->str, "begin") == 0) {
		c->progress_active++;
		c->progress_seen = true;
	} else if (strcmp(kind->str, "end") == 0 && c->progress_active > 0) {
		c->progress_active--;
	}
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

bool hermes_lsp_wait_settled(hermes_lsp_client_t *c, int timeout_ms, const hermes_cancel_t *cancel)
{
	int64_t deadline = hermes_lsp_now_ms() + timeout_ms;
	bool settled = false;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		int64_t now = hermes_lsp_now_ms();
		settled = c->progress_active == 0 &&
		          (c->progress_seen || now - c->started_ms > HERMES_LSP_SETTLE_GRACE_MS);
		if (settled || c->dead || now >= deadline || hermes_cancel_requested(cancel))
			break;
		int64_t until = now + (deadline - now < 50 ? deadline - now : 50);
		struct timespec ts = {until / 1000, (until % 1000) * 1000000};
		pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	}
	pthread_mutex_unlock(&c->lock);
	return settled;
}

bool hermes_lsp_handle_message(hermes_lsp_client_t *c, const char *body, size_t len)
{
	hermes_json_doc_t *doc;
	size_t end;
	if (hermes_json_parse_bounded(body, len, 256, MAX_VALUES, &doc, &end, NULL) < 0)
		return false;
	const hermes_json_t *root = hermes_json_root(doc);
	if (root->type != HERMES_JSON_OBJECT) {
		hermes_json_doc_free(doc);
		return false;
	}
	const hermes_json_t *id = hermes_json_member(root, "id");
	const hermes_json_t *method = hermes_json_member(root, "method");
	const hermes_json_t *params = hermes_json_member(root, "params");
	if (method && method->type == HERMES_JSON_STRING) {
		if (id && id->type != HERMES_JSON_NULL)
			answer_server(c, body, id, method->str, params);
		else if (strcmp(method->str, "textDocument/publishDiagnostics") == 0)
			hermes_lsp_docs_published(c, body, params);
		else if (strcmp(method->str, "$/progress") == 0)
			progress(c, params);
		hermes_json_doc_free(doc);
		return true;
	}
	int64_t n;
	if (!id || hermes_json_integer(id, 1, INT64_MAX, &n) != 0) {
		hermes_json_doc_free(doc); /* a response to nothing we sent: ignored */
		return true;
	}
	pthread_mutex_lock(&c->lock);
	for (hermes_lsp_pending_t *p = c->pending; p; p = p->next) {
		if (p->id == n && !p->done) {
			p->doc = doc;
			p->done = true;
			doc = NULL;
			break;
		}
	}
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	hermes_json_doc_free(doc);
	return true;
}

/* Keeps the end of the server's standard error. */
static void keep_stderr(hermes_lsp_client_t *c, const char *buf, size_t n)
{
	pthread_mutex_lock(&c->lock);
	if (n >= HERMES_LSP_STDERR_KEEP) {
		memcpy(c->stderr_tail, buf + n - HERMES_LSP_STDERR_KEEP, HERMES_LSP_STDERR_KEEP);
		c->stderr_len = HERMES_LSP_STDERR_KEEP;
	} else {
		size_t keep = c->stderr_len + n > HERMES_LSP_STDERR_KEEP ? HERMES_LSP_STDERR_KEEP - n
		                                                         : c->stderr_len;
		memmove(c->stderr_tail, c->stderr_tail + c->stderr_len - keep, keep);
		memcpy(c->stderr_tail + keep, buf, n);
		c->stderr_len = keep + n;
	}
	pthread_mutex_unlock(&c->lock);
}

/* Marks the client dead with why (the first reason wins) and wakes every waiter. */
static void mark_dead(hermes_lsp_client_t *c, const char *why)
{
	pthread_mutex_lock(&c->lock);
	if (!c->dead && why && !c->last_error[0])
		snprintf(c->last_error, sizeof c->last_error, "%s", why);
	c->dead = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/* Reads the server's output and error until its output ends. */
static void read_loop(hermes_lsp_client_t *c)
{
	hermes_buf_t in = HERMES_BUF_INIT;
	size_t consumed = 0;
	char chunk[65536];
	bool out_open = true, err_open = true;
	const char *why = NULL;
	while (out_open) {
		struct pollfd pfd[3] = {{c->out_r, POLLIN, 0}, {err_open ? c->err_r : -1, POLLIN, 0},
		                        {c->wake_r, POLLIN, 0}};
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			why = "poll failed";
			break;
		}
		if (pfd[2].revents) {
			char x;
			if (read(c->wake_r, &x, 1) <= 0 || atomic_load(&c->stopping))
				hermes_run_stop(&c->run, true);
		}
		if (pfd[1].revents) {
			ssize_t n = read(c->err_r, chunk, sizeof chunk);
			if (n > 0)
				keep_stderr(c, chunk, (size_t)n);
			else if (n == 0 || errno != EINTR)
				err_open = false;
		}
		if (!pfd[0].revents)
			continue;
		ssize_t n = read(c->out_r, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_open = false;
			break;
		}
		hermes_buf_append(&in, chunk, (size_t)n);
		if (in.failed) {
			why = "out of memory for its messages";
			break;
		}
		for (;;) {
			size_t body, body_len;
			const char *bad = NULL;
			int r = hermes_lsp_frame_parse(in.data + consumed, in.len - consumed,
			                               HERMES_LSP_MAX_BODY, &body, &body_len, &bad);
			if (r == 0)
				break;
			if (r < 0) {
				why = bad;
				break;
			}
			if (!hermes_lsp_handle_message(c, in.data + consumed + body, body_len)) {
				why = "it sent a message that is not JSON-RPC";
				break;
			}
			consumed += body + body_len;
		}
		if (why)
			break;
		if (consumed == in.len) {
			in.len = 0;
			consumed = 0;
		} else if (consumed > 65536) {
			memmove(in.data, in.data + consumed, in.len - consumed);
			in.len -= consumed;
			consumed = 0;
		}
	}
	hermes_buf_free(&in);
	char msg[200];
	if (why) {
		snprintf(msg, sizeof msg, "Hermes dropped it: %s", why);
		mark_dead(c, msg);
	}
	hermes_run_stop(&c->run, true);
	hermes_run_wait(&c->run, -1, -1, NULL);
	int status = 0;
	int rc = hermes_run_finish(&c->run, &status);
	if (rc < 0)
		snprintf(msg, sizeof msg, "it could not be executed (%s)",
		         rc == -HERMES_RUN_ESANDBOX ? "the sandbox could not be set up" : strerror(-rc));
	else if (WIFSIGNALED(status))
		snprintf(msg, sizeof msg, "it was killed by signal %d", WTERMSIG(status));
	else
		snprintf(msg, sizeof msg, "it exited with status %d", WEXITSTATUS(status));
	mark_dead(c, atomic_load(&c->stopping) ? "stopped by Hermes" : msg);
}

void *hermes_lsp_reader_main(void *arg)
{
	hermes_lsp_client_t *c = arg;
	/* The supervisor's death signal follows this thread: it lives as long as the server. */
	hermes_spawn_t spec = c->spec;
	spec.in_fd = c->child_in;
	spec.out_fd = c->child_out;
	spec.err_fd = c->child_err;
	int rc = hermes_run_start(&spec, &c->run);
	close_fd(&c->child_in);
	close_fd(&c->child_out);
	close_fd(&c->child_err);
	pthread_mutex_lock(&c->lock);
	c->start_rc = rc;
	c->started = true;
	c->pid = rc == 0 ? c->run.program : 0;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	if (rc != 0) {
		char msg[128];
		snprintf(msg, sizeof msg, "it could not be started (%s)", strerror(-rc));
		mark_dead(c, msg);
		return NULL;
	}
	read_loop(c);
	return NULL;
}

/* Makes a pipe; *ours gets the end Hermes keeps (close-on-exec, non-blocking). */
int hermes_lsp_make_pipe(int *ours, int *theirs, bool ours_is_write)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	*ours = ours_is_write ? fds[1] : fds[0];
	*theirs = ours_is_write ? fds[0] : fds[1];
	fcntl(*ours, F_SETFL, O_NONBLOCK);
	return 0;
}
