#!/bin/sh
# tests/options_docs.sh: the options the program accepts, the ones its --help and hermes(1) give,
# and the ones bash completion offers are the same, command by command: an option completion
# offers is accepted by the binary, and an option a command's --help lists is offered by
# completion and documented in hermes(1) (install_man.sh checks hermes(1) against --help too).
. "$top_srcdir/tests/lib.sh"

if ! command -v bash >/dev/null 2>&1; then
	echo "SKIP: bash is not installed (the completion is a bash script)"
	exit 77
fi
completion="$top_srcdir/completions/hermes"
man1="$top_builddir/doc/hermes.1"

# What completion offers for "hermes CMD --<Tab>", one option per line, without a trailing '='.
offered() {
	bash -c '
		. "$1"
		COMP_WORDS=(hermes $2 --); COMP_CWORD=${#COMP_WORDS[@]}; COMP_CWORD=$((COMP_CWORD - 1))
		COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
		_hermes
		printf "%s\n" "${COMPREPLY[@]}"
	' sh "$completion" "$1" | sed 's/=$//' | sort -u
}

for cmd in exec schema verbs serve mcp; do
	opts=$(offered "$cmd")
	expect_match "completion offers options for $cmd" "$opts" '^--help$'
	for opt in $opts; do
		# Accepted: whatever it says about the value, it does not call the option unknown.
		err=$("$HERMES" "$cmd" "$opt=1" --help 2>&1 </dev/null >/dev/null)
		case $err in
		*"unrecognized option"*)
			err=$("$HERMES" "$cmd" "$opt" --help 2>&1 </dev/null >/dev/null) ;;
		esac
		checks=$((checks + 1))
		case $err in
		*"unrecognized option"*) fail "completion offers $opt for $cmd, which refuses it: $err" ;;
		esac
	done
	for opt in $("$HERMES" "$cmd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		checks=$((checks + 1))
		printf '%s\n' "$opts" | grep -qx -- "$opt" ||
			fail "hermes $cmd --help lists $opt, which completion does not offer"
		checks=$((checks + 1))
		sed 's/\\-/-/g' "$man1" | grep -q -- "$opt" || fail "hermes(1) does not document $opt ($cmd)"
	done
done
finish
