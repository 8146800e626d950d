#!/bin/sh
# tests/mcp_conformance.sh: the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned; it needs node >= 22) against `hermes mcp --listen`, every server scenario that applies
# to a server without the suite's own fixture tools, resources or prompts (the others, and why,
# are in the README's Tests section). Skipped (77), saying why, without node 22, the suite or HTTP.
: "${HERMES:?HERMES is not set (run through make check)}"
. "${top_srcdir:-.}/tests/mcp_node.sh"
MCP_CONFORMANCE_DIR=${MCP_CONFORMANCE_DIR:-$mcp_cache/hermes-mcp-conformance}
mcp_need_http
mcp_node 22
mcp_package "$MCP_CONFORMANCE_DIR" @modelcontextprotocol/conformance \
	@modelcontextprotocol/conformance@0.1.16
suite=$MCP_CONFORMANCE_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js
scenarios="server-initialize ping logging-set-level tools-list server-sse-multiple-streams
dns-rebinding-protection"

work=$(mktemp -d "${TMPDIR:-/tmp}/hermes-conformance.XXXXXX") || exit 1
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
"$HERMES" mcp --listen=127.0.0.1:0 --root "$work" 2>"$work/stderr" &
pid=$!
url=
for _ in $(seq 100); do
	url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/stderr")
	[ -n "$url" ] && break
	sleep 0.05
done
if [ -z "$url" ]; then
	echo "FAIL: hermes mcp --listen did not start:"
	cat "$work/stderr"
	exit 1
fi
status=0
for s in $scenarios; do
	# the suite writes results/ in its working directory: keep that in the scratch directory
	if (cd "$work" && timeout 120 "$NODE" "$suite" server --url "$url" --scenario "$s") \
		>"$work/$s.log" 2>&1; then
		echo "PASS: $s"
	else
		echo "FAIL: $s"
		tail -40 "$work/$s.log"
		status=1
	fi
done
exit $status
