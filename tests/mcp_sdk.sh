#!/bin/sh
# tests/mcp_sdk.sh: hermes mcp driven by a stock MCP client, the official TypeScript SDK's Client
# over StdioClientTransport (tests/mcp_sdk.mjs). Runs where node and the SDK are installed:
# MCP_SDK_DIR names an npm prefix holding @modelcontextprotocol/sdk (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/hermes-mcp-sdk, where .ci/run installs it:
#   npm install --prefix ~/.cache/hermes-mcp-sdk @modelcontextprotocol/sdk@1.32.2);
# skipped (77) with a message otherwise.
: "${HERMES:?HERMES is not set (run through make check)}"
dir=${MCP_SDK_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hermes-mcp-sdk}
if ! command -v node >/dev/null 2>&1; then
	echo "SKIP: node is not installed (the MCP SDK test needs Node.js 18 or later)"
	exit 77
fi
if [ ! -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
	echo "SKIP: the MCP TypeScript SDK is not installed in $dir"
	echo "      (npm install --prefix $dir @modelcontextprotocol/sdk@1.32.2, or set MCP_SDK_DIR)"
	exit 77
fi
MCP_SDK_DIR=$dir exec node "${top_srcdir:-.}/tests/mcp_sdk.mjs"
