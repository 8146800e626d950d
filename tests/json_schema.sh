#!/bin/sh
# tests/json_schema.sh: the generated JSON Schemas against the decoder and the encoder, with a real
# validator (Ajv, which the MCP SDK brings: MCP_SDK_DIR, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/hermes-mcp-sdk, as tests/mcp_sdk.sh). Skipped (77) without node
# or Ajv, with a message.
: "${HERMES:?HERMES is not set (run through make check)}"
dir=${MCP_SDK_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hermes-mcp-sdk}
if ! command -v node >/dev/null 2>&1; then
	echo "SKIP: node is not installed (the JSON Schema test validates with Ajv under Node.js)"
	exit 77
fi
if [ ! -f "$dir/node_modules/ajv/dist/2020.js" ]; then
	echo "SKIP: Ajv is not installed in $dir (npm install --prefix $dir @modelcontextprotocol/sdk@1.32.2)"
	exit 77
fi
MCP_SDK_DIR=$dir exec node "${top_srcdir:-.}/tests/json_schema.mjs"
