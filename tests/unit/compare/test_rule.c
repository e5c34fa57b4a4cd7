/* test_rule.c - compare-report's decision rule (harness/compare/cmp_rule.c)
 * on generated runs (helpers_cmp.c: seeded lognormal latencies and scalar
 * metrics, one boot effect per run) grouped into sides of several boots:
 * A/A gives no regression, a 20% shift is found on that metric and no
 * other, an improvement is not a regression, one boot per side is advisory
 * only, check and workload flips and new kernel warnings are regressions.
 * The rules added with the boot as the unit are in test_rule_boots.c. */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <math.h>
#include <string.h>

static int setup(void **state)
{
	(void)state;
	return hbt_tmpdir("compare");
}

static void test_aa_no_regression(void **state)
{
	(void)state;
	for (unsigned long s = 1; s <= 6; s++) {
		struct hbt_gen ga = { .seed = s, .reps = 3, .per_rep = 128 };
		struct hbt_gen gb = { .seed = s + 1000, .reps = 3, .per_rep = 128 };
		struct hbt_pair x;

		hbt_pair_groups(&x, hbt_gen_group(&ga, 5), hbt_gen_group(&gb, 5));
		assert_int_equal(x.p.n_regressions, 0);
		assert_int_equal(hbt_count_verdict(&x.p, HB_CMP_WORSE, NULL), 0);
		assert_int_equal(hbt_count_verdict(&x.p, HB_CMP_INFO_ONLY, NULL), 1);
		assert_int_equal(hbt_count_verdict(&x.p, HB_CMP_UNAVAILABLE, NULL), 1);
		assert_int_equal(x.p.m[0].mode, HB_CMP_MODE_BOOTS);
		assert_int_equal(x.p.m[0].na, 5);
		assert_true(x.p.m[0].distribution);
		assert_true(x.p.comparable);
		hbt_pair_free(&x);
	}
}

static void test_shift_found_on_that_metric_only(void **state)
{
	static const char *const targets[] = { "lat3", "tput5" };

	(void)state;
	for (size_t t = 0; t < 2; t++) {
		struct hbt_gen ga = { .seed = 11, .reps = 3, .per_rep = 128 };
		struct hbt_gen gb = { .seed = 12, .reps = 3, .per_rep = 128, .shift_metric = targets[t],
				  .shift = t ? 0.8 : 1.2 }; /* tput: higher is better */
		struct hbt_pair x;
		const char *which = NULL;

		hbt_pair_groups(&x, hbt_gen_group(&ga, 5), hbt_gen_group(&gb, 5));
		assert_int_equal(hbt_count_verdict(&x.p, HB_CMP_WORSE, &which), 1);
		assert_string_equal(which, targets[t]);
		assert_int_equal(x.p.n_regressions, 1);
		for (size_t i = 0; i < x.p.n_m; i++)
			if (!strcmp(x.p.m[i].name, targets[t]))
				assert_true(x.p.m[i].worse_pct > 15 && x.p.m[i].worse_pct < 25);
		hbt_pair_free(&x);
	}
}

static void test_improvement_is_not_regression(void **state)
{
	struct hbt_gen ga = { .seed = 21, .reps = 3, .per_rep = 128 };
	struct hbt_gen gb = { .seed = 22, .reps = 3, .per_rep = 128, .shift_metric = "lat1", .shift = 0.7 };
	struct hbt_pair x;
	const char *which = NULL;

	(void)state;
	hbt_pair_groups(&x, hbt_gen_group(&ga, 5), hbt_gen_group(&gb, 5));
	assert_int_equal(x.p.n_regressions, 0);
	assert_int_equal(hbt_count_verdict(&x.p, HB_CMP_BETTER, &which), 1);
	assert_string_equal(which, "lat1");
	hbt_pair_free(&x);
}

static void test_one_boot_is_advisory(void **state)
{
	/* One boot per side (this was "samples mode", which tested the samples
	 * of one boot and flagged A/A pairs): every metric is advisory, the
	 * change is shown, the within-boot p-value is descriptive only. */
	struct hbt_gen ga = { .seed = 31, .reps = 1, .per_rep = 400 };
	struct hbt_gen gb = { .seed = 32, .reps = 1, .per_rep = 400 };
	struct hbt_gen gc = { .seed = 33, .reps = 1, .per_rep = 400, .shift_metric = "lat0", .shift = 1.3 };
	struct hbt_pair x;

	(void)state;
	hbt_pair_runs(&x, hbt_gen_run(&ga), hbt_gen_run(&gb), 500);
	assert_int_equal(x.p.m[0].mode, HB_CMP_MODE_ADVISORY);
	assert_int_equal(hbt_count_verdict(&x.p, HB_CMP_WORSE, NULL), 0);
	assert_int_equal(hbt_count_verdict(&x.p, HB_CMP_ADVISORY, NULL), HBT_N_LAT + HBT_N_SCALAR);
	hbt_pair_free(&x);
	hbt_pair_runs(&x, hbt_gen_run(&ga), hbt_gen_run(&gc), 500);
	assert_int_equal(hbt_count_verdict(&x.p, HB_CMP_WORSE, NULL), 0);
	assert_int_equal(x.p.n_regressions, 0);
	assert_int_equal(x.p.m[0].verdict, HB_CMP_ADVISORY);
	assert_true(x.p.m[0].change_pct > 20);
	assert_true(x.p.m[0].p_within < 1e-6); /* shown, never judged */
	assert_true(isnan(x.p.m[0].q_worse));
	hbt_pair_free(&x);
}

static void test_functional_regressions(void **state)
{
	struct hbt_gen ga = { .seed = 41, .reps = 3, .per_rep = 16 };
	struct hbt_gen gb = { .seed = 42, .reps = 3, .per_rep = 16, .fail_check = true };
	struct hbt_gen gw = { .seed = 42, .reps = 3, .per_rep = 16, .warning = true };
	struct hbt_gen ge = { .seed = 42, .reps = 3, .per_rep = 16, .status2 = "error" };
	struct hbt_pair x;
	bool check = false, wl = false, issue = false, verdict = false;

	(void)state;
	hbt_pair_runs(&x, hbt_gen_run(&ga), hbt_gen_run(&gb), 500);
	for (size_t i = 0; i < x.p.n_f; i++) {
		check |= x.p.f[i].kind == HB_CMP_F_CHECK && x.p.f[i].regression &&
			 !strcmp(x.p.f[i].what, "huge_pmd_mapped");
		wl |= x.p.f[i].kind == HB_CMP_F_WORKLOAD && x.p.f[i].regression;
		verdict |= x.p.f[i].kind == HB_CMP_F_VERDICT && x.p.f[i].regression;
	}
	assert_true(check && wl && verdict);
	/* snapshots side by side by label */
	for (size_t i = 0; i < x.p.n_snaps; i++)
		if (!strcmp(x.p.snaps[i].key, "ShmemPmdMapped")) {
			assert_string_equal(x.p.snaps[i].label, "huge");
			assert_true(x.p.snaps[i].a == 65536 && x.p.snaps[i].b == 0);
		}
	hbt_pair_free(&x);

	hbt_pair_runs(&x, hbt_gen_run(&ga), hbt_gen_run(&gw), 500);
	for (size_t i = 0; i < x.p.n_f; i++)
		issue |= x.p.f[i].kind == HB_CMP_F_ISSUE && x.p.f[i].regression;
	assert_true(issue);
	hbt_pair_free(&x);

	/* skip -> error is a regression; the skip reasons are kept */
	hbt_pair_runs(&x, hbt_gen_run(&ga), hbt_gen_run(&ge), 500);
	assert_true(x.p.n_regressions >= 1);
	assert_string_equal(x.p.wl[1].status_a, "skip");
	assert_string_equal(x.p.wl[1].reason_a, "needs 6.11 per-size knobs");
	assert_true(x.p.wl[1].regression);
	hbt_pair_free(&x);

	assert_int_equal(hbt_compare(NULL, hbt_write_run("f_a", hbt_gen_run(&ga)),
				     hbt_write_run("f_b", hbt_gen_run(&gb)), NULL),
			 HB_CMP_REGRESSION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_no_regression),
		cmocka_unit_test(test_shift_found_on_that_metric_only),
		cmocka_unit_test(test_improvement_is_not_regression),
		cmocka_unit_test(test_one_boot_is_advisory),
		cmocka_unit_test(test_functional_regressions),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
