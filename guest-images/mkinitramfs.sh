#!/bin/sh
# mkinitramfs.sh STAGING OUT.cpio HB_GUEST [MODULE_FILE NAME]...
# Packaging glue: completes a staging tree the harness prepared (etc/hb/suite,
# etc/hb/modules) with busybox-static, the static hugebench guest binary as
# /init, and the given kernel modules (decompressed, since the guest loads
# them with finit_module and Debian 6.12 ships .ko.xz), then writes a newc
# cpio archive to OUT.cpio, which must not exist yet: it is created with
# noclobber (O_EXCL), so a symlink planted there is not followed. The harness
# passes a path inside its private mkdtemp() folder and renames the result.
set -eu
staging=$1 out=$2 guest=$3
shift 3
busybox=/bin/busybox
[ -x "$busybox" ] || { echo "hugebench: $busybox missing; run: apt-get install -y busybox-static" >&2; exit 2; }
mkdir -p "$staging/bin" "$staging/sbin" "$staging/dev" "$staging/proc" "$staging/sys" \
	"$staging/tmp" "$staging/mnt" "$staging/lib/modules/hb" "$staging/etc/hb"
cp "$busybox" "$staging/bin/busybox"
for app in $("$busybox" --list); do
	[ -e "$staging/bin/$app" ] || ln -s busybox "$staging/bin/$app"
done
cp "$guest" "$staging/init"
cp "$guest" "$staging/bin/hb-guest"
while [ $# -ge 2 ]; do
	src=$1 name=$2
	shift 2
	dst="$staging/lib/modules/hb/$name.ko"
	case "$src" in
	*.ko.xz) xz -dc "$src" > "$dst" ;;
	*.ko.zst) zstd -qdc "$src" > "$dst" ;;
	*.ko.gz) gzip -dc "$src" > "$dst" ;;
	*) cp "$src" "$dst" ;;
	esac
done
set -C
(cd "$staging" && find . -print | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out"
