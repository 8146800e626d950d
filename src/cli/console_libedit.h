/* cli/console_libedit.h: libedit, loaded with dlopen the first time the console edits lines on a
 * terminal, not linked: its four libraries (libedit, libtinfo, libbsd, libmd) cost every other
 * start of hermes a quarter of a millisecond (a one-shot `hermes exec` took 1.25 ms with them
 * linked, 1.00 ms without; `test -e` takes 0.87 ms). console_edit.c calls libedit by its usual
 * names, which the macros below turn into the loaded functions. The other libraries loaded this
 * way are in core/dl.h. */
#ifndef HERMES_CLI_CONSOLE_LIBEDIT_H
#define HERMES_CLI_CONSOLE_LIBEDIT_H

#include <stdbool.h>
#include <stdio.h>

#include <histedit.h>

#include "core/dl.h"

/* The functions the console uses, with libedit's own types (from histedit.h). */
#define HERMES_LIBEDIT_FUNCTIONS(X) \
	X(el_init_fd) X(el_end) X(el_set) X(el_wset) X(el_get) X(el_gets) X(el_line) \
	X(el_insertstr) X(el_deletestr) X(el_resize) X(el_source) \
	X(history_init) X(history_end) X(history)

typedef struct hermes_libedit_api {
	HERMES_LIBEDIT_FUNCTIONS(HERMES_DL_FIELD)
} hermes_libedit_api_t;

extern hermes_libedit_api_t hermes_libedit;

/* Loads libedit (once; thread-safe). false, with why in err (of size n), if it cannot be
 * loaded: the console then reads plain lines. */
bool hermes_libedit_load(char *err, size_t n);

#ifndef HERMES_LIBEDIT_LOADER
#define el_init_fd hermes_libedit.el_init_fd
#define el_end hermes_libedit.el_end
#define el_set hermes_libedit.el_set
#define el_wset hermes_libedit.el_wset
#define el_get hermes_libedit.el_get
#define el_gets hermes_libedit.el_gets
#define el_line hermes_libedit.el_line
#define el_insertstr hermes_libedit.el_insertstr
#define el_deletestr hermes_libedit.el_deletestr
#define el_resize hermes_libedit.el_resize
#define el_source hermes_libedit.el_source
#define history_init hermes_libedit.history_init
#define history_end hermes_libedit.history_end
#define history hermes_libedit.history
#endif

#endif
