#!/bin/bash
# mkextlayer.sh CACHE_DIR MAJOR.MINOR - the external tools layer of the guest
# initramfs: fio (static, build-fio.sh), stress-ng (Debian's binary plus its
# ldd library closure and the loader, at their own paths) and the kselftest
# mm programs of the kernel's version (build-kselftest.sh), with the fio job
# files of configs/fio. A zstd-compressed newc cpio the harness appends to the
# initramfs only when the suite runs fio, stress-ng or kselftest (the kernel
# unpacks concatenated archives in order). Cached by content: the name is the
# sha256 of every packed file's path and bytes, so a changed job file or tool
# makes a new layer and an unchanged one is reused as is.
# Prints key=value lines: layer=<path> fio=<version> stress_ng=<version>
# kselftest=<source id or "none: reason">.
# Exit 0; 2 with one line on stderr when a required tool is missing.
set -euo pipefail
export LC_ALL=C
die() { printf 'hugebench: [ext] %s\n' "$*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: mkextlayer.sh CACHE_DIR MAJOR.MINOR"
cache=$1 mm=$2
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/.." && pwd -P)
sng=/usr/bin/stress-ng
[ -x "$sng" ] || die "$sng missing; run: apt-get install -y stress-ng"
command -v zstd >/dev/null || die "zstd missing; run: apt-get install -y zstd"
command -v cpio >/dev/null || die "cpio missing; run: apt-get install -y cpio"
# One builder at a time: tests/integration/prebuild.sh builds the layers in
# the background while the tests run; a test that gets here first, or second,
# waits and then finds fio, kselftest and the layer built (neither build
# script locks, and two of them would both build and race on the same dst).
mkdir -p "$cache/ext"
exec 7>>"$cache/ext/.lock"
flock 7 || die "cannot lock $cache/ext/.lock"
fiodir=$("$here/build-fio.sh" "$cache" | tail -n 1) || die "no static fio (see above)"
ksdir=""
ksver="none: no kselftest build for $mm"
if ks=$("$here/build-kselftest.sh" "$cache" "$mm" | tail -n 1); then
	ksdir=$ks
	ksver=$(cat "$ks/version")
fi
mkdir -p "$cache/ext"
st=$(mktemp -d "$cache/ext/.layer-XXXXXX")
trap 'rm -rf "$st"' EXIT
chmod 755 "$st"
mkdir -p "$st/opt/hb/bin" "$st/opt/hb/fio" "$st/opt/hb/kselftest" "$st/etc"
# stress-ng reads the mount table from /etc/mtab (its tmpfs stressor picks a
# tmpfs from there); the base image has none.
ln -s /proc/self/mounts "$st/etc/mtab"
cp "$fiodir/fio" "$st/opt/hb/bin/fio"
cp "$sng" "$st/opt/hb/bin/stress-ng"
# The loader and every library ldd resolves, copied (not linked) to the path
# ldd printed: the guest has no ld.so.cache, and the loader's default search
# path covers /lib/x86_64-linux-gnu and /usr/lib/x86_64-linux-gnu.
ldd "$sng" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u |
	while read -r lib; do
		mkdir -p "$st$(dirname "$lib")"
		cp -L "$lib" "$st$lib"
	done
[ -n "$(ls "$st/lib64" 2>/dev/null)" ] || die "ldd $sng printed no loader"
for f in "$root"/configs/fio/*.fio; do
	[ -f "$f" ] && cp "$f" "$st/opt/hb/fio/"
done
[ -n "$ksdir" ] && cp "$ksdir"/* "$st/opt/hb/kselftest/"
fiover=$(cat "$fiodir/version")
sngver="stress-ng $(dpkg-query -W -f='${Version}' stress-ng 2>/dev/null || echo unknown) (Debian binary, $(find "$st" -name '*.so*' | wc -l) shared libraries packed)"
printf 'fio=%s\nstress_ng=%s\nkselftest=%s\n' "$fiover" "$sngver" "$ksver" >"$st/opt/hb/versions"
key=$(cd "$st" && {
	find . -type l -printf '%p -> %l\n' | sort
	find . -type f -print | sort | while read -r f; do
		printf '%s\n' "$f"
		sha256sum <"$f"
	done
} | sha256sum | cut -c1-16)
layer=$cache/ext/layer-$key.cpio.zst
if [ ! -f "$layer" ]; then
	# no "." entry: the layer must not change the mode of the guest's "/".
	# zstd -12: on the 38.6 MB layer -19 took 24 s of CPU (133 s wall at
	# load 9) for 8.3 MB, -12 takes 2.5 s for 9.3 MB; decompressing either
	# costs the same (0.07-0.09 s natively), so the guest boots no slower.
	(cd "$st" && find . -mindepth 1 -print | sort | cpio -o -H newc --quiet) |
		zstd -q -12 -T2 >"$st.cpio.zst"
	mv "$st.cpio.zst" "$layer"
fi
printf 'layer=%s\n' "$layer"
cat "$st/opt/hb/versions"
