#!/bin/sh
# tests/console_tty.sh: the console at a terminal, driven through a pseudo-terminal as a person
# types: multi-line YAML, JSON run on its closing brace, a syntax error then a good envelope,
# Ctrl-C while typing, :commands, tab completion, history recall and Ctrl-D.
. "$top_srcdir/tests/console_lib.sh"

need_libedit

printf 'one\ntwo\nthree\n' >"$ws/notes.txt"

console <<'SCRIPT' || fail "first session"
expect hermes> 
# Multi-line YAML: continuation prompt, run at the empty line.
send verb: fs.readFile\r
expect ...> 
send arguments:\r
send   path: notes.txt\r
send \r
expect "content": "one\\ntwo\\nthree\\n"
expect hermes> 
# JSON runs on its closing brace, with no empty line.
send {"verb": "fs.exists",\r
expect ...> 
send  "arguments": {"path": "notes.txt"}}\r
expect "exists": true
expect hermes> 
# A syntax error: line and column, nothing runs, back to the prompt.
send {"verb": "fs.writeFile", "arguments": {"path": "bad.txt", "content": "x",}}\r
expect line 1, column
expect hermes> 
send verb: fs.exists\r
send arguments: {path: notes.txt}\r
send ---\r
expect "exists": true
expect hermes> 
# Ctrl-C while typing abandons the envelope.
send verb: fs.writeFile\r
send arguments:\r
send   path: abandoned.txt\r
send \x03
expect hermes> 
send :root\r
expect ws
expect hermes> 
# Tab completion of a verb name after "verb: ", then of a :command and its verb.
send verb: fs.readF\t
expect fs.readFile
send \r
send arguments: {path: notes.txt}\r
send \r
expect "content": "one
expect hermes> 
# In JSON the completion closes the string too.
send {"verb": "fs.exi\t
expect fs.exists"
send , "arguments": {"path": "notes.txt"}}\r
expect "exists": true
expect hermes> 
send :sch\t
expect :schema 
send fs.exi\t
expect fs.exists
send \r
expect exists
expect hermes> 
send :verbs\r
expect fs.readFile
expect hermes> 
send :help\r
expect :schema VERB
expect hermes> 
send :nonsense\r
expect unknown command ':nonsense'
expect hermes> 
# Ctrl-D on an empty prompt leaves with status 0.
send \x04
exit 0
SCRIPT

[ -e "$ws/bad.txt" ] && fail "an envelope with a syntax error ran"
[ -e "$ws/abandoned.txt" ] && fail "an envelope abandoned with Ctrl-C ran"
hist=$XDG_STATE_HOME/hermes/history
[ -f "$hist" ] || fail "no history file at $hist"

# History, in a fresh state directory: one session types a multi-line envelope and a command; the
# next recalls them (one Up arrow each) and Enter runs the recalled envelope whole at once.
# (Judged by what runs: the screen shows only libedit's minimal redraws.)
XDG_STATE_HOME=$tmp/state2
export XDG_STATE_HOME
console <<'SCRIPT' || fail "history, first session"
expect hermes> 
send verb: fs.readFile\r
send arguments:\r
send   path: notes.txt\r
send \r
expect "content": "one
expect hermes> 
send :schema fs.exists\r
expect FsExistsArgs
expect hermes> 
send \x04
exit 0
SCRIPT
[ -f "$XDG_STATE_HOME/hermes/history" ] || fail "no history file in \$XDG_STATE_HOME/hermes"
[ "$(stat -c %a "$XDG_STATE_HOME/hermes/history")" = 600 ] || fail "the history file is not private"
console <<'SCRIPT' || fail "history, second session"
expect hermes> 
send \e[A\e[A
sleep 300
send \r
expect "content": "one
expect hermes> 
send \e[A\e[A
sleep 300
send \r
expect FsExistsArgs
expect hermes> 
send :quit\r
exit 0
SCRIPT

# A window size change while typing loses nothing.
console <<'SCRIPT' || fail "SIGWINCH while typing"
expect hermes> 
send verb: fs.ex
kill 28
sleep 200
send ists\r
send arguments: {path: notes.txt}\r\r
expect "exists": true
send \x04
exit 0
SCRIPT

# SIGTERM at the prompt ends the console with 128+15, whatever is being typed.
console <<'SCRIPT' || fail "SIGTERM at the prompt"
expect hermes> 
send verb: fs.exists\r
expect ...> 
kill 15
exit 143
SCRIPT

# UTF-8 typed at the prompt reaches the verb intact, even in the C locale of a bare environment.
printf 'x\n' >"$ws/$(printf 'h\303\251llo.txt')"
env -u LANG -u LC_ALL -u LC_CTYPE "$PTY" -t 15 "$HERMES" -i --root "$ws" <<'SCRIPT' || fail "UTF-8 input"
expect hermes> 
send {"verb": "fs.exists", "arguments": {"path": "h\xc3\xa9llo.txt"}}\r
expect "exists": true
send \x04
exit 0
SCRIPT

# Colour: errors are red on a colour terminal, plain with NO_COLOR.
console <<'SCRIPT' || fail "colour"
expect hermes> 
send :nonsense\r
expect unknown command
raw \e[31merror: unknown command
send \x04
exit 0
SCRIPT
env NO_COLOR=1 "$PTY" -t 15 "$HERMES" -i --root "$ws" <<'SCRIPT' || fail "NO_COLOR"
expect hermes> 
send :nonsense\r
expect unknown command
rawreject \e[31m
send \x04
exit 0
SCRIPT
