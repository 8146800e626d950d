# tests/verbs.mk: Check suites of the verbs (src/verbs), one program per verb family, each test
# in a fresh mkdtemp workspace; all of them go through hermes_execute() with JSON envelopes.
verbs_check_sources = tests/verbs_testlib.c tests/verbs_testlib.h

if HAVE_CHECK
# the memos (outlines) a language-server client keeps with its documents' texts (src/lsp/memo.c)
check_PROGRAMS += tests/check_lsp_memo
tests_check_lsp_memo_SOURCES = tests/check_lsp_memo.c
tests_check_lsp_memo_CFLAGS = $(tests_check_cflags)
tests_check_lsp_memo_LDADD = libhermes_lsp.la libhermes_proc.la libhermes_fs.la libhermes_core.la $(CHECK_LIBS) -lpthread
TESTS += tests/check_lsp_memo

# a language server's private TMPDIR, and the sweep of what gone Hermes processes left (src/proc)
check_PROGRAMS += tests/check_proc_tmpdir
tests_check_proc_tmpdir_SOURCES = tests/check_proc_tmpdir.c
tests_check_proc_tmpdir_CFLAGS = $(tests_check_cflags)
tests_check_proc_tmpdir_LDADD = libhermes_proc.la libhermes_fs.la libhermes_core.la $(CHECK_LIBS) -lpthread
TESTS += tests/check_proc_tmpdir

check_PROGRAMS += tests/check_verbs_read
tests_check_verbs_read_SOURCES = tests/check_verbs_read.c $(verbs_check_sources)
tests_check_verbs_read_CFLAGS = $(tests_check_cflags)
tests_check_verbs_read_LDADD = $(tests_check_libs)
TESTS += tests/check_verbs_read

check_PROGRAMS += tests/check_verbs_read_stream
tests_check_verbs_read_stream_SOURCES = tests/check_verbs_read_stream.c $(verbs_check_sources)
tests_check_verbs_read_stream_CFLAGS = $(tests_check_cflags) -pthread
tests_check_verbs_read_stream_LDADD = $(tests_check_libs) -lpthread
TESTS += tests/check_verbs_read_stream

check_PROGRAMS += tests/check_bytes
tests_check_bytes_SOURCES = tests/check_bytes.c
tests_check_bytes_CFLAGS = $(tests_check_cflags)
tests_check_bytes_LDADD = $(tests_check_libs)
TESTS += tests/check_bytes

check_PROGRAMS += tests/check_watch
tests_check_watch_SOURCES = tests/check_watch.c
tests_check_watch_CFLAGS = $(tests_check_cflags)
tests_check_watch_LDADD = $(tests_check_libs)
TESTS += tests/check_watch

check_PROGRAMS += tests/check_verbs_write
tests_check_verbs_write_SOURCES = tests/check_verbs_write.c $(verbs_check_sources)
tests_check_verbs_write_CFLAGS = $(tests_check_cflags) -pthread
tests_check_verbs_write_LDADD = $(tests_check_libs) -lpthread
TESTS += tests/check_verbs_write

# the second pass of a streamed fs.readFile over a mapped file, on two threads (src/fs/chunks.c)
check_PROGRAMS += tests/check_fs_chunks
tests_check_fs_chunks_SOURCES = tests/check_fs_chunks.c
tests_check_fs_chunks_CFLAGS = $(tests_check_cflags) -pthread
tests_check_fs_chunks_LDADD = $(tests_check_libs) -lpthread
TESTS += tests/check_fs_chunks

check_PROGRAMS += tests/check_fs_commit
tests_check_fs_commit_SOURCES = tests/check_fs_commit.c $(verbs_check_sources)
tests_check_fs_commit_CFLAGS = $(tests_check_cflags) -pthread
tests_check_fs_commit_LDADD = $(tests_check_libs) -lpthread
TESTS += tests/check_fs_commit

check_PROGRAMS += tests/check_verbs_history
tests_check_verbs_history_SOURCES = tests/check_verbs_history.c $(verbs_check_sources)
tests_check_verbs_history_CFLAGS = $(tests_check_cflags)
tests_check_verbs_history_LDADD = $(tests_check_libs)
TESTS += tests/check_verbs_history

check_PROGRAMS += tests/check_verbs_tree
tests_check_verbs_tree_SOURCES = tests/check_verbs_tree.c $(verbs_check_sources)
tests_check_verbs_tree_CFLAGS = $(tests_check_cflags)
tests_check_verbs_tree_LDADD = $(tests_check_libs)
TESTS += tests/check_verbs_tree

check_PROGRAMS += tests/check_verbs_escape
tests_check_verbs_escape_SOURCES = tests/check_verbs_escape.c $(verbs_check_sources)
tests_check_verbs_escape_CFLAGS = $(tests_check_cflags) -pthread
tests_check_verbs_escape_LDADD = $(tests_check_libs) -lpthread
TESTS += tests/check_verbs_escape

check_PROGRAMS += tests/check_verbs_proc
tests_check_verbs_proc_SOURCES = tests/check_verbs_proc.c $(verbs_check_sources)
tests_check_verbs_proc_CFLAGS = $(tests_check_cflags) -pthread
tests_check_verbs_proc_LDADD = $(tests_check_libs) -lpthread
TESTS += tests/check_verbs_proc

check_PROGRAMS += tests/check_verbs_started
tests_check_verbs_started_SOURCES = tests/check_verbs_started.c $(verbs_check_sources)
tests_check_verbs_started_CFLAGS = $(tests_check_cflags)
tests_check_verbs_started_LDADD = $(tests_check_libs)
TESTS += tests/check_verbs_started

check_PROGRAMS += tests/check_verbs_sys
tests_check_verbs_sys_SOURCES = tests/check_verbs_sys.c $(verbs_check_sources)
tests_check_verbs_sys_CFLAGS = $(tests_check_cflags)
tests_check_verbs_sys_LDADD = $(tests_check_libs)
TESTS += tests/check_verbs_sys

check_PROGRAMS += tests/check_verbs_search
tests_check_verbs_search_SOURCES = tests/check_verbs_search.c $(verbs_check_sources)
tests_check_verbs_search_CFLAGS = $(tests_check_cflags)
tests_check_verbs_search_LDADD = $(tests_check_libs)
TESTS += tests/check_verbs_search

check_PROGRAMS += tests/check_verbs_crash
tests_check_verbs_crash_SOURCES = tests/check_verbs_crash.c $(verbs_check_sources)
tests_check_verbs_crash_CFLAGS = $(tests_check_cflags)
tests_check_verbs_crash_LDADD = $(tests_check_libs)
TESTS += tests/check_verbs_crash

check_PROGRAMS += tests/check_fs_patch
tests_check_fs_patch_SOURCES = tests/check_fs_patch.c $(verbs_check_sources)
tests_check_fs_patch_CFLAGS = $(tests_check_cflags)
tests_check_fs_patch_LDADD = $(tests_check_libs)
TESTS += tests/check_fs_patch

# The same suites through the descriptor walk, and the verbs end to end through hermes exec.
TESTS += tests/verbs_walk.sh

check_PROGRAMS += tests/check_verbs_lines
tests_check_verbs_lines_SOURCES = tests/check_verbs_lines.c
tests_check_verbs_lines_CFLAGS = $(tests_check_cflags)
tests_check_verbs_lines_LDADD = $(tests_check_libs)
TESTS += tests/check_verbs_lines
endif
TESTS += tests/verbs_cli.sh tests/policy.sh
EXTRA_DIST += tests/verbs_walk.sh tests/verbs_cli.sh tests/policy.sh

# fs.search against ripgrep on a generated corpus (skipped, 77, without rg or python3; run by the
# .py driver of tests/server.mk). bench/search.sh times the two on a 50k-file tree, by hand.
TESTS += tests/search_parity.py tests/read_range_tail.py
EXTRA_DIST += tests/read_range_tail.py tests/search_parity.py tests/search_corpus.py bench/search.sh bench/search-results.md
