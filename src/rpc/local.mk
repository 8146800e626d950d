# src/rpc: the core of a session under the protocol modules: a message to its method row
# (dispatch.c), verb calls on the worker pool (requests.c, pool.c), the requests in flight and
# cancellation (inflight.c), replies to their channel or batch (replies.c), the session's executor
# (workspace.c), and the leaves (JSON-RPC bodies, the refcounted message, logging).
# The server's rooms (src/transport, src/session, src/protocol, src/rpc) build one convenience
# library, libhermes_server.la; each room's local.mk adds its files. Order: session/session.h.
noinst_LTLIBRARIES += libhermes_server.la
libhermes_server_la_LIBADD = libhermes_core.la
libhermes_server_la_SOURCES = \
	src/rpc/state.h \
	src/rpc/dispatch.c \
	src/rpc/requests.c \
	src/rpc/inflight.c \
	src/rpc/replies.c \
	src/rpc/workspace.c \
	src/rpc/message.c src/rpc/message.h \
	src/rpc/jsonrpc.c src/rpc/jsonrpc.h \
	src/rpc/pool.c src/rpc/pool.h \
	src/rpc/log.c src/rpc/log.h
