#!/bin/sh
# tests/server_callgraph.sh: the server's rooms, and the files in them, call each other in one
# direction only. The rooms, from the top: src/transport (stdio/, http/) -> src/session (the
# session API) -> src/protocol (hermes/, mcp/: side by side) -> src/rpc (the core and its leaves).
# From the built library (the archive libtool makes of libhermes_server.la), file A calls (or
# reads) file B when a symbol B defines is undefined in A. Fails when: the graph of those edges has
# a cycle (tsort finds one); an edge goes from a room to a room above it, or between two sub-parts
# of one room (stdio and http, hermes and mcp); or the orders drawn at the top of
# src/session/session.h and in doc/DESIGN.md (the rooms and the files they name, in that order)
# miss a file or room or draw one an edge does not follow. Prints the edges. Needs nm (binutils)
# and tsort (coreutils); skipped (77) without them.
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
# The rooms from the top, and each file's room and part ("file rank room part"): the library
# holds the core's objects too (LIBADD), only the files of the rooms count.
rooms="transport session protocol rpc"
rank=0
for room in $rooms; do
	rank=$((rank + 1))
	for c in $(find "$top_srcdir/src/$room" -name '*.c' | sort); do
		part=${c#"$top_srcdir/src/"}; part=${part%/*}
		echo "$(basename "$c" .c) $rank $room $part"
	done
done | sort >"$tmp/rooms"
cut -d' ' -f1 "$tmp/rooms" >"$tmp/files"
if [ -n "$(uniq -d "$tmp/files")" ]; then
	echo "FAIL: two files of the rooms share a name (the archive keeps one): $(uniq -d "$tmp/files")" >&2
	exit 1
fi
members -g --defined-only | sort -k2 | join -1 2 -o 1.1,1.2 - "$tmp/files" | sort >"$tmp/defined"
members -u | sort -k2 | join -1 2 -o 1.1,1.2 - "$tmp/files" | sort >"$tmp/used"
# symbol user, symbol definer -> "user definer" (a file's use of its own symbols is no edge)
join "$tmp/used" "$tmp/defined" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"
awk '{ print $2, $2 }' "$tmp/defined" | sort -u >"$tmp/nodes" # every file, called or not

if ! cat "$tmp/edges" "$tmp/nodes" | tsort >"$tmp/order" 2>"$tmp/loop"; then
	echo "FAIL: the files of the server's rooms call each other in a cycle:" >&2
	sed 's/^tsort: /  /' "$tmp/loop" >&2
	echo "edges (caller callee):" >&2
	sed 's/^/  /' "$tmp/edges" >&2
	exit 1
fi
echo "an order the calls follow: $(tr '\n' ' ' <"$tmp/order")"

# Between rooms: down only, and never across from one part of a room to another.
status=0
while read -r from to; do
	set -- $(awk -v f="$from" '$1 == f { print $2, $3, $4 }' "$tmp/rooms")
	ra=$1 rooma=$2 parta=$3
	set -- $(awk -v f="$to" '$1 == f { print $2, $3, $4 }' "$tmp/rooms")
	rb=$1 roomb=$2 partb=$3
	if [ "$ra" -gt "$rb" ]; then
		echo "FAIL: $parta/$from.c calls $partb/$to.c, in src/$roomb, a room above src/$rooma" >&2
		status=1
	elif [ "$ra" -eq "$rb" ] && [ "$parta" != "$partb" ] && [ "$parta" != "$rooma" ] &&
		[ "$partb" != "$roomb" ]; then
		echo "FAIL: $parta/$from.c calls $partb/$to.c: the parts of src/$rooma stand side by side" >&2
		status=1
	fi
done <"$tmp/edges"

# The drawings of the order, at the top of session.h and in doc/DESIGN.md's server section: each
# must name the rooms in their order and every file, in an order every edge follows. $1: where;
# stdin: the drawing.
check_drawing() { # (not in a pipeline: it sets status)
	tee "$tmp/drawing" >/dev/null
	drawn_rooms=$(grep -o 'src/[a-z]*/' "$tmp/drawing" | sed 's|^src/||; s|/$||' | awk '!seen[$0]++' |
		tr '\n' ' ')
	if [ "$drawn_rooms" != "$rooms " ]; then
		echo "FAIL: $1 draws the rooms as: $drawn_rooms(expected: $rooms)" >&2
		status=1
	fi
	grep -o '[a-z_0-9]*\.c' "$tmp/drawing" | sed 's/\.c$//' | awk '!seen[$0]++ { print $0, NR }' >"$tmp/drawn"
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
sed -n '/Rooms of the server/,/\*\//p' "$top_srcdir/src/session/session.h" >"$tmp/session.h"
check_drawing session.h <"$tmp/session.h"
# the first fenced block of the section "## The server"
awk '/^## The server/ { in_section = 1; next } /^## / { in_section = 0 }
     in_section && /^```/ { if (fence++) exit; next } in_section && fence' \
	"$top_srcdir/doc/DESIGN.md" >"$tmp/DESIGN.md"
check_drawing doc/DESIGN.md <"$tmp/DESIGN.md"
echo "edges (caller callee):"
sed 's/^/  /' "$tmp/edges"
exit $status
