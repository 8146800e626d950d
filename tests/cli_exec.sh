#!/bin/sh
# tests/cli_exec.sh: black-box tests of `hermes exec`, `hermes verbs`, `--help` and `--version`
# through the built binary: results, batch alignment, exit statuses, stderr format.
. "${top_srcdir:-.}/tests/lib.sh"
cd "$WS" || exit 1
printf 'hello\nworld\n' >a.txt

# One envelope, JSON and YAML, byte-identical results.
run_hermes exec <<'E'
{"verb": "fs.readFile", "arguments": {"path": "a.txt"}}
E
expect_eq "json exit" "$rc" 0
ver=$(stat -c '%Y' a.txt).$(stat -c '%y' a.txt | sed 's/.*\.\([0-9]*\) .*/\1/')-12-$(printf '%x' "$(stat -c '%i' a.txt)")
expect_eq "json result" "$out" '{"content":"hello\nworld\n","version":"'"$ver"'","succeeded":true,"errorMessage":null,"errorCode":null}'
json=$out
run_hermes exec <<'E'
verb: fs.readFile
arguments:
  path: a.txt
E
expect_eq "yaml result equals json result" "$out" "$json"

# A batch: results stay aligned with envelopes, the exit status is the worst one.
cat >batch.yaml <<'E'
verb: fs.exists
arguments: {path: a.txt}
---
verb: fs.readFile
arguments: {path: missing.txt}
---
# a comment-only document is not an envelope
---
verb: fs.readRange
arguments:
  path: a.txt
  startLine: ten
  endLine: 2
E
run_hermes exec batch.yaml
expect_eq "batch exit status" "$rc" 2
expect_eq "batch result count" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 3
expect_match "batch 1 ok" "$(printf '%s\n' "$out" | sed -n 1p)" '^\{"exists":true,"succeeded":true'
expect_match "batch 2 failed" "$(printf '%s\n' "$out" | sed -n 2p)" '"succeeded":false,"errorMessage":"[^"]*missing.txt[^"]*","errorCode":"NotFound"\}$'
expect_match "batch 3 invalid" "$(printf '%s\n' "$out" | sed -n 3p)" '"errorCode":"InvalidArguments"\}$'
expect_eq "batch stderr names file and line" "$err" 'hermes: batch.yaml:12: startLine: expected Int32, got string "ten"'

# Several JSON envelopes one after another; a failed verb gives exit 1.
run_hermes exec <<'E'
{"verb":"fs.exists","arguments":{"path":"a.txt"}}{"verb":"fs.readFile","arguments":{"path":"nope"}}
  {"verb":"sys.machineInfo"}
E
expect_eq "json stream exit" "$rc" 1
expect_eq "json stream results" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 3
expect_eq "json stream stderr is empty" "$err" ""

# A syntax error: a result on stdout, the position on stderr.
run_hermes exec <<'E'
{"verb": "fs.exists",
 "arguments": {"path": "a.txt",}}
E
expect_eq "syntax error exit" "$rc" 2
expect_eq "syntax error result" "$out" '{"succeeded":false,"errorMessage":"JSON syntax error: expected a string key (found '"'}'"')","errorCode":"InvalidEnvelope"}'
expect_eq "syntax error stderr" "$err" "hermes: <stdin>:2: JSON syntax error: expected a string key (found '}')"

# Files and '-' in order; a missing file is reported and the others still run.
echo '{"verb":"fs.exists","arguments":{"path":"zzz"}}' >one.json
run_hermes exec one.json - nonexistent.json <<'E'
verb: fs.exists
arguments: {path: a.txt}
E
expect_eq "files exit" "$rc" 2
expect_eq "files results in order" "$(printf '%s\n' "$out" | cut -c1-15 | tr '\n' ' ')" '{"exists":false {"exists":true, '
expect_match "missing file message" "$err" "^hermes: cannot read 'nonexistent.json': No such file or directory$"

# --pretty indents by two spaces.
run_hermes exec --pretty one.json
expect_eq "pretty" "$out" '{
  "exists": false,
  "succeeded": true,
  "errorMessage": null,
  "errorCode": null
}'

# --root confines: the root is the workspace, nothing outside is reachable.
mkdir -p inner && echo inside >inner/b.txt
run_hermes exec --root inner <<'E'
verb: fs.readFile
arguments: {path: b.txt}
---
verb: fs.readFile
arguments: {path: ../a.txt}
E
expect_eq "root exit" "$rc" 1
expect_match "root inside" "$(printf '%s\n' "$out" | sed -n 1p)" '"content":"inside\\n"'
expect_match "root outside" "$(printf '%s\n' "$out" | sed -n 2p)" '"errorCode":"OutsideWorkspace"'
run_hermes exec --root "$WS/does-not-exist" one.json
expect_eq "bad root exit" "$rc" 2
expect_match "bad root message" "$err" "^hermes: .*does-not-exist"

# A YAML directive with an empty document (or none) after it ends, with an error (it used to loop
# for ever at the end of the input).
for doc in '%YAML 1.2\n---\n' '%YAML 1.2\n' '%YAML 1.2\n%TAG ! x\n---\n' '---\n%YAML 1.2\n---\n'; do
	out=$(printf '%b' "$doc" | timeout 10 "$HERMES" exec 2>"$WS/.stderr")
	rc=$?
	expect_eq "directive without a document ($doc) ends with status 2" "$rc" 2
done
out=$(printf -- '%%YAML 1.2\n---\nverb: fs.exists\narguments: {path: x}\n' | timeout 10 "$HERMES" exec 2>&1)
expect_eq "directive then an envelope" "$out" '{"exists":false,"succeeded":true,"errorMessage":null,"errorCode":null}'

# One option parser (getopt_long) for every command: options may follow the operands, "--" ends
# them, numbers are strict.
run_hermes exec - --pretty <one.json
expect_eq "an option after the operand: status" "$rc" 0
expect_match "an option after the operand applies" "$out" '^  "exists": '
cp one.json ./--pretty
run_hermes exec -- --pretty
expect_eq "after --, --pretty is a file" "$rc" 0
expect_match "after --, --pretty is a file (compact)" "$out" '^\{"exists":'
rm -f ./--pretty
for bad in --jobs=1K --jobs=0 --jobs=-1 --jobs=1025 --jobs= "--jobs 2x"; do
	run_hermes serve $bad </dev/null
	expect_eq "serve $bad is refused" "$rc" 2
	expect_match "serve $bad: the message names the value" "$err" "invalid --jobs"
done
run_hermes exec --proc-timeout=1K one.json
expect_eq "--proc-timeout=1K is refused" "$rc" 2
run_hermes serve --log-level=warning --help
expect_eq "--log-level=warning (as hermes(1) says) is accepted" "$rc" 0
run_hermes exec --root
expect_eq "an option without its value: status" "$rc" 2
expect_match "an option without its value: message" "$err" "option '--root' requires an argument"
run_hermes verbs extra
expect_eq "verbs takes no operand" "$rc" 2

# An input bigger than the largest envelope is refused as soon as it passes the limit, without
# being read to its end (issue 10, case 5: 1 GiB of stdin cost 1 GiB of memory).
out=$(head -c 300000000 /dev/zero | tr '\0' ' ' | "$HERMES" exec --max-envelope-bytes=1M 2>"$WS/.stderr")
rc=$?
expect_eq "an input over --max-envelope-bytes: status" "$rc" 2
expect_match "an input over --max-envelope-bytes: message" "$(cat "$WS/.stderr")" "more than 1048576 bytes"

# A result that cannot be written is an error (issue 10, case 14), and nothing more runs.
if [ -w /dev/full ]; then
	printf '{"verb":"fs.writeFile","arguments":{"path":"full1.txt","content":"x"}}\n{"verb":"fs.writeFile","arguments":{"path":"full2.txt","content":"x"}}\n' |
		"$HERMES" exec >/dev/full 2>"$WS/.stderr"
	expect_eq "exec to a full disk: status" "$?" 1
	expect_match "exec to a full disk: message" "$(cat "$WS/.stderr")" "cannot write the result"
	[ -e full2.txt ] && fail "exec went on after its output failed"
	rm -f full1.txt
fi
# A workspace root that cannot be used stops serve and mcp at start, as it does exec.
for cmd in serve mcp; do
	run_hermes $cmd --root "$WS/does-not-exist" </dev/null
	expect_eq "$cmd with a bad --root: status" "$rc" 2
	expect_match "$cmd with a bad --root: message" "$err" "does-not-exist"
done

# One broken envelope in a stream gets its own error result and does not swallow the next one
# (issue 10, case 16): three in, three out, in order, through exec and through the console.
stream='{"verb":"fs.exists","arguments":{"path":"a"}}
{"verb":"fs.exists","arguments":{"path":}
{"verb":"fs.exists","arguments":{"path":"c"}}
{"verb":"fs.exists","arguments":{"path":"d"
{"verb":"fs.exists","arguments":{"path":"e"}}'
for mode in exec -i; do
	out=$(printf '%s\n' "$stream" | "$HERMES" $mode 2>/dev/null)
	expect_eq "$mode: one result per envelope" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 5
	expect_eq "$mode: the broken ones fail, the others run" \
		"$(printf '%s\n' "$out" | sed 's/.*"succeeded":\([a-z]*\).*/\1/' | tr '\n' ' ')" \
		"true false true false true "
done

# Usage errors.
run_hermes exec </dev/null
expect_eq "empty input exit" "$rc" 2
expect_eq "empty input message" "$err" "hermes: <stdin>: no envelope found"
run_hermes exec --frobnicate
expect_eq "unknown option exit" "$rc" 2
expect_match "unknown option message" "$err" "unrecognized option '--frobnicate'"
run_hermes exec --max-read-bytes=lots one.json
expect_eq "bad option value exit" "$rc" 2
run_hermes teleport
expect_eq "unknown command exit" "$rc" 2
expect_match "unknown command message" "$err" "unknown command 'teleport'"
run_hermes
expect_eq "no command exit" "$rc" 2

# --help and --version, GNU style.
for cmd in "" exec schema verbs; do
	run_hermes $cmd --help
	expect_eq "hermes $cmd --help exit" "$rc" 0
	expect_match "hermes $cmd --help usage" "$out" "^Usage: hermes"
done
run_hermes --version
expect_eq "version exit" "$rc" 0
expect_match "version line" "$(printf '%s\n' "$out" | head -1)" '^hermes [0-9]+\.[0-9]+\.[0-9]+$'
expect_match "library versions" "$out" '^YAML envelopes: libcyaml [0-9.]+, libyaml [0-9.]+ \(loaded when the first one comes\)$'
expect_match "PCRE2 version" "$out" '^fs.search: PCRE2 [0-9]+\.[0-9]+ '
# YAML and JSON: one rule for values (issue 10, case 15), checked on the real binary: the same
# envelope refused the same way in both, and a plain null never turns into the file name "null".
for pair in 'fs.writeFile|{"path":null,"content":"x"}|{path: null, content: x}' \
            'fs.writeFile|{"path":"f","content":5}|{path: f, content: 5}' \
            'fs.editFile|{"path":"f","edits":[{"oldText":null,"newText":"b"}]}|{path: f, edits: [{oldText: ~, newText: b}]}' \
            'fs.search|{"pattern":"x","include":[null]}|{pattern: x, include: [~]}'; do
	verb=${pair%%|*} rest=${pair#*|}
	json=${rest%%|*} yaml=${rest#*|}
	printf '{"verb":"%s","arguments":%s}\n' "$verb" "$json" >"$WS/env.json"
	run_hermes exec "$WS/env.json"
	from_json=$out
	printf 'verb: %s\narguments: %s\n' "$verb" "$yaml" >"$WS/env.yaml"
	run_hermes exec "$WS/env.yaml"
	expect_eq "YAML and JSON agree on $verb $json" "$out" "$from_json"
	expect_match "refused: $verb $json" "$out" '"errorCode":"InvalidArguments"'
done
[ -e "$WS/null" ] && fail 'a plain YAML null was taken as the file name "null"'

# A big file (over 1 MiB) is streamed from the file as the result is written (issue 28): the
# JSON is what the whole read gives, and one that is not text at its very end fails with nothing
# of its content written.
seq 1 700000 | sed 's/^/line "q" \\ /' >big.txt
size=$(stat -c %s big.txt)
ver=$(stat -c '%Y' big.txt).$(stat -c '%y' big.txt | sed 's/.*\.\([0-9]*\) .*/\1/')-$size-$(printf '%x' "$(stat -c '%i' big.txt)")
{
	printf '{"content":"'
	sed 's/\\/\\\\/g; s/"/\\"/g' big.txt | awk 'BEGIN { ORS = "\\n" } { print }'
	printf '","version":"%s","succeeded":true,"errorMessage":null,"errorCode":null}\n' "$ver"
} >big.want
echo '{"verb":"fs.readFile","arguments":{"path":"big.txt"}}' >big.json
"$HERMES" exec big.json >big.out 2>big.err
expect_eq "big file exit" "$?" 0
cmp -s big.out big.want || fail "big file: the streamed JSON is not the file's ($(wc -c <big.out) bytes, $(wc -c <big.want) wanted)"
expect_eq "big file stderr" "$(cat big.err)" ""
[ "$size" -gt 1048576 ] || fail "big.txt is only $size bytes"
printf '\377' >>big.txt
"$HERMES" exec big.json >big.out 2>big.err
expect_eq "not text at the end: exit" "$?" 1
expect_eq "not text at the end: one line" "$(wc -l <big.out)" 1
expect_match "not text at the end: NotText" "$(cat big.out)" \
	'^\{"succeeded":false,"errorMessage":"cannot read .big.txt. as text: invalid UTF-8 at byte '"$size"' of the content \(line 700001\)","errorCode":"NotText"\}$'

# Cut short and written again over and over while hermes exec reads it (from its mapping, guarded
# against SIGBUS): every run ends with one whole JSON result, the file as read or Conflict, never
# a process killed by SIGBUS.
head -c "$size" big.txt >whole.txt
(while [ ! -e stop ]; do : >big.txt; cat whole.txt >big.txt; done) &
cutter=$!
races=
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	"$HERMES" exec big.json >race.out 2>race.err
	races="$races $?:$(wc -l <race.out):$(tail -c 60 race.out | grep -Eo '"errorCode":(null|"Conflict")\}$')"
done
touch stop
wait "$cutter"
for r in $races; do
	expect_match "cut short while read: status, one line, result" "$r" \
		'^[01]:1:"errorCode":(null|"Conflict")\}$'
done

# hermes verbs: one line per verb with its description.
run_hermes verbs
expect_eq "verbs: one line per verb of the table" "$(printf '%s\n' "$out" | cut -d' ' -f1)" "$(table_verbs)"
expect_match "verbs line" "$out" '^fs\.readRange +Read lines startLine\.\.endLine'
run_hermes schema fs.teleport
expect_eq "schema unknown verb exit" "$rc" 2
expect_match "schema unknown verb" "$err" "unknown verb 'fs.teleport'"
finish
