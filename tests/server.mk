# tests/server.mk: hermes serve. A Check suite for the pieces that need no process (framing,
# JSON-RPC, the pool), one that drives a session through its API with no transport
# (check_session), the call order of the server's rooms and files (server_callgraph.sh), a shell
# smoke test, and black-box tests in Python 3 that spawn the real `hermes serve` and `hermes mcp`
# (skipped, exit 77, where python3 is missing, e.g. building a tarball without it); hermes mcp
# under the official MCP TypeScript SDK (mcp_sdk.sh), and the generated JSON Schemas against the
# decoder with the SDK's validator (json_schema.sh); those two are skipped where node or the SDK
# is not installed.
if HAVE_CHECK
check_PROGRAMS += tests/check_server
tests_check_server_SOURCES = tests/check_server.c
tests_check_server_CFLAGS = $(tests_check_cflags)
tests_check_server_LDADD = libhermes_server.la libhermes_core.la $(CHECK_LIBS) $(CJSON_LIBS)
TESTS += tests/check_server
check_PROGRAMS += tests/check_session
tests_check_session_SOURCES = tests/check_session.c
tests_check_session_CFLAGS = $(tests_check_cflags) -pthread
tests_check_session_LDADD = libhermes_server.la $(tests_check_libs) -lpthread
TESTS += tests/check_session
endif

SERVER_PY_TESTS = \
	tests/server_lifecycle.py \
	tests/server_messages.py \
	tests/server_concurrency.py \
	tests/server_framing.py \
	tests/server_jsontestsuite.py \
	tests/server_shutdown_order.py \
	tests/server_backpressure.py \
	tests/server_flood.py \
	tests/mcp_protocol.py \
	tests/concurrent_edits.py \
	tests/edit_races.py \
	tests/fs_patch.py \
	tests/proc_start.py \
	tests/code_lsp.py \
	tests/code_clangd.py \
	tests/code_rename_build.py \
	tests/code_sync.py \
	tests/code_diagnose.py \
	tests/code_diagnose_clangd.py \
	tests/code_pyright.py \
	tests/code_typescript.py \
	tests/mcp_modern.py \
	tests/mcp_resources.py \
	tests/mcp_http.py \
	tests/mcp_subscribe_http.py \
	tests/mcp_http_abuse.py \
	tests/mcp_oauth.py \
	tests/bytes.py \
	tests/watch.py \
	tests/mcp_fleet.py \
	tests/http_files.py \
	tests/mcp_socket_activation.py
# Real MCP clients from npm (skipped, saying why, where they are not installed; .ci/run installs
# them): SDK v1 in the 2025 era, SDK v2 in 2026-07-28, the conformance suite over HTTP, and SDK v2
# through nginx to two hermes upstreams.
MCP_CLIENT_TESTS = tests/mcp_sdk.sh tests/mcp_client.sh tests/mcp_conformance.sh tests/mcp_nginx.sh
TESTS += tests/server_smoke.sh $(SERVER_PY_TESTS) $(MCP_CLIENT_TESTS) tests/json_schema.sh \
	tests/server_callgraph.sh
TEST_EXTENSIONS += .py
PY_LOG_COMPILER = $(SHELL) $(srcdir)/tests/server_py.sh
EXTRA_DIST += tests/server_callgraph.sh tests/server_smoke.sh tests/server_py.sh tests/server_lib.py tests/fleet_nginx.py tests/lsp_direct.py \
	$(SERVER_PY_TESTS) $(MCP_CLIENT_TESTS) tests/mcp_sdk.mjs tests/mcp_client.mjs tests/mcp_lib.mjs \
	tests/mcp_nginx.mjs tests/mcp_node.sh tests/json_schema.sh tests/json_schema.mjs tests/oauth_as.mjs tests/mcp_fleet.mjs

# The benchmarks are run by hand (bench/compare, with bench/http_client.c for its HTTP rows;
# bench/server.sh for one server figure; bench/lockless_writers.py for the edits lost to a
# writer that takes no lock, in doc/DESIGN.md; bench/patch/run.py for fs.applyPatch on a corpus
# of models' mistakes; bench/files_transfer.sh for GET/PUT /files against nginx and cat;
# bench/code_latency.py for the code.* rows, what Hermes adds to each language server); they ship
# with their client. Their figures are in the README.
EXTRA_DIST += bench/compare bench/report.awk bench/client.c bench/server.sh bench/http_client.c \
	bench/lockless_writers.py bench/patch/corpus.py bench/patch/run.py \
	bench/watch_latency.py bench/files_transfer.sh bench/http_fleet.py bench/ts_sdk_server.mjs \
	bench/code_latency.py
