# tests/console_lib.sh: shared by the console and install tests: a fresh temporary directory
# (removed at exit), a workspace in it, a private HOME (so no test reads or writes the real
# history), and fail/skip helpers. Sourced; needs HERMES, top_srcdir and top_builddir.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hermes-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
ws=$tmp/ws
mkdir "$ws"
HOME=$tmp/home
XDG_STATE_HOME=$tmp/home/.local/state
unset NO_COLOR
export HOME XDG_STATE_HOME
mkdir -p "$HOME"
PTY=$top_builddir/tests/console_pty

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

# Runs the pty script on stdin against `hermes -i` in the workspace.
console() { "$PTY" -t 15 "$HERMES" -i --root "$ws" "$@"; }

# The pseudo-terminal tests drive libedit (key by key, completion, history, job control): a build
# without it (configure did not find it) reads plain lines, and they are skipped (77).
need_libedit() {
	if ! "$HERMES" --version | grep -q '^console line editing: libedit'; then
		echo "SKIP: built without libedit (hermes --version says so): the console reads plain lines"
		exit 77
	fi
}
