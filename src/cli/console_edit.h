/* cli/console_edit.h: the console's line editor on a terminal (libedit): prompt, editing,
 * persistent history and tab completion of verb names and commands. */
#ifndef HERMES_CLI_CONSOLE_EDIT_H
#define HERMES_CLI_CONSOLE_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include <hermes/hermes.h>

typedef struct hermes_editor hermes_editor_t;

/* Starts editing on the terminal in_fd, echoing to out_fd. Completion lists the executor's verbs
 * (borrowed: it must outlive the editor). History is loaded from history_path (NULL: no
 * persistent history). Returns NULL if out of memory or in_fd is not usable. */
hermes_editor_t *hermes_editor_new(int in_fd, int out_fd, int err_fd, const hermes_executor_t *ex,
                                   const char *history_path);
void hermes_editor_free(hermes_editor_t *ed); /* NULL is fine */

enum {
	HERMES_EDITOR_LINE = 1,        /* *text holds one or more lines (recalled entries can) */
	HERMES_EDITOR_EOF = 0,         /* Ctrl-D on an empty line */
	HERMES_EDITOR_INTERRUPTED = -1,/* a signal (see console_signal.h) ended the read */
	HERMES_EDITOR_ERROR = -2
};

/* Reads a line after showing prompt. commands: a :command may be typed (no envelope is under
 * way), so Tab completes them. On HERMES_EDITOR_LINE, *text (owned by the editor, valid until
 * the next call) holds what was entered, ending in '\n', and *len its length. */
int hermes_editor_read(hermes_editor_t *ed, const char *prompt, bool commands, const char **text,
                       size_t *len);

/* Adds one history entry (a whole envelope, maybe several lines; a trailing '\n' is dropped) and
 * saves the history file. */
void hermes_editor_remember(hermes_editor_t *ed, const char *entry, size_t len);

/* The history file to use: $XDG_STATE_HOME/hermes/history (default
 * ~/.local/state/hermes/history), its directory created if need be; ~/.hermes_history if that
 * directory cannot be made. malloc'd; NULL if there is no home directory. */
char *hermes_editor_history_path(void);

#endif
