# tests: Check suites (units), black-box tests of the hermes binary, golden IDL files.
# Each area keeps its tests in its own fragment.
AM_TESTS_ENVIRONMENT = \
	HERMES='$(abs_top_builddir)/hermes'; export HERMES; \
	top_srcdir='$(abs_top_srcdir)'; export top_srcdir; \
	top_builddir='$(abs_top_builddir)'; export top_builddir; \
	CK_DEFAULT_TIMEOUT=60; export CK_DEFAULT_TIMEOUT; \
	JSONTESTSUITE_DIR='$(abs_top_srcdir)/tests/data/JSONTestSuite/test_parsing'; \
	export JSONTESTSUITE_DIR; \
	HERMES_HTTP='$(hermes_http_built)'; export HERMES_HTTP;
# Whether hermes mcp --listen was built (configure --without-http leaves it out): the HTTP tests
# skip, saying so, when it was not.
if HAVE_HTTP
hermes_http_built = yes
else
hermes_http_built = no
endif
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
tests_check_cflags = $(AM_CFLAGS) $(CHECK_CFLAGS) $(CJSON_CFLAGS)
tests_check_libs = libhermes_verbs.la libhermes_core.la $(CHECK_LIBS) $(CJSON_LIBS)
EXTRA_DIST += tests/lib.sh tests/data tests/soak.py tests/check_run.h

include tests/core.mk
include tests/verbs.mk
include tests/server.mk
include tests/console.mk
include tests/fuzz/local.mk
