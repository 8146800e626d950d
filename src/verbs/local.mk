# src/verbs: the verb handlers only, a file per family, each a recipe: confine the path, call a
# mechanism of src/fs or src/proc, fill the result. builtin_executor.c is hermes_executor_new(),
# which registers them all. Built into libhermes_verbs.la, which carries the mechanisms and the
# core with it (convenience libraries are taken whole, so each is named once, here).
noinst_LTLIBRARIES += libhermes_verbs.la
libhermes_verbs_la_SOURCES = \
	src/verbs/handlers.h src/verbs/state.h src/verbs/code.h \
	src/verbs/code_common.c src/verbs/code_outline.c \
	src/verbs/code_nav.c src/verbs/code_symbols.c src/verbs/code_servers.c \
	src/verbs/code_diagnose.c src/verbs/code_rename.c src/verbs/code_edit.c src/verbs/code_sync.c \
	src/verbs/gen_handlers.h src/verbs/gen_registry.c \
	src/verbs/builtin_executor.c src/verbs/handles.c \
	src/verbs/fs_read.c \
	src/verbs/fs_read_file.c \
	src/verbs/fs_bytes.c \
	src/verbs/fs_list.c \
	src/verbs/fs_stat.c \
	src/verbs/fs_write.c \
	src/verbs/fs_edit.c \
	src/verbs/fs_patch.c \
	src/verbs/fs_tree.c \
	src/verbs/fs_history.c \
	src/verbs/fs_watch.c \
	src/verbs/proc_run.c \
	src/verbs/proc_session.c \
	src/verbs/sys_info.c \
	src/verbs/fs_search.c \
	src/verbs/fs_glob.c
libhermes_verbs_la_CFLAGS = $(AM_CFLAGS) $(PCRE2_CFLAGS)
# PCRE2 is loaded when fs.search first compiles a pattern (fs/pcre2_lib.h), not linked.
libhermes_verbs_la_LIBADD = libhermes_lsp.la libhermes_fs.la libhermes_proc.la libhermes_core.la
