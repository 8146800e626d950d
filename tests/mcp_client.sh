#!/bin/sh
# tests/mcp_client.sh: hermes mcp under the official TypeScript SDK v2 client
# (@modelcontextprotocol/client, pinned), negotiating 2026-07-28 by pin and on `auto`, over stdio
# and over Streamable HTTP (tests/mcp_client.mjs). Skipped (77), saying why, without node 20 or
# the client (.ci/run installs it in ${XDG_CACHE_HOME:-$HOME/.cache}/hermes-mcp-client).
: "${HERMES:?HERMES is not set (run through make check)}"
. "${top_srcdir:-.}/tests/mcp_node.sh"
MCP_CLIENT_DIR=${MCP_CLIENT_DIR:-$mcp_cache/hermes-mcp-client}
export MCP_CLIENT_DIR
mcp_node 20
mcp_package "$MCP_CLIENT_DIR" @modelcontextprotocol/client @modelcontextprotocol/client@2.4.0 \
	ajv@8.17.1 ajv-formats@3.0.1
mcp_package "$MCP_CLIENT_DIR" ajv @modelcontextprotocol/client@2.4.0 ajv@8.17.1 ajv-formats@3.0.1
exec "$NODE" "${top_srcdir:-.}/tests/mcp_client.mjs"
