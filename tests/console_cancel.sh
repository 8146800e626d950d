#!/bin/sh
# tests/console_cancel.sh: Ctrl-C during a running proc.run (of sleep) ends the program's process
# group and returns to the prompt at once; the console keeps working after it.
. "$top_srcdir/tests/console_lib.sh"
need_libedit

command -v sleep >/dev/null || skip "no sleep program"
# proc.run comes with the verbs; skip until it is registered.
printf '{"verb":"proc.run","arguments":{"executable":"true","arguments":[]}}' \
	| "$HERMES" exec --root "$ws" >"$tmp/probe" 2>&1
grep -q '"exitCode"' "$tmp/probe" || skip "proc.run is not available: $(cat "$tmp/probe")"

# The program records its pid, then becomes the sleep (same pid), so we can tell it is gone.
start=$(date +%s)
console <<'SCRIPT' || fail "cancel session"
expect hermes> 
send {"verb": "proc.run", "arguments": {"executable": "sh", "arguments": ["-c", "echo $$ >sleep.pid; exec sleep 30"]}}\r
sleep 700
sendnow \x03
expect "Cancelled"
expect hermes> 
send {"verb": "fs.exists", "arguments": {"path": "sleep.pid"}}\r
expect "exists": true
expect hermes> 
send \x04
exit 0
SCRIPT
end=$(date +%s)
[ $((end - start)) -lt 20 ] || fail "Ctrl-C did not stop the sleep (took $((end - start))s)"
[ -s "$ws/sleep.pid" ] || fail "the program did not start"
pid=$(cat "$ws/sleep.pid")
# Its process group was ended (give the kernel a moment to reap it).
gone() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	return 1
}
gone "$pid" || fail "the sleep (pid $pid) still runs after Ctrl-C"

# SIGTERM during a run (the terminal closing, a supervisor) also ends the program's group, and
# the console with it: nothing is left behind.
rm -f "$ws/sleep.pid"
console <<'SCRIPT' || fail "SIGTERM during proc.run"
expect hermes> 
send {"verb": "proc.run", "arguments": {"executable": "sh", "arguments": ["-c", "echo $$ >sleep.pid; exec sleep 30"]}}\r
sleep 700
kill 15
exit 143
SCRIPT
[ -s "$ws/sleep.pid" ] || fail "the program did not start"
gone "$(cat "$ws/sleep.pid")" || fail "the sleep still runs after SIGTERM"
exit 0
