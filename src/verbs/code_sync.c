/* verbs/code_sync.c: tells a running language server what an editing verb wrote (code.h). */
#include <config.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/fdio.h"
#include "fs/lines.h"
#include "lsp/uri.h"
#include "verbs/code.h"
#include "verbs/state.h"

void hermes_code_written(const hermes_call_t *call, const char *path)
{
	const hermes_verbs_state_t *state = call->state;
	hermes_lsp_pool_t *pool = state ? state->lsp : NULL;
	const char *language_id;
	const char *language = pool ? hermes_lsp_language_of(pool, path, &language_id) : NULL;
	hermes_lsp_client_t *client;
	/* Cheap when no server runs: an edit never starts one nor waits for one. */
	if (!language || hermes_lsp_pool_peek(pool, call->host, language, &client) < 0)
		return;
	int fd;
	char *abs = NULL;
	hermes_buf_t text = HERMES_BUF_INIT, ub = HERMES_BUF_INIT;
	if (hermes_ws_open_path(call->host, path, O_RDONLY, &fd) == 0) {
		/* The canonical path names the document, as in hermes_code_open. */
		abs = hermes_code_fd_path(fd);
		if (hermes_read_all(fd, (size_t)call->config->max_read_bytes, &text) < 0)
			text.failed = true;
		close(fd);
	}
	size_t bad;
	if (abs && !text.failed &&
	    hermes_text_valid(text.data ? text.data : "", text.len, &bad)) {
		hermes_lsp_uri_append(&ub, abs);
		char *uri = hermes_buf_finish(&ub);
		/* The file was written whatever happens here: a server that cannot take the text now
		 * gets it from the next code.* call, which syncs what it reads. */
		hermes_error_t err = {0};
		if (uri)
			hermes_lsp_sync(client, uri, language_id, text.data ? text.data : "", text.len,
			                NULL, &err);
		free(uri);
	}
	free(abs);
	hermes_buf_free(&text);
	hermes_lsp_pool_release(pool, client);
}
