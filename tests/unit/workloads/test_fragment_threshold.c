/* test_fragment_threshold.c - the fragment workload's clean-phase subject
 * check (fr_clean_subject() in workloads/wl_fragment.c): the share of
 * extents that got huge must reach clean_min_pct. */
#define _GNU_SOURCE
#include "helpers.h"

#include "wl_fragment.h"

/* fragment: rate 0 (no huge page) and 0.4 fail clean_min_pct=50; 1.0 and
 * exactly 0.5 pass. */
static void test_fragment_clean_threshold(void **state)
{
	static const struct {
		double rate;
		bool pass;
	} cases[] = { { 0.0, false }, { 0.4, false }, { 0.5, true }, { 1.0, true } };

	(void)state;
	for (size_t i = 0; i < HBT_N_OF(cases); i++) {
		struct hbt_cap c;
		char why[256] = "";

		hbt_cap_open(&c, &hb_wl_fragment);
		assert_int_equal(fr_clean_subject(c.ctx, cases[i].rate, 50, 32, why, sizeof(why)),
				 cases[i].pass);
		assert_int_equal(hb_ctx_status(c.ctx), cases[i].pass ? HB_PASS : HB_FAIL);
		assert_int_equal(why[0] != 0, !cases[i].pass);
		hbt_cap_close(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fragment_clean_threshold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
