#!/bin/bash
# ccache-reuse.sh - integration check of issue 24: a source recipe that
# patches a built base compiles only what its patch touches
# (kernels/build-source.sh, "seeding the object dir" and "ccache";
# docs/kernels.md, "Sharing work between recipes").
#
#   tests/integration/ccache-reuse.sh [--ccache]   (repository root, after make all)
#
# Builds minimal-6.1 (or finds it in the cache; cold it takes 4-25 min with
# the load), then a throwaway recipe zz-reuse-<pid> = minimal-6.1 + a
# one-line patch to mm/shmem.c made here against the pristine tree, and
# checks that
#   - its object dir was seeded and make compiled at most 20 files, among
#     them mm/shmem.o, and did not rebuild objtool (which every object
#     depends on),
#   - the patch is in the kernel (its variable is in System.map) and the
#     release is <version>-hb-<recipe>,
#   - no .cmd or .d file of its object dir names another recipe's tree,
#   - with ccache installed, build.log ends with the ccache line.
# Then a throwaway source=ksrc recipe on a KSRC tree made here (minimal-6.1's
# source, hard-linked, with the same mm/shmem.c change written over it), the
# way `hugebench bisect --git` builds a checkout: another source identity, so
# it is seeded by content (build-source.sh, differing_files): again at most
# 20 files compiled, mm/shmem.o among them, the variable in System.map.
# --ccache also builds a second throwaway recipe, same patch, unseeded
# (HB_SEED=0: 6-13 min with the load) and checks that ccache served >= 95% of >= 500
# compiles and that kernel/fork.o and mm/memory.o equal minimal-6.1's
# byte for byte. The throwaway recipes, trees and builds are removed.
# Exit: 0 pass, 1 fail, 77 skipped (--ccache without ccache installed).
set -uo pipefail
export LC_ALL=C

say() { printf 'ccache-reuse: %s\n' "$*" >&2; }
full=0
case ${1:-} in
--ccache) full=1 ;;
"") ;;
*)
	say "usage: tests/integration/ccache-reuse.sh [--ccache]"
	exit 1
	;;
esac
have_ccache=0
command -v ccache >/dev/null 2>&1 && [ "${HB_CCACHE:-1}" != 0 ] && have_ccache=1
if [ $full = 1 ] && [ $have_ccache = 0 ]; then
	say "skipped: --ccache needs ccache (apt-get install -y ccache) and HB_CCACHE unset"
	exit 77
fi
[ -x build/hugebench ] && [ -f kernels/build-source.sh ] || {
	say "run from the repository root after make all"
	exit 1
}
cache=$(build/hugebench cache path) || exit 1
names=()
work=$(mktemp -d)
cleanup() {
	local n
	for n in "${names[@]}"; do rm -rf "kernels/$n" "$cache/trees/$n" "$cache/builds/$n"-*; done
	rm -rf "$work"
}
trap cleanup EXIT
fail=0
bad() {
	say "FAIL: $*"
	fail=1
}

say "minimal-6.1 (cached, or built now)"
build/hugebench kernel --target minimal-6.1 >/dev/null || {
	say "FAIL: building minimal-6.1 failed"
	exit 1
}
base=$cache/trees/minimal-6.1/src
[ -f "$base/mm/shmem.c" ] || {
	say "FAIL: no $base/mm/shmem.c"
	exit 1
}

# The patch: one new variable at the end of mm/shmem.c.
var=hb_reuse_check_$$
mkdir -p "$work/a/mm" "$work/b/mm"
cp "$base/mm/shmem.c" "$work/a/mm/shmem.c"
cp "$base/mm/shmem.c" "$work/b/mm/shmem.c"
printf '\nint %s;\n' "$var" >>"$work/b/mm/shmem.c"
(cd "$work" && diff -u a/mm/shmem.c b/mm/shmem.c) >"$work/0001-reuse-check.patch"
[ -s "$work/0001-reuse-check.patch" ] || {
	say "FAIL: could not make the patch"
	exit 1
}

# make_recipe NAME: the throwaway recipe, registered for cleanup.
make_recipe() {
	names+=("$1")
	mkdir -p "kernels/$1/patches"
	printf 'kind=source\nbase=minimal-6.1\ndescription=ccache-reuse.sh throwaway\n' >"kernels/$1/recipe"
	cp "$work/0001-reuse-check.patch" "kernels/$1/patches/"
	printf '0001-reuse-check.patch\n' >"kernels/$1/patches/series"
}

# common_checks NAME OUT: patch in, release, no other tree named, ccache line.
common_checks() {
	local n=$1 out=$2 tdir=$cache/trees/$1 other
	case $out in
	*"-hb-$n "*) ;;
	*) bad "$n: release is not <version>-hb-$n: $out" ;;
	esac
	grep -q " $var\$" "$cache/builds/$n"-*/System.map || bad "$n: $var is not in System.map"
	other=$(grep -rhoE --include='*.cmd' --include='*.d' 'trees/[A-Za-z0-9._-]+/' "$tdir/src/obj" |
		sort -u | grep -vxF "trees/$n/" | paste -sd ' ' || true)
	[ -z "$other" ] || bad "$n: its .cmd/.d files name other trees: $other"
	if [ $have_ccache = 1 ]; then
		case $(tail -n 1 "$tdir/build.log") in
		"ccache: "*) ;;
		*) bad "$n: build.log does not end with the ccache line" ;;
		esac
	fi
}

n=zz-reuse-$$
make_recipe "$n"
say "$n: minimal-6.1 + one patch, fresh tree, seeded"
start=$SECONDS
out=$(build/hugebench kernel --target "$n" 2>"$work/err") || {
	cat "$work/err" >&2
	say "FAIL: building $n failed"
	exit 1
}
say "$n: $((SECONDS - start)) s; $(grep -E '\] (took|ccache: [0-9])' "$work/err" | sed 's/^hugebench: \[build\] //' | paste -sd ';')"
grep -q "object dir seeded from" "$work/err" || bad "$n: its object dir was not seeded"
blog=$cache/trees/$n/build.log
ncc=$(grep -cE '^  CC ' "$blog" || true)
[ "$ncc" -le 20 ] || bad "$n: make compiled $ncc files (want <= 20)"
grep -qE '^  CC +mm/shmem\.o$' "$blog" || bad "$n: mm/shmem.o was not recompiled"
! grep -qE '^  (LD|CC) .*objtool' "$blog" || bad "$n: objtool was rebuilt"
common_checks "$n" "$out"

nk=zz-ksrc-$$
names+=("$nk")
mkdir -p "kernels/$nk" "$work/ksrc"
printf 'kind=source\nbase=minimal-6.1\nsource=ksrc\ndescription=ccache-reuse.sh throwaway\n' >"kernels/$nk/recipe"
chmod 755 "$work" # the build account reads KSRC
for e in "$base"/* "$base"/.[!.]*; do
	[ -e "$e" ] && [ "${e##*/}" != obj ] || continue
	cp -al "$e" "$work/ksrc/" || bad "cannot copy $e into the KSRC tree"
done
rm -f "$work/ksrc/mm/shmem.c"
cp "$work/b/mm/shmem.c" "$work/ksrc/mm/shmem.c"
say "$nk: KSRC = minimal-6.1's source + the same change, fresh tree, seeded by content"
start=$SECONDS
out=$(KSRC=$work/ksrc build/hugebench kernel --target "$nk" 2>"$work/err") || {
	cat "$work/err" >&2
	say "FAIL: building $nk failed"
	exit 1
}
say "$nk: $((SECONDS - start)) s; $(grep -E '\] (took|object dir seeded)' "$work/err" | sed 's/^hugebench: \[build\] //' | paste -sd ';')"
grep -q "object dir seeded from .*another source of the same config" "$work/err" ||
	bad "$nk: its object dir was not seeded by content"
blog=$cache/trees/$nk/build.log
ncc=$(grep -cE '^  CC ' "$blog" || true)
[ "$ncc" -le 20 ] || bad "$nk: make compiled $ncc files (want <= 20)"
grep -qE '^  CC +mm/shmem\.o$' "$blog" || bad "$nk: mm/shmem.o was not recompiled"
common_checks "$nk" "$out"

if [ $full = 1 ]; then
	n2=zz-reuse-$$-b
	make_recipe "$n2"
	say "$n2: same, unseeded (HB_SEED=0), ccache only"
	start=$SECONDS
	out=$(HB_SEED=0 build/hugebench kernel --target "$n2" 2>"$work/err") || {
		cat "$work/err" >&2
		say "FAIL: building $n2 failed"
		exit 1
	}
	say "$n2: $((SECONDS - start)) s; $(tail -n 1 "$cache/trees/$n2/build.log")"
	grep -q "object dir seeded from" "$work/err" && bad "$n2: seeded although HB_SEED=0"
	read -r hits total < <(awk '/^# / { probe = ($0 == "# /dev/null"); next } probe { next }
		/^(direct|preprocessed)_cache_hit$/ { h++ } /^cache_miss$/ { m++ }
		END { print h + 0, h + m }' "$cache/trees/$n2/ccache-stats.log")
	if [ "$total" -lt 500 ] || [ $((hits * 100)) -lt $((total * 95)) ]; then
		bad "$n2: $hits of $total compiles from ccache (want >= 95% of >= 500)"
	fi
	for o in kernel/fork.o mm/memory.o; do
		cmp -s "$base/obj/$o" "$cache/trees/$n2/src/obj/$o" || bad "$n2: $o differs from minimal-6.1's"
	done
	common_checks "$n2" "$out"
fi
[ $fail = 0 ] && say "pass"
exit $fail
