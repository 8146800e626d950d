# tests/lib.sh: helpers for the black-box shell tests. Source it; it needs $HERMES (the built
# binary) and gives each test a fresh workspace in $WS, removed on exit.
set -u
: "${HERMES:?HERMES must point to the built hermes binary}"
: "${top_srcdir:=.}"
WS=$(mktemp -d "${TMPDIR:-/tmp}/hermes-test.XXXXXX")
trap 'rm -rf "$WS"' EXIT
failures=0
checks=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() {
	checks=$((checks + 1))
	if [ "$2" != "$3" ]; then
		fail "$1"
		printf '  expected: %s\n  actual:   %s\n' "$3" "$2" >&2
	fi
}

# expect_match WHAT TEXT PATTERN (grep -E)
expect_match() {
	checks=$((checks + 1))
	if ! printf '%s\n' "$2" | grep -Eq -- "$3"; then
		fail "$1"
		printf '  pattern: %s\n  text:    %s\n' "$3" "$2" >&2
	fi
}

# run_hermes ARGS... (stdin passed through): sets $out, $err, $rc
run_hermes() {
	out=$("$HERMES" "$@" 2>"$WS/.stderr")
	rc=$?
	err=$(cat "$WS/.stderr")
}

# table_verbs: the verbs declared in defs/verbs.def, one per line, sorted case-insensitively as
# hermes lists them. Tests compare with this, never with a written count or list, so that adding
# a verb to the table breaks none of them.
table_verbs() {
	sed -n 's/^[[:space:]]*HERMES_VERB("\([^"]*\)".*/\1/p' "$top_srcdir/defs/verbs.def" | LC_ALL=C sort -f
}

finish() {
	echo "$checks checks, $failures failed"
	[ "$failures" -eq 0 ]
	exit $?
}
