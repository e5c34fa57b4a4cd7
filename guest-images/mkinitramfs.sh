#!/bin/sh
# mkinitramfs.sh STAGING OUT.cpio HB_GUEST [MODULE_FILE NAME]...
# Packaging glue: completes a staging tree the harness prepared (etc/hb/suite,
# etc/hb/modules) with busybox-static, the static hugebench guest binary as
# /init, and the given kernel modules (decompressed, since the guest loads
# them with finit_module and Debian 6.12 ships .ko.xz), then writes a newc
# cpio archive to OUT.cpio, which must not exist yet: it is created with
# noclobber (O_EXCL), so a symlink planted there is not followed. The harness
# passes a path inside its private mkdtemp() folder and renames the result.
# The archive is reproducible (issue 34): the same suite, modules and
# hb-guest give the same bytes in every run (modes from a fixed umask, every
# time stamp 0, owner root, inode numbers renumbered), so two runs boot the
# same input, and environment.initramfs_sha256 shows it.
set -eu
umask 022
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
find "$staging" ! -type l -exec chmod u+rwX,go+rX,go-w {} +
find "$staging" -exec touch -h -d @0 {} +
set -C
(cd "$staging" && find . -print | LC_ALL=C sort |
	cpio -o -H newc --quiet --reproducible -R 0:0) > "$out"
