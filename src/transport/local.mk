# src/transport: the transports on top of the session API, each cutting its bytes into messages
# and framing what the session sends back.
#   stdio/  hermes serve and hermes mcp on stdin/stdout: the reader loop (stdio.c), the writer
#           thread (output.c), Content-Length / NDJSON framing (framing.c)
#   http/   Streamable HTTP (hermes mcp --listen) on libmicrohttpd, loaded on first use
libhermes_server_la_SOURCES += \
	src/transport/stdio/stdio.c \
	src/transport/stdio/output.c src/transport/stdio/output.h \
	src/transport/stdio/framing.c src/transport/stdio/framing.h \
	src/transport/http/http_check.c src/transport/http/http_check.h
# Streamable HTTP's socket side, unless configured --without-http (then shipped all the same)
HTTP_SOURCES = \
	src/transport/http/http.c src/transport/http/http.h \
	src/transport/http/http_server.h \
	src/transport/http/http_request.c \
	src/transport/http/http_headers.c \
	src/transport/http/http_files.c \
	src/transport/http/http_sse.c \
	src/transport/http/http_channel.c \
	src/transport/http/http_stream.c \
	src/transport/http/http_sessions.c \
	src/transport/http/http_respond.c \
	src/transport/http/http_listen.c \
	src/transport/http/http_systemd.c \
	src/transport/http/http_auth.c \
	src/transport/http/mhd_lib.c src/transport/http/mhd_lib.h
if HAVE_HTTP
libhermes_server_la_SOURCES += $(HTTP_SOURCES)
# who may call: the token file's rights and OAuth access tokens (src/auth)
libhermes_server_la_LIBADD += libhermes_auth.la
endif
EXTRA_DIST += $(HTTP_SOURCES)
