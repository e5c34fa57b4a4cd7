/* test_gate.c - issue 34: a performance gate that can be left unattended.
 *
 * An honest verdict: a comparison that tested no metric says "nothing
 * tested" and exits 4, never "no regression"; a certain change below the
 * minimum effect is listed with its size ("small"), not shown as "same".
 */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int setup(void **state)
{
	(void)state;
	return hbt_rng_setup("gate", 34);
}

/* 2 + 2 boots without a calibration, and 1 + 3: every metric advisory. */
static void test_nothing_tested(void **state)
{
	const char *a2 = hbt_boots("nt_a2", 2, "lower", 1000, 0.01, 1, "6.12.1");
	const char *b2 = hbt_boots("nt_b2", 2, "lower", 1000, 0.01, 1, "6.12.1");
	const char *a1 = hbt_boots("nt_a1", 1, "lower", 1000, 0.01, 1, "6.12.1");
	const char *b3 = hbt_boots("nt_b3", 3, "lower", 1000, 0.01, 1, "6.12.1");
	json_t *root, *cmp;
	char *out = NULL;
	int rc;

	(void)state;
	assert_int_equal(hbt_compare(&out, "--calibration", "none", a2, b2, NULL),
			 HB_CMP_NOTHING_TESTED);
	assert_non_null(strstr(out, "hugebench compare-report: nothing tested"));
	assert_non_null(strstr(out, "=> ?? nothing tested: none of the 1 metrics could be tested"));
	assert_non_null(strstr(out, "2 vs 2 boots without a calibration"));
	assert_null(strstr(out, "no regression ("));
	free(out);
	assert_int_equal(hbt_compare(&out, "--calibration", "none", a1, b3, NULL),
			 HB_CMP_NOTHING_TESTED);
	assert_non_null(strstr(out, "1 vs 3 boots without a calibration"));
	free(out);
	cmp = hbt_report(a2, b2, "none", NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_NOTHING_TESTED);
	assert_string_equal(json_string_value(json_object_get(root, "result")), "untested");
	assert_string_equal(json_string_value(json_object_get(cmp, "result")), "untested");
	assert_int_equal(hbt_num(cmp, "judgeable_metrics"), 1);
	assert_int_equal(hbt_num(cmp, "untested_metrics"), 1);
	assert_int_equal(hbt_num(cmp, "bh_family"), 0);
	json_decref(root);
	/* markdown says it too */
	assert_int_equal(hbt_compare(&out, "--calibration", "none", "--format", "markdown", a2, b2,
				     NULL),
			 HB_CMP_NOTHING_TESTED);
	assert_non_null(strstr(out, "**Result: nothing tested**"));
	free(out);
}

/* A regression still wins: with 3 + 3 boots the metric is tested; and the
 * verdict line counts what was tested. */
static void test_tested_counts(void **state)
{
	const char *a = hbt_boots("tc_a", 3, "lower", 1000, 0.001, 1, "6.12.1");
	const char *b = hbt_boots("tc_b", 3, "lower", 1000, 0.001, 1.5, "6.12.1");
	const char *c = hbt_boots("tc_c", 3, "lower", 1000, 0.001, 1, "6.12.1");
	char *out = NULL;

	(void)state;
	assert_int_equal(hbt_compare(&out, "--calibration", "none", a, b, NULL),
			 HB_CMP_REGRESSION);
	assert_non_null(strstr(out, "=> !! REGRESSION (1 regression)"));
	free(out);
	assert_int_equal(hbt_compare(&out, "--calibration", "none", a, c, NULL), HB_CMP_OK);
	assert_non_null(strstr(out, "=> no regression (1 of 1 metrics tested)"));
	free(out);
}

/* Certain but below the minimum effect: +0.3 % with zero spread on both
 * sides (wall clock, min effect 5 %) is "small", with its size and
 * interval, in the verdict line and as a note; not a regression. */
static void test_small_change_listed(void **state)
{
	struct hbt_pair x = { 0 };
	char v[1024];

	(void)state;
	hbt_pair_groups(&x, hbt_boots_of("lower", "[1000, 1000, 1000]"),
			hbt_boots_of("lower", "[1003, 1003, 1003]"));
	assert_int_equal(x.p.n_m, 1);
	assert_int_equal(x.p.m[0].verdict, HB_CMP_SMALL);
	assert_non_null(strstr(x.p.m[0].why, "certain change +0.30% [+0.30%, +0.30%]"));
	assert_non_null(strstr(x.p.m[0].why, "below the minimum effect"));
	assert_int_equal(x.p.n_regressions, 0);
	assert_int_equal(x.p.n_small, 1);
	assert_int_equal(hb_cmp_pair_outcome(&x.p), HB_CMP_OUT_OK);
	hb_cmp_pair_verdict(&x.p, v, sizeof(v));
	assert_non_null(strstr(v, "1 certain change below the minimum effect:"));
	assert_non_null(strstr(v, "+0.30%"));
	hbt_pair_free(&x);
	/* an improvement below the minimum effect is "small" too, not a note */
	hbt_pair_groups(&x, hbt_boots_of("lower", "[1000, 1000, 1000]"),
			hbt_boots_of("lower", "[997, 997, 997]"));
	assert_int_equal(x.p.m[0].verdict, HB_CMP_SMALL);
	assert_int_equal(x.p.n_small, 0);
	hbt_pair_free(&x);
	/* not certain: "same" */
	hbt_pair_groups(&x, hbt_boots_of("lower", "[1000, 1010, 990]"),
			hbt_boots_of("lower", "[1003, 995, 1012]"));
	assert_int_equal(x.p.m[0].verdict, HB_CMP_SAME);
	hbt_pair_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_tested),
		cmocka_unit_test(test_tested_counts),
		cmocka_unit_test(test_small_change_listed),
	};

	return cmocka_run_group_tests(tests, setup, hbt_rng_teardown);
}
