#!/bin/sh
# tests/fuzz/run.sh: runs every libFuzzer target of a fuzzing build for a fixed time, starting from
# its checked-in corpus, and fails on the first crash, leak, timeout or sanitizer report.
# Usage: tests/fuzz/run.sh BUILDDIR [SECONDS]   (BUILDDIR configured with --enable-fuzzing)
# New interesting inputs go to a temporary directory; a crash input is left in BUILDDIR as
# crash-<sha1> (add it to tests/fuzz/corpus/<target>/ once fixed, so it is replayed forever).
set -u
build=$(cd "${1:?usage: run.sh BUILDDIR [SECONDS]}" && pwd) || exit 1
seconds=${2:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
status=0
for bin in "$build"/tests/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin" | sed 's/^fuzz_//')
	mkdir -p "$work/$name"
	seeds="$top/tests/fuzz/corpus/$name"
	extra=""
	[ "$name" = json ] && extra="$top/tests/data/JSONTestSuite/test_parsing"
	[ "$name" = session ] && seeds="$top/tests/fuzz/corpus/server" # the same input as fuzz_server
	echo "== fuzz_$name for ${seconds}s"
	# -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: unbounded memory is a bug.
	(cd "$build" && "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 "$work/$name" "$seeds" $extra) >"$work/$name.log" 2>&1
	rc=$?
	grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|#[0-9]+.*DONE' "$work/$name.log"
	if [ $rc -ne 0 ]; then
		echo "fuzz_$name FAILED (exit $rc):"
		tail -60 "$work/$name.log"
		status=1
	fi
done
exit $status
