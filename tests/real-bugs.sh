#!/bin/bash
# tests/real-bugs.sh - `make real-bugs` (issue 35, docs/real-bugs.md): build
# and boot each kernel of the real-bugs corpus (kernels/real-bugs.list, on
# the debug base minimal-7.2-debug) with configs/real-bugs.suite, after the
# stock debug base as the control, and print the table
#   fix | kernel | caught? | by which check, metric or kernel report | boots | time
# (also <results>/real-bugs-<UTC>/table.md). A miss prints the path that
# would catch it (the list's third field).
#
# usage: tests/real-bugs.sh [--only NAME[,NAME...]] [--results DIR] [--no-control]
#                           [--timeout SECONDS] [--docs FILE] [--boots N]
#                           [--suite NAME] [--tcg-threads single|multi]
# --boots N: the control boots N times and must pass every time; a corpus
# kernel boots until it is caught, N times at most (a race may need several
# boots: a seed replays the operations, not the schedule). The boots column
# says which boot caught it ("caught in boot 2 of 2") or how many passed.
# --suite NAME: another suite than real-bugs (e.g. a race-only suite for the
# extra boots of the race rows); the table says which suite it was.
# --tcg-threads: multi (default) runs the vCPUs at the same time (QEMU
# thread=multi, wall clock): a race needs two CPUs that really run together
# (docs/real-bugs.md); single is the harness's default elsewhere.
# --docs FILE: also replace FILE's table between <!-- real-bugs:begin --> and
# <!-- real-bugs:end --> (docs/real-bugs.md). Exit: 0 the table is complete
# (caught or not), 1 the control failed or a kernel did not build, 2 usage.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
hb="$here/build/hugebench"
list="$here/kernels/real-bugs.list"
results="$here/results"
only="" control=1 timeout=5400 docs="" boots=1 suite=real-bugs tcg=multi
die() { echo "real-bugs: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--only) [ $# -ge 2 ] || die "--only needs NAME[,NAME...]"; only=",$2,"; shift 2 ;;
	--results) [ $# -ge 2 ] || die "--results needs a folder"; results=$2; shift 2 ;;
	--no-control) control=0; shift ;;
	--timeout) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--timeout needs seconds"; timeout=$2; shift 2 ;;
	--docs) [ -f "${2:-}" ] || die "--docs needs an existing file"; docs=$2; shift 2 ;;
	--boots) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--boots needs a number >= 1"; boots=$2; shift 2 ;;
	--tcg-threads) [[ ${2:-} =~ ^(single|multi)$ ]] || die "--tcg-threads needs single or multi"; tcg=$2; shift 2 ;;
	--suite) [[ ${2:-} =~ ^[A-Za-z0-9._/-]+$ ]] || die "--suite needs a suite name or file"; suite=$2; shift 2 ;;
	*) die "unknown argument '$1' (usage: tests/real-bugs.sh [--only NAME[,NAME...]] [--results DIR] [--no-control] [--timeout S] [--docs FILE] [--boots N] [--suite NAME] [--tcg-threads single|multi])" ;;
	esac
done
[ -x "$hb" ] || die "build/hugebench missing: run make all"
command -v jq >/dev/null || die "jq missing: apt-get install -y jq"
out="$results/real-bugs-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out" || die "cannot create $out"
table="$out/table.md"
rc=0

# One boot's verdict on a kernel: sets caught (yes ... / no ... / "") and by.
# $1 result.json, $2 the path that should catch it ("" for the control)
judge() {
	local res=$1 path=$2 verdict reason
	verdict=$(jq -r '.verdict' "$res")
	reason=$(jq -r '.verdict_reason' "$res" | tr '|' '/')
	by=$(jq -r '[.workloads[] | .name as $w | (.checks // [])[] | select(.pass == false)
		      | "\($w) \(.name)"] as $f
		    | [.kernel_issues[]? | "\(.kind): \(.report // "") during \(.workload // "?")"] as $k
		    | (if ($f | length) > 0 then ["\($f | length) check(s): " + ($f[:3] | join(", "))
						 + (if ($f | length) > 3 then ", ..." else "" end)] else [] end)
		      + (if ($k | length) > 0 then ["\($k | length) kernel report(s), first " + $k[0]] else [] end)
		    | join("; ")' "$res" | tr '|' '/')
	case "$verdict" in
	fail | kernel-warning | panic) caught="yes ($verdict)" ;;
	timeout) caught="yes (hang: timeout)"; by=${by:-$reason} ;;
	pass) caught="no"; by=${path:+"missed: would take $path"} ;;
	error)
		# a workload killed at its time limit where the control finished
		# it: the kernel hung it (the runner's sysrq dump is on the console)
		local hung
		hung=$(jq -r '[.workloads[] | select(.reason | test("timed out")) | "\(.name) \(.reason)"]
			      | join(", ")' "$res")
		if [ -n "$hung" ] && [ -n "$path" ]; then
			caught="yes (hang)"; by="$hung${by:+; $by}"
		elif [ -n "$by" ] && [ -n "$path" ]; then
			# a failed check or a kernel report, then a later workload
			# could not run (a task stuck in the kernel holds the swap
			# device): the error outranks the failure in the verdict
			caught="yes (fail, then error: $reason)"
		else
			caught="no (error)"; by="$reason"
		fi ;;
	incomplete)
		# the guest stopped before the suite's end (a task stuck in the
		# kernel, a crash, or a run interrupted after its catch): a failed
		# check or a kernel report that got out before is still the catch
		if [ -n "$by" ] && [ -n "$path" ]; then
			caught="yes (incomplete: $reason)"
		else
			caught="no ($verdict)"; by="$reason"
		fi ;;
	*) caught="no ($verdict)"; by="$reason" ;;
	esac
	[ -n "$by" ] || by=$reason
	if [ -z "$path" ]; then
		# the control: the stock debug kernel must pass
		caught="stock: $verdict"
	fi
}

# One kernel: build, up to $boots boots of the suite (a corpus kernel stops
# at its first catch, the control boots every time); appends a table row.
# $1 recipe, $2 the path that should catch it ("" for the control)
row() {
	local name=$1 path=$2 t0 t1 t2 rdir res by caught desc fix b bcol runs="" passed=0 first=""
	t0=$(date +%s)
	if ! "$hb" kernel --target "$name" > "$out/$name.build.log" 2>&1; then
		echo "| $name | $name | not built | $(tail -1 "$out/$name.build.log" | tr '|' '/') | 0 | - |" >> "$table"
		rc=1
		return
	fi
	t1=$(date +%s)
	desc=$(sed -n 's/^description=//p' "$here/kernels/$name/recipe")
	fix=$(printf '%s' "$desc" | sed -n 's/.*revert of "\(.*\)"$/\1/p')
	[ -n "$fix" ] || fix="(stock: $desc)"
	for ((b = 1; b <= boots; b++)); do
		t2=$(date +%s)
		"$hb" run --target "$name" --suite "$suite" --results "$out/runs/b$b" --timeout "$timeout" \
			--tcg-threads "$tcg" \
			> "$out/$name.run$b.log" 2>&1
		runs="$runs${runs:+, }$(($(date +%s) - t2)) s"
		rdir=$(ls -d "$out/runs/b$b/$name"/*/ 2>/dev/null | tail -1)
		res="${rdir%/}/result.json"
		if [ ! -f "$res" ]; then
			echo "| $fix | $name | no result (boot $b) | see $out/$name.run$b.log | $b | build $((t1 - t0)) s, runs $runs |" >> "$table"
			rc=1
			return
		fi
		judge "$res" "$path"
		if [ -z "$path" ]; then
			if [ "$caught" = "stock: pass" ]; then
				passed=$((passed + 1))
			else
				rc=1
				first=${first:-"boot $b: $caught: $by"}
			fi
			continue
		fi
		case "$caught" in yes*) break ;; esac
	done
	if [ -z "$path" ]; then
		caught="stock: $passed of $boots pass"
		by=${first:-"control: every workload passes, no kernel report, in every boot"}
		bcol="$boots"
	elif [[ $caught == yes* ]]; then
		bcol="caught in boot $b of $boots"
	else
		bcol="$boots (none caught)"
	fi
	echo "| $fix | $name | $caught | $by | $bcol | build $((t1 - t0)) s, runs $runs |" >> "$table"
	tail -1 "$table"
}

{
	if [ "$suite" != real-bugs ]; then
		echo "Suite: $suite (not configs/real-bugs.suite)"
		echo
	fi
	echo "TCG: thread=$tcg (--tcg-threads $tcg)"
	echo
	echo "| fix | kernel | caught? | by which check, metric or kernel report | boots | time |"
	echo "|---|---|---|---|---|---|"
} > "$table"
[ $control = 1 ] && row minimal-7.2-debug ""
while IFS='|' read -r name kind path; do
	case "$name" in '' | '#'*) continue ;; esac
	[[ $name =~ ^real-[a-z0-9.-]+$ ]] || die "kernels/real-bugs.list: bad recipe name '$name'"
	[ -z "$only" ] || [[ $only == *",$name,"* ]] || continue
	[ -f "$here/kernels/$name/recipe" ] || die "kernels/real-bugs.list: no recipe kernels/$name"
	row "$name" "$path"
done < "$list"
echo
cat "$table"
echo "table: $table"
if [ -n "$docs" ]; then
	awk -v t="$table" '/<!-- real-bugs:begin -->/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
			   /<!-- real-bugs:end -->/ { skip = 0 } !skip' "$docs" > "$docs.tmp" && mv "$docs.tmp" "$docs"
fi
exit $rc
