/* cli/console_plain.h: the console's plain line reader (console_plain.c), used where libedit is
 * not there: the terminal's own line editing, no history, no completion. */
#ifndef HERMES_CLI_CONSOLE_PLAIN_H
#define HERMES_CLI_CONSOLE_PLAIN_H

#include <stddef.h>

typedef struct hermes_plain_editor hermes_plain_editor_t;

hermes_plain_editor_t *hermes_plain_editor_new(int in_fd, int out_fd); /* NULL: out of memory */
void hermes_plain_editor_free(hermes_plain_editor_t *ed);                /* NULL is fine */
/* As hermes_editor_read (console_edit.h), without completion. */
int hermes_plain_editor_read(hermes_plain_editor_t *ed, const char *prompt, const char **text,
                             size_t *len);

#endif
