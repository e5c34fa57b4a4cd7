# 20000 workloads, each with a metric, a check and a snapshot (valid):
# compare-report and table must stay well below quadratic time.
awk 'BEGIN {
	printf "{\"schema\": \"hugebench-result/1\", \"run_id\": \"t/many\", \"suite\": \"quick\", \"repeat\": 1,\n";
	printf " \"target\": {\"name\": \"debian-6.12\"}, \"environment\": {\"accelerator\": \"tcg\", \"host_cpu\": \"test cpu\"},\n";
	printf " \"verdict\": \"pass\", \"kernel_issues\": [], \"workloads\": [\n";
	for (i = 0; i < 20000; i++)
		printf "%s{\"name\": \"w%05d\", \"status\": \"pass\", \"reps\": 1, \"metrics\": [{\"name\": \"lat\", \"unit\": \"ns\", \"better\": \"lower\", \"samples\": [%d, %d, %d], \"summary\": {\"n\": 3, \"p50\": %d}}], \"checks\": [{\"name\": \"c%d\", \"observed\": \"1\", \"pass\": true, \"rep\": 0}], \"snapshots\": [{\"label\": \"l\", \"rep\": 0, \"meminfo_kb\": {\"Shmem\": %d}, \"vmstat\": {\"thp_file_alloc\": 1}}], \"events\": [{\"ev\": \"kvm_stats\", \"backing\": \"b%d\", \"phase\": \"after_write\", \"vm\": {\"pages_4k\": 1, \"pages_2m\": 2}}]}\n",
			i ? "," : " ", i, 100 + i % 7, 101 + i % 5, 99 + i % 3, 101, i, i, i;
	print "]}" }' >result.json
