# src/cli: the hermes program: argument parsing, exec / schema / verbs, the interactive console.
bin_PROGRAMS += hermes
hermes_SOURCES = \
	src/cli/main.c \
	src/cli/options.c src/cli/options.h \
	src/cli/cmd_exec.c \
	src/cli/cmd_schema.c \
	src/cli/cmd_serve.c \
	src/cli/commands.h \
	src/cli/console.c src/cli/console.h \
	src/cli/console_entry.c src/cli/console_entry.h \
	src/cli/console_edit.h \
	src/cli/console_signal.c src/cli/console_signal.h
# The console's line editor: libedit's, loaded when the console first needs it (not linked: see
# console_libedit.h), or plain lines where configure did not find libedit or it cannot be loaded.
hermes_SOURCES += src/cli/console_plain.c src/cli/console_plain.h
if HAVE_LIBEDIT
hermes_SOURCES += src/cli/console_edit.c src/cli/console_libedit.c src/cli/console_libedit.h
endif
EXTRA_DIST += src/cli/console_edit.c src/cli/console_libedit.c src/cli/console_libedit.h
hermes_CFLAGS = $(AM_CFLAGS) $(LIBEDIT_CFLAGS) $(PCRE2_CFLAGS)
hermes_LDADD = libhermes_server.la libhermes_verbs.la libhermes_core.la $(DLOPEN_LIBS)
