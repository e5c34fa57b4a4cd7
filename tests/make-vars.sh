#!/bin/sh
# make-vars.sh - make variables from the command line never run as code
# (issue 23, item 1; issue 9 covered the HB_* words). Each payload would
# create a marker file if make or a recipe's shell evaluated it: before,
# HUGEBENCH_CACHE='$(shell ...)' ran through make's export of command-line
# variables, and FUZZ_SECONDS and PKGS were pasted into recipe text; issue
# 38: DEB_PKGS, TEST_PKGS, LIBVIRT_HOST_PKGS and BUILD were pasted too, and
# CFLAGS from the environment was expanded by make.
# Run by `make unit` after the build (the goals below build nothing new).
# usage: tests/make-vars.sh [CHECKOUT]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
work=$(mktemp -d "${TMPDIR:-/tmp}/hb-make-vars.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
m=$work/marker
fail=0
n=0
# goal|variable[|env] (@M@: the marker's path; env: in the environment, not
# on the command line)
while IFS='|' read -r goal var how; do
	[ -n "$goal" ] || continue
	n=$((n + 1))
	v=$(printf '%s' "$var" | sed "s|@M@|$m|g")
	rm -f "$m"
	if [ "$how" = env ]; then
		env "$v" make -C "$root" --no-print-directory "$goal" A=x B=y >"$work/log" 2>&1
	else
		make -C "$root" --no-print-directory "$goal" A=x B=y "$v" >"$work/log" 2>&1
	fi
	rc=$?
	if [ -e "$m" ]; then
		echo "FAIL make $goal '$v' ran the injected command"
		fail=1
	elif [ "$rc" = 0 ]; then
		echo "FAIL make $goal '$v' exited 0"
		fail=1
	else
		echo "ok   make $goal '$v': exit $rc, nothing ran"
	fi
done <<'CASES'
compare|HUGEBENCH_CACHE=$(shell touch @M@)
compare|HUGEBENCH_CACHE=x$$(touch @M@)
compare|KSRC=$(shell touch @M@)
compare|CC=$(shell touch @M@)
compare|NOT_A_MAKE_VAR=$(shell touch @M@)
fuzz|FUZZ_SECONDS=1;touch @M@
fuzz|FUZZ_SECONDS=$(shell touch @M@)
fuzz|FUZZ_SECONDS=1 $$(touch @M@)
install-pkgs|PKGS=bash;touch @M@
install-pkgs|PKGS=$(shell touch @M@)
install-pkgs|PKGS=bash $$(touch @M@)
compare|DEB_PKGS=bash"; touch @M@; : "
compare|DEB_PKGS=bash $$(touch @M@)
test-deps|TEST_PKGS=bash"; touch @M@; : "
libvirt-deps|LIBVIRT_HOST_PKGS=bash"; touch @M@; : "
compare|BUILD=/tmp/bb`touch${IFS}@M@`
compare|BUILD=build;touch @M@;
compare|WARN=-Wall; touch @M@;
all|CFLAGS=$(shell touch @M@)|env
all|CFLAGS=-O2 `touch @M@`|env
all|LDFLAGS=;touch @M@;|env
CASES
echo "make-vars: $n payloads, $( [ $fail = 0 ] && echo none || echo some) ran"
[ "$fail" = 0 ]
