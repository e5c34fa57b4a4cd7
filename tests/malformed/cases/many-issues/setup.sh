# 20000 kernel issues of 20000 kinds.
awk 'BEGIN {
	printf "{\"schema\": \"hugebench-result/1\", \"run_id\": \"t/issues\", \"suite\": \"quick\", \"repeat\": 1,\n";
	printf " \"target\": {\"name\": \"debian-6.12\"}, \"environment\": {\"accelerator\": \"tcg\", \"host_cpu\": \"test cpu\"},\n";
	printf " \"verdict\": \"kernel-warning\", \"workloads\": [], \"kernel_issues\": [\n";
	for (i = 0; i < 20000; i++)
		printf "%s{\"kind\": \"K%d\", \"line\": %d, \"excerpt\": \"x\"}\n", i ? "," : " ", i, i;
	print "]}" }' >result.json
