/* test_mlock_table.c - the mlock workload's expectation table and policy
 * check (workloads/wl_mlock.c via wl_mlock.h): which row a kernel version
 * gets, the table's invariants, and "the seed's or this kernel's value"
 * judged by the status of a workload context. */
#define _GNU_SOURCE
#include "helpers.h"

#include "wl_mlock.h"

/* ---- mlock expectation table ------------------------------------------ */

static void test_ml_rows_by_version(void **state)
{
	(void)state;
	assert_ptr_equal(ml_expect_for(6001), &ml_kernels[0]);
	assert_ptr_equal(ml_expect_for(6006), &ml_kernels[0]);
	assert_ptr_equal(ml_expect_for(6007), &ml_kernels[1]);
	assert_ptr_equal(ml_expect_for(6012), &ml_kernels[1]);
	assert_ptr_equal(ml_expect_for(6018), &ml_kernels[1]);
	assert_ptr_equal(ml_expect_for(7004), &ml_kernels[1]);
	/* older than any row: the oldest row */
	assert_ptr_equal(ml_expect_for(5010), &ml_kernels[0]);
	/* what 6.1 and 6.12 guests showed */
	assert_false(ml_expect_for(6001)->pte_munlock_drops_pmd);
	assert_true(ml_expect_for(6012)->pte_munlock_drops_pmd);
}

static void test_ml_table_invariants(void **state)
{
	(void)state;
	for (size_t i = 0; i < ml_n_kernels; i++) {
		assert_non_null(ml_kernels[i].basis);
		/* mainline never mlocks part of a large folio through PTEs */
		assert_false(ml_kernels[i].pte_window_mlocks);
		if (i)
			assert_true(ml_kernels[i].min_kver > ml_kernels[i - 1].min_kver);
	}
	/* the seed counts the PTE window and keeps the huge mlock */
	assert_true(ml_seed.pte_window_mlocks);
	assert_false(ml_seed.pte_munlock_drops_pmd);
}

static enum hb_status ml_policy_status(int kver, long long seed, long long kernel,
				       long long observed)
{
	struct ml_state t = { .fd = -1 };
	struct hbt_cap c;
	enum hb_status st;

	hbt_cap_open(&c, &hb_wl_mlock);	/* only the status is looked at */
	t.ctx = c.ctx;
	t.kx = ml_expect_for(kver);
	ml_check_policy(&t, "step", seed, kernel, observed, "why");
	st = hb_ctx_status(t.ctx);
	hbt_cap_close(&c);
	return st;
}

static void test_ml_policy_check(void **state)
{
	(void)state;
	/* both_munlock_pte with 6 MiB locked: seed 6144, 6.12 row 4096 */
	assert_int_equal(ml_policy_status(6012, 6144, 4096, 6144), HB_PASS);
	assert_int_equal(ml_policy_status(6012, 6144, 4096, 4096), HB_PASS);
	assert_int_equal(ml_policy_status(6012, 6144, 4096, 2048), HB_FAIL);
	assert_int_equal(ml_policy_status(6012, 6144, 4096, 0), HB_FAIL);
	/* pte_mlock of a 1 MiB window: seed 1024, mainline 0; 2 MiB is neither */
	assert_int_equal(ml_policy_status(6001, 1024, 0, 0), HB_PASS);
	assert_int_equal(ml_policy_status(6001, 1024, 0, 2048), HB_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ml_rows_by_version),
		cmocka_unit_test(test_ml_table_invariants),
		cmocka_unit_test(test_ml_policy_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
