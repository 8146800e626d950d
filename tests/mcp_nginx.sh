#!/bin/sh
# tests/mcp_nginx.sh: hermes mcp --listen behind nginx, as the README shows it: two hermes
# processes on Unix sockets, one workspace, as the upstreams of one nginx on a loopback port; the
# TypeScript SDK v2 client (2026-07-28, stateless) connects through nginx and calls tools
# (tests/mcp_nginx.mjs), and each upstream must have served some of its requests, all of which
# succeed; a progress stream comes through unbuffered. Skipped (77), saying why, without nginx,
# node, the client or HTTP.
: "${HERMES:?HERMES is not set (run through make check)}"
. "${top_srcdir:-.}/tests/mcp_node.sh"
MCP_CLIENT_DIR=${MCP_CLIENT_DIR:-$mcp_cache/hermes-mcp-client}
export MCP_CLIENT_DIR
mcp_need_http
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed (it picks the port and waits for nginx)"; exit 77; }
nginx=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$nginx" ]; then
	echo "SKIP: nginx is not installed (apt-get install nginx-light)"
	exit 77
fi
mcp_node 20
mcp_package "$MCP_CLIENT_DIR" @modelcontextprotocol/client @modelcontextprotocol/client@2.4.0 \
	ajv@8.17.1 ajv-formats@3.0.1

work=$(mktemp -d "${TMPDIR:-/tmp}/hermes-nginx.XXXXXX") || exit 1
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
mkdir "$work/ws" "$work/nginx"
for u in a b; do
	"$HERMES" mcp --listen="unix:$work/$u.sock" --root "$work/ws" --log-level=debug \
		2>"$work/$u.log" &
	pids="$pids $!"
done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log info;
events { worker_connections 64; }
http {
    access_log $work/nginx/access.log;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    upstream hermes { server unix:$work/a.sock; server unix:$work/b.sock; keepalive 8; }
    server {
        listen 127.0.0.1:$port;
        location = /mcp {
            proxy_pass http://hermes;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_read_timeout 1h;
        }
    }
}
CONF
"$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" 2>"$work/nginx/stderr" &
pids="$pids $!"
for _ in $(seq 100); do
	[ -S "$work/a.sock" ] && [ -S "$work/b.sock" ] &&
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $port)).close()" 2>/dev/null &&
		break
	sleep 0.05
done
MCP_URL="http://127.0.0.1:$port/mcp" MCP_WS="$work/ws" "$NODE" "${top_srcdir:-.}/tests/mcp_nginx.mjs"
status=$?
for u in a b; do
	n=$(grep -c 'request tools/call' "$work/$u.log")
	echo "upstream $u served $n tools/call"
	if [ "$n" -eq 0 ]; then
		echo "FAIL: upstream $u served no tools/call"
		status=1
	fi
done
[ $status -eq 0 ] || { tail -n 20 "$work/nginx/error.log"; tail -n 20 "$work/a.log" "$work/b.log"; }
exit $status
