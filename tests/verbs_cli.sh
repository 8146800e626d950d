#!/bin/sh
# tests/verbs_cli.sh: the verbs end to end through `hermes exec`: YAML and JSON envelopes, the
# options that reach the verbs (--root through a symlink, --max-read-bytes, --proc-timeout), the
# exit status, and that a refused request changes nothing outside the root.
. "${top_srcdir:-.}/tests/lib.sh"

mkdir -p "$WS/root" "$WS/outside"
echo secret > "$WS/outside/secret.txt"
ln -s root "$WS/link-to-root"
ln -s ../outside "$WS/root/escape"
run() { "$HERMES" exec --root "$WS/link-to-root" "$@"; }

out=$(printf 'verb: fs.writeFile\narguments:\n  path: src/main.c\n  content: "int main(void)\\n{\\n}\\n"\n' | run)
expect_eq "writeFile exit status" "$?" 0
expect_match "writeFile succeeded" "$out" '"succeeded":true'
expect_eq "written content" "$(cat "$WS/root/src/main.c")" "$(printf 'int main(void)\n{\n}')"

out=$(printf 'verb: fs.readRange\narguments: {path: src/main.c, startLine: 2, endLine: 3}\n' | run)
expect_match "readRange numbered" "$out" '"content":"2: \{\\n3: \}\\n"'

out=$(echo '{"verb":"fs.lineCount","arguments":{"path":"src/main.c"}}' | run)
expect_match "lineCount" "$out" '"lineCount":3'

out=$(printf 'verb: fs.listDir\narguments: {path: .}\n' | run)
# .hermes holds the record of the write above (fs.history).
expect_match "listDir" "$out" '"entries":\[\{"name":".hermes","isDirectory":true\},\{"name":"escape","isDirectory":false\},\{"name":"src","isDirectory":true\}\]'

out=$(echo '{"verb":"fs.readFile","arguments":{"path":"escape/secret.txt"}}' | run)
expect_eq "escape exit status" "$?" 1
expect_match "escape refused" "$out" '"errorCode":"OutsideWorkspace"'
out=$(echo '{"verb":"fs.writeFile","arguments":{"path":"escape/secret.txt","content":"pwned"}}' | run)
expect_match "escaping write refused" "$out" '"errorCode":"OutsideWorkspace"'
expect_eq "outside unchanged" "$(cat "$WS/outside/secret.txt")" secret
out=$(echo "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"$WS/link-to-root/src/main.c\"}}" | run)
expect_match "absolute path through the root's symlink" "$out" '"exists":true'

out=$(echo '{"verb":"fs.readFile","arguments":{"path":"src/main.c"}}' | run --max-read-bytes=5)
expect_match "--max-read-bytes reaches fs.readFile" "$out" '"errorCode":"TooLarge"'

out=$(echo '{"verb":"proc.run","arguments":{"executable":"sh","arguments":["-c","sleep 30"]}}' |
	run --proc-timeout=1)
expect_match "--proc-timeout reaches proc.run" "$out" '"errorCode":"Timeout"'
expect_match "a timed-out run still has its exit code" "$out" '"exitCode":143'

out=$(echo '{"verb":"proc.run","arguments":{"executable":"cat","arguments":["src/main.c"]}}' | run)
expect_match "proc.run" "$out" '"exitCode":0'
path=$(printf '%s' "$out" | sed 's/.*"stdoutPath":"\([^"]*\)".*/\1/')
expect_eq "proc.run output file" "$(cat "$WS/root/$path")" "$(cat "$WS/root/src/main.c")"

out=$(echo '{"verb":"sys.machineInfo","arguments":{}}' | run)
expect_match "sys.machineInfo" "$out" '"cpuCount":[1-9]'
finish
