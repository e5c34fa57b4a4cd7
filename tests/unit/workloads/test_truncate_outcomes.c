/* test_truncate_outcomes.c - the truncate workload's judging (wl_truncate.h,
 * issue 25): fallocate(PUNCH_HOLE) on tmpfs is a fact of the kernel feature
 * table (row tmpfs_punch_hole, 3.5), so EOPNOTSUPP or ENOSYS from it on a
 * kernel that has it is a failed check naming the errno -- it used to be a
 * skip "unsupported on tmpfs here" -- and only a kernel the table says lacks
 * it skips, citing the row. The subject asks for huge pages present and
 * PMD-mapped, not allocated. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "wl_truncate.h"

extern const struct hb_workload hb_wl_truncate;

static void test_punch_errno_fails(void **state)
{
	static const int errs[] = { EOPNOTSUPP, ENOSYS, EINVAL, ENOSPC };

	(void)state;
	for (size_t i = 0; i < HBT_N_OF(errs); i++) {
		struct hbt_cap c;

		hbt_cap_open(&c, &hb_wl_truncate);
		assert_false(tr_call_judge(c.ctx, "punch_inside", false, 6001, HB_KF_CFG_UNKNOWN,
					   errs[i]));
		assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
		assert_non_null(strstr(hbt_cap_check_observed(&c, "punch_inside_call"),
				       strerrorname_np(errs[i])));
		assert_non_null(strstr(hbt_cap_check_observed(&c, "punch_inside_call"),
				       "kfeatures row tmpfs_punch_hole"));
		hbt_cap_close(&c);
	}
}

static void test_truncate_errno_fails(void **state)
{
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_truncate);
	assert_true(tr_call_judge(c.ctx, "punch_span", false, 6012, HB_KF_CFG_ON, 0));
	assert_false(tr_call_judge(c.ctx, "truncate", true, 6012, HB_KF_CFG_ON, EPERM));
	assert_non_null(strstr(hbt_cap_check_observed(&c, "truncate_call"), "EPERM"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);
}

/* The table decides "unsupported": 3.4 lacks punch hole on tmpfs, and a
 * kernel built without CONFIG_SHMEM; 3.5 and later have it. */
static void test_unsupported_by_table(void **state)
{
	char why[512];

	(void)state;
	assert_non_null(tr_unsupported_on(3004, HB_KF_CFG_ON, why, sizeof(why)));
	assert_non_null(strstr(why, "kfeatures row tmpfs_punch_hole"));
	assert_non_null(tr_unsupported_on(6001, HB_KF_CFG_OFF, why, sizeof(why)));
	assert_non_null(strstr(why, "CONFIG_SHMEM is off"));
	assert_null(tr_unsupported_on(3005, HB_KF_CFG_UNKNOWN, why, sizeof(why)));
	assert_null(tr_unsupported_on(6012, HB_KF_CFG_ON, why, sizeof(why)));
}

/* 16 MiB: allocated (thp_file_alloc +8) but nothing present fails; present
 * but PTE-mapped fails; present and PMD-mapped passes. */
static void test_subject(void **state)
{
	static const struct {
		const char *b;
		bool pass;
	} cases[] = {
		{ "ShmemHugePages=0 ShmemPmdMapped=0 vm.thp_file_alloc=8", false },
		{ "ShmemHugePages=16384 ShmemPmdMapped=0 vm.thp_file_alloc=8", false },
		{ "ShmemHugePages=16384 ShmemPmdMapped=16384 vm.thp_file_alloc=8", true },
	};

	(void)state;
	for (size_t i = 0; i < HBT_N_OF(cases); i++) {
		struct hb_snap a, b;
		struct hbt_cap c;

		hbt_snap(&a, "ShmemHugePages=0 ShmemPmdMapped=0 vm.thp_file_alloc=0");
		hbt_snap(&b, cases[i].b);
		hbt_cap_open(&c, &hb_wl_truncate);
		assert_int_equal(tr_subject(c.ctx, &a, &b, 16 << 20), cases[i].pass);
		assert_int_equal(hbt_cap_check_pass(&c, "subject_setup_huge_PmdMapped"),
				 cases[i].pass);
		hbt_cap_close(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_punch_errno_fails),
		cmocka_unit_test(test_truncate_errno_fails),
		cmocka_unit_test(test_unsupported_by_table),
		cmocka_unit_test(test_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
