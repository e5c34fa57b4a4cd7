#!/bin/bash
# build-fio.sh CACHE_DIR - one pinned fio for every guest kernel: Debian's
# fio 3.33-3 source package with its patches, linked statically (Debian's
# binary links ~60 shared libraries, ~97 MB with their closure; this one is
# ~3 MB), built once into CACHE_DIR/ext/fio-<version>-static/fio.
# The source comes through `apt-get source` with a private deb-src list under
# CACHE_DIR/ext/apt (nothing in /etc/apt is changed).
# Last line on stdout: the folder holding `fio` and `version`.
# Exit 0; 2 with one line on stderr when the download or the build fails.
set -euo pipefail
export LC_ALL=C
die() { printf 'hugebench: [fio] %s\n' "$*" >&2; exit 2; }
[ $# -eq 1 ] || die "usage: build-fio.sh CACHE_DIR"
cache=$1
ver=3.33-3
dst=$cache/ext/fio-$ver-static
if [ -x "$dst/fio" ] && [ -f "$dst/version" ]; then
	echo "$dst"
	exit 0
fi
for t in gcc make dpkg-source; do
	command -v $t >/dev/null || die "$t missing; run: apt-get install -y build-essential dpkg-dev"
done
mkdir -p "$cache/ext/apt/lists/partial"
apt=(-q -o "Dir::Etc::SourceList=$cache/ext/apt/src.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$cache/ext/apt/lists")
printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main\n' \
	>"$cache/ext/apt/src.list"
tmp=$(mktemp -d "$cache/ext/.fio-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$tmp"; fi
apt-get "${apt[@]}" update >"$tmp/apt.log" 2>&1 || die "apt-get update (deb-src) failed: $(tail -1 "$tmp/apt.log")"
(cd "$tmp" && apt-get "${apt[@]}" source --download-only "fio=$ver") >>"$tmp/apt.log" 2>&1 ||
	die "apt-get source fio=$ver failed: $(tail -1 "$tmp/apt.log")"
(cd "$tmp" && dpkg-source -x "fio_$ver.dsc" src) >>"$tmp/apt.log" 2>&1 ||
	die "dpkg-source -x fio_$ver.dsc failed: $(tail -1 "$tmp/apt.log")"
(cd "$tmp/src" && ./configure --build-static --disable-native && make -j2) >"$tmp/build.log" 2>&1 ||
	die "fio did not build (static): $(tail -1 "$tmp/build.log")"
mkdir -p "$tmp/out"
strip -o "$tmp/out/fio" "$tmp/src/fio"
printf '%s (Debian source %s, static)\n' "$("$tmp/out/fio" --version)" "$ver" >"$tmp/out/version"
rm -rf "$dst"
mv "$tmp/out" "$dst"
echo "$dst"
