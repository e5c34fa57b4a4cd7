# kernels/apt-archive.sh - apt on a Debian suite the host's sources do not
# list (sid, trixie-backports, ...), without touching the host's apt setup.
# Packaging glue, sourced by fetch-debian.sh and build-source.sh (bash).
#
#   hb_apt_init ARCHIVE CACHE_DIR
#       ARCHIVE empty: the host's apt and lists, with its binary caches kept
#       under CACHE_DIR/apt/host/ (Debian's container images switch apt's
#       pkgcache.bin off, and then every apt-cache call parses all the lists
#       again: about 1 CPU-second each here).
#       Otherwise a private configuration under CACHE_DIR/apt/<ARCHIVE>/: its
#       own sources.list ("deb [signed-by=<Debian archive keyring>] <mirror>
#       <ARCHIVE> main"), package lists, caches and an empty dpkg status, so
#       the host's installed packages and sources play no part. The lists are
#       fetched when missing or older than HB_APT_MAX_AGE seconds (default
#       43200: a target resolves to the archive's newest package of the day);
#       when that fetch fails, the last good lists are used (with a warning).
#       Signatures are checked by apt against the keyring the host already
#       has (debian-archive-keyring); an unsigned or wrongly signed Release
#       fails the update.
#       Either way HB_APT_LISTS is the folder of the package lists used.
#   hb_apt_cache ARGS... / hb_apt_get ARGS...
#       apt-cache / apt-get with HB_APT_OPTS.
#
# The mirror is the one the host's sources use for Debian (deb822
# /etc/apt/sources.list.d/*.sources or one-line sources.list), else
# http://deb.debian.org/debian; HB_DEBIAN_MIRROR overrides it.

HB_APT_KEYRING=${HB_APT_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
HB_APT_OPTS=()

hb_apt_mirror() {
	local m=${HB_DEBIAN_MIRROR:-}
	if [ -z "$m" ]; then
		m=$( { sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null
		       sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' \
			   /etc/apt/sources.list 2>/dev/null; } |
		     tr ' ' '\n' | grep -E '^https?://[^ ]*/debian/?$' | head -n 1 || true)
	fi
	printf '%s\n' "${m:-http://deb.debian.org/debian}"
}

hb_apt_init() {
	local archive=$1 cache=$2 dir age max now mtime mirror new
	HB_APT_OPTS=()
	if [ -z "$archive" ]; then
		HB_APT_LISTS=$(apt-config shell L Dir::State::Lists/d | sed -n "s/^L='\(.*\)'$/\1/p")
		HB_APT_LISTS=${HB_APT_LISTS:-/var/lib/apt/lists}
		# apt validates its binary cache against the lists, and rebuilds
		# it when they change; where it cannot write, it works without
		if mkdir -p "$cache/apt/host" 2>/dev/null && [ -w "$cache/apt/host" ]; then
			dir=$(cd "$cache/apt/host" && pwd -P)
			HB_APT_OPTS=(-o "Dir::Cache::pkgcache=$dir/pkgcache.bin"
				-o "Dir::Cache::srcpkgcache=$dir/srcpkgcache.bin")
		fi
		return 0
	fi
	case $archive in
	*[!a-z0-9-]*) echo "hugebench: archive '$archive' is not a Debian suite name" >&2; return 2 ;;
	esac
	[ -r "$HB_APT_KEYRING" ] || {
		echo "hugebench: $HB_APT_KEYRING missing; run: apt-get install -y debian-archive-keyring" >&2
		return 2
	}
	# absolute: apt reads a relative Dir:: path under its own /var/lib/apt
	mkdir -p "$cache/apt/$archive/lists/partial"
	dir=$(cd "$cache/apt/$archive" && pwd -P)
	HB_APT_LISTS=$dir/lists
	HB_APT_OPTS=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache::pkgcache=$dir/pkgcache.bin"
		-o "Dir::Cache::srcpkgcache=$dir/srcpkgcache.bin" -o "Dir::State::status=$dir/status"
		-o "Dir::Cache::archives=$dir/archives" -o APT::Get::List-Cleanup=1)
	mkdir -p "$dir/archives/partial"
	: >>"$dir/status"
	mirror=$(hb_apt_mirror)
	# a name of its own: another clone or run may be here at the same time
	# (the cache is the machine's), and a shared .new name let one remove
	# the other's file between its write and its mv
	new=$(mktemp "$dir/sources.list.XXXXXX")
	chmod 644 "$new"
	printf 'deb [signed-by=%s] %s %s main\n' "$HB_APT_KEYRING" "$mirror" "$archive" >"$new"
	if ! cmp -s "$new" "$dir/sources.list" 2>/dev/null; then
		mv "$new" "$dir/sources.list"
		rm -f "$dir/updated"
	else
		rm -f "$new"
	fi
	max=${HB_APT_MAX_AGE:-43200}
	now=$(date +%s)
	mtime=$(stat -c %Y "$dir/updated" 2>/dev/null || echo 0)
	age=$((now - mtime))
	if [ "$age" -ge "$max" ]; then
		exec 7>"$dir/.lock"
		flock 7
		mtime=$(stat -c %Y "$dir/updated" 2>/dev/null || echo 0)
		if [ $((now - mtime)) -ge "$max" ]; then
			echo "hugebench: fetching the package lists of Debian $archive from $mirror" >&2
			# as root apt fetches as its sandbox user _apt: let it write there
			if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then
				chown _apt "$dir/lists/partial" "$dir/archives/partial"
			fi
			if ! apt-get "${HB_APT_OPTS[@]}" update -q >"$dir/update.log" 2>&1 ||
			   grep -q '^\(W\|E\): ' "$dir/update.log"; then
				if [ -f "$dir/updated" ]; then
					# offline: the last good lists still name packages
					# whose hashes apt checks; say how old they are
					echo "hugebench: apt-get update of Debian $archive failed (see $dir/update.log); using its lists of $(date -u -r "$dir/updated" +%Y-%m-%dT%H:%MZ)" >&2
					exec 7>&-
					return 0
				fi
				echo "hugebench: apt-get update of Debian $archive failed (see $dir/update.log)" >&2
				exec 7>&-
				return 3
			fi
			touch "$dir/updated"
		fi
		exec 7>&-
	fi
	return 0
}

hb_apt_cache() { apt-cache "${HB_APT_OPTS[@]}" "$@"; }
hb_apt_get() { apt-get "${HB_APT_OPTS[@]}" "$@"; }
