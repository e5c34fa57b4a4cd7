#!/bin/bash
# kernels/build-source.sh - build a kernel from a source recipe (packaging glue).
#
# The harness drives this script (hb_recipe_build() in harness/kernel/recipe.c): the
# C side parses the recipe, resolves base= chains and patches/series, and
# computes the cache key (hb_recipe_cache_key: the ONE implementation of it).
# This script obtains the source, applies the patches, merges the config and
# runs make. It reads no recipe file itself; everything comes from the
# environment the harness sets, so what is built is exactly what was hashed.
#
#   build-source.sh --fetch RECIPE_DIR CACHE_DIR
#       env: HB_SOURCE=debian:<package>|ksrc   (KSRC=/path/to/linux for ksrc)
#            HB_SRC_OWNER=<uid>:<gid>: a newly unpacked Debian tree is given
#            to the account the build runs as (docs/privileges.md)
#       Checks prerequisites, obtains and unpacks the source once, prints
#           source=<source id>
#           gcc=<first line of gcc --version>
#   build-source.sh RECIPE_DIR CACHE_DIR
#       env: HB_SOURCE, HB_SOURCE_ID (the source= line of --fetch),
#            HB_KERNEL_KEY (64 hex digits), HB_SERIES (patch paths, one per
#            line, in order), HB_CONFIGS (Kconfig fragment paths, in order,
#            kernels/base.config first), KSRC for source=ksrc; optional
#            HB_CCACHE=0 to compile without ccache, HB_SEED=0 not to seed the
#            object dir (see "seeding" and "ccache" below; for tests and
#            measurements)
#       Last line on stdout: <kernel-release> <abs bzImage> <abs modules dir or ->
#
# Exit: 0 ok; 2 recipe, patch, config, compile or prerequisite error (one
# clear line on stderr, prefixed "hugebench: [build] error:"); 3 the archive
# could not be reached. Progress goes to stderr.
#
# Cache layout (CACHE_DIR is the machine's cache, shared by every clone:
# /var/cache/hugebench for root, ~/.cache/hugebench for a user, or
# HUGEBENCH_CACHE; docs/kernels.md, "The cache"). Each part below has a lock
# (src/ itself, trees/<recipe>/.lock) and appears complete by one rename:
#   debs/<pkg>_<ver>_all.deb           downloaded source package (root's when
#                                       fetched as root; not in src/)
#   src/<pkg>-<ver>/tree/               pristine unpacked tree (shared)
#   trees/<recipe>/src/                 hardlink copy + patches (per recipe)
#   trees/<recipe>/src/obj/             make O= output, kept for incremental builds
#                                       (inside src: kbuild then uses srctree=.., so
#                                       nothing in it names the tree; see "ccache")
#   trees/<recipe>/built                source, gcc and config of a complete obj/
#                                       (absent while a build is under way)
#   trees/<recipe>/ccache-bin/gcc, cc   ccache wrappers (not for .incbin sources), first in make's PATH
#   trees/<recipe>/ccache-stats.log     ccache's per-compile results of the last build
#   ccache/                             CCACHE_DIR, shared by all recipes (max_size 5G)
#   builds/<recipe>-<key12>/            bzImage .config System.map build.log release
#   builds/<recipe>-latest              symlink to the newest build of <recipe>
set -euo pipefail
shopt -s inherit_errexit # a failure inside $(...) fails the assignment too
export LC_ALL=C

log() { printf 'hugebench: [build] %s\n' "$*" >&2; }
# shellcheck source=kernels/apt-archive.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/apt-archive.sh"
# fd 3 is the script's own stdout, also inside $(...) (which captures only
# fd 1): a die() in a function called as id=$(fetch_ksrc) must not print its
# reason into $id.
exec 3>&1
# Called by hugebench (HB_SOURCE set), the reason goes to stdout as
# "error=<reason>" and hugebench prints it as its one error line; by hand,
# to stderr.
die() {
	local code=$1
	shift
	if [ -n "${HB_SOURCE:-}" ]; then
		printf 'error=%s\n' "$*" >&3
	else
		printf 'hugebench: [build] error: %s\n' "$*" >&2
	fi
	exit "$code"
}
usage() {
	die 2 "usage: build-source.sh [--fetch] RECIPE_DIR CACHE_DIR (run it through 'hugebench kernel --target NAME' / 'make kernel TARGET=NAME')"
}

fetch_only=0
if [ "${1:-}" = --fetch ]; then
	fetch_only=1
	shift
fi
[ $# -eq 2 ] || usage
recipe_dir=$1
name=${recipe_dir%/}
name=${name##*/}
case $name in
'' | *[!A-Za-z0-9._-]* | .*) die 2 "recipe name '$name' must be letters, digits, '.', '_' or '-'" ;;
esac
[ -d "$recipe_dir" ] || die 2 "recipe directory $recipe_dir does not exist"
mkdir -p "$2" || die 2 "cannot create cache directory $2"
cache=$(cd "$2" && pwd -P)
source_spec=${HB_SOURCE:-}
[ -n "$source_spec" ] || usage

# --- prerequisites ---------------------------------------------------------
# tool-or-header:package pairs; a missing one is reported with the exact apt
# command, nothing is installed here (the Makefile's deps target does that).
check_prereqs() {
	local missing="" item what pkg
	for item in gcc:gcc make:make flex:flex bison:bison bc:bc perl:perl \
		patch:patch xz:xz-utils tar:tar cpio:cpio flock:util-linux \
		sha256sum:coreutils /usr/include/stdio.h:libc6-dev \
		/usr/include/libelf.h:libelf-dev /usr/include/openssl/opensslv.h:libssl-dev; do
		what=${item%%:*}
		pkg=${item#*:}
		case $what in
		/*) [ -e "$what" ] && continue ;;
		*) command -v "$what" >/dev/null 2>&1 && continue ;;
		esac
		case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
	done
	if [ -n "$missing" ]; then
		die 2 "missing build prerequisites; run: apt-get install -y${missing}"
	fi
}

# --- obtaining the source --------------------------------------------------
# debian:<pkg>: the installed package's /usr/src/<pkg>.tar.xz if the package is
# installed, else `apt-get download` of the candidate version into the cache
# (no root needed, nothing installed system-wide). Unpacked once per version.
debian_pkg() {
	local pkg=${source_spec#debian:}
	pkg=${pkg%%@*}
	case $pkg in
	'' | *[!a-z0-9.+-]*) die 2 "recipe $name: bad source '$source_spec' (want debian:linux-source-X.Y or ksrc)" ;;
	esac
	printf '%s\n' "$pkg"
}

# DIR is root's and no one else can write it (root works there by name).
roots_own() {
	local st
	[ -d "$1" ] && [ ! -L "$1" ] || return 1
	st=$(stat -c '%u %a' -- "$1") || return 1
	[ "${st%% *}" = 0 ] && (((8#${st#* } & 8#022) == 0))
}

# The tree and the .deb are made as root in a staging folder of root's
# (mktemp -d: new, mode 0700, in the cache folder, so on the filesystem of
# src/), checked there, and moved into src/ -- the build account's folder --
# with one rename that replaces nothing (mv -n -T: renameat2
# RENAME_NOREPLACE). Root opens no name in src/ (a link the account planted
# there would be followed) but src/ itself, read-only, as the lock. The
# downloaded .deb is kept in <cache>/debs/, root's (docs/privileges.md).
fetch_debian() {
	local pkg ver status tarball deb want got dir top dl dlout suite="" rc=0 stage debs old
	local tops
	pkg=$(debian_pkg)
	case $source_spec in *@*) suite=${source_spec##*@} ;; esac
	command -v dpkg-deb >/dev/null 2>&1 || die 2 "missing build prerequisites; run: apt-get install -y dpkg"
	if [ "$(id -u)" = 0 ] && ! roots_own "$cache"; then
		die 2 "as root, the cache folder $cache must be root's and closed to writes by others (docs/privileges.md)"
	fi
	# @<suite>: that suite's lists in a private apt configuration
	hb_apt_init "$suite" "$cache" || rc=$?
	[ "$rc" = 0 ] || die "$rc" "cannot read the package lists of Debian $suite (see above)"
	if [ ! -d "$cache/src" ] || [ -L "$cache/src" ]; then die 3 "$cache/src is not a folder"; fi
	exec 8<"$cache/src"
	flock 8
	status=$(dpkg-query -W -f='${Status}|${Version}' "$pkg" 2>/dev/null || true)
	tarball=""
	if [ -z "$suite" ] && [ "${status%%|*}" = "install ok installed" ] && [ -f "/usr/src/$pkg.tar.xz" ]; then
		ver=${status#*|}
		tarball=/usr/src/$pkg.tar.xz
	else
		ver=$(hb_apt_cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p' | head -n 1)
		if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
			[ -z "$suite" ] || die 2 "Debian package $pkg is not in Debian $suite"
			die 2 "Debian package $pkg is not in the apt lists; run: apt-get update && apt-get install -y $pkg"
		fi
	fi
	dir=$cache/src/$pkg-${ver//:/%3a}
	if [ ! -f "$dir/.complete" ]; then
		stage=$(mktemp -d "$cache/.stage.XXXXXX") || die 3 "cannot create a staging folder in $cache"
		# shellcheck disable=SC2064 # the name is fixed now
		trap "rm -rf '$stage'" EXIT
		if [ -z "$tarball" ]; then
			debs=$cache/debs
			mkdir -p "$debs"
			if [ "$(id -u)" = 0 ] && ! roots_own "$debs"; then die 2 "$debs must be root's (docs/privileges.md)"; fi
			want=$(hb_apt_cache show "$pkg=$ver" 2>/dev/null | sed -n 's/^SHA256: //p' | head -n 1)
			deb=$(find "$debs" -maxdepth 1 -type f -name "${pkg}_${ver//:/%3a}_*.deb" 2>/dev/null | head -n 1)
			if [ -n "$deb" ] && [ -n "$want" ] && [ "$(sha256sum <"$deb" | cut -d' ' -f1)" != "$want" ]; then
				log "$deb is not the archive's (checksum); downloading it again"
				rm -f "$deb"
				deb=""
			fi
			# An older hugebench kept it in src/debs/, the build
			# account's: read without following a link or waiting on a
			# FIFO into the staging folder, kept only if it is the
			# archive's to the byte.
			if [ -z "$deb" ] && [ -n "$want" ] && [ -d "$cache/src/debs" ] && [ ! -L "$cache/src/debs" ]; then
				while IFS= read -r old; do
					dd if="$old" of="$stage/old.deb" iflag=nofollow,nonblock bs=1M status=none 2>/dev/null || continue
					if [ "$(sha256sum <"$stage/old.deb" | cut -d' ' -f1)" = "$want" ]; then
						mv -n -T -- "$stage/old.deb" "$debs/${old##*/}"
						[ -e "$stage/old.deb" ] || deb=$debs/${old##*/}
						break
					fi
				done < <(find "$cache/src/debs" -maxdepth 1 -type f -name "${pkg}_${ver//:/%3a}_*.deb" 2>/dev/null | head -n 4)
				rm -f "$stage/old.deb"
			fi
			if [ -z "$deb" ]; then
				log "downloading $pkg $ver (apt-get download)"
				# apt downloads as its sandbox user _apt when run as root:
				# give it a fresh folder of its own (in the staging
				# folder) rather than switching the sandbox off.
				dl=$stage/dl
				mkdir "$dl"
				if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then
					chmod 711 "$stage"
					chown _apt "$dl"
				fi
				# apt's words are kept in memory, not in a file
				if ! dlout=$(cd "$dl" && hb_apt_get download -q "$pkg=$ver" 2>&1); then
					die 3 "apt-get download $pkg=$ver failed ($(printf '%s' "$dlout" | grep -m1 '^E: ' | cut -c1-200)); or run: apt-get install -y $pkg"
				fi
				chmod 700 "$stage"
				deb=$(find "$dl" -maxdepth 1 -type f -name "${pkg}_${ver//:/%3a}_*.deb" | head -n 1)
				[ -n "$deb" ] || die 3 "apt-get download $pkg=$ver left no ${pkg}_${ver//:/%3a}_*.deb"
				got=$(sha256sum <"$deb" | cut -d' ' -f1)
				if [ -n "$want" ] && [ "$want" != "$got" ]; then
					die 3 "checksum mismatch for $pkg $ver: archive says $want, file is $got (deleted; retry)"
				fi
				mv -n -T -- "$deb" "$debs/${deb##*/}"
				[ -e "$deb" ] || deb=$debs/${deb##*/}
			fi
		fi
		log "unpacking $pkg $ver into $dir (once)"
		mkdir -p "$stage/t/x"
		if [ -z "$tarball" ]; then
			dpkg-deb --fsys-tarfile "$deb" | tar --no-same-owner -xf - -C "$stage" "./usr/src/$pkg.tar.xz" ||
				die 2 "$deb holds no usr/src/$pkg.tar.xz"
			tarball=$stage/usr/src/$pkg.tar.xz
		fi
		tar --no-same-owner -xJf "$tarball" -C "$stage/t/x" || die 3 "cannot unpack $tarball"
		rm -rf "${stage:?}/usr"
		mapfile -t tops < <(ls -A "$stage/t/x")
		top=${tops[0]:-}
		if [ ${#tops[@]} != 1 ] || [ -L "$stage/t/x/$top" ] || [ ! -d "$stage/t/x/$top" ] ||
			[ -L "$stage/t/x/$top/Makefile" ] || [ ! -f "$stage/t/x/$top/Makefile" ]; then
			die 2 "$tarball does not hold one kernel tree"
		fi
		mv -T "$stage/t/x/$top" "$stage/t/tree"
		rmdir "$stage/t/x"
		printf '%s\n' "$ver" >"$stage/t/version"
		touch "$stage/t/.complete"
		# fetched as root; the build runs as HB_SRC_OWNER and hardlinks
		# this tree, which fs.protected_hardlinks allows only to its
		# owner. Given away while still in root's closed staging folder.
		if [ -n "${HB_SRC_OWNER:-}" ]; then chown -R -h "$HB_SRC_OWNER" "$stage/t"; fi
		# what an interrupted older fetch left at that name: out of src/
		# by one rename (a link is moved, not followed), removed in ours
		if [ -e "$dir" ] || [ -L "$dir" ]; then
			mv -T -- "$dir" "$stage/stale" || die 3 "cannot move the incomplete $dir aside"
		fi
		mv -n -T -- "$stage/t" "$dir"
		[ ! -e "$stage/t" ] || die 3 "cannot move the unpacked tree to $dir (the name was taken meanwhile)"
	fi
	flock -u 8
	printf 'debian:%s=%s%s\n' "$pkg" "$ver" "${suite:+@$suite}"
}

ksrc_dir() {
	local k=${KSRC:-}
	[ -n "$k" ] || die 2 "recipe $name has source=ksrc: set KSRC=/path/to/linux (KSRC=... make bench TARGET=$name)"
	[ -f "$k/Makefile" ] && [ -f "$k/Kconfig" ] && [ -d "$k/arch/x86" ] ||
		die 2 "KSRC=$k is not a Linux source tree (no Makefile, Kconfig, arch/x86)"
	if [ -e "$k/.config" ] || [ -d "$k/include/config" ]; then
		die 2 "KSRC=$k has build output (.config); run 'make mrproper' there: hugebench builds out of tree"
	fi
	(cd "$k" && pwd -P)
}

# A content identity for KSRC: git commit tree plus a hash of uncommitted
# changes, or (not git) a hash of every file's name, size and mtime.
# The build account reads KSRC, which is usually another user's (root's, or
# the user's clone): git refuses a tree of another owner ("dubious
# ownership") and the identity fell back to mtimes, which every checkout
# changes, so a git-mode build never found its cached kernel. safe.directory
# is given for this one tree only, on git's command line (a protected scope).
fetch_ksrc() {
	local k desc tree dirty ver
	k=$(ksrc_dir)
	local kgit=(git -c "safe.directory=$k" -C "$k")
	if [ "$("${kgit[@]}" rev-parse --show-toplevel 2>/dev/null || true)" = "$k" ]; then
		desc=$("${kgit[@]}" describe --tags --always 2>/dev/null || echo unknown)
		tree=$("${kgit[@]}" rev-parse 'HEAD^{tree}')
		dirty=$({
			"${kgit[@]}" diff HEAD --binary
			"${kgit[@]}" ls-files -o --exclude-standard -z | (cd "$k" && xargs -0 -r sha256sum --)
		} | sha256sum | cut -c1-16)
		if [ -n "$("${kgit[@]}" status --porcelain --untracked-files=normal | head -n 1)" ]; then
			printf 'ksrc:git:%s:%s:dirty-%s\n' "$desc" "$tree" "$dirty"
		else
			printf 'ksrc:git:%s:%s\n' "$desc" "$tree"
		fi
	else
		ver=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = *//p' "$k/Makefile" | head -n 3 | paste -sd.)
		tree=$(cd "$k" && find . -path ./.git -prune -o -type f -printf '%P\t%s\t%T@\n' | sort | sha256sum | cut -c1-40)
		printf 'ksrc:files:%s:%s\n' "$ver" "$tree"
	fi
}

mkdir -p "$cache/src"
if [ $fetch_only = 1 ]; then
	[[ ${HB_SRC_OWNER:-0:0} =~ ^[0-9]+:[0-9]+$ ]] || die 2 "HB_SRC_OWNER must be <uid>:<gid>"

	check_prereqs
	case $source_spec in
	debian:*) id=$(fetch_debian) ;;
	ksrc) id=$(fetch_ksrc) ;;
	*) die 2 "recipe $name: bad source '$source_spec' (want debian:linux-source-X.Y or ksrc)" ;;
	esac
	printf 'source=%s\n' "$id"
	printf 'gcc=%s\n' "$(gcc --version | head -n 1)"
	exit 0
fi

# --- build -----------------------------------------------------------------
key=${HB_KERNEL_KEY:-}
source_id=${HB_SOURCE_ID:-}
[[ $key =~ ^[0-9a-f]{64}$ ]] ||
	die 2 "HB_KERNEL_KEY must be 64 hex digits: run this through 'hugebench kernel --target $name', which computes the cache key"
[ -n "$source_id" ] || usage
check_prereqs

out=$cache/builds/$name-${key:0:12}
tdir=$cache/trees/$name
obj=$tdir/src/obj
# As root (a build that fell back to root; hugebench gives it a cache
# folder of root's own, <cache>/root-builds, docs/privileges.md): every
# folder root writes or reads by name must be root's and closed to others'
# writes, else a link another account planted there would be followed
# (`exec 9>.lock` truncated the file it named). Refused, never repaired.
if [ "$(id -u)" = 0 ]; then
	for d in "$cache" "$cache/src" "$cache/trees" "$cache/builds" "$cache/ccache" "$tdir"; do
		[ -e "$d" ] || [ -L "$d" ] || continue
		roots_own "$d" ||
			die 2 "a build as root works only in folders of root's: $d belongs to another account or others can write it (docs/privileges.md)"
	done
fi
mkdir -p "$cache/builds" "$tdir"

print_result() {
	local rel mods=-
	rel=$(cat "$out/release")
	[ -d "$out/modroot/lib/modules/$rel" ] && mods=$out/modroot/lib/modules/$rel
	ln -sfn "${out##*/}" "$cache/builds/$name-latest"
	# the output contract: key=value lines (paths may hold spaces)
	printf 'release=%s\nimage=%s\nmodules=%s\n' "$rel" "$out/bzImage" "${mods#-}"
	printf 'built_by=%s\n' "$(cat "$out/built_by" 2>/dev/null || echo unknown)"
}

exec 9>"$tdir/.lock"
if ! flock -n 9; then
	log "waiting for another build of $name"
	flock 9
fi
if [ -f "$out/.complete" ]; then
	log "cached: $out (recipe unchanged, nothing to build)"
	print_result
	exit 0
fi
t_begin=$SECONDS
# obj/ is about to change: not a seed for other recipes until it is built.
rm -f "$tdir/built"
if [ -d "$tdir/obj" ]; then
	# Before issue 24 the object dir was trees/<recipe>/obj, with the
	# tree's absolute path in every command kbuild recorded: not reusable.
	log "removing the object dir of the old layout ($tdir/obj; it is now src/obj)"
	rm -rf "$tdir/obj"
fi

case $source_spec in
debian:*)
	pkg=$(debian_pkg)
	ver=${source_id#debian:"$pkg"=}
	ver=${ver%@*}
	pristine=$cache/src/$pkg-${ver//:/%3a}/tree
	[ -f "$pristine/../.complete" ] || die 2 "source $source_id is not unpacked; run build-source.sh --fetch first"
	if [ "$(id -u)" = 0 ] && { ! roots_own "${pristine%/tree}" || ! roots_own "$pristine"; }; then
		die 2 "a build as root works only in folders of root's: ${pristine%/tree} belongs to another account or others can write it (docs/privileges.md)"
	fi
	;;
ksrc) pristine=$(ksrc_dir) ;;
*) die 2 "recipe $name: bad source '$source_spec'" ;;
esac

mapfile -t series < <(printf '%s' "${HB_SERIES:-}" | sed '/^$/d')
mapfile -t configs < <(printf '%s' "${HB_CONFIGS:-}" | sed '/^$/d')
[ ${#configs[@]} -gt 0 ] || die 2 "HB_CONFIGS is empty (kernels/base.config at least)"
for f in "${series[@]}" "${configs[@]}"; do
	[ -f "$f" ] || die 2 "recipe $name: $f does not exist"
done

# The wanted state of trees/<recipe>/src: source id + each patch's content.
want_state=$(
	printf 'source %s\n' "$source_id"
	for p in "${series[@]}"; do
		printf 'patch %s %s\n' "$(sha256sum <"$p" | cut -d' ' -f1)" "${p##*/}"
	done
)
have_state=$(cat "$tdir/state" 2>/dev/null || true)
have_source=$(sed -n 1p <<<"$have_state")

# Copy a tree as hardlinks (one inode per file: cheap, and `patch` writes new
# files, so the pristine tree is never modified); plain copy across devices.
# Not .git, nor a top-level obj/ (a KSRC's own O=obj output; ours goes there).
copy_tree() {
	local from=$1 to=$2 e mode=-al
	mkdir -p "$to"
	ln "$from/Makefile" "$to/.hb-linktest" 2>/dev/null || mode=-a
	rm -f "$to/.hb-linktest"
	for e in "$from"/* "$from"/.[!.]*; do
		[ -e "$e" ] || continue
		case ${e##*/} in .git | obj) continue ;; esac
		[ "$mode" = -al ] && cp -al "$e" "$to/" 2>/dev/null && continue
		# fs.protected_hardlinks: the build account may link only files it
		# owns (a KSRC tree of another user, files a git checkout rewrote
		# as root); copy this entry instead. The partial links go first:
		# cp onto a hard link would write into the tree it came from.
		[ "$mode" = -al ] && log "hard links refused under ${e##*/}/: copying it"
		rm -rf "${to:?}/${e##*/}"
		cp -a "$e" "$to/"
	done
}

# Give files a new inode and mtime (same content) so make recompiles what
# depends on them; a hardlinked file keeps the pristine tree's old mtime.
refresh_files() { # ROOT, file list on stdin
	local f
	while IFS= read -r f; do
		[ -f "$1/$f" ] || continue
		cp "$1/$f" "$1/$f.hbtmp" && mv -f "$1/$f.hbtmp" "$1/$f"
	done
}

if [ "$want_state" != "$have_state" ] || [ ! -d "$tdir/src" ]; then
	if [ -d "$obj" ] && [ -n "$have_source" ] && [ "$have_source" != "source $source_id" ] &&
		[ "$source_spec" != ksrc ]; then
		log "source changed (${have_source#source } -> $source_id): clean build"
		rm -rf "$obj"
	fi
	log "preparing source tree $tdir/src from $source_id"
	rm -rf "$tdir/src.new"
	copy_tree "$pristine" "$tdir/src.new"
	: >"$tdir/touched.new"
	n=${#series[@]}
	i=0
	[ "$n" -gt 0 ] || log "no patches in series"
	for p in "${series[@]}"; do
		i=$((i + 1))
		log "applying $i/$n patches: ${p##*/}"
		if ! dry=$(patch -p1 -f --dry-run -d "$tdir/src.new" -i "$p" 2>&1); then
			rm -rf "$tdir/src.new" "$tdir/touched.new"
			# the first failing hunk with its file, or the file not found
			why=$(awk '
				/^checking file / { f = substr($0, 15) }
				/^\|\+\+\+ / { t = $2; sub(/^[^\/]*\//, "", t) }
				/can.t find file/ { cf = 1 }
				/FAILED|malformed|Only garbage/ && !cf { msg = (f == "" ? "" : f ": ") $0; exit }
				/^-+$/ && cf && t != "" { msg = t ": no such file in the tree"; exit }
				END { if (msg == "" && cf) msg = "cannot find a file to patch"; print msg }' <<<"$dry")
			die 2 "patch $i/$n ${p##*/} does not apply to $source_id: ${why:-$(tail -n 1 <<<"$dry")} (tree left as it was)"
		fi
		sed -n 's/^checking file //p' <<<"$dry" >>"$tdir/touched.new"
		patch -p1 -f -s --no-backup-if-mismatch -r - -d "$tdir/src.new" -i "$p" >/dev/null ||
			die 2 "patch $i/$n ${p##*/} passed --dry-run but failed to apply"
	done
	# Files patched now or last time get a fresh inode and mtime, so make
	# recompiles exactly those (hardlinked files keep the old pristine mtime).
	{ cat "$tdir/touched" 2>/dev/null || true; cat "$tdir/touched.new"; } | sort -u |
		refresh_files "$tdir/src.new"
	rm -rf "$tdir/src.old"
	# the object dir moves into the new tree (kept for an incremental build)
	[ -d "$obj" ] && mv "$obj" "$tdir/src.new/obj"
	[ -d "$tdir/src" ] && mv "$tdir/src" "$tdir/src.old"
	mv "$tdir/src.new" "$tdir/src"
	mv "$tdir/touched.new" "$tdir/touched"
	printf '%s\n' "$want_state" >"$tdir/state"
	rm -rf "$tdir/src.old"
fi

# --- seeding the object dir --------------------------------------------------
# What a complete obj/ was built from; two trees with the same one differ
# only in the files their patches touch.
built_id=$(
	printf 'source %s\n' "$source_id"
	printf 'gcc %s\n' "$(gcc --version | head -n 1)"
	for c in "${configs[@]}"; do printf 'config %s\n' "$(sha256sum <"$c" | cut -d' ' -f1)"; done
)
# A recipe's first build (no obj/ yet) starts from a copy of the obj/ of
# another recipe built with the same gcc and config (trees/*/built).
# - Same source (minimal-6.1-regress from minimal-6.1): make compiles only
#   the files either series touched (the touched lists: patched files, past
#   and present) and what depends on them, and links.
# - Another source (a KSRC tree or git checkout, e.g. the bisect test's
#   repository of linux-source-6.1): the files whose content differs from
#   the seed's tree, or that it lacks (differing_files); more than
#   HB_SEED_MAX_DIFF (2000) such files is another kernel: no seed.
# The files named get a new mtime here, newer than every copied object (ours
# too: patched before the seed was built, they would look older than its
# objects). kbuild's .cmd files in obj/ hold relative paths only
# (srctree=..), so they are right in the new tree. Picked: a same-source
# candidate with the fewest touched files, else the first other one; one
# whose build is under way (its lock held) is skipped. Without a seed,
# ccache still serves the compiles. HB_SEED=0: no seeding.
touched_of() { cat "$1/touched" 2>/dev/null || true; }
# Files of tree $2 whose content is not that of the same path in tree $1, or
# that $1 lacks; obj/ aside. One inode is one content (trees hard-linked from
# one pristine tree share most of theirs); other pairs are compared by cmp.
differing_files() {
	join -t $'\t' -a 2 -e - -o 0,1.2,2.2 \
		<(cd "$1" && find . -path ./obj -prune -o -type f -printf '%P\t%i\n' | sort -t $'\t' -k1,1) \
		<(cd "$2" && find . -path ./obj -prune -o -type f -printf '%P\t%i\n' | sort -t $'\t' -k1,1) |
		awk -F '\t' '$2 != $3' |
		while IFS=$'\t' read -r f i1 _; do
			[ "$i1" != - ] && cmp -s "$1/$f" "$2/$f" && continue
			printf '%s\n' "$f"
		done
}
seed_obj() {
	local t best="" best_n=0 n same=0 cfg_id other="" diff_list now
	cfg_id=$(sed 1d <<<"$built_id")
	for t in "$cache"/trees/*; do
		[ "$t" != "$tdir" ] && [ -f "$t/built" ] && [ -d "$t/src/obj" ] || continue
		if [ "$(cat "$t/built" 2>/dev/null || true)" != "$built_id" ]; then
			[ -z "$other" ] && [ "$(sed 1d "$t/built" 2>/dev/null || true)" = "$cfg_id" ] && other=$t
			continue
		fi
		n=$({ touched_of "$t"; touched_of "$tdir"; } | sort -u | wc -l)
		if [ -z "$best" ] || [ "$n" -lt "$best_n" ]; then
			best=$t
			best_n=$n
			same=1
		fi
	done
	[ -n "$best" ] || best=$other
	[ -n "$best" ] || return 0
	exec 7>"$best/.lock"
	if ! flock -n 7 || ! now=$(cat "$best/built" 2>/dev/null) ||
		{ [ "$same" = 1 ] && [ "$now" != "$built_id" ]; } ||
		[ "$(sed 1d <<<"$now")" != "$cfg_id" ]; then
		exec 7>&-
		log "not seeding from ${best##*/}: a build of it is under way"
		return 0
	fi
	diff_list=$tdir/seed-diff
	if [ "$same" = 1 ]; then
		{ touched_of "$best"; touched_of "$tdir"; } | sort -u >"$diff_list"
	else
		differing_files "$best/src" "$tdir/src" >"$diff_list" || {
			exec 7>&-
			log "not seeding from ${best##*/}: cannot compare the trees"
			return 0
		}
		best_n=$(wc -l <"$diff_list")
		if [ "$best_n" -gt "${HB_SEED_MAX_DIFF:-2000}" ]; then
			exec 7>&-
			log "not seeding from ${best##*/}: $best_n files differ from its tree"
			return 0
		fi
	fi
	rm -rf "$obj.seed"
	cp -a "$best/src/obj" "$obj.seed" || {
		exec 7>&-
		rm -rf "$obj.seed"
		die 2 "cannot copy $best/src/obj (disk full?)"
	}
	exec 7>&-
	# objtool's own build (tools/) records absolute paths, in its .cmd and .d
	# files: make them this tree's, or it relinks objtool, and every kernel
	# object depends on the objtool binary (the rest of obj/ is relative).
	{ grep -rlF --include='*.cmd' --include='*.d' "$best/src/" "$obj.seed" || true; } |
		HB_FROM=$best/src/ HB_TO=$tdir/src/ xargs -r -d '\n' perl -pi -e 's/\Q$ENV{HB_FROM}\E/$ENV{HB_TO}/g' ||
		die 2 "cannot rewrite the paths in the seeded object dir $obj.seed"
	refresh_files "$tdir/src" <"$diff_list"
	mv "$obj.seed" "$obj"
	if [ "$same" = 1 ]; then
		log "object dir seeded from ${best##*/} ($best_n files patched in one or the other get recompiled)"
	else
		log "object dir seeded from ${best##*/}, another source of the same config ($best_n files differ from its tree and get recompiled)"
	fi
}
t_tree=$((SECONDS - t_begin))
rm -rf "$obj.seed"
[ -d "$obj" ] || [ "${HB_SEED:-1}" = 0 ] || seed_obj
t_seed=$((SECONDS - t_begin - t_tree))

# --- ccache ----------------------------------------------------------------
# The recipes that share a base (minimal-6.1 and the ones that patch it)
# compile the same files in different trees, trees/<recipe>/src. ccache
# hands one tree's objects to the next, so a recipe whose base was built
# compiles only what its patches touch (and links). How hits across trees
# are made possible (ccache 4.7):
# - The object dir is trees/<recipe>/src/obj, a subdirectory of the source
#   tree, so kbuild uses srctree=..: every path in a compile command (-I,
#   -include, the source file, -fmacro-prefix-map=../=) and in the .d files
#   is relative, the same for every recipe, and ccache hashes and passes on
#   exactly what gcc would get without it: the objects are the same bytes.
#   (With an absolute srctree, CCACHE_BASEDIR would hash the paths relative,
#   but also hand gcc ../src/... paths, which the absolute
#   -fmacro-prefix-map does not strip: __FILE__ in WARN()s would change.)
#   CCACHE_BASEDIR=trees/ is set still, for any absolute path left (host
#   tools).
# - CCACHE_NOHASHDIR=1: the object dir is hashed only for -g builds
#   (base.config has DEBUG_INFO_NONE); a fragment that turns debug info on
#   still shares objects, with the DW_AT_comp_dir of the tree that compiled
#   first.
# - sloppiness include_file_ctime: the trees are hard links of one pristine
#   tree, so making or deleting any recipe's tree changes the ctime of every
#   shared header, and a build running meanwhile would otherwise fall back
#   from direct mode. (A changed header has a new mtime, still checked.)
# - The recipe's name goes into the release through a localversion file in
#   the object dir, not CONFIG_LOCALVERSION: include/generated/autoconf.h,
#   which every compile includes, is then the same for the same config, and
#   direct mode hits (no preprocessing of ~1200 files).
# - ccache runs as `gcc` first in PATH (wrappers in trees/<recipe>/ccache-bin),
#   not as make CC="ccache gcc": the command lines kbuild records in its .cmd
#   files are the same with and without ccache, so installing or removing it
#   recompiles nothing, and host programs (kconfig, fixdep, objtool) are
#   cached as well.
# - depend mode (CCACHE_DEPEND=1): on a miss ccache compiles once and takes
#   the header list from the .d file kbuild asks gcc for (-Wp,-MMD), instead
#   of running the preprocessor first to hash its output. A cold build is
#   all misses: 40 compiles of mm/ and kernel/ cost 55.8 CPU-s through
#   ccache's default mode, 35.0-37.1 in depend mode and 37.2-44.6 without
#   ccache (same load; docs/kernels.md). Hits are direct-mode hits either
#   way; what depend mode gives up is the preprocessed-mode fallback. That
#   fallback matters for one case: a recipe whose config differs from a
#   built tree of the same source (autoconf.h, which every compile includes,
#   differs, so direct mode misses everywhere, but the preprocessed output
#   of a file the changed options do not reach is the same). That build
#   keeps the default mode (same_source_other_config).
# The cache key does not involve ccache (hb_recipe_cache_key): the kernel
# is the same either way. Without ccache a build works, only slower (a recipe
# with no seed builds cold); HB_CCACHE=0 turns it off.
# A built tree of this source with another config (see depend mode above)?
same_source_other_config() {
	local t b
	for t in "$cache"/trees/*; do
		[ "$t" != "$tdir" ] && [ -f "$t/built" ] || continue
		b=$(cat "$t/built" 2>/dev/null || true)
		[ "$(head -n 1 <<<"$b")" = "source $source_id" ] &&
			[ "$(sed 1d <<<"$b")" != "$(sed 1d <<<"$built_id")" ] && return 0
	done
	return 1
}
use_ccache=0
if [ "${HB_CCACHE:-1}" = 0 ]; then
	log "ccache: off (HB_CCACHE=0), compiling every file"
elif ccache_bin=$(command -v ccache 2>/dev/null); then
	use_ccache=1
	export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$cache/trees CCACHE_NOHASHDIR=1 \
		CCACHE_SLOPPINESS=include_file_ctime CCACHE_STATSLOG=$tdir/ccache-stats.log
	ccache_mode="depend mode"
	if same_source_other_config; then
		ccache_mode="preprocessor fallback on: a tree of this source has another config"
	else
		export CCACHE_DEPEND=1
	fi
	mkdir -p "$CCACHE_DIR" "$tdir/ccache-bin"
	# a size cap once; a max_size the user set in ccache.conf stays
	grep -qs '^max_size' "$CCACHE_DIR/ccache.conf" || ccache --max-size=5G >/dev/null ||
		die 2 "ccache --max-size failed (CCACHE_DIR=$CCACHE_DIR)"
	# gcc and cc through ccache, but for a source with an .incbin: ccache
	# hashes a source and its headers, not the file an .incbin pulls in,
	# and in depend mode it never sees the preprocessed text where it
	# would refuse one. arch/x86/boot/compressed/piggy.S is such a source:
	# it holds only the sizes of the compressed kernel, and a one-patch
	# recipe whose sizes matched another's got that kernel's piggy.o --
	# its bzImage booted the other recipe's kernel (minimal-7.2-swap-regress
	# booted minimal-7.2-mthp-regress, 2026-12-05). The test costs a grep
	# per compile.
	for c in gcc cc; do
		real=$(command -v "$c") || die 2 "no $c in PATH"
		rm -f "$tdir/ccache-bin/$c"
		printf '%s\n' '#!/bin/sh' \
			'# hugebench (kernels/build-source.sh): ccache, but not for an .incbin source' \
			"for a do case \$a in *.[csS]) ! grep -qsF .incbin -- \"\$a\" || exec $(printf %q "$real") \"\$@\";; esac; done" \
			"exec $(printf %q "$ccache_bin") $(printf %q "$real") \"\$@\"" >"$tdir/ccache-bin/$c"
		chmod 755 "$tdir/ccache-bin/$c"
	done
	export PATH=$tdir/ccache-bin:$PATH
	: >"$CCACHE_STATSLOG"
	log "ccache: on ($CCACHE_DIR, $(ccache --get-config=max_size) max, $ccache_mode)"
else
	log "warning: ccache is not installed: every file not already built here (or in the seed) is compiled, a cold build takes 4-7 min; run: apt-get install -y ccache"
fi
# One line on what ccache gave this build: hits (direct / preprocessed mode)
# out of the compiles of source files; kbuild's compiler probes (`-x c
# /dev/null`, about a hundred per make) and links are left out.
ccache_summary() {
	awk '/^# / { probe = ($0 == "# /dev/null"); next } probe { next }
		$0 == "direct_cache_hit" { d++ } $0 == "preprocessed_cache_hit" { p++ } $0 == "cache_miss" { m++ }
		END {
			t = d + p + m
			if (t == 0) { print "ccache: no cacheable compile in this build"; exit }
			printf "ccache: %d of %d compiles from the cache (%.1f%%: %d direct, %d preprocessed), %d compiled\n",
				d + p, t, 100 * (d + p) / t, d, p, m
		}' "$CCACHE_STATSLOG"
}

# --- config ----------------------------------------------------------------
mkdir -p "$obj"
# The release is <version>-hb-<recipe>: kbuild's setlocalversion appends the
# object dir's localversion* files (kept out of the .config, see "ccache").
printf -- '-hb-%s\n' "$name" >"$obj/localversion-hugebench"
rm -f "$tdir/localversion.config"
# What the merged .config is made of: the source, gcc, the fragments (built_id),
# the binutils Kconfig probes, and the Kconfig files the patches touch. An
# object dir whose .config was merged from the same (an incremental build, or
# a seed of the same source) keeps it: merging again costs 8 CPU-s and left
# the file byte for byte the same, and a .config newer than auto.conf makes
# make run syncconfig, a Kconfig parse more.
config_id=$({
	printf '%s\n' "$built_id"
	printf 'ld %s\nas %s\n' "$(ld --version | head -n 1)" "$(as --version | head -n 1)"
	{ grep -E '(^|/)Kconfig[^/]*$|^scripts/kconfig/' "$tdir/touched" 2>/dev/null || true; } | sort -u |
		while IFS= read -r f; do
			printf 'kconfig %s %s\n' "$f" "$(sha256sum <"$tdir/src/$f" 2>/dev/null | cut -d' ' -f1)"
		done
} | sha256sum | cut -d' ' -f1)
if [ -f "$obj/.config" ] && [ "$(cat "$obj/.hb-config-id" 2>/dev/null)" = "$config_id" ]; then
	log "config: the object dir's .config was merged from the same inputs (kept)"
else
	rm -f "$obj/.hb-config-id"
	log "merging config: allnoconfig + ${configs[*]##*/kernels/}"
	if ! (cd "$tdir/src" && scripts/kconfig/merge_config.sh -n -O "$obj" "${configs[@]}") \
		>"$tdir/config.log" 2>&1; then
		die 2 "merging the config failed: $(grep -m 1 -iE 'error|\*\*\*' "$tdir/config.log" || tail -n 1 "$tdir/config.log") (log: $tdir/config.log)"
	fi
	# (No `make olddefconfig` after it: allnoconfig with KCONFIG_ALLCONFIG
	# writes a complete .config, which olddefconfig left byte for byte the
	# same; it only cost a make run, 5-9 s.)
	sed -n 's/^Value requested for \(CONFIG_[A-Za-z0-9_]*\) not in final .config$/\1/p' "$tdir/config.log" |
		sort -u | while read -r opt; do
			log "warning: $opt was asked for but Kconfig dropped it (unmet dependency or unknown here)"
		done
	printf '%s\n' "$config_id" >"$obj/.hb-config-id"
fi

# What the hugebench suites need, with the reason given when it is missing.
REQUIRED="
64BIT:x86_64 guest
SMP:2 vCPU guests
PRINTK:console messages
BINFMT_ELF:the static guest init and workloads
BINFMT_SCRIPT:busybox scripts
FUTEX:threads in workloads
EPOLL:busybox and the guest init
PROC_FS:/proc/meminfo and /proc/vmstat
PROC_PAGE_MONITOR:/proc/PID/smaps
SYSFS:/sys/kernel/mm/transparent_hugepage
DEVTMPFS:/dev in the initramfs
BLK_DEV_INITRD:the initramfs
TTY:serial console
SERIAL_8250:ttyS0 console and ttyS1 results port
SERIAL_8250_CONSOLE:console=ttyS0
PCI:virtio devices
VIRTIO_PCI:virtio devices
VIRTIO_CONSOLE:virtio-serial results channel
SHMEM:tmpfs backed by shmem (not ramfs)
TMPFS:tmpfs mounts
TRANSPARENT_HUGEPAGE:huge tmpfs (shmem THP)
SYSVIPC:SysV shm workloads
CGROUPS:memory cgroup workloads
MEMCG:memory cgroup workloads
SWAP:swap-out under pressure
ZRAM:swap device in the guest
KVM:nested KVM workload
KVM_AMD:nested KVM under TCG -cpu max (svm)
KVM_INTEL:nested KVM on Intel hosts
PERF_EVENTS:perf_event_open probes
HIGH_RES_TIMERS:timing and KVM
"
missing=0
cfg=$obj/.config
while IFS=: read -r opt why; do
	[ -n "$opt" ] || continue
	if ! grep -qE "^CONFIG_${opt}=[ym]$" "$cfg"; then
		printf 'hugebench: [build] error: CONFIG_%s is not set in the merged .config (needed for %s); set CONFIG_%s=y in %s/config\n' \
			"$opt" "$why" "$opt" "$recipe_dir" >&2
		missing=1
	fi
done <<<"$REQUIRED"
if ! grep -qE '^CONFIG_CRYPTO_(LZO|LZ4|LZ4HC|ZSTD|842)=[ym]$' "$cfg"; then
	printf 'hugebench: [build] error: no zram compressor in the merged .config; set CONFIG_CRYPTO_LZO=y in %s/config\n' "$recipe_dir" >&2
	missing=1
fi
[ $missing = 0 ] || die 2 "the config of recipe $name lacks options hugebench needs (see above; log: $tdir/config.log)"
if grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$cfg" && ! command -v pahole >/dev/null 2>&1; then
	die 2 "CONFIG_DEBUG_INFO_BTF=y needs pahole; run: apt-get install -y dwarves"
fi
with_modules=0
grep -q '^CONFIG_MODULES=y' "$cfg" && with_modules=1
# An object dir built before the ccache wrapper above may hold an .incbin
# object ccache served from another recipe's build: compile those once more.
if [ ! -f "$obj/.hb-incbin-checked" ]; then
	# (none in a new object dir: grep exits 1, which is no error here)
	{ grep -rlF --include='*.S' .incbin "$obj" 2>/dev/null || true; } | while IFS= read -r f; do
		rm -f "${f%.S}.o"
	done
	: >"$obj/.hb-incbin-checked"
fi
t_config=$((SECONDS - t_begin - t_tree - t_seed))

# --- compile ---------------------------------------------------------------
jobs=$(nproc)
targets=(bzImage)
[ $with_modules = 1 ] && targets+=(modules)
blog=$tdir/build.log
log "compiling ${targets[*]} with make -j$jobs (log: $blog)"
start=$(date +%s)
make -C "$tdir/src" O="$obj" -j"$jobs" "${targets[@]}" >"$blog" 2>&1 &
mpid=$!
trap 'kill "$mpid" 2>/dev/null; exit 130' INT TERM
next=30
while kill -0 "$mpid" 2>/dev/null; do
	sleep 1
	el=$(($(date +%s) - start))
	if [ "$el" -ge "$next" ]; then
		log "compiling ... $el s ($(grep -c '^  [A-Z]' "$blog" || true) steps)"
		next=$((next + 30))
	fi
done
rc=0
wait "$mpid" || rc=$?
trap - INT TERM
el=$(($(date +%s) - start))
if [ $rc != 0 ]; then
	first=$(grep -m 1 -E 'error:|Error [0-9]+|undefined reference|No rule to make' "$blog" || tail -n 1 "$blog")
	die 2 "compile failed after $el s: $first (log: $blog)"
fi
release=$(make -s -C "$tdir/src" O="$obj" kernelrelease 2>/dev/null | tail -n 1 || true)
[ -n "$release" ] || die 2 "make kernelrelease printed nothing (log: $blog)"
log "compiled $release in $el s"
printf '%s\n' "$built_id" >"$tdir/built"
if [ $use_ccache = 1 ]; then
	cc_line=$(ccache_summary)
else
	cc_line="ccache: not used"
fi
log "$cc_line"
printf '%s\n' "$cc_line" >>"$blog"

tmp=$cache/builds/.${out##*/}.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
cp "$obj/arch/x86/boot/bzImage" "$tmp/bzImage"
cp "$obj/.config" "$tmp/.config"
cp "$obj/System.map" "$tmp/System.map"
cp "$blog" "$tmp/build.log"
printf '%s\n' "$release" >"$tmp/release"
# who ran the compile: the recipe's patches and Makefiles ran as this account
id -un >"$tmp/built_by"
{
	printf 'key %s\n' "$key"
	printf '%s\n' "$want_state"
	for c in "${configs[@]}"; do printf 'config %s %s\n' "$(sha256sum <"$c" | cut -d' ' -f1)" "$c"; done
	printf 'compile_seconds %s\n' "$el"
	printf '%s\n' "$cc_line"
} >"$tmp/inputs"
if [ $with_modules = 1 ]; then
	make -s -C "$tdir/src" O="$obj" INSTALL_MOD_PATH="$tmp/modroot" INSTALL_MOD_STRIP=1 \
		modules_install >>"$tmp/build.log" 2>&1 || die 2 "make modules_install failed (log: $tmp/build.log)"
	rm -f "$tmp/modroot/lib/modules/$release/build" "$tmp/modroot/lib/modules/$release/source"
fi
touch "$tmp/.complete"
rm -rf "$out"
mv "$tmp" "$out"
log "took $((SECONDS - t_begin)) s: source tree $t_tree s, seeding $t_seed s, config $t_config s, make $el s, storing $((SECONDS - t_begin - t_tree - t_seed - t_config - el)) s"
log "kernel $release: $out/bzImage"
print_result
