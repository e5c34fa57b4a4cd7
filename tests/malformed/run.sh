#!/bin/sh
# run.sh - the malformed-input corpus (issue 9): runs every check listed in
# tests/malformed/cases/EXPECT (format described at the top of that file)
# against a hugebench binary and fails on a wrong exit code, an abort, a
# signal, a sanitizer report, a hang or a forbidden string in the output.
#
# usage: tests/malformed/run.sh PATH_TO_HUGEBENCH
# (`make sanitize` calls it with the ASan+UBSan build.) Data-driven glue
# only: commands are argv words from EXPECT, never evaluated by a shell.
set -u

if [ $# -ne 1 ]; then
	echo "usage: tests/malformed/run.sh PATH_TO_HUGEBENCH" >&2
	exit 2
fi
hb=$1
case $hb in
/*) ;;
*) hb=$(pwd)/$hb ;;
esac
if [ ! -x "$hb" ] || [ -d "$hb" ]; then
	echo "malformed: $hb is not an executable (build it first: make)" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
limit=${MALFORMED_TIMEOUT:-120}
tmo=
if command -v timeout >/dev/null 2>&1; then
	tmo="timeout -k 5 $limit"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/hb-malformed.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cp -R "$here/cases" "$work/cases" || exit 2

# subst WORD: sets $out to WORD with the placeholders replaced.
subst() {
	s=$1
	out=
	while :; do
		case $s in
		*@HB@* | *@DIR@* | *@CASES@*) ;;
		*)
			out=$out$s
			return
			;;
		esac
		pre=${s%%@*}
		s=${s#*@}
		case $s in
		HB@*)
			out=$out$pre$hb
			s=${s#HB@}
			;;
		DIR@*)
			out=$out$pre$dir
			s=${s#DIR@}
			;;
		CASES@*)
			out=$out$pre$work/cases
			s=${s#CASES@}
			;;
		*) out=$out$pre@ ;;
		esac
	done
}

total=0
failed=0
lineno=0
done_setup=" "
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case $line in
	'#'* | '') continue ;;
	esac
	set -f
	# shellcheck disable=SC2086 # splitting the command into words is the point
	set -- $line
	set +f
	if [ $# -lt 3 ]; then
		echo "FAIL EXPECT line $lineno: want NAME EXPECTED_EXIT COMMAND..."
		total=$((total + 1))
		failed=$((failed + 1))
		continue
	fi
	name=$1
	want=$2
	sub=${4:-$3}
	shift 2
	dir=$work/cases/$name
	total=$((total + 1))
	label="$name ($sub, line $lineno)"
	if [ ! -d "$dir" ]; then
		echo "FAIL $label: no folder cases/$name"
		failed=$((failed + 1))
		continue
	fi
	case $done_setup in
	*" $name "*) ;;
	*)
		done_setup="$done_setup$name "
		if [ -f "$dir/setup.sh" ] && ! (cd "$dir" && sh ./setup.sh) >"$work/setup.log" 2>&1; then
			echo "FAIL $label: setup.sh failed: $(head -c 300 "$work/setup.log")"
			failed=$((failed + 1))
			continue
		fi
		;;
	esac
	# Rebuild the argv with the placeholders replaced; a last word >FILE or
	# >| redirects stdout.
	redir=
	n=$#
	i=0
	while [ $i -lt $n ]; do
		w=$1
		shift
		i=$((i + 1))
		subst "$w"
		case $out in
		'>'*)
			if [ $i -eq $n ]; then
				redir=${out#>}
				continue
			fi
			;;
		esac
		set -- "$@" "$out"
	done
	so=$work/stdout
	se=$work/stderr
	rm -f "$so" "$se" "$work/rc"
	t0=$(date +%s)
	if [ "$redir" = "|" ]; then
		# The reader exits first: every write of the command gets EPIPE.
		{
			sleep 1
			$tmo "$@" 2>"$se" </dev/null
			echo $? >"$work/rc"
		} | true
		rc=$(cat "$work/rc" 2>/dev/null || echo 255)
		: >"$so"
	elif [ -n "$redir" ]; then
		$tmo "$@" >"$redir" 2>"$se" </dev/null
		rc=$?
		: >"$so"
	else
		$tmo "$@" >"$so" 2>"$se" </dev/null
		rc=$?
	fi
	secs=$(($(date +%s) - t0))
	why=
	case "|$want|" in
	*"|$rc|"*) ;;
	*) why="exit $rc, expected $want" ;;
	esac
	case $rc in
	124 | 137) [ -n "$tmo" ] && why="$why; hang (killed after ${limit} s)" ;;
	134) why="$why; abort" ;;
	86) why="$why; AddressSanitizer exit" ;;
	*) [ "$rc" -gt 128 ] && why="$why; signal $((rc - 128))" ;;
	esac
	if grep -aq -e 'Sanitizer' -e 'runtime error:' "$se"; then
		why="$why; sanitizer report"
	fi
	if [ "$want" = 2 ] && [ ! -s "$se" ]; then
		why="$why; no message on stderr"
	fi
	if [ -f "$dir/forbid" ]; then
		while IFS= read -r f || [ -n "$f" ]; do
			[ -n "$f" ] || continue
			if grep -aqF -e "$f" -- "$so" "$se"; then
				why="$why; output contains a forbidden string (cases/$name/forbid)"
				break
			fi
		done <"$dir/forbid"
	fi
	took=
	[ "$secs" -ge 2 ] && took=" (${secs} s)"
	if [ -z "$why" ]; then
		echo "ok   $label: exit $rc$took"
	else
		failed=$((failed + 1))
		echo "FAIL $label: ${why#; }$took"
		head -c 600 "$se" | head -n 4 | sed 's/^/       | /'
	fi
done <"$here/cases/EXPECT"

echo "malformed: $total cases, $failed failed"
[ "$failed" -eq 0 ]
