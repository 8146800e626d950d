# tests/core.mk: the core's Check suites, the IDL goldens, the generator's error reports and the
# black-box tests of hermes exec/schema/verbs.
check_PROGRAMS += tests/check_core
tests_check_core_SOURCES = tests/check_core.c
tests_check_core_CFLAGS = $(tests_check_cflags)
tests_check_core_LDADD = libhermes_core.la $(CHECK_LIBS) $(CJSON_LIBS) $(CYAML_LIBS) $(YAML_LIBS)
TESTS += tests/check_core

TESTS += tests/idl_golden.sh tests/gen_errors.sh tests/cli_exec.sh
EXTRA_DIST += tests/idl_golden.sh tests/gen_errors.sh tests/cli_exec.sh tests/golden

# Rewrites tests/golden/*.idl from the current table; review the diff before committing it.
update-golden: hermes$(EXEEXT)
	HERMES_UPDATE_GOLDEN=1 HERMES='$(abs_top_builddir)/hermes' top_srcdir='$(abs_top_srcdir)' \
	  $(SHELL) $(srcdir)/tests/idl_golden.sh
.PHONY: update-golden
