#!/usr/bin/env bash
# bench/search.sh: fs.search against ripgrep on a 50k-file tree. Run by hand, not by make check:
#     bench/search.sh [HERMES] [FILES]
# Makes the tree of tests/search_corpus.py (50000 files in 5000 nested directories, ~300 MB, with
# its nested .gitignore files) in a temporary directory, warms the page cache, then times each
# pattern RUNS times with rg and with `hermes exec` (one process each, as an agent would call
# it), alternating, and prints the median times and their ratio. Both use every processor the
# machine gives them; the load average is printed before and after, since other work on the
# machine moves the figures.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hermes=${1:-$here/../_build/hermes}
files=${2:-50000}
runs=${RUNS:-5}
command -v rg >/dev/null || { echo "bench/search.sh: rg (ripgrep) is not installed" >&2; exit 1; }
[ -x "$hermes" ] || { echo "bench/search.sh: no hermes binary at $hermes" >&2; exit 1; }

tree=$(mktemp -d "${TMPDIR:-/tmp}/hermes-search-bench.XXXXXX")
trap 'rm -rf "$tree"' EXIT
python3 "$here/../tests/search_corpus.py" "$tree" --files "$files" --dirs $((files / 10)) \
	--min-lines 20 --max-lines 200
echo "tree: $(find "$tree" -type f | wc -l) files, $(find "$tree" -type d | wc -l) directories, $(du -sh "$tree" | cut -f1)"
echo "machine: $(nproc) processors; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# name | rg options and pattern | fs.search arguments (JSON)
# The first group makes hermes read every byte and return every match, as rg does; in the second
# more lines match than maxResults keeps, and hermes stops reading a file at its first match once
# that file sorts after every match it keeps (rg prints them all).
cases=(
	"literal, no match|-e zyxwvut|{\"pattern\":\"zyxwvut\"}"
	"regex, no match|-e [0-9]{9,}|{\"pattern\":\"[0-9]{9,}\"}"
	"ignore case, no match|-i -e zyx-todo|{\"pattern\":\"zyx-todo\",\"ignoreCase\":true}"
	"regex, 5k lines, all returned|-e fn\\s\\w+_99\\(|{\"pattern\":\"fn\\\\s\\\\w+_99\\\\(\",\"maxResults\":10000}"
	"regex, 200 lines, with context|-C 2 -e hello\\sworld\\shello|{\"pattern\":\"hello\\\\sworld\\\\shello\",\"contextLines\":2,\"maxResults\":1000}"
	"include glob, hidden, no ignore|--hidden --no-ignore -g *.c -e zyxwvut|{\"pattern\":\"zyxwvut\",\"include\":[\"*.c\"],\"includeHidden\":true,\"respectIgnore\":false}"
	"literal, 560k lines, 200 returned|-e hello|{\"pattern\":\"hello\"}"
	"literal, 560k lines, 10000 returned|-e hello|{\"pattern\":\"hello\",\"maxResults\":10000}"
	"regex with a literal, 530k lines|-e \\bfn\\s+\\w+_\\d+|{\"pattern\":\"\\\\bfn\\\\s+\\\\w+_\\\\d+\"}"
	"regex without a literal, 550k lines|-e [0-9]{5,}|{\"pattern\":\"[0-9]{5,}\"}"
	"ignore case, 555k lines|-i -e todo|{\"pattern\":\"todo\",\"ignoreCase\":true}"
)
printf '%-40s %10s %10s %7s\n' "case" "rg (s)" "hermes (s)" "ratio"
cd "$tree"
rg --no-config -c zzz . </dev/null >/dev/null || true # warm the page cache
for c in "${cases[@]}"; do
	IFS='|' read -r name rgargs json <<<"$c"
	read -r -a rga <<<"$rgargs"
	env="{\"verb\":\"fs.search\",\"arguments\":$json}"
	rg_times=() h_times=()
	for _ in $(seq "$runs"); do
		t0=$(now); rg --no-config --no-heading -n --column "${rga[@]}" . </dev/null >/dev/null || true; t1=$(now)
		"$hermes" exec --root "$tree" <<<"$env" >/dev/null || true; t2=$(now)
		rg_times+=($((t1 - t0))) h_times+=($((t2 - t1)))
	done
	r=$(printf '%s\n' "${rg_times[@]}" | median)
	h=$(printf '%s\n' "${h_times[@]}" | median)
	awk -v n="$name" -v r="$r" -v h="$h" 'BEGIN { printf "%-40s %10.3f %10.3f %6.2fx\n", n, r/1e9, h/1e9, h/r }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
