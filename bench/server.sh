#!/bin/sh
# bench/server.sh: one `hermes serve` figure at a time, for probing what bench/compare's table does
# not vary: both framings, any in-flight count, any --jobs. Drives the server with bench/client.c
# (every reply matched to its id and checked) and prints the client's result line for fs.exists
# and fs.readRange (20 lines of a 1000-line file) in each framing: requests/s, CPU of client and
# server, the server's RSS sampled along the run and its peak.
#
#   bench/server.sh [HERMES]        HERMES: the hermes binary (default: ./hermes)
#   environment: N (requests per run, default 200000), INFLIGHT (default 64), JOBS (--jobs),
#                FRAMINGS (default "content-length ndjson"), RUNS (default 3), CC
set -eu
here=$(cd "$(dirname "$0")" && pwd)
HERMES=${1:-${HERMES:-./hermes}}
case $HERMES in /*) ;; *) HERMES=$(pwd)/$HERMES ;; esac
[ -x "$HERMES" ] || { echo "server.sh: no hermes binary at $HERMES" >&2 && exit 2; }
N=${N:-200000}
INFLIGHT=${INFLIGHT:-64}
RUNS=${RUNS:-3}

work=$(mktemp -d "${TMPDIR:-/tmp}/hermes-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
${CC:-cc} -O2 -Wall -o "$work/client" "$here/client.c"
mkdir "$work/ws"
i=1
while [ $i -le 1000 ]; do
	echo "line $i of a thousand, long enough to look like source code: x = f(y) + $i;"
	i=$((i + 1))
done >"$work/ws/file.txt"

echo "# hermes serve: $("$HERMES" --version | head -n 1); $(uname -srm), $(getconf _NPROCESSORS_ONLN) processor(s)"
echo "# $N requests per run, median of $RUNS runs, $INFLIGHT in flight${JOBS:+, --jobs $JOBS}"
status=0
for framing in ${FRAMINGS:-content-length ndjson}; do
	for verb in fs.exists fs.readRange; do
		if [ $verb = fs.exists ]; then
			params='{"path":"file.txt"}'
		else
			params='{"path":"file.txt","startLine":500,"endLine":519}'
		fi
		printf '%-12s %-14s ' "$verb" "$framing"
		"$work/client" serve --proto hermes --framing "$framing" --request "$verb" "$params" \
			--count "$N" --inflight "$INFLIGHT" --runs "$RUNS" --warmup 1000 --rss-samples 4 \
			-- "$HERMES" serve --root "$work/ws" --framing="$framing" --protocol=hermes ${JOBS:+--jobs="$JOBS"} || status=1
	done
done
exit $status
