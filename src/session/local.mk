# src/session: the session API (session.h) that the transports drive: a session that knows no
# bytes, made and ended, fed messages with the channel they came on, told of the end of input and
# of signals. It hands the protocols' method tables to the core (src/rpc). server.h: the options
# and enums the CLI shares with the session.
libhermes_server_la_SOURCES += \
	src/session/server.h \
	src/session/session.c src/session/session.h
