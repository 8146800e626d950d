# src/verbs: the verb handlers (fs.*, proc.run, sys.machineInfo), workspace confinement, atomic
# writes, and the confined parallel walk with gitignore rules of fs.search and fs.glob. Built into
# libhermes_verbs.la; depends on src/core only (and PCRE2, loaded by fs.search).
noinst_LTLIBRARIES += libhermes_verbs.la
libhermes_verbs_la_SOURCES = \
	src/verbs/workspace.c src/verbs/workspace.h \
	src/verbs/atomic.c src/verbs/atomic.h \
	src/verbs/sweep.c src/verbs/sweep.h \
	src/verbs/lines.c src/verbs/lines.h \
	src/verbs/handlers.h \
	src/verbs/gen_handlers.h src/verbs/gen_registry.c \
	src/verbs/executor_new.c \
	src/verbs/fs_read.c \
	src/verbs/fs_stat.c \
	src/verbs/fs_write.c \
	src/verbs/fs_edit.c src/verbs/diff.c src/verbs/diff.h \
	src/verbs/fs_tree.c \
	src/verbs/proc_run.c \
	src/verbs/spawn.c src/verbs/spawn.h \
	src/verbs/sys_info.c \
	src/verbs/glob.c src/verbs/glob.h \
	src/verbs/ignore.c src/verbs/ignore.h \
	src/verbs/walk.c src/verbs/walk.h \
	src/verbs/fs_search.c src/verbs/pcre2_lib.c src/verbs/pcre2_lib.h \
	src/verbs/fs_glob.c
libhermes_verbs_la_CFLAGS = $(AM_CFLAGS) $(PCRE2_CFLAGS)
# PCRE2 is loaded when fs.search first compiles a pattern (verbs/pcre2_lib.h), not linked.
libhermes_verbs_la_LIBADD = libhermes_core.la
