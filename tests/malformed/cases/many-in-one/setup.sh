# One workload with 20000 checks, 5000 metrics and 20000 meminfo keys.
awk 'BEGIN {
	printf "{\"schema\": \"hugebench-result/1\", \"run_id\": \"t/one\", \"suite\": \"quick\", \"repeat\": 1,\n";
	printf " \"target\": {\"name\": \"debian-6.12\"}, \"environment\": {\"accelerator\": \"tcg\", \"host_cpu\": \"test cpu\"},\n";
	printf " \"verdict\": \"pass\", \"workloads\": [{\"name\": \"w\", \"status\": \"pass\", \"reps\": 1, \"checks\": [\n";
	for (i = 0; i < 20000; i++)
		printf "%s{\"name\": \"c%d\", \"observed\": \"1\", \"pass\": true, \"rep\": 0}\n", i ? "," : " ", i;
	printf "], \"metrics\": [\n";
	for (i = 0; i < 5000; i++)
		printf "%s{\"name\": \"m%d\", \"unit\": \"ns\", \"better\": \"lower\", \"samples\": [1, 2, 3]}\n", i ? "," : " ", i;
	printf "], \"snapshots\": [{\"label\": \"l\", \"rep\": 0, \"meminfo_kb\": {\n";
	for (i = 0; i < 20000; i++)
		printf "%s\"k%d\": %d\n", i ? "," : " ", i, i;
	print "}}]}]}" }' >result.json
