#!/bin/sh
# tests/server_callgraph.sh: the files of src/server call each other in one direction only. From
# the built library (the archive libtool makes of libhermes_server.la), file A calls (or reads)
# file B when a symbol B defines is undefined in A; the graph of those edges must have no cycle
# (tsort finds one); and the orders drawn at the top of src/server/session.h and in doc/DESIGN.md
# (the files they name, in that order) must name every file and be ones every edge follows.
# Prints the edges. Needs nm (binutils) and tsort (coreutils); skipped (77) without them.
set -u
LC_ALL=C
export LC_ALL
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
NM=${NM:-nm}
lib="$top_builddir/.libs/libhermes_server.a"
if ! command -v "${NM%% *}" >/dev/null 2>&1 || ! command -v tsort >/dev/null 2>&1; then
	echo "SKIP: nm or tsort not found" >&2
	exit 77
fi
[ -f "$lib" ] || { echo "FAIL: $lib not built" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hermes-callgraph.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# nm -A: "<archive>:<member>.o: [address] <type> <symbol>"; the member names the file
members() {
	$NM -A "$@" "$lib" | awk '{
		n = split($1, p, ":"); f = p[n - 1]; sub(/\.o$/, "", f); sub(/^libhermes_server_la-/, "", f)
		print $NF, f }' | sort -u
}
# the library holds the core's objects too (LIBADD): only the files of src/server count
for c in "$top_srcdir"/src/server/*.c; do basename "$c" .c; done | sort >"$tmp/files"
members -g --defined-only | sort -k2 | join -1 2 -o 1.1,1.2 - "$tmp/files" | sort >"$tmp/defined"
members -u | sort -k2 | join -1 2 -o 1.1,1.2 - "$tmp/files" | sort >"$tmp/used"
# symbol user, symbol definer -> "user definer" (a file's use of its own symbols is no edge)
join "$tmp/used" "$tmp/defined" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"
awk '{ print $2, $2 }' "$tmp/defined" | sort -u >"$tmp/nodes" # every file, called or not

if ! cat "$tmp/edges" "$tmp/nodes" | tsort >"$tmp/order" 2>"$tmp/loop"; then
	echo "FAIL: the files of src/server call each other in a cycle:" >&2
	sed 's/^tsort: /  /' "$tmp/loop" >&2
	echo "edges (caller callee):" >&2
	sed 's/^/  /' "$tmp/edges" >&2
	exit 1
fi
echo "an order the calls follow: $(tr '\n' ' ' <"$tmp/order")"

# The drawings of the order, at the top of session.h and in doc/DESIGN.md's server section: each
# must name every file, in an order every edge follows. $1: where; stdin: the drawing.
status=0
check_drawing() { # (not in a pipeline: it sets status)
	grep -o '[a-z_0-9]*\.c' | sed 's/\.c$//' | awk '!seen[$0]++ { print $0, NR }' >"$tmp/drawn"
	while read -r f; do
		grep -q "^$f " "$tmp/drawn" || { echo "FAIL: $1 does not draw $f.c" >&2; status=1; }
	done <"$tmp/files"
	while read -r from to; do
		a=$(awk -v f="$from" '$1 == f { print $2 }' "$tmp/drawn")
		b=$(awk -v f="$to" '$1 == f { print $2 }' "$tmp/drawn")
		if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -ge "$b" ]; then
			echo "FAIL: $from.c calls $to.c but $1 draws it after $to.c" >&2
			status=1
		fi
	done <"$tmp/edges"
}
sed -n '/Files of src\/server/,/\*\//p' "$top_srcdir/src/server/session.h" >"$tmp/session.h"
check_drawing session.h <"$tmp/session.h"
# the first fenced block of the section "## The server"
awk '/^## The server/ { in_section = 1; next } /^## / { in_section = 0 }
     in_section && /^```/ { if (fence++) exit; next } in_section && fence' \
	"$top_srcdir/doc/DESIGN.md" >"$tmp/DESIGN.md"
check_drawing doc/DESIGN.md <"$tmp/DESIGN.md"
echo "edges (caller callee):"
sed 's/^/  /' "$tmp/edges"
exit $status
