#!/bin/sh
# tests/idl_golden.sh: `hermes schema VERB` must equal tests/golden/VERB.idl for every verb, and
# every verb must have a golden file. Refresh deliberately with `make update-golden` after a
# change to defs/verbs.def, and review the diff.
. "${top_srcdir:-.}/tests/lib.sh"
golden="$top_srcdir/tests/golden"

verbs=$("$HERMES" verbs | cut -d' ' -f1)
expect_match "hermes verbs lists sixteen verbs" "$(echo "$verbs" | wc -l)" '^ *16$'
for verb in $verbs; do
	if [ "${HERMES_UPDATE_GOLDEN:-}" = 1 ]; then
		"$HERMES" schema "$verb" >"$golden/$verb.idl"
		continue
	fi
	checks=$((checks + 1))
	if [ ! -f "$golden/$verb.idl" ]; then
		fail "no golden IDL for $verb (run make update-golden)"
	elif ! "$HERMES" schema "$verb" | diff -u "$golden/$verb.idl" - >&2; then
		fail "hermes schema $verb differs from tests/golden/$verb.idl"
	fi
done
for file in "$golden"/*.idl; do
	verb=$(basename "$file" .idl)
	echo "$verbs" | grep -qx "$verb" || fail "golden file for unknown verb: $file"
done
# Case-insensitive lookup and several verbs at once.
expect_eq "schema FS.READRANGE" "$("$HERMES" schema FS.READRANGE)" "$(cat "$golden/fs.readRange.idl")"
expect_eq "schema of two verbs" "$("$HERMES" schema fs.exists proc.run)" \
	"$(cat "$golden/fs.exists.idl"; echo; cat "$golden/proc.run.idl")"
all=$("$HERMES" schema)
expect_match "schema without a verb has every verb" "$(echo "$all" | grep -c '^type .*Args$')" '^16$'
finish
