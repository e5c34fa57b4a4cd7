# Called by a case's setup.sh, in the case folder. Since the boot is the unit
# of compare-report (issue 11), a metric is judged only with >= 3 boots per
# side: base/ and new/ become run groups of three boots, each a copy of the
# case's run (the numbers under test unchanged).
for side in base new; do
	for k in 1 2 3; do
		mkdir -p "$side/boot-$k" && cp "$side/result.json" "$side/boot-$k/result.json" || exit 1
	done
	rm "$side/result.json" || exit 1
	printf '{"schema": "hugebench-group/1", "group_id": "t/%s", "runs": [{"boot": 1, "dir": "boot-1"}, {"boot": 2, "dir": "boot-2"}, {"boot": 3, "dir": "boot-3"}]}\n' "$side" >"$side/group.json" || exit 1
done
