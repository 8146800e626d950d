# src/protocol: the protocol modules, side by side on the session core (src/rpc), neither calling
# the other: each is a method table the session hands to the core.
#   hermes/  the Hermes JSON-RPC protocol of `hermes serve` (doc/PROTOCOL.md)
#   mcp/     the Model Context Protocol of `hermes mcp`, both eras (2025 sessions, 2026 stateless)
libhermes_server_la_SOURCES += \
	src/protocol/hermes/hermes_methods.c src/protocol/hermes/hermes_methods.h \
	src/protocol/hermes/hermes_lifecycle.c \
	src/protocol/hermes/hermes_introspect.c \
	src/protocol/mcp/mcp.c src/protocol/mcp/mcp.h \
	src/protocol/mcp/mcp_tools.c \
	src/protocol/mcp/mcp_bytes.c \
	src/protocol/mcp/mcp_resources.c \
	src/protocol/mcp/mcp_subscribe.c \
	src/protocol/mcp/mcp_meta.c src/protocol/mcp/mcp_meta.h
