# tests/core.mk: the core's Check suites, the IDL goldens, the generator's error reports, the
# black-box tests of hermes exec/schema/verbs, and adding a verb end to end.
if HAVE_CHECK
check_PROGRAMS += tests/check_core
tests_check_core_SOURCES = tests/check_core.c
tests_check_core_CFLAGS = $(tests_check_cflags)
tests_check_core_LDADD = libhermes_core.la $(CHECK_LIBS) $(CJSON_LIBS)
TESTS += tests/check_core
# the write and read loops of core/fdio.h, on pipes
check_PROGRAMS += tests/check_fdio
tests_check_fdio_SOURCES = tests/check_fdio.c
tests_check_fdio_CFLAGS = $(tests_check_cflags)
tests_check_fdio_LDADD = libhermes_core.la $(CHECK_LIBS) -lpthread
TESTS += tests/check_fdio
# the fast paths of UTF-8 validation, JSON escaping and streamed results against references
check_PROGRAMS += tests/check_core_text
tests_check_core_text_SOURCES = tests/check_core_text.c
tests_check_core_text_CFLAGS = $(tests_check_cflags)
tests_check_core_text_LDADD = libhermes_core.la $(CHECK_LIBS) $(CJSON_LIBS)
TESTS += tests/check_core_text
endif

TESTS += tests/idl_golden.sh tests/gen_errors.sh tests/cli_exec.sh tests/options_docs.sh \
	tests/exec_signals.py tests/exec_output.py tests/lazy_libs.sh
EXTRA_DIST += tests/idl_golden.sh tests/gen_errors.sh tests/cli_exec.sh tests/options_docs.sh \
	tests/exec_signals.py tests/exec_output.py tests/lazy_libs.sh \
	tests/golden

# Adding a verb touches the table, one handler file and its line in src/verbs/local.mk: proved on
# a copy of the source tree (about 15 s: autoreconf, configure and two builds).
TESTS += tests/add_verb.sh
EXTRA_DIST += tests/add_verb.sh

# Rewrites tests/golden/*.idl from the current table; review the diff before committing it.
update-golden: hermes$(EXEEXT)
	HERMES_UPDATE_GOLDEN=1 HERMES='$(abs_top_builddir)/hermes' top_srcdir='$(abs_top_srcdir)' \
	  $(SHELL) $(srcdir)/tests/idl_golden.sh
.PHONY: update-golden

# OAuth access tokens (src/auth), against keys and tokens the suite makes with OpenSSL itself.
if HAVE_CHECK
if HAVE_HTTP
check_PROGRAMS += tests/check_auth
tests_check_auth_SOURCES = tests/check_auth.c
tests_check_auth_CFLAGS = $(tests_check_cflags) $(CRYPTO_CFLAGS)
tests_check_auth_LDADD = libhermes_auth.la libhermes_core.la $(CHECK_LIBS) $(CJSON_LIBS) \
	$(CRYPTO_LIBS) $(DLOPEN_LIBS)
TESTS += tests/check_auth
endif
endif
