# src/fs: the file-system mechanisms the verb handlers stand on, with no idea of verbs or
# envelopes: confinement to the workspace (workspace.h), atomic writes (atomic.h), one writer at
# a time per file and version tokens (filelock.h), change sets over several files committed all
# or nothing (commit.h, with its journal journal.h), the record of changes for undo (history.h),
# the sweep of what a killed Hermes leaves
# (sweep.h), line scanning (lines.h) and remembered line counts (linecount.h), unified diffs
# (diff.h), patches in three formats (patch.h) applied by tolerant matching (match.h,
# patch_apply.h), glob matching (glob.h), gitignore rules (ignore.h), the confined parallel walk
# (walk.h), sorted directory names (dirnames.h), PCRE2 loaded on first use (pcre2_lib.h), image
# headers (imageinfo.h), file mappings guarded against SIGBUS (mapguard.h), a file's chunks
# checked and escaped on two threads (chunks.h), and MIME types from
# content (mimetype.h, libmagic loaded on first use:
# magic_lib.h), and watched trees (watch.h, inotify) with their table of handles (watches.h).
# Built into libhermes_fs.la; depends on src/core only.
noinst_LTLIBRARIES += libhermes_fs.la
libhermes_fs_la_SOURCES = \
	src/fs/workspace.c src/fs/workspace.h src/fs/workspace_errors.c \
	src/fs/atomic.c src/fs/atomic.h \
	src/fs/filelock.c src/fs/filelock.h \
	src/fs/commit.c src/fs/commit.h src/fs/journal.c src/fs/journal.h \
	src/fs/history.c src/fs/history.h \
	src/fs/sweep.c src/fs/sweep.h \
	src/fs/lines.c src/fs/lines.h \
	src/fs/linecount.c src/fs/linecount.h \
	src/fs/diff.c src/fs/diff.h \
	src/fs/patch.h src/fs/patch_model.c src/fs/patch_apply_patch.c src/fs/patch_unified.c \
	src/fs/patch_search_replace.c src/fs/patch_apply.c src/fs/patch_apply.h \
	src/fs/match.c src/fs/match.h src/fs/match_nearmiss.c \
	src/fs/glob.c src/fs/glob.h \
	src/fs/ignore.c src/fs/ignore.h \
	src/fs/walk.c src/fs/walk.h \
	src/fs/chunks.c src/fs/chunks.h \
	src/fs/dirnames.c src/fs/dirnames.h \
	src/fs/pcre2_lib.c src/fs/pcre2_lib.h \
	src/fs/imageinfo.c src/fs/imageinfo.h \
	src/fs/mimetype.c src/fs/mimetype.h \
	src/fs/magic_lib.c src/fs/magic_lib.h \
	src/fs/mapguard.c src/fs/mapguard.h \
	src/fs/watch.c src/fs/watch.h \
	src/fs/watches.c src/fs/watches.h
libhermes_fs_la_CFLAGS = $(AM_CFLAGS) $(PCRE2_CFLAGS) $(MAGIC_CFLAGS)
