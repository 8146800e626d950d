# tests/fuzz: one libFuzzer target per parser or front door. A normal build links each target
# with replay.c into a check program that replays its corpus (make check); a build configured
# with --enable-fuzzing (clang, CFLAGS with -fsanitize=fuzzer-no-link,...) links them with
# libFuzzer instead: `make fuzzers`, then tests/fuzz/run.sh. See tests/fuzz/README.md.
FUZZ_TARGETS = tests/fuzz/fuzz_json tests/fuzz/fuzz_envelope tests/fuzz/fuzz_stream \
	tests/fuzz/fuzz_framing tests/fuzz/fuzz_server tests/fuzz/fuzz_session tests/fuzz/fuzz_path \
	tests/fuzz/fuzz_edits tests/fuzz/fuzz_http tests/fuzz/fuzz_patch \
	tests/fuzz/fuzz_base64 tests/fuzz/fuzz_image tests/fuzz/fuzz_lsp tests/fuzz/fuzz_range
# the bearer token and the JWK Set of OAuth (src/auth exists only with Streamable HTTP)
if HAVE_HTTP
FUZZ_TARGETS += tests/fuzz/fuzz_jwt
endif
fuzz_cflags = $(AM_CFLAGS) -I$(top_srcdir)/tests
fuzz_core_libs = libhermes_core.la

# the JSON reader
tests_fuzz_fuzz_json_SOURCES = tests/fuzz/fuzz_json.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_json_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/json:tests/data/JSONTestSuite/test_parsing"'
tests_fuzz_fuzz_json_LDADD = $(fuzz_core_libs)
# envelopes, YAML and JSON, decoded for every verb
tests_fuzz_fuzz_envelope_SOURCES = tests/fuzz/fuzz_envelope.c tests/fuzz/stubs.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_envelope_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/envelope:tests/fuzz/corpus/json"'
tests_fuzz_fuzz_envelope_LDADD = $(fuzz_core_libs)
# a stream of envelopes as hermes exec reads it: split into documents, each run on stub verbs
tests_fuzz_fuzz_stream_SOURCES = tests/fuzz/fuzz_stream.c tests/fuzz/stubs.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_stream_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/stream:tests/fuzz/corpus/envelope"'
tests_fuzz_fuzz_stream_LDADD = $(fuzz_core_libs)
# what a client sends hermes serve: framing, reading, JSON-RPC classification
tests_fuzz_fuzz_framing_SOURCES = tests/fuzz/fuzz_framing.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_framing_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/framing"'
tests_fuzz_fuzz_framing_LDADD = libhermes_server.la $(fuzz_core_libs)
# a whole session of hermes serve: both protocols, every method, real verbs (proc.* off)
tests_fuzz_fuzz_server_SOURCES = tests/fuzz/fuzz_server.c tests/fuzz/fuzz.h tests/fuzz/workdir.c
tests_fuzz_fuzz_server_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/server"'
tests_fuzz_fuzz_server_LDADD = libhermes_server.la libhermes_verbs.la $(fuzz_core_libs)
# the same bytes framed and handed to a session through its API, on two channels in turn
tests_fuzz_fuzz_session_SOURCES = tests/fuzz/fuzz_session.c tests/fuzz/fuzz.h tests/fuzz/workdir.c
tests_fuzz_fuzz_session_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/server"'
tests_fuzz_fuzz_session_LDADD = libhermes_server.la libhermes_verbs.la $(fuzz_core_libs)
# what hermes mcp --listen decides on a POST once parsed: Origin, token, the body's 2026 _meta,
# the headers that mirror it, the 2026 result made of it
tests_fuzz_fuzz_http_SOURCES = tests/fuzz/fuzz_http.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_http_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/http"'
tests_fuzz_fuzz_http_LDADD = libhermes_server.la $(fuzz_core_libs)
tests_fuzz_fuzz_jwt_SOURCES = tests/fuzz/fuzz_jwt.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_jwt_CFLAGS = $(fuzz_cflags) $(CRYPTO_CFLAGS) -DFUZZ_CORPORA='"tests/fuzz/corpus/jwt"'
tests_fuzz_fuzz_jwt_LDADD = libhermes_auth.la $(fuzz_core_libs) $(DLOPEN_LIBS)
# strict base64 of binary content (fs.writeFile encoding base64): canonical or refused
# raw transfers' Range, If-Match / If-None-Match and /files/ path parsers (http_check.c)
tests_fuzz_fuzz_range_SOURCES = tests/fuzz/fuzz_range.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_range_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/range"'
tests_fuzz_fuzz_range_LDADD = libhermes_server.la $(fuzz_core_libs)
tests_fuzz_fuzz_base64_SOURCES = tests/fuzz/fuzz_base64.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_base64_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/base64"'
tests_fuzz_fuzz_base64_LDADD = $(fuzz_core_libs)
# the image header parser of fs.readBytes (PNG, JPEG, GIF, WebP)
tests_fuzz_fuzz_image_SOURCES = tests/fuzz/fuzz_image.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_image_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/image"'
tests_fuzz_fuzz_image_LDADD = libhermes_verbs.la $(fuzz_core_libs)
# workspace path resolution
tests_fuzz_fuzz_path_SOURCES = tests/fuzz/fuzz_path.c tests/fuzz/fuzz.h tests/fuzz/workdir.c
tests_fuzz_fuzz_path_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/path"'
tests_fuzz_fuzz_path_LDADD = libhermes_verbs.la $(fuzz_core_libs)
# read-modify-write verbs racing on one file from threads: every reported success is in it
tests_fuzz_fuzz_edits_SOURCES = tests/fuzz/fuzz_edits.c tests/fuzz/fuzz.h tests/fuzz/workdir.c
tests_fuzz_fuzz_edits_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/edits"'
tests_fuzz_fuzz_edits_LDADD = libhermes_verbs.la $(fuzz_core_libs)
# the patch parsers and the tolerant matching that applies them, on memory
tests_fuzz_fuzz_patch_SOURCES = tests/fuzz/fuzz_patch.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_patch_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/patch"'
tests_fuzz_fuzz_patch_LDADD = libhermes_fs.la $(fuzz_core_libs)
# what a language server sends the code.* verbs' client: framing, messages, URIs, positions
tests_fuzz_fuzz_lsp_SOURCES = tests/fuzz/fuzz_lsp.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_lsp_CFLAGS = $(fuzz_cflags) -DFUZZ_CORPORA='"tests/fuzz/corpus/lsp"'
tests_fuzz_fuzz_lsp_LDADD = libhermes_lsp.la libhermes_proc.la libhermes_fs.la $(fuzz_core_libs)

if FUZZING
noinst_PROGRAMS += $(FUZZ_TARGETS)
fuzz_link_flags = -fsanitize=fuzzer
tests_fuzz_fuzz_json_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_envelope_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_stream_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_framing_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_server_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_session_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_path_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_edits_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_http_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_patch_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_jwt_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_base64_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_image_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_lsp_LDFLAGS = $(fuzz_link_flags)
tests_fuzz_fuzz_range_LDFLAGS = $(fuzz_link_flags)
# BUILT_SOURCES are made only for all, check and install: make them first.
fuzzers:
	$(MAKE) $(AM_MAKEFLAGS) $(BUILT_SOURCES)
	$(MAKE) $(AM_MAKEFLAGS) $(FUZZ_TARGETS)
else
check_PROGRAMS += $(FUZZ_TARGETS)
tests_fuzz_fuzz_json_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_envelope_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_stream_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_framing_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_server_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_session_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_path_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_edits_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_http_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_patch_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_jwt_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_base64_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_image_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_lsp_SOURCES += tests/fuzz/replay.c
tests_fuzz_fuzz_range_SOURCES += tests/fuzz/replay.c
TESTS += $(FUZZ_TARGETS)
fuzzers:
	@echo "configure with --enable-fuzzing (and CC=clang) to build the libFuzzer targets" >&2; exit 1
endif
.PHONY: fuzzers
EXTRA_DIST += tests/fuzz/README.md tests/fuzz/run.sh tests/fuzz/corpus
