#!/bin/sh
# tests/verbs_walk.sh: the fs suites again, with openat2 turned off, so that the descriptor walk
# (the resolver of kernels without openat2, and the authority on what openat2 refuses) is held to
# exactly the same rules.
set -u
status=0
for suite in read write tree escape search; do
	prog="${top_builddir:-.}/tests/check_verbs_$suite"
	if ! HERMES_TEST_NO_OPENAT2=1 "$prog"; then
		echo "FAIL: check_verbs_$suite with the descriptor walk" >&2
		status=1
	fi
done
exit $status
