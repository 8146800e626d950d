#!/bin/sh
# bench/verbs.sh: times hermes's streaming verbs against the classic tools on a generated file of
# about 1 GiB, in the same run and on the same (warm) page cache: fs.lineCount vs wc -l,
# fs.readRange of lines near the end vs sed -n, fs.copyFile vs cp (and cp + fsync, since hermes
# makes the copy durable before it appears). Prints the best of 3 wall-clock times, the ratios
# (hermes / tool, lower is better) and hermes's peak resident memory.
#
# Usage: bench/verbs.sh [SIZE_MIB]      (HERMES=path/to/hermes, TMPDIR=where the file goes)
# Run by hand; not part of `make check`. Needs GNU time (/usr/bin/time, Debian package "time").
set -eu

size_mib=${1:-1024}
here=$(cd "$(dirname "$0")" && pwd)
hermes=${HERMES:-$here/../hermes}
gnutime=/usr/bin/time
[ -x "$hermes" ] || { echo "bench: no hermes binary at $hermes (build first, or set HERMES)" >&2; exit 1; }
[ -x "$gnutime" ] || { echo "bench: needs GNU time at $gnutime (apt-get install time)" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/hermes-bench-XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM

# ---- the file: source-like lines of varying length, ~1 MiB block repeated -------------------
awk 'BEGIN { srand(42); n = 0;
	while (n < 1048576) {
		len = int(rand() * 110); s = sprintf("%6d", NR + n);
		while (length(s) < len) s = s " token" int(rand() * 1000);
		print s; n += length(s) + 1 } }' > "$dir/block"
i=0
while [ $i -lt "$size_mib" ]; do cat "$dir/block"; i=$((i + 1)); done > "$dir/big.txt"
rm -f "$dir/block"
bytes=$(wc -c < "$dir/big.txt")
cat "$dir/big.txt" > /dev/null # warm the page cache for everyone

# best_of3 OUTFILE CMD...: runs CMD 3 times; OUTFILE gets "seconds maxrss_kib" of the fastest run.
best_of3() {
	out=$1; shift
	best=""
	for _ in 1 2 3; do
		$gnutime -f "%e %M" -o "$dir/t" "$@" > "$dir/stdout" 2>/dev/null < "$dir/stdin"
		read -r s m < "$dir/t"
		if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then best=$s; mem=$m; fi
	done
	echo "$best $mem" > "$out"
}

# hermes_verb JSON: an envelope on stdin of `hermes exec --root DIR`.
hermes_verb() { printf '%s\n' "$1" > "$dir/stdin"; }
ratio() { awk "BEGIN { if ($2 > 0) printf \"%.2f\", $1 / $2; else print \"-\" }"; }

: > "$dir/stdin"

# ---- fs.lineCount vs wc -l ----------------------------------------------------------------------
hermes_verb '{"verb":"fs.lineCount","arguments":{"path":"big.txt"}}'
best_of3 "$dir/h_count" "$hermes" exec --root "$dir"
h_lines=$(sed 's/.*"lineCount":\([0-9]*\).*/\1/' "$dir/stdout")
: > "$dir/stdin"
best_of3 "$dir/w_count" wc -l "$dir/big.txt"
w_lines=$(cut -d' ' -f1 "$dir/stdout")
[ "$h_lines" = "$w_lines" ] || { echo "bench: lineCount $h_lines != wc -l $w_lines" >&2; exit 1; }

# ---- fs.readRange of 10 lines near the end vs sed -n ----------------------------------------
start=$((w_lines - 20)); end=$((w_lines - 11))
hermes_verb "{\"verb\":\"fs.readRange\",\"arguments\":{\"path\":\"big.txt\",\"startLine\":$start,\"endLine\":$end,\"includeLineNumbers\":false}}"
best_of3 "$dir/h_range" "$hermes" exec --root "$dir"
python3 -c 'import json,sys; sys.stdout.write(json.load(open(sys.argv[1]))["content"])' "$dir/stdout" > "$dir/h_range.txt" 2>/dev/null || true
: > "$dir/stdin"
best_of3 "$dir/s_range" sed -n "${start},${end}p;${end}q" "$dir/big.txt"
if command -v python3 > /dev/null; then
	cmp -s "$dir/h_range.txt" "$dir/stdout" || { echo "bench: readRange differs from sed -n" >&2; exit 1; }
fi

# ---- fs.copyFile vs cp (and cp + fsync) -----------------------------------------------------
export dir hermes
hermes_verb '{"verb":"fs.copyFile","arguments":{"sourcePath":"big.txt","destinationPath":"copy-h.txt"}}'
best_of3 "$dir/h_copy" sh -c "rm -f \"\$dir/copy-h.txt\"; exec \"\$hermes\" exec --root \"\$dir\""
cmp -s "$dir/big.txt" "$dir/copy-h.txt" || { echo "bench: the copy differs" >&2; exit 1; }
: > "$dir/stdin"
best_of3 "$dir/c_copy" sh -c 'rm -f "$dir/copy-c.txt"; exec cp "$dir/big.txt" "$dir/copy-c.txt"'
best_of3 "$dir/cs_copy" sh -c 'rm -f "$dir/copy-c.txt"; cp "$dir/big.txt" "$dir/copy-c.txt" && exec sync "$dir/copy-c.txt"'

# ---- report -------------------------------------------------------------------------------------
read -r hc hcm < "$dir/h_count"; read -r wc_ _ < "$dir/w_count"
read -r hr hrm < "$dir/h_range"; read -r sr _ < "$dir/s_range"
read -r hp hpm < "$dir/h_copy"; read -r cp_ _ < "$dir/c_copy"; read -r cs _ < "$dir/cs_copy"
printf 'file: %s bytes (%s MiB), %s lines; %s; %s\n' "$bytes" "$size_mib" "$w_lines" \
	"$(uname -sr)" "$(nproc) CPUs"
printf '%-44s %9s %9s %7s %14s\n' "operation" "hermes s" "tool s" "ratio" "hermes max RSS"
printf '%-44s %9s %9s %7s %11s KiB\n' "fs.lineCount vs wc -l" "$hc" "$wc_" "$(ratio "$hc" "$wc_")" "$hcm"
printf '%-44s %9s %9s %7s %11s KiB\n' "fs.readRange $start-$end vs sed -n" "$hr" "$sr" "$(ratio "$hr" "$sr")" "$hrm"
printf '%-44s %9s %9s %7s %11s KiB\n' "fs.copyFile vs cp" "$hp" "$cp_" "$(ratio "$hp" "$cp_")" "$hpm"
printf '%-44s %9s %9s %7s\n' "fs.copyFile vs cp + sync FILE (durable)" "$hp" "$cs" "$(ratio "$hp" "$cs")"
