#!/bin/sh
# tests/console_cancel.sh: Ctrl-C during a running proc.run (of sleep) ends the program's process
# group and returns to the prompt at once; the console keeps working after it.
. "$top_srcdir/tests/console_lib.sh"

command -v sleep >/dev/null || skip "no sleep program"
# proc.run comes with the verbs; skip until it is registered.
printf '{"verb":"proc.run","arguments":{"executable":"true","arguments":[]}}' \
	| "$HERMES" exec --root "$ws" >"$tmp/probe" 2>&1
grep -q '"exitCode"' "$tmp/probe" || skip "proc.run is not available: $(cat "$tmp/probe")"

start=$(date +%s)
console <<'SCRIPT' || fail "cancel session"
expect hermes> 
send {"verb": "proc.run", "arguments": {"executable": "sleep", "arguments": ["30"]}}\r
sleep 500
sendnow \x03
expect "Cancelled"
expect hermes> 
send {"verb": "fs.exists", "arguments": {"path": "."}}\r
expect "exists": true
expect hermes> 
send \x04
exit 0
SCRIPT
end=$(date +%s)
[ $((end - start)) -lt 20 ] || fail "Ctrl-C did not stop the sleep (took $((end - start))s)"
# The sleep's process group is gone.
if pgrep -f 'sleep 30' >/dev/null 2>&1; then
	ps -ef | grep '[s]leep 30' >&2
	fail "sleep 30 still running after Ctrl-C"
fi
exit 0
