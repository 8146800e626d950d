# src/verbs: the verb handlers (fs.*, proc.run, sys.machineInfo), workspace confinement and
# atomic writes. Built into libhermes_verbs.la; depends on src/core only.
noinst_LTLIBRARIES += libhermes_verbs.la
libhermes_verbs_la_SOURCES = \
	src/verbs/builtin.c
libhermes_verbs_la_LIBADD = libhermes_core.la
