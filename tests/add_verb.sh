#!/bin/sh
# tests/add_verb.sh: adding a verb takes one block in defs/verbs.def, one handler file in
# src/verbs/ and its line in src/verbs/local.mk, nothing else (README.md, "Adding a verb"). In a
# copy of the source tree, this adds test.echo that way, builds it, and checks that it shows in
# hermes verbs, hermes schema and hermes-verbs(7), and runs through hermes exec and hermes serve.
# First it builds without the handler file: that must fail at link time, naming the handler.
# Needs Python 3 (the generator) and the autotools (skipped, exit 77, without them).
. "${top_srcdir:-.}/tests/lib.sh"
for tool in python3 autoreconf autoconf automake libtoolize; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "$tool not found: skipped (adding a verb regenerates the sources and the build system)"
		exit 77
	fi
done
# The copy is built by a make of its own, not as part of the make running this test.
unset MAKEFLAGS MFLAGS MAKELEVEL
top=$(cd "$top_srcdir" && pwd -P)
src=$WS/src build=$WS/build log=$WS/log
mkdir "$src" "$build" "$WS/ws"

t0=$(date +%s)
last=$t0
times=""
lap() { now=$(date +%s); times="$times, $1 $((now - last))s"; last=$now; }

# step NAME COMMAND...: runs a step of the build, its output in $log; on failure shows the end of
# the log and stops the test.
step() {
	what=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		tail -40 "$log" >&2
		fail "$what failed"
		finish
	fi
}

# The source tree, without build trees or build products: in a git checkout the files git knows
# (tracked, or new and not ignored); in a release tree (distcheck's, or an unpacked tarball) all of
# it, made writable, and cleaned if it was configured in place.
if command -v git >/dev/null 2>&1 &&
	[ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
	(cd "$top" && git ls-files --cached --others --exclude-standard) |
		while IFS= read -r f; do if [ -e "$top/$f" ]; then printf '%s\n' "$f"; fi; done |
		tar -C "$top" -cf - -T - | tar -C "$src" -xf -
else
	for f in "$top"/* "$top"/.[!.]*; do
		case ${f##*/} in _build* | _asan* | autom4te.cache) continue ;; esac
		if [ -e "$f" ]; then cp -pR "$f" "$src/"; fi
	done
	chmod -R u+w "$src"
	if [ -f "$src/config.status" ]; then
		step "make distclean in the copy" make -C "$src" distclean
	fi
fi
[ -f "$src/defs/verbs.def" ] || { fail "the copy of $top has no defs/verbs.def"; finish; }
lap copy

# Step 1 of 3: the verb's block in the table.
cat >>"$src/defs/verbs.def" <<'EOF'

/* ---- test.echo ---------------------------------------------------------------------------- */
HERMES_TYPE(TestEchoArgs, "Arguments of test.echo: the text to send back.")
  HERMES_FIELD(text, STRING, REQUIRED, "any text")
HERMES_END()
HERMES_RESULT(TestEchoResult, "Result of test.echo.")
  HERMES_FIELD(text, STRING, REQUIRED, "the text, unchanged")
HERMES_END()
HERMES_VERB("test.echo", TestEchoArgs, TestEchoResult,
            READ_ONLY | IDEMPOTENT,
            "Send the text back unchanged.")
EOF

step "autoreconf -fi" sh -c "cd '$src' && autoreconf -fi"
lap autoreconf
step "configure" sh -c "cd '$build' && '$src/configure' --disable-dependency-tracking --enable-werror"
lap configure

# Without the handler, the build fails at link time, and the message names the handler.
if (cd "$build" && make -j2) >"$log" 2>&1; then
	fail "the build succeeded without hermes_verb_test_echo"
fi
checks=$((checks + 1))
if ! grep -Eq "undefined (reference to|symbol:?) .?hermes_verb_test_echo" "$log"; then
	tail -20 "$log" >&2
	fail "the failed build does not name the missing handler hermes_verb_test_echo"
fi
checks=$((checks + 1))
if grep -Eq '\.[ch]:[0-9]+:[0-9]+: error:' "$log"; then
	grep -E '\.[ch]:[0-9]+:[0-9]+: error:' "$log" | head -5 >&2
	fail "without its handler, something failed to compile (only the link may fail)"
fi
lap "build without the handler"

# Steps 2 and 3: the handler, in a file of its own, and its line in src/verbs/local.mk.
cat >"$src/src/verbs/test_echo.c" <<'EOF'
/* verbs/test_echo.c: test.echo, the verb tests/add_verb.sh adds: sends its text back. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "verbs/handlers.h"

void hermes_verb_test_echo(const hermes_call_t *call, const void *args_, void *result_)
{
	const hermes_test_echo_args_t *args = args_;
	hermes_test_echo_result_t *result = result_;
	(void)call;
	result->text = strdup(args->text);
	if (!result->text)
		hermes_result_fail(result, HERMES_E_INTERNAL, "cannot echo: out of memory");
}
EOF
echo 'libhermes_verbs_la_SOURCES += src/verbs/test_echo.c' >>"$src/src/verbs/local.mk"
step "the build with the handler" sh -c "cd '$build' && make -j2"
lap "build with it"

hermes=$build/hermes
HERMES=$hermes   # for run_hermes
cd "$WS/ws" || exit 1
out=$("$hermes" verbs)
expect_match "hermes verbs lists test.echo" "$out" '^test\.echo +Send the text back unchanged\.$'
expect_eq "hermes verbs lists every verb of the table" "$(echo "$out" | cut -d' ' -f1)" \
	"$(top_srcdir=$src && table_verbs)"
expect_eq "hermes schema test.echo" "$("$hermes" schema TEST.ECHO | head -12)" "// traits: read-only, idempotent
// Arguments of test.echo: the text to send back.
type TestEchoArgs
{
  // any text
  text: String
}
// Result of test.echo.
type TestEchoResult
{
  // the text, unchanged
  text: String"
checks=$((checks + 1))
grep -q '^\.SS test\.echo$' "$build/doc/hermes-verbs.7" || fail "hermes-verbs(7) has no test.echo"

# hermes exec, JSON and YAML (a YAML 'no' stays the string "no": the generated schema says STRING).
out=$(printf '{"verb":"test.echo","arguments":{"text":"h\\u00e9llo, \\"world\\""}}' | "$hermes" exec)
expect_eq "hermes exec test.echo (JSON)" "$out" \
	'{"text":"héllo, \"world\"","succeeded":true,"errorMessage":null,"errorCode":null}'
out=$(printf 'verb: Test.Echo\narguments: {text: no}\n' | "$hermes" exec)
expect_eq "hermes exec test.echo (YAML)" "$out" \
	'{"text":"no","succeeded":true,"errorMessage":null,"errorCode":null}'
run_hermes exec <<'EOF'
{"verb": "test.echo", "arguments": {"txt": "x"}}
EOF
expect_eq "an unknown argument of test.echo: exit status" "$rc" 2
expect_match "an unknown argument of test.echo: message" "$err" \
	"unknown argument 'txt' for test.echo \\(expected: text\\)"

# hermes serve: the verb is a method of its own.
out=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"text":"hi"}}' |
	timeout 20 "$hermes" serve 2>"$WS/serve.err")
expect_eq "hermes serve, method test.echo" "$out" \
	'{"jsonrpc":"2.0","id":1,"result":{"text":"hi","succeeded":true,"errorMessage":null,"errorCode":null}}'
lap checks

echo "add_verb: $((last - t0))s in all (${times#, })"
finish
