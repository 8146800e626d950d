#!/bin/sh
# tests/gen_errors.sh: the generator reports a broken table like a compiler
# (defs/verbs.def:LINE: error: ...), exits non-zero and writes nothing; and its output is
# deterministic. Needs Python 3 (skipped where the tarball is built without it).
. "${top_srcdir:-.}/tests/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
gen="python3 $top_srcdir/gen/hermes-gen"

# case NAME SED-SCRIPT EXPECTED-ERROR-REGEX [FILE]: break a copy of the table and expect an error
# on the line the sed script changed (marked by the token the script introduces).
case_() {
	name=$1 script=$2 want=$3 file=${4:-verbs.def}
	rm -rf "$WS/defs" && cp -r "$top_srcdir/defs" "$WS/defs"
	sed "$script" "$top_srcdir/defs/$file" >"$WS/defs/$file"
	msg=$($gen --defs "$WS/defs" types-h 2>&1 >"$WS/out")
	status=$?
	expect_eq "$name: exit status" "$status" 1
	expect_match "$name: message" "$msg" "^$WS/defs/$file:[0-9]+: error: $want\$"
	line=$(echo "$msg" | sed -n 's/^[^:]*:\([0-9]*\):.*/\1/p')
	marker=$(echo "$want" | sed -n "s/.*'\([A-Za-z0-9_.]*\)'.*/\1/p")
	if [ -n "$marker" ] && [ -n "$line" ]; then
		expect_match "$name: line $line holds '$marker'" "$(sed -n "${line}p" "$WS/defs/$file")" "$marker"
	fi
	expect_eq "$name: no output" "$(wc -c <"$WS/out" | tr -d ' ')" 0
}

case_ "unknown type" 's/HERMES_FIELD(lineCount, INT32/HERMES_FIELD(lineCount, INT33/' \
	"unknown type 'INT33' \\(expected STRING, HANDLE, INT32, INT64, BOOL or LIST\\(...\\)\\)"
case_ "unknown presence" 's/HERMES_FIELD(exitCode, INT32, REQUIRED/HERMES_FIELD(exitCode, INT32, MAYBE/' \
	"unknown presence 'MAYBE' \\(expected REQUIRED, OPTIONAL or DEFAULT\\(value\\)\\)"
case_ "duplicate field" 's/HERMES_FIELD(content, STRING, REQUIRED, "the complete/HERMES_FIELD(path, STRING, REQUIRED, "the complete/' \
	"duplicate field 'path'"
case_ "unknown argument type" 's/HERMES_VERB("fs.exists", FsExistsArgs/HERMES_VERB("fs.exists", FsExistArgs/' \
	"unknown type 'FsExistArgs'"
case_ "unknown list element" 's/LIST(DiskInfo)/LIST(DiskInformation)/' \
	"unknown type 'DiskInformation' \\(a list's element type is declared before use\\)"
case_ "inverted bounds" 's/INT32(0, 10)/INT32(10, 0)/' "INT32\\(10, 0\\): the minimum is above the maximum"
case_ "a bound out of the type" 's/INT32(0, 10)/INT32(0, 4294967296)/' \
	"a bound of INT32 must be an integer in its range, MIN or MAX"
case_ "a default out of the bounds" 's/INT32(0, 10), DEFAULT(0)/INT32(1, 10), DEFAULT(0)/' \
	"default of a INT32 field must be an integer in range"
case_ "bad default" 's/DEFAULT(true),$/DEFAULT(7),/' \
	"default of a BOOL field must be true or false"
case_ "unknown macro" 's/^HERMES_END()$/HERMES_ENDS()/' "unknown macro 'HERMES_ENDS'"
case_ "verb names are case-insensitive" 's/HERMES_VERB("fs.copyFile"/HERMES_VERB("fs.movefile"/' \
	"verb 'fs.movefile' is already declared \\(verb names are case-insensitive\\)"
case_ "bad verb name" 's/HERMES_VERB("proc.run"/HERMES_VERB("proc-run"/' \
	"invalid verb name 'proc-run' \\(expected family.camelCase\\)"
case_ "result type as argument" 's/HERMES_VERB("fs.lineCount", FsLineCountArgs/HERMES_VERB("fs.lineCount", FsLineCountResult/' \
	"'FsLineCountResult' is a result type, not an argument type"
case_ "redeclared common field" 's/HERMES_FIELD(exitCode, INT32/HERMES_FIELD(succeeded, BOOL/' \
	"'succeeded' is a common result field and cannot be redeclared"
case_ "unterminated string" 's/"workspace-relative path of the text file to read")/"workspace-relative path)/' \
	"unterminated string"
case_ "unknown trait" '/HERMES_VERB("fs.exists"/{n;s/READ_ONLY | IDEMPOTENT/READ_ONLY | QUICK/;}' \
	"unknown trait 'QUICK' \\(expected READ_ONLY \\| DESTRUCTIVE \\| IDEMPOTENT \\| SPAWNS \\| LONG \\| INSTANT, or NONE\\)"
case_ "duplicate trait" '/HERMES_VERB("fs.readFile"/{n;s/| LONG/| LONG | LONG/;}' \
	"duplicate trait 'LONG'"
case_ "read-only and destructive" '/HERMES_VERB("fs.listDir"/{n;s/READ_ONLY/READ_ONLY | DESTRUCTIVE/;}' \
	"traits 'READ_ONLY' and 'DESTRUCTIVE' contradict each other"
case_ "destructive and read-only" '/HERMES_VERB("proc.run"/{n;s/DESTRUCTIVE/DESTRUCTIVE | READ_ONLY/;}' \
	"traits 'DESTRUCTIVE' and 'READ_ONLY' contradict each other"
case_ "nothing after |" '/HERMES_VERB("fs.listDir"/{n;s/READ_ONLY | IDEMPOTENT/READ_ONLY |/;}' \
	"expected a name after '\\|', found ','"
case_ "long and instant" '/HERMES_VERB("fs.readFile"/{n;s/| LONG/| LONG | INSTANT/;}' \
	"traits 'LONG' and 'INSTANT' contradict each other"
case_ "NONE with a trait" '/HERMES_VERB("fs.moveFile"/{n;s/NONE/NONE | LONG/;}' \
	"'NONE' cannot be combined with other traits"
case_ "traits left out" '/HERMES_VERB("fs.copyFile"/{n;d;}' \
	'HERMES_VERB takes 5 arguments \("name", ArgsType, ResultType, TRAITS, "description"\), got 4'
case_ "traits as a string" '/HERMES_VERB("fs.copyFile"/{n;s/LONG/"LONG"/;}' \
	"HERMES_VERB: expected traits \\(e.g. READ_ONLY \\| IDEMPOTENT, or NONE\\)"
case_ "duplicate error code" 's/^HERMES_ERROR(AlreadyExists,/HERMES_ERROR(NotFound,/' \
	"error code 'NotFound' is already declared" errors.def

# Deterministic: the same table gives the same bytes.
for out in types-h descriptors-c yaml-schema-c handlers-h registry-c man-verbs; do
	$gen --defs "$top_srcdir/defs" "$out" >"$WS/a" && $gen --defs "$top_srcdir/defs" "$out" >"$WS/b"
	checks=$((checks + 1))
	cmp -s "$WS/a" "$WS/b" || fail "$out is not deterministic"
done
finish
