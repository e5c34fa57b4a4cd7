#!/bin/bash
# fetch-debian.sh CACHEDIR
#   env: HB_META=<meta package>      resolve through its Depends: linux-image-*
#    or  HB_IMAGE=<glob>             the newest linux-image package whose name
#                                    matches (e.g. linux-image-7.2.*-cloud-amd64)
#        HB_ARCHIVE=<suite>          optional: a Debian suite the host's sources
#                                    lack (sid, trixie-backports; apt-archive.sh)
#        HB_PIN=<version>            optional: that version of the image package
#        HB_MODULES=none             optional: leave out linux-modules-<v> (for a
#                                    kernel whose modules the archive lacks)
# Packaging glue: resolve a Debian kernel to one concrete linux-image package,
# download what holds the kernel and its modules once (sha256 checked against
# the archive index), unpack it, and print key=value lines on stdout:
# release=, image=, modules=, package= (the image package=version), packages=
# (every package unpacked, pkg=version, space separated), archive=.
#
# Two package layouts: up to 6.1x, linux-image-<v> holds boot/vmlinuz-<v>
# and lib/modules/<v>; from 6.19/7.x it is a meta package depending on
# linux-binary-<v> (usr/lib/modules/<v>/vmlinuz) and linux-modules-<v>. Neither
# ships modules.dep (depmod runs at install time): it is made here.
set -euo pipefail
cache=$1
[ -n "$cache" ] || { echo "usage: fetch-debian.sh CACHEDIR" >&2; exit 2; }
mkdir -p "$cache"
# absolute: the memo below names the files it points at
cache=$(cd "$cache" && pwd -P)
here=$(dirname "$(readlink -f "$0")")
# depmod lives in /sbin, which a non-root PATH lacks
PATH=$PATH:/usr/sbin:/sbin
export LC_ALL=C
log() { echo "hugebench: $*" >&2; }
what=${HB_META:-${HB_IMAGE:-?}}
# Never fail silently: set -e stops at the first failing command. A half
# unpacked version folder ($partial) goes with the failure. Exits 2 and 3
# are this script's own, each after one line saying why: nothing more then
# (the reason stays the one line, issue 38).
partial=""
trap 'rc=$?; [ -z "$partial" ] || rm -rf "$partial"
case $rc in 0 | 2 | 3) ;; *) log "fetch-debian.sh $what failed (exit $rc)" ;; esac' EXIT
# shellcheck source=kernels/apt-archive.sh
. "$here/apt-archive.sh"
archive=${HB_ARCHIVE:-}
# the lists live beside the other caches (CACHE is <cache>/kernels)
hb_apt_init "$archive" "$cache/.." || exit $?
where=${archive:-the host\'s apt sources}

# The answer is kept until the package lists change (names, sizes, mtimes
# of HB_APT_LISTS' Packages files): asking apt again costs 1-6 CPU-seconds
# per run, every run. Used only while what it names is still unpacked.
memo_dir=$cache/.resolved
memo=$memo_dir/$( { printf '%s\n' "${HB_META:-}" "${HB_IMAGE:-}" "$archive" "${HB_PIN:-}" \
	"${HB_MODULES:-}"; find "$HB_APT_LISTS" -maxdepth 1 -name '*_Packages*' \
	-printf '%f %s %T@\n' 2>/dev/null | sort; } | sha256sum | cut -c1-32)
if [ -f "$memo" ]; then
	m_image=$(sed -n 's/^image=//p' "$memo")
	m_mod=$(sed -n 's/^modules=//p' "$memo")
	m_dir=$(sed -n 's/^dir=//p' "$memo")
	if [ -n "$m_image" ] && [ -f "$m_image" ] && [ -f "$m_dir/.unpacked" ] &&
		{ [ -z "$m_mod" ] || [ -f "$m_mod/modules.dep" ]; }; then
		grep -v '^dir=' "$memo"
		exit 0
	fi
fi

from_meta() {
	hb_apt_cache depends "$HB_META" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1
}

# "pkg ver" of the newest (or pinned) package matching HB_IMAGE
from_glob() {
	local p v best="" bestv=""
	while read -r p; do
		# shellcheck disable=SC2053 # the glob is the point
		[[ $p == $HB_IMAGE ]] || continue
		case $p in *-dbg | *-unsigned) continue ;; esac
		while read -r v; do
			if [ -n "${HB_PIN:-}" ]; then
				[ "$v" = "$HB_PIN" ] || continue
			elif [ -n "$bestv" ] && ! dpkg --compare-versions "$v" gt "$bestv"; then
				continue
			fi
			best=$p
			bestv=$v
		done < <(hb_apt_cache madison "$p" 2>/dev/null | awk -F' [|] ' '{ gsub(/ /, "", $2); print $2 }')
	done < <(hb_apt_cache pkgnames linux-image- 2>/dev/null | sort)
	[ -n "$best" ] && printf '%s %s\n' "$best" "$bestv"
}

if [ -n "${HB_META:-}" ]; then
	pkg=$(from_meta)
	if [ -z "$pkg" ] && [ -z "$archive" ] && [ "$(id -u)" = 0 ]; then
		log "package lists do not know $HB_META; running apt-get update"
		apt-get update -q >&2 || true
		pkg=$(from_meta)
	fi
	[ -n "$pkg" ] || { log "cannot resolve $HB_META to a linux-image package in $where; run: apt-get update"; exit 3; }
	if [ -n "${HB_PIN:-}" ]; then
		ver=$HB_PIN
	else
		ver=$(hb_apt_cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
	fi
else
	read -r pkg ver < <(from_glob) || true
	if [ -z "${pkg:-}" ]; then
		log "no package matching $HB_IMAGE${HB_PIN:+ at version $HB_PIN} in $where"
		exit 3
	fi
fi
[ -n "$ver" ] && [ "$ver" != "(none)" ] || { log "$pkg has no candidate version in $where"; exit 3; }
# apt-cache show exits 0 for a version it does not know (a pin= of a
# version that never existed got as far as deleting the cached .deb):
# the version must be one madison lists, before anything is touched.
has_version() {
	hb_apt_cache madison "$1" 2>/dev/null | awk -F' [|] ' '{ gsub(/ /, "", $2); print $2 }' |
		grep -qxF -- "$2"
}
has_version "$pkg" "$ver" || { log "$pkg=$ver is not in $where (apt-cache madison $pkg lists the versions)"; exit 3; }

# The packages that hold the kernel: the image itself, or its binary and
# modules packages (same version) when it is a meta package.
parts=$(hb_apt_cache show "$pkg=$ver" | sed -n 's/^Depends: //p' | head -n 1 | tr ',' '\n' |
	sed -n 's/^ *\(linux-\(binary\|modules\)-[^ ]*\).*/\1/p')
[ -n "$parts" ] || parts=$pkg
if [ "${HB_MODULES:-}" = none ]; then
	parts=$(printf '%s\n' $parts | grep -v '^linux-modules-' || true)
	[ -n "$parts" ] || { log "$pkg=$ver: nothing but modules to fetch with HB_MODULES=none"; exit 3; }
else
	for p in $parts; do
		has_version "$p" "$ver" && continue
		log "$pkg=$ver depends on $p=$ver, which $where does not carry; a recipe can boot it without its modules: modules=none"
		exit 3
	done
fi

# One folder per package version: the cache is the machine's, shared by every
# clone, and another clone may be booting the version unpacked before while
# this one fetches a newer one, so a version is never replaced in place.
dir="$cache/$pkg${HB_MODULES:+-modules-$HB_MODULES}_${ver//:/%3a}"
deb_dir="$cache/debs"
mkdir -p "$deb_dir"
# One fetch at a time per cache (every clone's and every run's): two first
# runs must not download into or unpack to the same place. The unpacked
# folder appears by one rename, complete.
exec 9>"$cache/.fetch.lock"
flock 9

# download PKG: the .deb of PKG=$ver into $deb_dir, checked; prints its path.
# Each version keeps its own file (apt's name: PKG_VER_ARCH.deb, ':' as
# %3a); a download lands in a fresh folder and replaces nothing until its
# checksum is right, so a failed one loses no other version.
download() {
	local p=$1 deb want got dl new
	want=$(hb_apt_cache show "$p=$ver" | sed -n 's/^SHA256: //p' | head -n 1)
	[ -n "$want" ] || { log "$p=$ver: $where gives no SHA256 for it"; exit 3; }
	deb=$(ls "$deb_dir"/"${p}_${ver//:/%3a}"_*.deb 2>/dev/null | head -n 1 || true)
	got=""
	[ -z "$deb" ] || got=$(sha256sum "$deb" | cut -d' ' -f1)
	if [ -z "$deb" ] || [ "$got" != "$want" ]; then
		log "downloading $p ($ver) from $where"
		# apt downloads as its sandbox user _apt when run as root: give it a
		# fresh folder of its own rather than switching the sandbox off.
		dl=$(mktemp -d "$deb_dir/.dl.XXXXXX")
		if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$dl"; fi
		(cd "$dl" && hb_apt_get download -q "$p=$ver" >&2) || { rm -rf "$dl"; log "apt-get download $p=$ver failed"; exit 3; }
		new=$(ls "$dl"/*.deb 2>/dev/null | head -n 1 || true)
		got=""
		[ -z "$new" ] || got=$(sha256sum "$new" | cut -d' ' -f1)
		if [ "$got" != "$want" ]; then
			log "checksum mismatch for $p=$ver: archive says $want, the download is ${got:-missing}; nothing in the cache was changed"
			rm -rf "$dl"
			exit 3
		fi
		[ -z "$deb" ] || rm -f "$deb"
		deb=$deb_dir/${new##*/}
		mv "$new" "$deb"
		rm -rf "$dl"
	fi
	printf '%s\n' "$deb"
}

if [ ! -f "$dir/.unpacked" ]; then
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	partial=$dir.tmp
	for p in $parts; do
		deb=$(download "$p")
		dpkg-deb -x "$deb" "$dir.tmp"
		printf '%s=%s\n' "$p" "$ver" >>"$dir.tmp/.packages"
	done
	for root in "$dir.tmp" "$dir.tmp/usr"; do
		[ -d "$root/lib/modules" ] || continue
		rel=$(ls "$root/lib/modules" | head -n 1)
		depmod -b "$root" "$rel"
	done
	printf '%s\n' "$ver" >"$dir.tmp/.version"
	touch "$dir.tmp/.unpacked"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	partial=""
fi
vmlinuz=$(ls "$dir"/boot/vmlinuz-* "$dir"/usr/lib/modules/*/vmlinuz 2>/dev/null | head -n 1 || true)
[ -n "$vmlinuz" ] || { log "$pkg=$ver holds no boot/vmlinuz-* nor usr/lib/modules/*/vmlinuz"; exit 3; }
case $vmlinuz in
*/boot/vmlinuz-*) release=${vmlinuz##*/vmlinuz-}; moddir=$dir/lib/modules/$release ;;
*) moddir=${vmlinuz%/vmlinuz}; release=${moddir##*/} ;;
esac
[ -f "$dir/.packages" ] || printf '%s\n' "$pkg=$ver" >"$dir/.packages"
if [ "${HB_MODULES:-}" = none ]; then
	moddir=""
else
	[ -f "$moddir/modules.dep" ] || { log "$moddir/modules.dep missing after depmod"; exit 3; }
fi
answer=$(printf 'release=%s\nimage=%s\nmodules=%s\npackage=%s\npackages=%s\narchive=%s\n' \
	"$release" "$vmlinuz" "$moddir" "$pkg=$ver" "$(tr '\n' ' ' <"$dir/.packages" | sed 's/ $//')" \
	"$archive")
if mkdir -p "$memo_dir" 2>/dev/null; then
	printf '%s\ndir=%s\n' "$answer" "$dir" >"$memo.$$" && mv "$memo.$$" "$memo" || rm -f "$memo.$$"
fi
printf '%s\n' "$answer"
