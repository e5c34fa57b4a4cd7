# 100000 distinct workloads (a real suite has at most 64 lines): the reader
# must neither hang (one scan per event is quadratic) nor pass.
awk 'BEGIN {
	print "{\"ev\":\"suite_start\",\"suite\":\"s\",\"kernel_release\":\"6.1.0-test\",\"runs\":1}"
	for (i = 0; i < 100000; i++) {
		printf "{\"ev\":\"workload_start\",\"workload\":\"w%d\",\"rep\":0}\n", i
		printf "{\"ev\":\"workload_end\",\"workload\":\"w%d\",\"rep\":0,\"status\":\"pass\"}\n", i
	}
	print "{\"ev\":\"suite_end\"}"
}' >stream.in
