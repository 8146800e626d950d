/* cli/console_plain.c: the console's line reader without libedit (built without it, or it cannot
 * be loaded): the prompt, then a line as the terminal's own line discipline edits it (erase,
 * kill, word erase); no history and no completion. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/console_edit.h"
#include "cli/console_plain.h"
#include "cli/console_signal.h"
#include "core/buf.h"
#include "core/fdio.h"

struct hermes_plain_editor {
	int in_fd, out_fd;
	hermes_buf_t line;
};

hermes_plain_editor_t *hermes_plain_editor_new(int in_fd, int out_fd)
{
	hermes_plain_editor_t *ed = calloc(1, sizeof *ed);
	if (ed) {
		ed->in_fd = in_fd;
		ed->out_fd = out_fd;
	}
	return ed;
}

void hermes_plain_editor_free(hermes_plain_editor_t *ed)
{
	if (ed)
		hermes_buf_free(&ed->line);
	free(ed);
}

int hermes_plain_editor_read(hermes_plain_editor_t *ed, const char *prompt, const char **text,
                             size_t *len)
{
	(void)hermes_write_all(ed->out_fd, prompt, strlen(prompt));
	ed->line.len = 0;
	char chunk[4096];
	for (;;) {
		int w = hermes_console_wait_input(ed->in_fd, false);
		if (w == 0)
			return HERMES_EDITOR_INTERRUPTED;
		if (w < 0)
			return HERMES_EDITOR_ERROR;
		ssize_t n = read(ed->in_fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR) {
			if (hermes_console_sigint || hermes_console_sigend)
				return HERMES_EDITOR_INTERRUPTED;
			continue;
		}
		if (n < 0)
			return HERMES_EDITOR_ERROR;
		if (n == 0) {
			if (ed->line.len == 0)
				return HERMES_EDITOR_EOF;
			break; /* Ctrl-D after some text: the line as it is */
		}
		hermes_buf_append(&ed->line, chunk, (size_t)n);
		if (ed->line.failed)
			return HERMES_EDITOR_ERROR;
		if (ed->line.data[ed->line.len - 1] == '\n')
			break;
	}
	if (ed->line.data[ed->line.len - 1] != '\n')
		hermes_buf_putc(&ed->line, '\n');
	*text = ed->line.data;
	*len = ed->line.len;
	return ed->line.failed ? HERMES_EDITOR_ERROR : HERMES_EDITOR_LINE;
}

#ifndef HAVE_LIBEDIT
/* Built without libedit: the console's editor is this one. */
struct hermes_editor {
	hermes_plain_editor_t *plain;
};

hermes_editor_t *hermes_editor_new(int in_fd, int out_fd, int err_fd, const hermes_executor_t *ex,
                                   const char *history_path)
{
	(void)err_fd, (void)ex, (void)history_path; /* no completion, no history without libedit */
	hermes_editor_t *ed = calloc(1, sizeof *ed);
	if (ed && !(ed->plain = hermes_plain_editor_new(in_fd, out_fd))) {
		free(ed);
		ed = NULL;
	}
	return ed;
}

void hermes_editor_free(hermes_editor_t *ed)
{
	if (ed)
		hermes_plain_editor_free(ed->plain);
	free(ed);
}

int hermes_editor_read(hermes_editor_t *ed, const char *prompt, bool commands, const char **text,
                       size_t *len)
{
	(void)commands;
	return hermes_plain_editor_read(ed->plain, prompt, text, len);
}

void hermes_editor_remember(hermes_editor_t *ed, const char *entry, size_t len)
{
	(void)ed, (void)entry, (void)len; /* no history without libedit */
}

char *hermes_editor_history_path(void)
{
	return NULL;
}
#endif
