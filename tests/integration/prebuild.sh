#!/bin/bash
# prebuild.sh - builds, in the background, what the integration tests need
# later and do not want to wait for: the source kernels (minimal-6.1 cold,
# then the recipes seeded from it, about a minute each) and the external
# tools layers of both Debian kernels (a static fio, the kselftest mm
# programs of linux-source-6.1 and -6.12; guest-images/mkextlayer.sh). A test
# that needs one of them before it is ready waits on build-source.sh's tree
# lock or on mkextlayer.sh's lock, and then finds it built.
#
#   tests/integration/prebuild.sh start   detach a prebuild and return at once;
#                                         nothing happens when one already runs
#   tests/integration/prebuild.sh run     the same in the foreground
#   tests/integration/prebuild.sh wait    until a started prebuild has finished
#   tests/integration/prebuild.sh stop    end a started prebuild (its process group)
#
# Run from the repository root after make all. `make test` starts it before
# the unit tests, so the cold kernel build (the largest single piece of CPU
# time in `make test`, docs/testing.md) overlaps unit, sanitize and the
# Debian-kernel guests; build/tests/test_guests starts it when none runs
# (after make test's has finished, everything is cached and it takes seconds;
# a filtered run starts none: it builds what it boots). Output, appended:
# $HB_TEST_RESULTS/prebuild.log (default build/test-results). A failed piece
# is reported there and built again by the test that needs it.
# Exit: 0; 2 on a usage error.
set -uo pipefail
export LC_ALL=C

res=${HB_TEST_RESULTS:-build/test-results}
lock=$res/prebuild.lock
log=$res/prebuild.log
say() { printf 'prebuild: %s\n' "$*" >&2; }

# Base first: the others are seeded from its objects.
KERNELS="minimal-6.1 minimal-6.1-regress minimal-6.1-delay-alloc minimal-6.1-collapse-fail minimal-6.1-warn-series"
# kselftest sources of the Debian kernels the external tests boot
EXT_MM="6.1 6.12"

[ -x build/hugebench ] || {
	say "run from the repository root after make all"
	exit 2
}
# the machine's cache (HUGEBENCH_CACHE, else the default hugebench uses)
cache=$(build/hugebench cache path) || exit 2
mkdir -p "$res"

case ${1:-} in
start)
	exec 9>>"$lock"
	flock -n 9 || {
		say "already running (log: $log)"
		exit 0
	}
	# the detached child inherits fd 9 and with it the lock. The log is
	# appended to: test_guests starts a second, all-cached prebuild when
	# the one make test started has finished, and its log must stay.
	printf '== prebuild started %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$log"
	HB_PREBUILD_LOCKED=1 setsid "$0" run </dev/null >>"$log" 2>&1 &
	echo $! >"$res/prebuild.pid"
	say "started in the background (log: $log)"
	exit 0
	;;
wait)
	exec 9>>"$lock"
	flock 9
	exit 0
	;;
stop)
	pid=$(cat "$res/prebuild.pid" 2>/dev/null) || exit 0
	exec 9>>"$lock"
	# still running only if its lock is held
	flock -n 9 && exit 0
	kill -TERM -- "-$pid" 2>/dev/null
	exit 0
	;;
run) ;;
*)
	say "usage: tests/integration/prebuild.sh start|run|wait|stop"
	exit 2
	;;
esac

if [ "${HB_PREBUILD_LOCKED:-}" != 1 ]; then
	exec 9>>"$lock"
	flock -n 9 || {
		say "already running (log: $log)"
		exit 0
	}
fi
t0=$SECONDS
# The cold kernel is the critical path of make test: every source-kernel
# test waits for it, while the unit, sanitizer and Debian-kernel tests
# beside it can wait. As root, the prebuild runs at nice -5 (its children
# inherit it), so it takes about three quarters of a core it shares with a
# test at nice 0. The guests' results do not move (their clock is QEMU's
# instruction counter); only their wall time grows while the build runs.
# With autogroup scheduling (Debian's default) the prebuild, a session of
# its own (setsid), is a group that gets the same share as all of make
# test's tasks together whatever their nice values: the group's nice is
# what counts, set through /proc/PID/autogroup. Measured in a clean clone:
# 29 compiles a minute at group nice 0, 63 at -5.
if [ "$(id -u)" = 0 ]; then
	renice -n -5 -p $$ >/dev/null 2>&1 || say "renice -5 failed; the prebuild runs at the tests' priority"
	if [ -w /proc/$$/autogroup ]; then
		echo -5 >/proc/$$/autogroup 2>/dev/null || say "could not set the autogroup's nice"
	fi
fi
# The tools layers first: about 2 minutes, and the external tests on the
# Debian kernels need nothing else, while every source test waits for the
# cold kernel anyway.
for mm in $EXT_MM; do
	t=$SECONDS
	if guest-images/mkextlayer.sh "$cache" "$mm"; then
		say "external tools layer for $mm: $((SECONDS - t)) s"
	else
		say "external tools layer for $mm failed; the external test builds it again"
	fi
done
for k in $KERNELS; do
	t=$SECONDS
	if build/hugebench kernel --target "$k"; then
		say "$k: $((SECONDS - t)) s"
	else
		say "prebuild of $k failed; the test that boots it builds it again"
	fi
done
say "done in $((SECONDS - t0)) s"
exit 0
