# tests/server_smoke.sh: hermes serve end to end with nothing but the shell (runs where Python
# does not): both framings, an error, a batch, shutdown/exit and the exit statuses.
. "${top_srcdir:-.}/tests/lib.sh"
cd "$WS" || exit 1
printf 'hi\n' >hello.txt

# NDJSON: initialize, a verb, a parse error, a batch, shutdown, exit
out=$(printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' \
	'{"jsonrpc":"2.0","id":"two","method":"fs.readFile","params":{"path":"hello.txt"}}' \
	'{oops' \
	'[{"jsonrpc":"2.0","id":3,"method":"fs.exists","params":{"path":"nope"}}]' \
	'{"jsonrpc":"2.0","id":4,"method":"shutdown"}' \
	'{"jsonrpc":"2.0","method":"exit"}' | timeout 20 "$HERMES" serve 2>"$WS/.stderr")
rc=$?
expect_eq "ndjson exit status" "$rc" 0
expect_match "initialize" "$out" '^\{"jsonrpc":"2.0","id":1,"result":\{"serverInfo":\{"name":"hermes"'
expect_match "ndjson framing reported" "$out" '"framing":"ndjson"'
expect_match "fs.readFile" "$out" '^\{"jsonrpc":"2.0","id":"two","result":\{"content":"hi\\n"'
expect_match "parse error" "$out" '^\{"jsonrpc":"2.0","id":null,"error":\{"code":-32700'
expect_match "batch" "$out" '^\[\{"jsonrpc":"2.0","id":3,"result":\{"exists":false'
expect_match "shutdown" "$out" '^\{"jsonrpc":"2.0","id":4,"result":null\}$'
expect_eq "one line per reply" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 5

# Content-Length framing
body='{"jsonrpc":"2.0","id":5,"method":"fs.exists","params":{"path":"hello.txt"}}'
out=$(printf 'Content-Length: %d\r\n\r\n%s' "${#body}" "$body" | timeout 20 "$HERMES" serve 2>"$WS/.stderr")
rc=$?
expect_eq "content-length exit status (EOF)" "$rc" 0
reply='{"jsonrpc":"2.0","id":5,"result":{"exists":true,"succeeded":true,"errorMessage":null,"errorCode":null}}'
expect_eq "content-length reply" "$out" "$(printf 'Content-Length: %d\r\n\r\n%s' "${#reply}" "$reply")"

# exit without shutdown is 1
printf '{"jsonrpc":"2.0","method":"exit"}\n' | timeout 20 "$HERMES" serve >/dev/null 2>&1
expect_eq "exit without shutdown" "$?" 1

# stdout carries nothing but replies, even with logging on (it goes to stderr)
out=$(printf '{"jsonrpc":"2.0","method":"fs.exists","params":{"path":"x"}}\n' |
	timeout 20 "$HERMES" serve --log-level debug 2>"$WS/.stderr")
expect_eq "a notification gets no reply" "$out" ""
expect_match "debug log on stderr" "$(cat "$WS/.stderr")" 'notification fs.exists'
finish
