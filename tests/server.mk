# tests/server.mk: (filled in by the server work)
