#!/bin/bash
# build-kselftest.sh CACHE_DIR MAJOR.MINOR - the kselftest mm programs that
# touch shmem/file THP, built statically from Debian's linux-source-<MAJOR.MINOR>
# (6.1 keeps them in tools/testing/selftests/vm, 6.12 in .../mm), once per
# source version. The source comes through kernels/build-source.sh --fetch
# (the same download and unpacked tree the source kernel recipes use).
# Last line on stdout: the output folder, which holds the programs and a file
# `version` (the source id, e.g. linux-source-6.1-6.1.192-3).
# Exit 0; 2 with one line on stderr when the source or a compiler is missing.
set -euo pipefail
export LC_ALL=C
die() { printf 'hugebench: [kselftest] %s\n' "$*" >&2; exit 2; }
# the programs built, stripped, and the only files root takes out of the build
progs=(khugepaged split_huge_page_test transhuge-stress gup_longterm)

# --compile TREE DIR OUT: the compile itself, run as the tree's owner (below):
# the uapi headers installed by the tree's own Makefile, then the programs,
# stripped, into OUT (a folder of that account's).
compile() {
	local tree=$1 dir=$2 b=$3
	cd "$b"
	# The uapi headers of this source, not the host's: installed into tmp.
	make -s -C "$tree" O="$b/obj" headers_install INSTALL_HDR_PATH="$b/hdr" >&2 ||
		die "make headers_install failed in $tree"
	# local_config.h as check_config.sh writes it without liburing.
	mkdir -p "$b/inc"
	echo "// No liburing support found" >"$b/inc/local_config.h"
	cflags=(-O2 -static -Wall -I "$dir" -I "$b/inc" -I "$tree/tools/testing/selftests"
		-isystem "$b/hdr/include" -I "$tree/tools/include/uapi")
	# Sources by their names inside $dir (cd there): gup_longterm makes its
	# "local tmpfile" from __FILE__, which must not be an absolute host path.
	build() { # name sources...
		local n=$1
		shift
		# 6.12.118's khugepaged.c uses KSFT_SKIP without including kselftest.h
		# (upstream's build gets it through lib.mk): retried with it forced in.
		if (cd "$dir" && gcc "${cflags[@]}" -o "$b/$n" "$@" -lrt -lpthread -lm) 2>"$b/$n.log" ||
			(cd "$dir" && gcc -D_GNU_SOURCE -include "$tree/tools/testing/selftests/kselftest.h" \
				"${cflags[@]}" -o "$b/$n" "$@" -lrt -lpthread -lm) 2>>"$b/$n.log"; then
			printf 'built %s\n' "$n" >&2
		else
			printf 'hugebench: [kselftest] %s did not build from %s (see below); left out\n' "$n" "$tree" >&2
			tail -5 "$b/$n.log" >&2
		fi
	}
	util=()
	[ -f "$dir/vm_util.c" ] && util+=(vm_util.c)
	# 6.12 builds these against thp_settings.c as well; 7.x renamed it
	# hugepage_settings.c.
	[ -f "$dir/thp_settings.c" ] && util+=(thp_settings.c)
	[ -f "$dir/hugepage_settings.c" ] && util+=(hugepage_settings.c)
	build khugepaged khugepaged.c "${util[@]}"
	build split_huge_page_test split_huge_page_test.c "${util[@]}"
	build transhuge-stress transhuge-stress.c "${util[@]}"
	[ -f "$dir/gup_longterm.c" ] && build gup_longterm gup_longterm.c "${util[@]}"
	strip "${progs[@]/#/$b/}" 2>/dev/null || true
}
if [ "${1:-}" = --compile ] && [ $# -eq 4 ]; then
	compile "$2" "$3" "$4"
	exit 0
fi
[ $# -eq 2 ] || die "usage: build-kselftest.sh CACHE_DIR MAJOR.MINOR"
cache=$(cd "$1" && pwd -P) mm=$2
case $mm in
[0-9]*.[0-9]*) ;;
*) die "kernel version '$mm' is not MAJOR.MINOR" ;;
esac
case $mm in *[!0-9.]*) die "kernel version '$mm' is not MAJOR.MINOR" ;; esac
root=$(cd "$(dirname "$0")/.." && pwd -P)
pkg=linux-source-$mm
# The host's apt first, then the suites the newer kernels come from
# (kernels/apt-archive.sh): linux-source-7.2 is in sid only.
out=""
for suite in "" sid trixie-backports; do
	out=$(HB_SOURCE="debian:$pkg${suite:+@$suite}" "$root/kernels/build-source.sh" --fetch \
		"$root/kernels/minimal-6.1" "$cache" 2>/dev/null) && break
	out=""
done
[ -n "$out" ] || die "no Debian suite here has $pkg (tried the host's apt, sid, trixie-backports)"
src=$(printf '%s\n' "$out" | sed -n 's/^source=debian://p' | sed 's/@.*//')
[ -n "$src" ] || die "build-source.sh --fetch printed no source= line for $pkg"
ver=${src#*=}
id=$pkg-${ver//:/%3a}
tree=$cache/src/$id/tree
dst=$cache/ext/kselftest-$id
# a folder with no program in it (a failed earlier build) is built again
if [ -f "$dst/version" ] && [ -n "$(find "$dst" -maxdepth 1 -type f ! -name version | head -n 1)" ]; then
	echo "$dst"
	exit 0
fi
dir=$tree/tools/testing/selftests/mm
[ -d "$dir" ] || dir=$tree/tools/testing/selftests/vm
[ -d "$dir" ] || die "$tree has no tools/testing/selftests/mm or vm"
mkdir -p "$cache/ext"
tmp=$(mktemp -d "$cache/ext/.kselftest-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The tree is the build account's (src/ is handed to it, and a patch series'
# code runs as that account): its Makefile and scripts never run as root.
# As root with a tree of another account's, the compile runs as that account
# (setpriv, no supplementary group) in a folder of its own, b/, and root
# takes out only the programs it expects, each read with the account's
# rights (cat under setpriv: a link there to a root-only file is not read).
own=$(stat -c %u:%g "$tree")
as=()
if [ "$(id -u)" = 0 ] && [ "${own%%:*}" != 0 ]; then
	as=(setpriv --reuid="${own%%:*}" --regid="${own##*:}" --clear-groups --)
fi
chmod 755 "$tmp"
mkdir "$tmp/b"
[ ${#as[@]} -eq 0 ] || chown "$own" "$tmp/b"
# the script on stdin: the account need not reach the clone (/root is 0700)
"${as[@]}" bash -s -- --compile "$tree" "$dir" "$tmp/b" <"$0" ||
	die "the kselftest compile of $id failed (see above)"
for n in "${progs[@]}"; do
	[ -f "$tmp/b/$n" ] || continue
	if ! "${as[@]}" cat -- "$tmp/b/$n" >"$tmp/$n"; then
		printf 'hugebench: [kselftest] %s of the build cannot be read by the tree owner: left out\n' "$n" >&2
		rm -f "$tmp/$n"
		continue
	fi
	chmod 755 "$tmp/$n"
done
rm -rf "$tmp/b"
[ -n "$(find "$tmp" -maxdepth 1 -type f | head -n 1)" ] || die "no kselftest program built from $id (see above)"
printf '%s\n' "$id" >"$tmp/version"
mkdir -p "$cache/ext"
rm -rf "$dst"
mv "$tmp" "$dst"
trap - EXIT
echo "$dst"
