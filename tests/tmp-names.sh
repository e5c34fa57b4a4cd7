#!/bin/sh
# tmp-names.sh - no test makes a predictable /tmp name (issue 23, item 9):
# "/tmp/hb-...-<pid>" can be planted by another user before the test runs
# (a symlink to a file root then writes). Tests use mkdtemp/mkstemp/mktemp
# (a XXXXXX template) and remove what they made. Fails on any line of
# tests/ that builds a /tmp path from getpid() or $$.
# usage: tests/tmp-names.sh [CHECKOUT]
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
bad=$(grep -rnE '(/tmp|TMPDIR)[^"]*"[^;]*getpid\(\)|/tmp/[A-Za-z0-9._-]*\$\$' \
	"$root/tests" --include='*.c' --include='*.h' --include='*.sh' | grep -v 'tmp-names.sh')
if [ -n "$bad" ]; then
	echo "tmp-names: predictable /tmp names (use mkdtemp/mkstemp/mktemp):"
	echo "$bad"
	exit 1
fi
echo "tmp-names: no predictable /tmp name in tests/"
