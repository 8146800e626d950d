#!/bin/sh
# bench/files_transfer.sh: raw transfers of `hermes mcp --listen` (GET/PUT /files/PATH) against
# their references, by curl on loopback: a download of one file against nginx serving the same
# file and against `curl file://`, an upload against `cat > file`; the median of RUNS runs each,
# and Hermes' peak RSS (VmHWM) over all of them. Run by hand (machines are noisy):
#
#   bench/files_transfer.sh [SIZE_MB]        (default 100; RUNS=5, HERMES=./hermes, TMPDIR)
#
# The nginx row is left out where nginx is not installed.
set -eu
LC_ALL=C
export LC_ALL
size_mb=${1:-100}
runs=${RUNS:-5}
hermes=${HERMES:-./hermes}
command -v curl >/dev/null || { echo "bench/files_transfer.sh: needs curl" >&2; exit 1; }
d=$(mktemp -d "${TMPDIR:-/tmp}/hermes-files-bench.XXXXXX")
hpid= npid=
cleanup() {
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null
	[ -n "$npid" ] && kill "$npid" 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT INT TERM
mkdir -p "$d/ws" "$d/nginx"
head -c "$((size_mb * 1000 * 1000))" /dev/urandom >"$d/ws/file.bin"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

"$hermes" mcp --listen=127.0.0.1:0 --root "$d/ws" 2>"$d/hermes.err" &
hpid=$!
i=0
until hurl=$(sed -n 's|.*listening on http://\([^/]*\)/mcp.*|\1|p' "$d/hermes.err") && [ -n "$hurl" ]; do
	i=$((i + 1)); [ $i -lt 500 ] || { cat "$d/hermes.err" >&2; exit 1; }; sleep 0.01
done
if command -v nginx >/dev/null; then
	nport=$(free_port)
	cat >"$d/nginx/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1; pid $d/nginx/nginx.pid;
error_log $d/nginx/error.log warn;
events { worker_connections 64; }
http { access_log off; sendfile on; client_body_temp_path $d/nginx;
       server { listen 127.0.0.1:$nport; root $d/ws; } }
CONF
	nginx -c "$d/nginx/nginx.conf" -p "$d/nginx" &
	npid=$!
	sleep 0.3
fi

# median seconds of RUNS runs of a shell command
median() {
	for r in $(seq "$runs"); do
		s=$(date +%s.%N); sh -c "$1" >/dev/null; e=$(date +%s.%N)
		echo "$e - $s" | bc -l
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'
}
row() { # name seconds
	printf '%-40s %8.3f s %8.0f MB/s\n' "$1" "$2" "$(echo "$size_mb / $2" | bc -l)"
}
echo "$size_mb MB, median of $runs runs, loopback"
t=$(median "curl -sSf -o /dev/null http://$hurl/files/file.bin"); row "download: hermes GET /files" "$t"
[ -n "$npid" ] && { t=$(median "curl -sSf -o /dev/null http://127.0.0.1:$nport/file.bin"); row "download: nginx (sendfile)" "$t"; }
t=$(median "curl -sSf -o /dev/null file://$d/ws/file.bin"); row "download: curl file://" "$t"
t=$(median "curl -sSf -X PUT -T $d/ws/file.bin http://$hurl/files/up.bin"); row "upload: hermes PUT /files (fsync'd)" "$t"
t=$(median "cat $d/ws/file.bin > $d/ws/cat.bin"); row "upload: cat > file" "$t"
t=$(median "cat $d/ws/file.bin > $d/ws/cat.bin && sync $d/ws/cat.bin"); row "upload: cat > file && sync file" "$t"
cmp "$d/ws/file.bin" "$d/ws/up.bin"
echo "hermes peak RSS: $(awk '/VmHWM/ { print $2, $3 }' /proc/$hpid/status)"
