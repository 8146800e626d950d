# tests/console.mk: the interactive console (through a pseudo-terminal and through a pipe) and the
# installed package (staged install, pkg-config build of the example, man pages, completion).
if HAVE_CHECK
check_PROGRAMS += tests/check_console_entry
tests_check_console_entry_SOURCES = tests/check_console_entry.c \
	src/cli/console_entry.c src/cli/console_entry.h
tests_check_console_entry_CFLAGS = $(tests_check_cflags)
tests_check_console_entry_LDADD = libhermes_core.la $(CHECK_LIBS)
TESTS += tests/check_console_entry
endif
check_PROGRAMS += tests/console_pty
tests_console_pty_SOURCES = tests/console_pty.c
tests_console_pty_LDADD = $(PTY_LIBS)

TESTS += tests/console_piped.sh \
	tests/console_tty.sh \
	tests/console_cancel.sh \
	tests/console_jobctl.sh \
	tests/install_man.sh \
	tests/install_package.sh
EXTRA_DIST += tests/console_lib.sh \
	tests/console_piped.sh \
	tests/console_tty.sh \
	tests/console_cancel.sh \
	tests/console_jobctl.sh \
	tests/install_man.sh \
	tests/install_package.sh
# The install test runs `make install DESTDIR=...` itself, and builds the example with the
# compiler and flags of this build (a sanitizer build's library needs the sanitizer runtime).
AM_TESTS_ENVIRONMENT += MAKE='$(MAKE)'; export MAKE; CC='$(CC)'; export CC; \
	CFLAGS='$(CFLAGS)'; export CFLAGS; LDFLAGS='$(LDFLAGS)'; export LDFLAGS;
