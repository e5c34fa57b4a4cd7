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

/* acc_subject, as hbt_huge_subject_cases calls it */
static bool call(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
		 size_t size)
{
	return acc_subject(ctx, a, b, size, why, sizeof(why));
}

static void test_subject(void **state)
{
	(void)state;
	hbt_huge_subject_cases(&hb_wl_access, call, "subject_huge_PmdMapped", (size_t)64 << 20, true);
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
