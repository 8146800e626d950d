#!/bin/sh
# tests/lazy_libs.sh: libcyaml, libyaml, PCRE2, libmagic and libedit are loaded when first needed, not
# linked (src/core/dl.h): hermes and libhermes need libc alone to start, a JSON envelope never maps the
# YAML libraries, and where a library cannot be loaded the request that needs it fails with a
# message naming it while everything else goes on working. The last part hides a library behind
# an empty file in a private mount namespace (unshare -m, root); it is skipped where that is not
# possible.
. "${top_srcdir:-.}/tests/lib.sh"
cd "$WS" || exit 1
printf 'hello\n' >a.txt

# What the binaries ask the dynamic loader for at start.
bin=$HERMES
[ -f "$(dirname "$HERMES")/.libs/hermes" ] && bin=$(dirname "$HERMES")/.libs/hermes
needed() { ${OBJDUMP:-objdump} -p "$1" 2>/dev/null | sed -n 's/^ *NEEDED *//p' | tr '\n' ' '; }
if command -v "${OBJDUMP:-objdump}" >/dev/null; then
	n=$(needed "$bin")
	expect_match "hermes needs libc" "$n" 'libc\.so'
	expect_eq "hermes links none of libcyaml, libyaml, PCRE2, libmagic, libedit" \
		"$(echo "$n" | grep -Ec 'cyaml|yaml|pcre2|libmagic|libedit')" 0
	lib=$(dirname "$bin")/libhermes.so
	[ -f "$lib" ] || lib=$(dirname "$HERMES")/.libs/libhermes.so
	if [ -f "$lib" ]; then
		expect_eq "libhermes links none of them" "$(needed "$lib" | grep -Ec 'cyaml|yaml|pcre2')" 0
	fi
fi

# A JSON envelope maps no YAML library; a YAML one, and a regular expression, load theirs.
if command -v strace >/dev/null; then
	trace() { printf '%s\n' "$1" | strace -f -e trace=openat -o trace.out "$HERMES" exec >/dev/null 2>&1
		grep -Eo 'lib(cyaml|yaml-0|pcre2-8|magic)\.so[.0-9]*' trace.out | sort -u | tr '\n' ' '; }
	expect_eq "a JSON envelope opens no YAML or PCRE2 library" \
		"$(trace '{"verb":"fs.exists","arguments":{"path":"a.txt"}}')" ""
	expect_match "a YAML envelope opens libcyaml and libyaml" \
		"$(trace 'verb: fs.exists
arguments: {path: a.txt}')" 'libcyaml.*libyaml'
	expect_match "a regular expression opens PCRE2" \
		"$(trace '{"verb":"fs.search","arguments":{"pattern":"hel+o|x"}}')" 'libpcre2-8'
	expect_eq "a literal search opens no PCRE2" \
		"$(trace '{"verb":"fs.search","arguments":{"pattern":"hello"}}')" ""
	expect_match "fs.readBytes opens libmagic" \
		"$(trace '{"verb":"fs.readBytes","arguments":{"path":"a.txt"}}')" 'libmagic'
fi

# Where a library cannot be loaded: hidden behind an empty file, in a mount namespace of its own.
libfile() { # SONAME: the file the dynamic loader would open
	ldconfig -p 2>/dev/null | sed -n "s/^[[:space:]]*$1 (.*) => //p" | head -1
}
hide() { # SONAME COMMAND...: runs COMMAND with that library unloadable; sets out, rc
	f=$(libfile "$1")
	shift
	out=$(unshare -m sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$f" "$@" 2>&1)
	rc=$?
}
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null && [ -n "$(libfile libpcre2-8.so.0)" ]; then
	hide libpcre2-8.so.0 sh -c 'printf "%s\n" "{\"verb\":\"fs.search\",\"arguments\":{\"pattern\":\"hel+o|x\"}}" | "$0" exec' "$HERMES"
	expect_eq "regex without PCRE2: status 1" "$rc" 1
	expect_match "regex without PCRE2: the error names it" "$out" \
		'"errorMessage":"cannot search: PCRE2 could not be loaded: [^"]*libpcre2-8[^"]*","errorCode":"Internal"'
	hide libpcre2-8.so.0 sh -c 'printf "%s\n" "{\"verb\":\"fs.search\",\"arguments\":{\"pattern\":\"hello\"}}" | "$0" exec' "$HERMES"
	expect_match "a literal search needs no PCRE2" "$out" '"path":"a.txt".*"succeeded":true'
	hide libpcre2-8.so.0 "$HERMES" --version
	expect_match "--version says fs.search is literal only" "$out" 'fs.search: literal text only \(PCRE2 could not be loaded'
	if [ -n "$(libfile libmagic.so.1)" ]; then
		printf 'GIF89a\005\000\007\000\000\000\000;' >g.gif
		hide libmagic.so.1 sh -c 'printf "%s\n" "{\"verb\":\"fs.readBytes\",\"arguments\":{\"path\":\"g.gif\"}}" "{\"verb\":\"fs.readBytes\",\"arguments\":{\"path\":\"a.txt\"}}" | "$0" exec' "$HERMES"
		expect_eq "fs.readBytes without libmagic: status 0" "$rc" 0
		expect_match "without libmagic an image's type comes from the built-in table" "$out" \
			'"mimeType":"image/gif","width":5,"height":7'
		expect_match "without libmagic UTF-8 text is text/plain" "$out" '"mimeType":"text/plain"'
	fi
	if [ -n "$(libfile libcyaml.so.1)" ]; then
		hide libcyaml.so.1 sh -c 'printf "verb: fs.exists\narguments: {path: a.txt}\n" | "$0" exec' "$HERMES"
		expect_eq "YAML without libcyaml: status 2" "$rc" 2
		expect_match "YAML without libcyaml: the error names it" "$out" \
			'"errorMessage":"cannot read a YAML envelope: libcyaml and libyaml could not be loaded: [^"]*libcyaml'
		hide libcyaml.so.1 sh -c 'printf "%s\n" "{\"verb\":\"fs.exists\",\"arguments\":{\"path\":\"a.txt\"}}" | "$0" exec' "$HERMES"
		expect_eq "JSON without libcyaml works" "$out" '{"exists":true,"succeeded":true,"errorMessage":null,"errorCode":null}'
	fi
else
	echo "not root or no unshare -m: the missing-library cases are skipped"
fi
finish
