/* test_recover_outcomes.c - the recover workload's judging (wl_recover.h,
 * issue 25) with injected errnos and kernel versions: on a kernel the
 * feature table says has MADV_COLLAPSE, EINVAL from it is a failed check
 * naming EINVAL (the case of minimal-6.1-collapse-fail); only a kernel the
 * table says lacks it gets "unavailable", citing the row; and both subjects
 * ask for the outcome (ShmemHugePages back, pages_collapsed), never for
 * thp_collapse_alloc. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "wl_recover.h"

/* 8 MiB file: 4 extents. */
#define SIZE_KB 8192

/* MADV_COLLAPSE on 6.1.192 with a collapse that fails after the huge page
 * is allocated: EINVAL, 4 attempts counted, no huge page back. */
static void test_collapse_einval_on_6_1_fails(void **state)
{
	struct rc_collapse_obs o = { .kver = 6001, .cfg = HB_KF_CFG_UNKNOWN, .ret = -1,
				     .err = EINVAL, .tries = 1, .huge_kb = 0, .size_kb = SIZE_KB,
				     .collapse_alloc = 4, .ms = 12.5 };
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_recover);
	assert_true(rc_collapse_supported(c.ctx, o.kver, o.cfg));
	assert_false(rc_collapse_judge(c.ctx, &o));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	assert_false(hbt_cap_check_pass(&c, "collapse_madvise"));
	assert_non_null(strstr(hbt_cap_check_observed(&c, "collapse_madvise"), "EINVAL"));
	assert_non_null(strstr(hbt_cap_check_observed(&c, "collapse_madvise"),
			       "kfeatures row madv_collapse"));
	assert_false(hbt_cap_check_pass(&c, "subject_madv_collapse"));
	assert_non_null(strstr(hbt_cap_check_observed(&c, "subject_madv_collapse"),
			       "thp_collapse_alloc +4"));
	/* a time with no collapse behind it is not a number */
	assert_non_null(hbt_cap_unavailable(&c, "madv_collapse_time"));
	/* nothing says "not supported" */
	assert_null(strstr(hbt_cap_notes(&c), "not supported"));
	hbt_cap_close(&c);
}

/* Every errno MADV_COLLAPSE can give fails on a kernel that has it. */
static void test_collapse_any_errno_fails(void **state)
{
	static const int errs[] = { EINVAL, ENOMEM, EBUSY, EAGAIN, EPERM };

	(void)state;
	for (size_t i = 0; i < HBT_N_OF(errs); i++) {
		struct rc_collapse_obs o = { .kver = 6012, .cfg = HB_KF_CFG_ON, .ret = -1,
					     .err = errs[i], .tries = 5, .huge_kb = SIZE_KB,
					     .size_kb = SIZE_KB };
		struct hbt_cap c;

		hbt_cap_open(&c, &hb_wl_recover);
		assert_false(rc_collapse_judge(c.ctx, &o));
		assert_false(hbt_cap_check_pass(&c, "collapse_madvise"));
		assert_non_null(strstr(hbt_cap_check_observed(&c, "collapse_madvise"),
				       strerrorname_np(errs[i])));
		hbt_cap_close(&c);
	}
}

/* A kernel the table says lacks MADV_COLLAPSE (5.15): no call, the metric
 * unavailable citing the row, and the workload not failed by it. */
static void test_collapse_before_6_1_unavailable(void **state)
{
	struct hbt_cap c;
	const char *u;

	(void)state;
	hbt_cap_open(&c, &hb_wl_recover);
	assert_false(rc_collapse_supported(c.ctx, 5015, HB_KF_CFG_ON));
	u = hbt_cap_unavailable(&c, "madv_collapse_time");
	assert_non_null(u);
	assert_non_null(strstr(u, "kfeatures row madv_collapse"));
	assert_non_null(strstr(u, "not in Linux 5.15"));
	assert_non_null(strstr(hbt_cap_notes(&c), "kfeatures row madv_collapse"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
	/* THP configured out on a new kernel: the same, citing the option */
	hbt_cap_open(&c, &hb_wl_recover);
	assert_false(rc_collapse_supported(c.ctx, 6012, HB_KF_CFG_OFF));
	assert_non_null(strstr(hbt_cap_unavailable(&c, "madv_collapse_time"),
			       "CONFIG_TRANSPARENT_HUGEPAGE is off"));
	hbt_cap_close(&c);
}

/* The good case: 0, every extent back: both checks pass, a number. */
static void test_collapse_ok(void **state)
{
	struct rc_collapse_obs o = { .kver = 6001, .cfg = HB_KF_CFG_ON, .ret = 0, .tries = 1,
				     .huge_kb = SIZE_KB, .size_kb = SIZE_KB, .collapse_alloc = 4,
				     .ms = 40 };
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_recover);
	assert_true(rc_collapse_judge(c.ctx, &o));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	assert_null(hbt_cap_unavailable(&c, "madv_collapse_time"));
	hbt_cap_close(&c);
}

/* madvise says 0 but the huge pages did not come back: the subject fails. */
static void test_collapse_zero_without_outcome(void **state)
{
	struct rc_collapse_obs o = { .kver = 6001, .cfg = HB_KF_CFG_ON, .ret = 0, .tries = 1,
				     .huge_kb = 2048, .size_kb = SIZE_KB, .collapse_alloc = 4 };
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_recover);
	assert_false(rc_collapse_judge(c.ctx, &o));
	assert_true(hbt_cap_check_pass(&c, "collapse_madvise"));
	assert_false(hbt_cap_check_pass(&c, "subject_madv_collapse"));
	hbt_cap_close(&c);
}

/* khugepaged: 5016 collapse allocations, no collapse counted, no huge page
 * back (what issue 25 saw) fails; pages_collapsed or ShmemHugePages back
 * passes. */
static void test_khugepaged_subject(void **state)
{
	static const struct {
		struct rc_khugepaged_obs o;
		bool pass;
	} cases[] = {
		{ { 4, 0, 0, SIZE_KB, 5016, 0 }, false },
		{ { 4, 3, 0, SIZE_KB, 3, 0 }, false },
		{ { 4, 4, 0, SIZE_KB, 4, 0 }, true },
		{ { 4, 0, SIZE_KB, SIZE_KB, 4, 0 }, true },
	};

	(void)state;
	for (size_t i = 0; i < HBT_N_OF(cases); i++) {
		struct hbt_cap c;

		hbt_cap_open(&c, &hb_wl_recover);
		assert_int_equal(rc_khugepaged_subject(c.ctx, &cases[i].o), cases[i].pass);
		assert_int_equal(hbt_cap_check_pass(&c, "subject_khugepaged_collapse"),
				 cases[i].pass);
		assert_non_null(strstr(hbt_cap_check_observed(&c, "subject_khugepaged_collapse"),
				       "attempts: thp_collapse_alloc"));
		hbt_cap_close(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collapse_einval_on_6_1_fails),
		cmocka_unit_test(test_collapse_any_errno_fails),
		cmocka_unit_test(test_collapse_before_6_1_unavailable),
		cmocka_unit_test(test_collapse_ok),
		cmocka_unit_test(test_collapse_zero_without_outcome),
		cmocka_unit_test(test_khugepaged_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
