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
