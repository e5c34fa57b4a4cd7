#!/bin/sh
# fetch-debian.sh META CACHEDIR
# Packaging glue: resolve a Debian kernel meta package to the newest concrete
# linux-image package, download it once (sha256 checked against the archive
# index), unpack it, and print key=value lines on stdout: release=, image=,
# modules=, package= (paths may hold spaces).
set -eu
meta=$1
cache=$2
# depmod lives in /sbin, which a non-root PATH lacks
PATH=$PATH:/usr/sbin:/sbin
log() { echo "hugebench: $*" >&2; }
# Never fail silently: set -e stops at the first failing command.
trap 'rc=$?; [ "$rc" -eq 0 ] || log "fetch-debian.sh $meta failed (exit $rc)"' EXIT

resolve() {
    apt-cache depends "$meta" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1
}
pkg=$(resolve)
if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
    log "package lists do not know $meta; running apt-get update"
    apt-get update -q >&2 || true
    pkg=$(resolve)
fi
if [ -z "$pkg" ]; then
    log "cannot resolve $meta to a linux-image package; run: apt-get update"
    exit 3
fi
ver=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
want_sha=$(apt-cache show "$pkg=$ver" | sed -n 's/^SHA256: //p' | head -n 1)
dir="$cache/$pkg"
deb_dir="$cache/debs"
mkdir -p "$deb_dir"
# One fetch at a time per cache: two first runs must not unpack into the
# same place.
exec 9>"$cache/.fetch.lock"
flock 9
if [ -f "$dir/.unpacked" ] && [ "$(cat "$dir/.version" 2>/dev/null)" != "$ver" ]; then
    log "$pkg: cached $(cat "$dir/.version" 2>/dev/null) differs from the archive's $ver; fetching again"
    rm -rf "$dir"
fi
if [ ! -f "$dir/.unpacked" ]; then
    deb=$(ls "$deb_dir"/"${pkg}"_*.deb 2>/dev/null | head -n 1)
    got_sha=""
    if [ -n "$deb" ]; then
        got_sha=$(sha256sum "$deb" | cut -d' ' -f1)
    fi
    if [ -z "$deb" ] || [ "$got_sha" != "$want_sha" ]; then
        log "downloading $pkg ($ver)"
        rm -f "$deb_dir"/"${pkg}"_*.deb
        # apt downloads as its sandbox user _apt when run as root: give it a
        # fresh folder of its own rather than switching the sandbox off.
        dl=$(mktemp -d "$deb_dir/.dl.XXXXXX")
        if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$dl"; fi
        (cd "$dl" && apt-get download -q "$pkg=$ver" >&2) || { rm -rf "$dl"; exit 3; }
        mv "$dl"/*.deb "$deb_dir"/
        rm -rf "$dl"
        deb=$(ls "$deb_dir"/"${pkg}"_*.deb | head -n 1)
        got_sha=$(sha256sum "$deb" | cut -d' ' -f1)
    fi
    if [ -n "$want_sha" ] && [ "$got_sha" != "$want_sha" ]; then
        log "checksum mismatch for $deb: archive says $want_sha, file is $got_sha; delete it and retry"
        rm -f "$deb"
        exit 3
    fi
    rm -rf "$dir.tmp"
    mkdir -p "$dir.tmp"
    dpkg-deb -x "$deb" "$dir.tmp"
    # The .deb ships no modules.dep (depmod runs at install time): make it.
    rel=$(ls "$dir.tmp/lib/modules" | head -n 1)
    depmod -b "$dir.tmp" "$rel"
    printf '%s\n' "$got_sha" > "$dir.tmp/.deb.sha256"
    printf '%s\n' "$ver" > "$dir.tmp/.version"
    touch "$dir.tmp/.unpacked"
    rm -rf "$dir"
    mv "$dir.tmp" "$dir"
fi
vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -n 1)
release=${vmlinuz##*/vmlinuz-}
printf 'release=%s\nimage=%s\nmodules=%s\npackage=%s\n' "$release" "$vmlinuz" \
    "$dir/lib/modules/$release" "$pkg=$ver"
