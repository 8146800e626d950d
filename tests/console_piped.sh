#!/bin/sh
# tests/console_piped.sh: `hermes -i` fed by a pipe, as a script drives it: the same submission
# boundaries as at a terminal, no prompt, no colour, one JSON result per envelope, and the exit
# status of `hermes exec`.
. "$top_srcdir/tests/console_lib.sh"

printf 'a\nb\n' >"$ws/f.txt"

# YAML ended by an empty line, by ---, by ...; JSON on its brace (twice on one line); a :command;
# a YAML envelope ended by the end of input.
"$HERMES" -i --root "$ws" >"$tmp/out" 2>"$tmp/err" <<'EOF2'
verb: fs.readFile
arguments:
  path: f.txt

verb: fs.exists
arguments: {path: f.txt}
---
verb: fs.exists
arguments: {path: missing}
...
{"verb": "fs.readFile",
 "arguments": {"path": "f.txt"}} {"verb": "fs.exists", "arguments": {"path": "f.txt"}}
:root
verb: fs.readFile
arguments: {path: f.txt}
EOF2
status=$?
[ "$status" -eq 0 ] || fail "exit status $status (expected 0); stderr: $(cat "$tmp/err")"
[ -s "$tmp/err" ] && fail "unexpected diagnostics: $(cat "$tmp/err")"
grep -q 'hermes>' "$tmp/out" && fail "a prompt was printed to a pipe"
[ "$(grep -c '^{' "$tmp/out")" -eq 6 ] || fail "expected 6 results, got: $(cat "$tmp/out")"
[ "$(grep -c '"content":"a\\nb\\n"' "$tmp/out")" -eq 3 ] || fail "fs.readFile results: $(cat "$tmp/out")"
grep -q '"exists":false' "$tmp/out" || fail "no exists:false result"
grep -qx "$(cd "$ws" && pwd -P)" "$tmp/out" || fail ":root did not print the workspace"
printf '\033' >"$tmp/esc"
grep -q "$(cat "$tmp/esc")" "$tmp/out" "$tmp/err" && fail "colour escape sequences in piped output"

# A failed verb: status 1. A syntax error: reported with the input line, its result printed,
# nothing run, and the envelopes after it still run; status 2.
printf 'verb: fs.readFile\narguments: {path: nope}\n\n' | "$HERMES" -i --root "$ws" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "a failed verb should give status 1"
grep -q '"errorCode":"NotFound"' "$tmp/out" || fail "no NotFound result: $(cat "$tmp/out")"

printf '{"verb": "fs.exists"}\n\n{"verb": "fs.writeFile",\n "arguments": {"path": "x", "content": "y",}}\n{"verb":"fs.exists","arguments":{"path":"f.txt"}}\n' \
	| "$HERMES" -i --root "$ws" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "an undecodable envelope should give status 2"
[ -e "$ws/x" ] && fail "an envelope with a syntax error ran"
grep -q '<stdin>:4:' "$tmp/err" || fail "the syntax error should name input line 4: $(cat "$tmp/err")"
[ "$(grep -c '^{' "$tmp/out")" -eq 3 ] || fail "expected 3 results: $(cat "$tmp/out")"
tail -n 1 "$tmp/out" | grep -q '"exists":true' || fail "the envelope after the error did not run"

# A pasted block scalar with empty lines inside: the empty lines are text, not the end of the
# envelope (it was submitted at the first one, and the file written cut short, "succeeded").
printf 'verb: fs.writeFile\narguments:\n  path: block.txt\n  content: |\n    one\n\n\n    four\n  \n...\nverb: fs.exists\narguments: {path: block.txt}\n\n' \
	| "$HERMES" -i --root "$ws" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] || fail "block scalar: status $?: $(cat "$tmp/err")"
[ "$(grep -c '^{' "$tmp/out")" -eq 2 ] || fail "block scalar: expected 2 results: $(cat "$tmp/out")"
printf 'one\n\n\nfour\n' | cmp -s - "$ws/block.txt" || fail "block scalar: the file holds $(od -c "$ws/block.txt")"

# --pretty indents piped results.
printf '{"verb":"fs.exists","arguments":{"path":"f.txt"}}\n' | "$HERMES" -i --pretty --root "$ws" >"$tmp/out"
grep -q '^  "exists": true' "$tmp/out" || fail "--pretty did not indent: $(cat "$tmp/out")"

# An envelope over --max-envelope-bytes is refused unread, and what follows still runs.
{ printf 'verb: fs.writeFile\narguments: {path: big, content: "'; head -c 3000 /dev/zero | tr '\0' a
  printf '"}\n\n{"verb":"fs.exists","arguments":{"path":"f.txt"}}\n'; } \
	| "$HERMES" -i --max-envelope-bytes=1K --root "$ws" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "an oversized envelope should give status 2"
[ -e "$ws/big" ] && fail "an oversized envelope ran"
grep -q 'larger than 1024 bytes' "$tmp/err" || fail "oversized: $(cat "$tmp/err")"
head -n 1 "$tmp/out" | grep -q '"errorCode":"InvalidEnvelope"' || fail "oversized result: $(cat "$tmp/out")"
tail -n 1 "$tmp/out" | grep -q '"exists":true' || fail "the envelope after the oversized one did not run"

# A result that cannot be written is an error, status 1, as for hermes exec, and nothing more
# runs (nobody would see its result).
if [ -w /dev/full ]; then
	printf '{"verb":"fs.writeFile","arguments":{"path":"full1.txt","content":"x"}}\n:root\n{"verb":"fs.writeFile","arguments":{"path":"full2.txt","content":"x"}}\n' |
		"$HERMES" -i --root "$ws" >/dev/full 2>"$tmp/err"
	status=$?
	[ "$status" -eq 1 ] || fail "console to a full disk: status $status (expected 1)"
	grep -q 'cannot write the result' "$tmp/err" || fail "console to a full disk: $(cat "$tmp/err")"
	[ -e "$ws/full2.txt" ] && fail "the console went on after its output failed"
	printf ':root\n' | "$HERMES" -i --root "$ws" >/dev/full 2>/dev/null
	[ $? -eq 1 ] || fail "console :root to a full disk: status should be 1"
fi

# CRLF input is accepted.
printf 'verb: fs.exists\r\narguments: {path: f.txt}\r\n\r\n' | "$HERMES" -i --root "$ws" >"$tmp/out" 2>&1
grep -q '"exists":true' "$tmp/out" || fail "CRLF input: $(cat "$tmp/out")"
exit 0
