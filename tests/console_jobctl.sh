#!/bin/sh
# tests/console_jobctl.sh: Ctrl-Z at the console under a real job-control shell (bash in tmux):
# the console stops, the shell gets a sane terminal back, and `fg` resumes the envelope being
# typed where it was. (The pty harness cannot do this: its child is an orphaned process group,
# which the kernel never stops.)
. "$top_srcdir/tests/console_lib.sh"
need_libedit

command -v tmux >/dev/null || skip "tmux is not installed"
command -v bash >/dev/null || skip "bash is not installed"
printf 'x\n' >"$ws/notes.txt"
sock=$tmp/tmux.sock
t() { tmux -S "$sock" "$@"; }
# Waits until the pane shows the text (a fixed string), up to 10 s.
wait_for() {
	i=0
	while ! t capture-pane -p | grep -qF -- "$1"; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			t capture-pane -p >&2
			fail "timed out waiting for '$1'"
		fi
		sleep 0.1
	done
}
trap 't kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

t -f /dev/null new-session -d -x 100 -y 30 \
	"env -i HOME='$HOME' XDG_STATE_HOME='$XDG_STATE_HOME' PATH='$PATH' TERM=xterm HISTFILE= PS1='shell\$ ' bash --norc --noprofile -i" \
	|| skip "tmux cannot start a session here"
wait_for 'shell$'
t send-keys "cd '$ws' && '$HERMES' -i" Enter
wait_for 'hermes>'
t send-keys 'verb: fs.ex'
wait_for 'verb: fs.ex'
t send-keys C-z
wait_for 'Stopped'
# The shell must have a canonical, echoing terminal again.
t send-keys "stty -a | grep -o -- ' icanon' ; echo mode-checked" Enter
wait_for 'mode-checked'
t capture-pane -p | grep -q -- ' icanon' || fail "the terminal was left in raw mode while stopped"
t send-keys 'fg' Enter
sleep 0.5
t send-keys 'ists' Enter 'arguments: {path: notes.txt}' Enter Enter
wait_for '"exists": true'
t send-keys C-d
wait_for 'shell$ '
exit 0
