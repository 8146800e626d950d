#!/bin/sh
# bench/server.sh: throughput and memory of `hermes serve`. Drives the server through a pipe with
# many requests in flight (bench/server_bench.c, every reply matched to its id) and prints
# requests per second for fs.exists and fs.readRange in both framings, with the server's RSS
# sampled at 25/50/75/100 % of the run and its peak (VmHWM).
#
#   bench/server.sh [HERMES]        HERMES: the hermes binary (default: ./hermes)
#   environment: N (requests per run, default 200000), INFLIGHT (default 64), JOBS (--jobs)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
HERMES=${1:-${HERMES:-./hermes}}
case $HERMES in /*) ;; *) HERMES=$(pwd)/$HERMES ;; esac
N=${N:-200000}
INFLIGHT=${INFLIGHT:-64}
out=${BENCH_OUT:-$here/out}
mkdir -p "$out"
${CC:-cc} -O2 -Wall -o "$out/server_bench" "$here/server_bench.c"

ws=$(mktemp -d "${TMPDIR:-/tmp}/hermes-bench.XXXXXX")
trap 'rm -rf "$ws"' EXIT
i=1
while [ $i -le 1000 ]; do
	echo "line $i of a thousand, long enough to look like source code: x = f(y) + $i;"
	i=$((i + 1))
done >"$ws/file.txt"

echo "# hermes serve benchmark: $("$HERMES" --version 2>/dev/null | head -n 1)"
echo "# $(uname -srm), $(getconf _NPROCESSORS_ONLN) processor(s), $N requests per run, $INFLIGHT in flight${JOBS:+, --jobs $JOBS}"
status=0
for framing in content-length ndjson; do
	"$out/server_bench" "$HERMES" "$ws" $framing fs.exists '{"path":"file.txt"}' "$N" "$INFLIGHT" ${JOBS:-} || status=1
	"$out/server_bench" "$HERMES" "$ws" $framing fs.readRange \
		'{"path":"file.txt","startLine":500,"endLine":519}' "$N" "$INFLIGHT" ${JOBS:-} || status=1
done
exit $status
