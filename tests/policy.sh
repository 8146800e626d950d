#!/bin/sh
# tests/policy.sh: what an agent may do, tried from outside as one would try to get around it:
# --read-only, --allow and --deny (the verbs turned off fail with NotAllowed, are marked by
# hermes verbs and change nothing), the sandbox of proc.run's and proc.start's programs
# (Landlock: writes outside the workspace fail, with a link out of the workspace too;
# --sandbox=off allows them; strict also stops reads), and --proc-env=minimal.
. "${top_srcdir:-.}/tests/lib.sh"

# "Outside" must not be under /tmp or /var/tmp, which the sandbox lets programs write: the build
# directory if it is elsewhere, else the home directory.
OUT=
for base in "${top_builddir:-.}" "${HOME:-/nonexistent}"; do
	dir=$(cd "$base" 2>/dev/null && pwd) || continue
	case $dir/ in /tmp/*|/var/tmp/*) continue ;; esac
	OUT=$(mktemp -d "$dir/.hermes-policy-outside.XXXXXX" 2>/dev/null) && break
done
trap 'rm -rf "$WS" ${OUT:+"$OUT"}' EXIT
mkdir -p "$WS/root"
if [ -n "$OUT" ]; then
	echo secret > "$OUT/secret.txt"
	ln -s "$OUT" "$WS/root/out"
fi
run() { "$HERMES" exec --root "$WS/root" "$@"; }

# ---- --read-only, --allow, --deny
out=$(echo '{"verb":"fs.writeFile","arguments":{"path":"a.txt","content":"x"}}' | run --read-only)
expect_eq "read-only: writeFile exit status" "$?" 1
expect_match "read-only: writeFile is NotAllowed" "$out" '"errorCode":"NotAllowed"'
[ -e "$WS/root/a.txt" ] && fail "read-only: a.txt was written"
out=$(echo '{"verb":"proc.start","arguments":{"executable":"touch","arguments":["made"]}}' |
	"$HERMES" -i --root "$WS/root" --read-only)
expect_match "read-only: proc.start is NotAllowed (the console)" "$out" '"errorCode":"NotAllowed"'
[ -e "$WS/root/made" ] && fail "read-only: proc.start's program ran"
out=$(echo '{"verb":"fs.exists","arguments":{"path":"."}}' | run --read-only)
expect_match "read-only: exists runs" "$out" '"exists":true'
out=$(printf 'verb: proc.run\narguments: {executable: touch, arguments: [made]}\n' | run --deny='proc.*')
expect_match "deny proc.*: proc.run is NotAllowed" "$out" '"errorCode":"NotAllowed"'
[ -e "$WS/root/made" ] && fail "deny: the program ran"
out=$(echo '{"verb":"sys.machineInfo","arguments":{}}' | run --allow='fs.*')
expect_match "allow fs.*: sys.machineInfo is NotAllowed" "$out" '"errorCode":"NotAllowed"'
out=$(echo '{"verb":"FS.EXISTS","arguments":{"path":"."}}' | run --allow='fs.*' --deny='fs.write*')
expect_match "allow and deny: a verb allowed and not denied runs (names ignore case)" "$out" '"exists":true'
out=$(echo '{"verb":"fs.writeRange","arguments":{"path":"a.txt","startLine":1,"content":"x"}}' | run --deny='fs.write*')
expect_match "deny fs.write*: writeRange is NotAllowed" "$out" '"errorCode":"NotAllowed"'
off=$("$HERMES" verbs --read-only | grep -c '(off)')
expect_eq "hermes verbs --read-only marks the verbs that change things" "$off" \
	"$("$HERMES" schema | grep '^// traits:' | grep -vc 'read-only')"
expect_match "hermes verbs --deny marks proc.run" "$("$HERMES" verbs --deny='proc.*' | grep '^proc.run')" '\(off\)'
expect_match "an empty --deny is refused" "$("$HERMES" exec --deny= - </dev/null 2>&1)" '--deny needs'

# ---- the sandbox
shift_run() { cmd=$1; shift; printf 'verb: proc.run\narguments: {executable: sh, arguments: [-c, "%s"]}\n' "$cmd" | run "$@"; }
if ! "$HERMES" --version | grep -q '^proc.run sandbox: Landlock'; then
	echo "note: this kernel has no Landlock: proc.run's programs run unconfined (checked: strict refuses)"
	out=$(printf 'verb: proc.run\narguments: {executable: "true", arguments: []}\n' | run --sandbox=strict)
	expect_match "strict without Landlock: NotAllowed" "$out" '"errorCode":"NotAllowed"'
	finish
fi
if [ -z "$OUT" ]; then
	echo "note: no directory outside /tmp to write to: the sandbox's write checks are left out"
	finish
fi
out=$(shift_run "echo x > $OUT/file")
expect_match "sandbox: a write outside fails" "$out" '"exitCode":[1-9]'
[ -e "$OUT/file" ] && fail "sandbox: the program wrote outside the workspace"
out=$(shift_run "echo x > out/file2")
[ -e "$OUT/file2" ] && fail "sandbox: the program wrote outside through a link in the workspace"
out=$(shift_run "echo x > inside.txt && echo y > /tmp/hermes-policy-$$ && rm /tmp/hermes-policy-$$ && cat $OUT/secret.txt")
expect_match "sandbox: writes in the workspace and /tmp, reads outside, work" "$out" '"exitCode":0'
expect_eq "sandbox: the file inside" "$(cat "$WS/root/inside.txt")" x
out=$(shift_run "echo x > $OUT/file" --sandbox=off)
expect_match "--sandbox=off: the write outside works" "$out" '"exitCode":0'
[ -e "$OUT/file" ] || fail "--sandbox=off: the file was not written"
out=$(shift_run "cat $OUT/secret.txt" --sandbox=strict)
expect_match "strict: a read outside fails" "$out" '"exitCode":[1-9]'
out=$(shift_run "cat inside.txt && ls /usr/bin >/dev/null" --sandbox=strict)
expect_match "strict: reads in the workspace and the system's directories work" "$out" '"exitCode":0'

# proc.start's programs are confined the same way (through the console, which keeps them: hermes
# exec refuses proc.start)
start_run() {
	script=$1
	shift
	printf '{"verb":"proc.start","arguments":{"executable":"sh","arguments":["-c","%s"],"waitSeconds":20}}\n' \
		"$script" | "$HERMES" -i --root "$WS/root" "$@"
}
out=$(start_run "echo x > $OUT/file3")
expect_match "sandbox: proc.start's program cannot write outside" "$out" '"exitCode":[1-9]'
[ -e "$OUT/file3" ] && fail "sandbox: a started program wrote outside the workspace"
out=$(start_run "echo x > started.txt")
expect_match "sandbox: proc.start's program writes inside" "$out" '"exitCode":0'
expect_eq "sandbox: the file a started program wrote" "$(cat "$WS/root/started.txt")" x
out=$(start_run "echo x > $OUT/file3" --sandbox=off)
[ -e "$OUT/file3" ] || fail "--sandbox=off: the started program did not write outside"

# ---- --proc-env=minimal
export HERMES_POLICY_SECRET=leaked
out=$(shift_run 'echo \"[$HERMES_POLICY_SECRET]\" > env.txt; test -n \"$PATH\"' --proc-env=minimal)
expect_match "minimal env: the program runs with PATH" "$out" '"exitCode":0'
expect_eq "minimal env: other variables are not passed" "$(cat "$WS/root/env.txt")" "[]"
shift_run 'echo \"[$HERMES_POLICY_SECRET]\" > env.txt' >/dev/null
expect_eq "inherited env: they are" "$(cat "$WS/root/env.txt")" "[leaked]"
out=$(start_run 'echo \"[$HERMES_POLICY_SECRET]\"' --proc-env=minimal)
expect_match "minimal env: not passed to proc.start's program either" "$out" '"stdout":"\[\]\\n"'
finish
