# src/server: hermes serve, JSON-RPC 2.0 over stdio (framing, dispatch, worker pool, lifecycle).
noinst_LTLIBRARIES += libhermes_server.la
libhermes_server_la_SOURCES = \
	src/server/server.h \
	src/server/server.c
libhermes_server_la_LIBADD = libhermes_core.la
