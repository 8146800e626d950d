# src/lsp: the Language Server Protocol client the code.* verbs stand on: the Content-Length
# framing (framing.h), one server's process, reader thread, requests and documents (client.h),
# file URIs and UTF-16 positions (uri.h), the known servers and the pool of running ones, shared
# by every connection of a Hermes (servers.h). Built into libhermes_lsp.la; depends on src/core
# and src/proc (which spawns the servers) only.
noinst_LTLIBRARIES += libhermes_lsp.la
libhermes_lsp_la_SOURCES = \
	src/lsp/framing.c src/lsp/framing.h \
	src/lsp/uri.c src/lsp/uri.h \
	src/lsp/client.c src/lsp/client.h src/lsp/client_internal.h \
	src/lsp/client_life.c \
	src/lsp/documents.c \
	src/lsp/memo.c \
	src/lsp/pool.c src/lsp/pool.h
