# src/server: hermes serve and hermes mcp: JSON-RPC 2.0 over stdio, in Hermes's own protocol or
# the Model Context Protocol (framing, dispatch, the method tables, worker pool, lifecycle).
noinst_LTLIBRARIES += libhermes_server.la
libhermes_server_la_SOURCES = \
	src/server/server.h \
	src/server/server.c \
	src/server/state.h \
	src/server/framing.c src/server/framing.h \
	src/server/jsonrpc.c src/server/jsonrpc.h \
	src/server/dispatch.c \
	src/server/methods.c \
	src/server/lifecycle.c \
	src/server/introspect.c \
	src/server/requests.c \
	src/server/inflight.c \
	src/server/replies.c \
	src/server/mcp.c \
	src/server/mcp_tools.c \
	src/server/pool.c src/server/pool.h \
	src/server/output.c src/server/output.h \
	src/server/log.c src/server/log.h
libhermes_server_la_LIBADD = libhermes_core.la
dist_doc_DATA += src/server/PROTOCOL.md
