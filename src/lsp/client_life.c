/* lsp/client_life.c: a client's life: starting the server and the initialize handshake, its
 * state for code.servers, and shutdown (client.h). */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/verb.h"
#include "lsp/client_internal.h"
#include "lsp/uri.h"

/* What Hermes can take from a server: hierarchical outlines, plain or markdown hover text,
 * versioned diagnostics, document-change edits; progress and configuration are answered. */
static const char capabilities[] =
	"{\"general\":{\"positionEncodings\":[\"utf-16\"]},"
	"\"window\":{\"workDoneProgress\":true},"
	"\"workspace\":{\"configuration\":true,\"workspaceFolders\":true,"
	"\"symbol\":{\"dynamicRegistration\":false},"
	"\"workspaceEdit\":{\"documentChanges\":true}},"
	"\"textDocument\":{\"synchronization\":{\"didSave\":false,\"dynamicRegistration\":false},"
	"\"documentSymbol\":{\"hierarchicalDocumentSymbolSupport\":true},"
	"\"definition\":{\"linkSupport\":false},\"declaration\":{\"linkSupport\":false},"
	"\"references\":{},\"hover\":{\"contentFormat\":[\"plaintext\",\"markdown\"]},"
	"\"rename\":{\"prepareSupport\":false},"
	"\"publishDiagnostics\":{\"versionSupport\":true,\"relatedInformation\":false}}}";

static void copy_str(char *dst, size_t size, const hermes_json_t *v)
{
	if (v && v->type == HERMES_JSON_STRING)
		snprintf(dst, size, "%s", v->str);
}

static hermes_lsp_client_t *client_new(const hermes_spawn_t *spec)
{
	hermes_lsp_client_t *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->write_lock, NULL);
	pthread_mutex_init(&c->docs_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	c->spec = *spec;
	c->in_w = c->out_r = c->err_r = c->child_in = c->child_out = c->child_err = -1;
	c->wake_r = c->wake_w = -1;
	const char *name = spec->argv && spec->argv[0] ? spec->argv[0] : "?";
	const char *slash = strrchr(name, '/');
	snprintf(c->command, sizeof c->command, "%s", slash ? slash + 1 : name);
	return c;
}

static int initialize(hermes_lsp_client_t *c, const char *root_path, int timeout_ms,
                      const hermes_cancel_t *cancel, hermes_error_t *err)
{
	hermes_buf_t b = HERMES_BUF_INIT;
	hermes_buf_printf(&b, "{\"processId\":%ld,\"clientInfo\":{\"name\":\"hermes\",\"version\":\"%s\"},"
	                  "\"rootPath\":", (long)getpid(), PACKAGE_VERSION);
	hermes_buf_json_string(&b, root_path, strlen(root_path));
	hermes_buf_puts(&b, ",\"rootUri\":\"");
	hermes_lsp_uri_append(&b, root_path);
	hermes_buf_puts(&b, "\",\"workspaceFolders\":[{\"uri\":\"");
	hermes_lsp_uri_append(&b, root_path);
	hermes_buf_puts(&b, "\",\"name\":\"workspace\"}],\"capabilities\":");
	hermes_buf_puts(&b, capabilities);
	hermes_buf_putc(&b, '}');
	if (b.failed) {
		hermes_buf_free(&b);
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory for the initialize request");
		return -1;
	}
	const hermes_json_t *result;
	int rc = hermes_lsp_request(c, "initialize", b.data, timeout_ms, cancel, &c->init_doc,
	                            &result, err);
	hermes_buf_free(&b);
	if (rc < 0)
		return -1;
	const hermes_json_t *info = hermes_json_member(result, "serverInfo");
	copy_str(c->name, sizeof c->name, hermes_json_member(info, "name"));
	copy_str(c->version, sizeof c->version, hermes_json_member(info, "version"));
	pthread_mutex_lock(&c->lock);
	c->started_ms = hermes_lsp_now_ms();
	pthread_mutex_unlock(&c->lock);
	return hermes_lsp_notify(c, "initialized", "{}", err);
}

hermes_lsp_client_t *hermes_lsp_client_detached(void)
{
	static char *const argv[] = {(char *)"detached", NULL};
	hermes_spawn_t spec = {-1, NULL, argv, NULL, -1, -1, -1, -1, 0, -1, false};
	hermes_lsp_client_t *c = client_new(&spec);
	if (c)
		c->started = true; /* and never dead: messages are handled, answers fail to be sent */
	return c;
}

int hermes_lsp_client_start(const hermes_spawn_t *spec, const char *root_path, int timeout_ms,
                            const hermes_cancel_t *cancel, hermes_lsp_client_t **out,
                            hermes_error_t *err)
{
	hermes_lsp_client_t *c = client_new(spec);
	if (!c) {
		hermes_error_set(err, HERMES_E_INTERNAL, "out of memory for a language server");
		return -1;
	}
	int rc = hermes_lsp_make_pipe(&c->in_w, &c->child_in, true);
	if (rc == 0)
		rc = hermes_lsp_make_pipe(&c->out_r, &c->child_out, false);
	if (rc == 0)
		rc = hermes_lsp_make_pipe(&c->err_r, &c->child_err, false);
	if (rc == 0)
		rc = hermes_lsp_make_pipe(&c->wake_r, &c->wake_w, false);
	if (rc == 0) {
		rc = -pthread_create(&c->reader, NULL, hermes_lsp_reader_main, c);
		c->reader_started = rc == 0;
	}
	if (rc != 0) {
		hermes_error_set(err, HERMES_E_UNAVAILABLE, "cannot start the language server %s: %s",
		                 c->command, strerror(-rc));
		hermes_lsp_client_free(c);
		return -1;
	}
	pthread_mutex_lock(&c->lock);
	while (!c->started)
		pthread_cond_wait(&c->cond, &c->lock);
	rc = c->start_rc;
	pthread_mutex_unlock(&c->lock);
	if (rc != 0) {
		hermes_error_set(err, HERMES_E_UNAVAILABLE, "cannot start the language server %s: %s",
		                 c->command, strerror(-rc));
		hermes_lsp_client_free(c);
		return -1;
	}
	if (initialize(c, root_path, timeout_ms, cancel, err) < 0) {
		if (err && err->code == HERMES_E_UNAVAILABLE) {
			/* Say what the server said on its way out: usually why it could not start. */
			hermes_lsp_info_t *info = malloc(sizeof *info);
			if (info) {
				hermes_lsp_client_info(c, info);
				char *tail = info->stderr_tail;
				size_t n = strlen(tail);
				if (n > 300)
					tail += n - 300;
				if (*tail)
					hermes_error_set(err, HERMES_E_UNAVAILABLE, "%s; its last output: %s",
					                 err->message, tail);
				free(info);
			}
		}
		hermes_lsp_client_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void hermes_lsp_client_free(hermes_lsp_client_t *c)
{
	if (!c)
		return;
	if (c->reader_started) {
		if (hermes_lsp_client_alive(c) && c->init_doc) {
			hermes_json_doc_t *doc = NULL;
			const hermes_json_t *r;
			if (hermes_lsp_request(c, "shutdown", NULL, 1000, NULL, &doc, &r, NULL) == 0)
				hermes_lsp_notify(c, "exit", NULL, NULL);
			hermes_json_doc_free(doc);
		}
		/* Its stdin closed, a server ends; one that does not is stopped after a second. */
		pthread_mutex_lock(&c->write_lock);
		if (c->in_w >= 0)
			close(c->in_w);
		c->in_w = -1;
		pthread_mutex_unlock(&c->write_lock);
		int64_t deadline = hermes_lsp_now_ms() + 1000;
		pthread_mutex_lock(&c->lock);
		while (!c->dead && hermes_lsp_now_ms() < deadline) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += 50000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&c->cond, &c->lock, &ts);
		}
		pthread_mutex_unlock(&c->lock);
		atomic_store(&c->stopping, true);
		if (write(c->wake_w, "x", 1) < 0) {
			/* the reader ends anyway once the server's output closes */
		}
		pthread_join(c->reader, NULL);
	}
	int *fds[] = {&c->in_w, &c->out_r, &c->err_r, &c->child_in, &c->child_out, &c->child_err,
	              &c->wake_r, &c->wake_w};
	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	hermes_json_doc_free(c->init_doc);
	hermes_lsp_docs_free(c);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->write_lock);
	pthread_mutex_destroy(&c->docs_lock);
	pthread_cond_destroy(&c->cond);
	free(c);
}

void hermes_lsp_client_info(hermes_lsp_client_t *c, hermes_lsp_info_t *info)
{
	memset(info, 0, sizeof *info);
	pthread_mutex_lock(&c->lock);
	info->running = c->started && !c->dead;
	info->pid = c->pid;
	snprintf(info->name, sizeof info->name, "%s", c->name);
	snprintf(info->version, sizeof info->version, "%s", c->version);
	snprintf(info->last_error, sizeof info->last_error, "%s", c->last_error);
	memcpy(info->stderr_tail, c->stderr_tail, c->stderr_len);
	info->stderr_tail[c->stderr_len] = '\0';
	info->requests = c->requests;
	info->last_used_ms = c->last_used_ms;
	pthread_mutex_unlock(&c->lock);
}

bool hermes_lsp_client_wait_ended(hermes_lsp_client_t *c, int ms)
{
	int64_t deadline = hermes_lsp_now_ms() + ms;
	pthread_mutex_lock(&c->lock);
	while (!c->dead && hermes_lsp_now_ms() < deadline) {
		int64_t until = hermes_lsp_now_ms() + 20;
		struct timespec ts = {until / 1000, (until % 1000) * 1000000};
		pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	}
	bool dead = c->dead;
	pthread_mutex_unlock(&c->lock);
	return dead;
}

bool hermes_lsp_client_alive(hermes_lsp_client_t *c)
{
	pthread_mutex_lock(&c->lock);
	bool alive = c->started && !c->dead;
	pthread_mutex_unlock(&c->lock);
	/* A server that just died has closed its output before the reader has seen it: the next
	 * call must not be sent to it. */
	struct pollfd pfd = {c->out_r, POLLIN, 0};
	if (alive && poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR)))
		alive = false;
	return alive;
}

const hermes_json_t *hermes_lsp_capabilities(hermes_lsp_client_t *c)
{
	/* init_doc is the whole response: {"jsonrpc", "id", "result": {"capabilities", ...}} */
	return c->init_doc ? hermes_json_member(hermes_json_member(hermes_json_root(c->init_doc),
	                                                           "result"), "capabilities")
	                   : NULL;
}
