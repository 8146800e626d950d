#!/bin/sh
# bench/http.sh: hermes mcp --listen against nginx serving a small static file on the same
# machine (the floor for HTTP here), both driven by bench/http_client.c: tools/call fs_exists
# (2026-07-28, stateless) with 64 keep-alive connections and with one, and the stdio round trip of
# the same call for the 2x goal (bench/client.c, as bench/compare measures it). Run by hand.
#
#   bench/http.sh [SECONDS]      HERMES=path/to/hermes (default ./hermes), CC, nginx on the PATH
#                                or in /usr/sbin
set -eu
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:-5}
HERMES=${HERMES:-./hermes}
HERMES=$(cd "$(dirname "$HERMES")" && pwd)/$(basename "$HERMES")
nginx=$(command -v nginx || echo /usr/sbin/nginx)
work=$(mktemp -d "${TMPDIR:-/tmp}/hermes-bench-http.XXXXXX")
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$work"' EXIT INT TERM
${CC:-cc} -O2 -Wall -pthread -o "$work/http_client" "$here/http_client.c"

"$HERMES" mcp --listen=127.0.0.1:0 --root "$work" 2>"$work/hermes.err" &
pids="$pids $!"
port=
for _ in $(seq 100); do
	port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\)\/mcp.*/\1/p' "$work/hermes.err")
	[ -n "$port" ] && break
	sleep 0.05
done
body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs_exists","arguments":{"path":"."},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
hermes_run() {
	"$work/http_client" 127.0.0.1 "$port" "$1" "$secs" POST /mcp "$body" \
		"MCP-Protocol-Version: 2026-07-28" "Mcp-Method: tools/call" "Mcp-Name: fs_exists" \
		"Accept: application/json, text/event-stream"
}

nport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/nginx/www"
printf '{"exists":true,"succeeded":true,"errorMessage":null,"errorCode":null}\n' >"$work/nginx/www/small.json"
cat >"$work/nginx/nginx.conf" <<CONF
daemon off;
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    keepalive_requests 100000000;
    server { listen 127.0.0.1:$nport; root $work/nginx/www; }
}
CONF
if [ "$(id -u)" = 0 ]; then sed -i '1i user root;' "$work/nginx/nginx.conf"; fi
"$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids="$pids $!"
sleep 0.3
nginx_run() { "$work/http_client" 127.0.0.1 "$nport" "$1" "$secs" GET /small.json; }

rate() { sed -n 's/.*rate=\([0-9.]*\).*/\1/p'; }
rtt() { sed -n 's/.*rtt_us=\([0-9.]*\).*/\1/p'; }
h64=$(hermes_run 64) n64=$(nginx_run 64) h1=$(hermes_run 1) n1=$(nginx_run 1)
echo "hermes tools/call fs_exists, 64 connections: $h64"
echo "nginx static file,            64 connections: $n64"
echo "hermes tools/call fs_exists,  1 connection:  $h1"
echo "nginx static file,             1 connection:  $n1"
awk -v h="$(echo "$h64" | rate)" -v n="$(echo "$n64" | rate)" \
	'BEGIN { printf "64 connections: hermes at %.0f%% of nginx'"'"'s rate (goal: at least 50%%)\n", 100 * h / n }'

echo "one request at a time over HTTP: $(echo "$h1" | rtt) us (goal: within 2x the stdio round trip; bench/compare --only exists1 gives it)"
