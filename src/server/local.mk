# src/server: hermes serve and hermes mcp. A session core that knows no bytes (the method tables
# of the Hermes protocol and MCP, requests in flight, cancellation, replies, shutdown), with the
# stdio transport on top (framing, the reader loop, the writer thread). Order: session.h.
noinst_LTLIBRARIES += libhermes_server.la
libhermes_server_la_SOURCES = \
	src/server/server.h \
	src/server/stdio.c \
	src/server/output.c src/server/output.h \
	src/server/framing.c src/server/framing.h \
	src/server/session.c src/server/session.h \
	src/server/state.h \
	src/server/hermes_methods.c src/server/hermes_methods.h \
	src/server/hermes_lifecycle.c \
	src/server/hermes_introspect.c \
	src/server/mcp.c src/server/mcp.h \
	src/server/mcp_tools.c \
	src/server/dispatch.c \
	src/server/requests.c \
	src/server/inflight.c \
	src/server/replies.c \
	src/server/workspace.c \
	src/server/message.c src/server/message.h \
	src/server/jsonrpc.c src/server/jsonrpc.h \
	src/server/mcp_meta.c src/server/mcp_meta.h \
	src/server/http_check.c src/server/http_check.h \
	src/server/pool.c src/server/pool.h \
	src/server/log.c src/server/log.h
libhermes_server_la_LIBADD = libhermes_core.la
# Streamable HTTP (hermes mcp --listen), unless configured --without-http
if HAVE_HTTP
libhermes_server_la_SOURCES += src/server/http.c src/server/http.h \
	src/server/mhd_lib.c src/server/mhd_lib.h
endif
EXTRA_DIST += src/server/http.c src/server/http.h src/server/mhd_lib.c src/server/mhd_lib.h
dist_doc_DATA += src/server/PROTOCOL.md
