/* test_procstat.c - the /proc parsers both binaries link (lib/procstat.c):
 * /proc/meminfo and /proc/vmstat text into key/value pairs, and the deltas
 * the workload API takes between two snapshots (hb_vmstat_delta(),
 * hb_meminfo_delta_kb() in workloads/api/hb_util.c). */
#include "helpers.h"

#include "hb.h"
#include "procstat.h"

static const char meminfo_text[] =
	"MemTotal:        2013640 kB\n"
	"MemFree:         1822932 kB\n"
	"Shmem:             16420 kB\n"
	"ShmemHugePages:    16384 kB\n"
	"ShmemPmdMapped:        0 kB\n"
	"HugePages_Total:       0\n"
	"garbage line without colon\n"
	"Hugepagesize:       2048 kB\n";

static void test_meminfo_parse(void **state)
{
	struct hb_kv kv[16];
	bool found;
	size_t n = procstat_parse(meminfo_text, PROCSTAT_MEMINFO, kv, 16);

	(void)state;
	assert_int_equal(n, 7);
	assert_int_equal(procstat_get(kv, n, "ShmemHugePages", &found), 16384);
	assert_true(found);
	assert_int_equal(procstat_get(kv, n, "HugePages_Total", &found), 0);
	assert_true(found);
	assert_int_equal(procstat_get(kv, n, "Hugepagesize", NULL), 2048);
	assert_int_equal(procstat_get(kv, n, "NoSuchKey", &found), 0);
	assert_false(found);
}

static void test_vmstat_parse_and_delta(void **state)
{
	struct hb_snap a = { 0 }, b = { 0 };

	(void)state;
	a.n_vmstat = procstat_parse("nr_free_pages 100\nthp_file_alloc 3\nthp_split_pmd 1\n",
				    PROCSTAT_VMSTAT, a.vmstat, HB_SNAP_MAX);
	b.n_vmstat = procstat_parse("nr_free_pages 90\nthp_file_alloc 35\nthp_split_pmd 1\n"
				    "new_counter 7\n",
				    PROCSTAT_VMSTAT, b.vmstat, HB_SNAP_MAX);
	a.n_meminfo = procstat_parse("ShmemPmdMapped: 0 kB\n", PROCSTAT_MEMINFO, a.meminfo, 96);
	b.n_meminfo = procstat_parse("ShmemPmdMapped: 65536 kB\n", PROCSTAT_MEMINFO, b.meminfo, 96);
	assert_int_equal(a.n_vmstat, 3);
	assert_int_equal(hb_vmstat_delta(&a, &b, "thp_file_alloc"), 32);
	assert_int_equal(hb_vmstat_delta(&a, &b, "nr_free_pages"), -10);
	assert_int_equal(hb_vmstat_delta(&a, &b, "thp_split_pmd"), 0);
	/* a counter the older snapshot lacks counts from zero */
	assert_int_equal(hb_vmstat_delta(&a, &b, "new_counter"), 7);
	assert_int_equal(hb_meminfo_delta_kb(&a, &b, "ShmemPmdMapped"), 65536);
}

static void test_parse_truncates_at_max(void **state)
{
	struct hb_kv kv[2];

	(void)state;
	assert_int_equal(procstat_parse("a 1\nb 2\nc 3\n", PROCSTAT_VMSTAT, kv, 2), 2);
	assert_string_equal(kv[1].key, "b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meminfo_parse),
		cmocka_unit_test(test_vmstat_parse_and_delta),
		cmocka_unit_test(test_parse_truncates_at_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
