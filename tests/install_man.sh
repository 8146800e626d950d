#!/bin/sh
# tests/install_man.sh: the manual pages. hermes-verbs(7) names every verb the program runs and
# every error code, with every argument and result field and the traits hermes schema shows;
# hermes(1) names every command and option the program accepts; both format without warnings.
. "$top_srcdir/tests/console_lib.sh"

page() { if [ -f "$top_builddir/doc/$1" ]; then echo "$top_builddir/doc/$1"; else echo "$top_srcdir/doc/$1"; fi; }
verbs7=$(page hermes-verbs.7)
man1=$(page hermes.1)
[ -f "$verbs7" ] || fail "doc/hermes-verbs.7 was not built"
[ -f "$man1" ] || fail "doc/hermes.1 was not built"

"$HERMES" verbs >"$tmp/verbs" || fail "hermes verbs"
[ -s "$tmp/verbs" ] || fail "hermes verbs printed nothing"
while read -r verb _; do
	grep -q "^\.SS $verb\$" "$verbs7" || fail "hermes-verbs(7) has no section for $verb"
	# Every field the schema shows for it.
	"$HERMES" schema "$verb" >"$tmp/idl" || fail "hermes schema $verb"
	for field in $(sed -n 's/^ *\([a-zA-Z][a-zA-Z0-9]*\)?\{0,1\}:.*/\1/p' "$tmp/idl"); do
		grep -q "^\.BR $field " "$verbs7" || fail "hermes-verbs(7) lacks field $field of $verb"
	done
	traits=$(sed -n 's|^// traits: ||p' "$tmp/idl" | sed 's/-/\\-/g')
	[ -n "$traits" ] || fail "hermes schema $verb shows no traits line"
	sed -n "/^\.SS $verb\$/,/^\.S[SH] /p" "$verbs7" | grep -qxF "$traits." ||
		fail "hermes-verbs(7) does not give $verb the traits its schema shows ($traits)"
done <"$tmp/verbs"
for code in $(sed -n 's/^HERMES_ERROR(\([A-Za-z]*\),.*/\1/p' "$top_srcdir/defs/errors.def"); do
	grep -q "^\.B $code\$" "$verbs7" || fail "hermes-verbs(7) lacks error code $code"
done

for word in exec schema verbs serve mcp --protocol --interactive --root --pretty --max-read-bytes --proc-timeout \
	--proc-output-limit --max-envelope-bytes --framing --max-message-bytes --jobs --log-level \
	--help --version NO_COLOR XDG_STATE_HOME; do
	sed 's/\\-/-/g' "$man1" | grep -q -- "$word" || fail "hermes(1) does not mention $word"
done
# Every option the program's own --help shows (so a new option cannot go undocumented).
sed 's/\\-/-/g' "$man1" >"$tmp/man1.txt"
"$HERMES" --help >"$tmp/help" 2>&1 || fail "hermes --help"
for cmd in exec schema verbs serve mcp; do
	"$HERMES" "$cmd" --help >>"$tmp/help" 2>/dev/null || echo "note: no 'hermes $cmd --help' yet"
done
for opt in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u); do
	grep -q -- "$opt" "$tmp/man1.txt" || fail "hermes(1) does not document $opt (from --help)"
done
grep -q '@VERSION@' "$man1" && fail "hermes(1) still has @VERSION@"
grep -q '^\.SH EXIT STATUS' "$man1" || fail "hermes(1) has no EXIT STATUS"

# Format them as man(1) would and look for warnings.
if command -v groff >/dev/null; then
	for p in "$man1" "$verbs7"; do
		groff -man -Tutf8 -ww -z "$p" 2>"$tmp/warn" || fail "groff failed on $p"
		[ -s "$tmp/warn" ] && fail "groff warnings for $p: $(cat "$tmp/warn")"
	done
fi
exit 0
