#!/bin/sh
# tests/install_package.sh: the package as a user gets it. Stages `make install DESTDIR=...`,
# checks every piece is where a Unix user looks for it (program, shared library with a soname
# and only hermes_* symbols, headers, hermes.pc, man pages, bash completion, example), then
# compiles examples/embed.c against the staged tree with pkg-config and runs it.
. "$top_srcdir/tests/console_lib.sh"

command -v pkg-config >/dev/null || skip "pkg-config is not installed"
: "${MAKE:=make}"
stage=$tmp/stage
# A make of its own: not the jobserver or the variables of the `make check` running this test.
(cd "$top_builddir" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE install DESTDIR="$stage") \
	>"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "make install DESTDIR=... failed"; }

prefix=$(sed -n 's/^prefix=//p' "$top_builddir/hermes.pc")
exec_prefix=$(sed -n 's/^exec_prefix=//p' "$top_builddir/hermes.pc" | sed "s|\${prefix}|$prefix|")
libdir=$(sed -n 's/^libdir=//p' "$top_builddir/hermes.pc" | sed "s|\${exec_prefix}|$exec_prefix|")
root=$stage$prefix
lib=$stage$libdir

for f in bin/hermes include/hermes/hermes.h include/hermes/types.h share/man/man1/hermes.1 \
	share/man/man7/hermes-verbs.7 share/bash-completion/completions/hermes; do
	[ -f "$root/$f" ] || fail "not installed: $prefix/$f"
done
[ -f "$lib/pkgconfig/hermes.pc" ] || fail "not installed: $libdir/pkgconfig/hermes.pc"
find "$root/share/doc" -name embed.c | grep -q . || fail "examples/embed.c not installed under share/doc"
for doc in PROTOCOL.md LICENSE README.md; do
	find "$root/share/doc" -name "$doc" | grep -q . || fail "$doc not installed under share/doc"
done
ls "$lib"/libhermes.so.* >/dev/null 2>&1 || fail "no versioned libhermes.so.N in $libdir"
[ -e "$lib/libhermes.so" ] || fail "no libhermes.so development link in $libdir"
[ -e "$lib/libhermes.la" ] && echo "note: libhermes.la installed (libtool archive)"

# A proper soname, and exactly the public functions exported.
if command -v readelf >/dev/null; then
	readelf -d "$lib/libhermes.so" | grep -q 'SONAME.*libhermes\.so\.[0-9]' \
		|| fail "libhermes.so has no versioned soname"
fi
if command -v nm >/dev/null; then
	nm -D --defined-only "$lib/libhermes.so" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' \
		| LC_ALL=C sort -u >"$tmp/exported"
	[ -s "$tmp/exported" ] || fail "libhermes.so exports nothing"
	if grep -v '^hermes_' "$tmp/exported" >"$tmp/foreign"; then
		fail "libhermes.so exports symbols without the hermes_ prefix: $(tr '\n' ' ' <"$tmp/foreign")"
	fi
	# Every function of the public headers, and nothing else (no internals such as the
	# descriptor tables or hermes_execute_cjson).
	if ! cmp -s "$tmp/exported" "$top_builddir/libhermes.sym"; then
		diff "$top_builddir/libhermes.sym" "$tmp/exported" >&2
		fail "the exported symbols differ from the functions of include/hermes/*.h"
	fi
	for f in hermes_executor_new hermes_execute hermes_cancel_request hermes_version hermes_errcode_name; do
		grep -qx "$f" "$tmp/exported" || fail "$f is not exported"
	done
else
	echo "note: nm not found, exported symbols not checked"
fi

# pkg-config finds the staged library the way it finds an installed one.
PKG_CONFIG_PATH=$lib/pkgconfig
PKG_CONFIG_SYSROOT_DIR=$stage
PKG_CONFIG_LIBDIR=$lib/pkgconfig
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
[ "$(pkg-config --modversion hermes)" = "$("$root/bin/hermes" --version | sed -n '1s/^hermes //p')" ] \
	|| fail "hermes.pc version differs from hermes --version"
unset PKG_CONFIG_LIBDIR # the dependencies (libcyaml, libyaml, PCRE2) are found in the system's directories
cflags=$(pkg-config --cflags hermes) || fail "pkg-config --cflags hermes"
libs=$(pkg-config --libs hermes) || fail "pkg-config --libs hermes"
pkg-config --static --libs hermes >/dev/null || fail "pkg-config --static --libs hermes (Requires.private)"
case $cflags in *"$stage"*) ;; *) fail "--cflags does not point into the staged tree: $cflags" ;; esac

# Build the example as its README says, with nothing from the build tree.
# shellcheck disable=SC2086
${CC:-cc} ${CFLAGS:-} -Wall -Werror -o "$tmp/embed" "$top_srcdir/examples/embed.c" $cflags ${LDFLAGS:-} $libs \
	>"$tmp/cc.log" 2>&1 || { cat "$tmp/cc.log" >&2; fail "examples/embed.c does not build against the staged install"; }
printf 'hello\n' >"$ws/hello.txt"
LD_LIBRARY_PATH=$lib "$tmp/embed" "$ws" '{"verb": "fs.readFile", "arguments": {"path": "hello.txt"}}' \
	>"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "embed failed"; }
grep -q '"content": "hello\\n"' "$tmp/out" || fail "embed did not read the file: $(cat "$tmp/out")"
# Without arguments it lists the workspace root (once fs.listDir is there).
if LD_LIBRARY_PATH=$lib "$tmp/embed" "$ws" >"$tmp/out" 2>&1 || ! grep -q UnknownVerb "$tmp/out"; then
	grep -q '"name": "hello.txt"' "$tmp/out" || fail "embed did not list the workspace: $(cat "$tmp/out")"
fi
# It really ran the staged library, not the build tree's.
if command -v ldd >/dev/null; then
	LD_LIBRARY_PATH=$lib ldd "$tmp/embed" | grep libhermes | grep -q "$stage" || fail "embed did not load the staged libhermes"
fi
LD_LIBRARY_PATH=$lib "$tmp/embed" "$ws" 'verb: fs.readFile
arguments: {path: nope}' >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "embed should exit 1 for a failed verb"
LD_LIBRARY_PATH=$lib "$tmp/embed" "$ws" '{"verb": ' >"$tmp/out" 2>&1
[ $? -eq 2 ] || fail "embed should exit 2 for a bad envelope"

# The staged program runs, and its completion completes (bash-completion's helpers not needed).
"$root/bin/hermes" --version | grep -q 'libcyaml' || fail "hermes --version does not name libcyaml"
if command -v bash >/dev/null; then
	out=$(PATH=$root/bin:$PATH bash -c '. "$1"; COMP_WORDS=(hermes sch); COMP_CWORD=1; _hermes; echo "${COMPREPLY[*]}"' \
		_ "$root/share/bash-completion/completions/hermes")
	[ "$out" = schema ] || fail "completion of 'hermes sch' gave '$out'"
	out=$(PATH=$root/bin:$PATH bash -c '. "$1"; COMP_WORDS=(hermes schema fs.readR); COMP_CWORD=2; _hermes; echo "${COMPREPLY[*]}"' \
		_ "$root/share/bash-completion/completions/hermes")
	[ "$out" = fs.readRange ] || fail "completion of 'hermes schema fs.readR' gave '$out'"
fi
exit 0
