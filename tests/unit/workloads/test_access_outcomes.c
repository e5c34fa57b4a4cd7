/* test_access_outcomes.c - the access workload's subject check (wl_access.h, issue 25) on
 * snapshots: huge pages allocated (thp_file_alloc) but not present in the
 * page cache, or present but not mapped as asked, fail; present and mapped
 * pass. The check asks the kernel for the outcome, never for the attempt. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "hb.h"
#include "wl_access.h"

static char why[384];

/* {ShmemHugePages, ShmemPmdMapped} after, from 0/0; thp_file_alloc +n each time. */
static bool subject(long long huge_kb, long long pmd_kb, bool *check_pass)
{
	struct hb_snap a, b;
	struct hbt_cap c;
	char spec[160];
	bool ok;

	hbt_snap(&a, "ShmemHugePages=0 ShmemPmdMapped=0 vm.thp_file_alloc=0");
	snprintf(spec, sizeof(spec), "ShmemHugePages=%lld ShmemPmdMapped=%lld vm.thp_file_alloc=%lld",
		 huge_kb, pmd_kb, (long long)((64UL << 20) >> 21));
	hbt_snap(&b, spec);
	hbt_cap_open(&c, &hb_wl_access);
	ok = acc_subject(c.ctx, &a, &b, (size_t)(64 << 20), why, sizeof(why));
	*check_pass = hbt_cap_check_pass(&c, "subject_huge_PmdMapped");
	assert_non_null(strstr(hbt_cap_check_observed(&c, "subject_huge_PmdMapped"), "attempts: thp_file_alloc"));
	assert_int_equal(hb_ctx_status(c.ctx), ok ? HB_PASS : HB_FAIL);
	hbt_cap_close(&c);
	return ok;
}

static void test_subject(void **state)
{
	long long kb = (long long)((64UL << 20) >> 10);
	bool p;

	(void)state;
	assert_false(subject(0, 0, &p));
	assert_false(p);
	assert_false(subject(kb - 2048, kb, &p));
	assert_true(subject(kb, kb, &p));
	assert_true(p);
	assert_false(subject(kb, 0, &p));
}

/* No PMU (TCG): the counters are unavailable with that fact, whatever the
 * errno, and nothing fails; with a PMU, an errno is the failed check
 * pmu_<counter> naming it. */
static void test_pmu(void **state)
{
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_access);
	assert_false(acc_counter_judge(c.ctx, "dtlb_load_misses", "HW_CACHE dTLB",
				       "no hardware PMU: /sys/bus/event_source/devices/cpu absent",
				       ENOENT, why, sizeof(why)));
	assert_non_null(strstr(why, "no hardware PMU"));
	assert_null(strstr(why, "ENOENT"));
	assert_null(hbt_cap_named(&c, "check", "pmu_dtlb_load_misses"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);

	hbt_cap_open(&c, &hb_wl_access);
	assert_false(acc_counter_judge(c.ctx, "dtlb_load_misses", "HW_CACHE dTLB", NULL, ENOENT,
				       why, sizeof(why)));
	assert_non_null(strstr(why, "ENOENT"));
	assert_false(hbt_cap_check_pass(&c, "pmu_dtlb_load_misses"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);

	hbt_cap_open(&c, &hb_wl_access);
	assert_true(acc_counter_judge(c.ctx, "dtlb_load_misses", "HW_CACHE dTLB", NULL, 0, why,
				      sizeof(why)));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_pmu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
