/* test_rule_edges.c - compare-report's decision rule
 * (harness/compare/cmp_rule.c) on numeric edge cases (issue 9): zeros,
 * negative values, values near DBL_MAX and denormals never abort and never
 * give a silent verdict; samples the loader would refuse are not judged.
 * One boot per value: the boot is the unit of the rule (the repetition
 * means were the unit before; they no longer change anything). */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <math.h>
#include <string.h>

/* better, BASE boots, NEW boots (JSON arrays, one value a boot), verdict */
struct vcase {
	const char *better, *a, *b;
	enum hb_cmp_verdict want;
};

/* The verdict of one metric whose values are a's and b's; why (if not
 * NULL) gets the metric's reason. */
static enum hb_cmp_verdict verdict_of(const char *better, const char *a, const char *b, char *why,
				      size_t whylen)
{
	struct hbt_pair x = { 0 };
	enum hb_cmp_verdict v;

	hbt_pair_groups(&x, hbt_boots_of(better, a), hbt_boots_of(better, b));
	assert_int_equal(x.p.n_m, 1);
	v = x.p.m[0].verdict;
	if (why)
		snprintf(why, whylen, "%s", x.p.m[0].why);
	/* a WORSE metric is always a regression finding, and only then */
	assert_int_equal(x.p.n_regressions, v == HB_CMP_WORSE);
	hbt_pair_free(&x);
	return v;
}

static void expect_verdicts(const struct vcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char why[160] = "";
		enum hb_cmp_verdict v = verdict_of(c[i].better, c[i].a, c[i].b, why, sizeof(why));

		if (v != c[i].want)
			fail_msg("better=%s %s -> %s: verdict %d, want %d (%s)", c[i].better, c[i].a,
				 c[i].b, (int)v, (int)c[i].want, why);
	}
}

static void test_rule_zero_to_one(void **state)
{
	static const struct vcase c[] = {
		/* was "same" with change +inf% */
		{ "lower", "[0, 0, 0]", "[1, 1, 1]", HB_CMP_WORSE },
		{ "lower", "[0, 0, 0, 0]", "[1, 1.1, 0.9, 1]", HB_CMP_WORSE },
		{ "higher", "[1, 1, 1]", "[0, 0, 0]", HB_CMP_WORSE },
		{ "lower", "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
		  "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", HB_CMP_WORSE },
		{ "lower", "[1, 1, 1]", "[0, 0, 0]", HB_CMP_BETTER },
		{ "lower", "[0, 0, 0]", "[0, 0, 0]", HB_CMP_SAME },
		{ "lower", "[0, 0, 0]", "[1e-320, 1.1e-320, 0.9e-320]", HB_CMP_WORSE },
	};

	(void)state;
	expect_verdicts(c, HBT_N_OF(c));
}

static void test_rule_negative_values(void **state)
{
	static const struct vcase c[] = {
		/* -10 -> -20 with better=lower is an improvement; it was a
		 * regression (ratio 2, "+100%") in REPS mode */
		{ "lower", "[-10, -10.1, -9.9]", "[-20, -20.2, -19.8]", HB_CMP_BETTER },
		{ "lower", "[-20, -20.2, -19.8]", "[-10, -10.1, -9.9]", HB_CMP_WORSE },
		{ "higher", "[-10, -10.1, -9.9]", "[-20, -20.2, -19.8]", HB_CMP_WORSE },
	};
	struct hbt_pair x = { 0 };

	(void)state;
	expect_verdicts(c, HBT_N_OF(c));
	hbt_pair_groups(&x, hbt_boots_of("lower", "[-10, -10.1, -9.9]"),
			hbt_boots_of("lower", "[-20, -20.2, -19.8]"));
	assert_int_equal(x.p.n_m, 1);
	assert_true(fabs(x.p.m[0].change_pct - -100) < 1e-9);
	assert_true(x.p.m[0].ci_hi < 1);
	hbt_pair_free(&x);
}

static void test_rule_huge_and_degenerate(void **state)
{
	static const struct vcase c[] = {
		/* aborted (exit 134) in both modes */
		{ "lower", "[1e100, -1e100, 2e100]", "[1e100, -1e100, 2e100]", HB_CMP_SAME },
		{ "lower", "[1e100, -1e100, 2e100]", "[1e100, -1e100, 3e100]", HB_CMP_SAME },
		{ "lower", "[1.7e308, -1.7e308, 1.79e308]", "[-1.79e308, 1.7e308, -1.7e308]",
		  HB_CMP_SAME },
		/* (close to DBL_MAX, and close enough together for a change to
		 * be significant at 3 boots) */
		{ "higher", "[1.77e308, 1.78e308, 1.79e308]", "[1.77e308, 1.78e308, 1.79e308]",
		  HB_CMP_SAME },
		/* (near the smallest doubles: logs of denormal-free values) */
		{ "lower", "[1e-300, 1.01e-300, 0.99e-300]", "[1e300, 1.01e300, 0.99e300]",
		  HB_CMP_WORSE },
		{ "lower", "[5, 5, 5, 5]", "[5, 5, 5, 5]", HB_CMP_SAME },
		{ "lower", "[]", "[]", HB_CMP_UNTESTED },
		{ "lower", "[5e-324, 1e-323, 0]", "[5e-324, 1e-323, 0]", HB_CMP_SAME },
	};
	char why[160];

	(void)state;
	expect_verdicts(c, HBT_N_OF(c));
	/* one boot per side: shown, never judged */
	assert_int_equal(verdict_of("lower", "[5]", "[500]", why, sizeof(why)), HB_CMP_ADVISORY);
	assert_non_null(strstr(why, "too few"));
}

/* Samples the loader would refuse, handed to the rule directly: the metric
 * is not judged, says why, and the report carries a note. */
static void test_rule_nonfinite_not_judged(void **state)
{
	double sa[] = { 1, 2, NAN, 4 }, sb[] = { 1, 2, 3, 4 }, ia[] = { 1, INFINITY, 3 };
	struct hb_cmp_metric a = { .name = "m", .better = HB_CMP_LOWER, .samples = sa, .n = 4 };
	struct hb_cmp_metric b = { .name = "m", .better = HB_CMP_LOWER, .samples = sb, .n = 4 };
	struct hb_cmp_metric c = { .name = "m", .better = HB_CMP_LOWER, .samples = ia, .n = 3 };
	struct hb_cmp_limits lim = { 5, 1 };
	struct hb_cmp_opts o;
	struct hb_cmp_mres r[2] = { { .workload = "w" }, { .workload = "w" } };

	(void)state;
	hb_cmp_opts_default(&o);
	o.boot_B = 200;
	hb_cmp_metric_test(&a, &b, &lim, &o, &r[0]);
	hb_cmp_metric_test(&c, &b, &lim, &o, &r[1]);
	hb_cmp_decide(r, 2, &o);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r[i].verdict, HB_CMP_UNTESTED);
		assert_non_null(strstr(r[i].why, "not judged"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_zero_to_one),
		cmocka_unit_test(test_rule_negative_values),
		cmocka_unit_test(test_rule_huge_and_degenerate),
		cmocka_unit_test(test_rule_nonfinite_not_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
