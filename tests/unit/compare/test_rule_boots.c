/* test_rule_boots.c - compare-report's rule with the boot as the unit
 * (harness/compare/cmp_rule.c, issue 11), on synthetic runs and groups
 * written as real folders (group.json + boot-K/).
 *
 * Regression tests that failed before the boot became the unit (checked
 * against the previous compare-report): one boot per side with thousands
 * of samples (or repetitions) no longer flags an A/A pair; the second
 * instance of a workload listed twice is compared; a metric that vanished
 * or became unavailable is a finding (--strict: a regression); sides that
 * disagree on a metric's `better` are not comparable (exit 3); a dropped
 * sample no longer switches the center from median to mean. Then the
 * rules: Welch on >= 3 boots, symmetric log thresholds, a noisy metric
 * judged like any other (issue 19: the too-noisy exclusion is gone),
 * functional findings over every boot as rates.
 *
 * HB_TEST_FILTER=<glob> runs only the matching tests.
 */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

static int setup(void **state)
{
	(void)state;
	return hbt_rng_setup("boots", 11);
}

/* One boot per side, 16384 samples each (and one with 5 repetitions of
 * 3000): the second boot runs 12 % slower, as boots of one kernel do here.
 * Before: flagged (Mann-Whitney q ~ 1e-300, interval beyond 5 %; in reps
 * mode Welch on 5 repetition medians with a 1 % boot term). Now: advisory. */
static void test_aa_pseudo_replication(void **state)
{
	json_t *root, *cmp;
	int rc;

	(void)state;
	for (int reps = 1; reps <= 5; reps += 4) {
		size_t n = reps == 1 ? 16384 : 15000;
		const char *a = hbt_write_run(reps == 1 ? "pr_a1" : "pr_a5",
					  hbt_doc1("fault", hbt_lat("f", "lower", 1000, 0.3, n, reps)));
		const char *b = hbt_write_run(reps == 1 ? "pr_b1" : "pr_b5",
					  hbt_doc1("fault", hbt_lat("f", "lower", 1120, 0.3, n, reps)));
		json_t *m;

		cmp = hbt_report(a, b, "none", NULL, &rc, &root);
		/* advisory only: nothing tested, not "no regression" (issue 34) */
		assert_int_equal(rc, HB_CMP_NOTHING_TESTED);
		m = hbt_metric_of(cmp, "fault", "f");
		assert_non_null(m);
		assert_string_equal(json_string_value(json_object_get(m, "verdict")), "advisory");
		assert_true(hbt_num(m, "change_pct") > 8);
		/* descriptive only: never adjusted, never a verdict */
		assert_true(isnan(hbt_num(m, "q_worse")));
		json_decref(root);
	}
}

/* full lists fragment twice: the second instance going pass -> fail was
 * not compared (by name, first instance only). */
static void test_workload_listed_twice(void **state)
{
	json_t *root, *cmp;
	int rc;
	const char *a = hbt_write_run("twice_a", hbt_doc("t", "6.12.1", json_pack("[o, o, o]",
		hbt_wl("fragment", "pass", NULL, json_pack("[o]", hbt_chk("huge", true))),
		hbt_wl("other", "fail", NULL, json_pack("[o]", hbt_chk("x", false))),
		hbt_wl("fragment", "pass", NULL, json_pack("[o]", hbt_chk("huge", true)))), "fail"));
	const char *b = hbt_write_run("twice_b", hbt_doc("t", "6.12.1", json_pack("[o, o, o]",
		hbt_wl("fragment", "pass", NULL, json_pack("[o]", hbt_chk("huge", true))),
		hbt_wl("other", "fail", NULL, json_pack("[o]", hbt_chk("x", false))),
		hbt_wl("fragment", "fail", NULL, json_pack("[o]", hbt_chk("huge", false)))), "fail"));

	(void)state;
	cmp = hbt_report(a, b, "none", NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_int_equal(hbt_findings(cmp, "check", "fragment#2", "huge", true), 1);
	assert_int_equal(hbt_findings(cmp, "workload", "fragment#2", NULL, true), 1);
	assert_int_equal(hbt_findings(cmp, "check", "fragment", "huge", true), 0);
	json_decref(root);
}

/* A metric gone from NEW, or newly unavailable, was silently not judged. */
static void test_vanished_metric(void **state)
{
	double x[] = { 10, 11, 12 };
	json_t *root, *cmp, *na = json_pack("{s:s, s:s, s:s, s:s}", "name", "tlb", "unit", "count",
					     "better", "lower", "unavailable", "no PMU");
	const char *a = hbt_write_run("van_a", hbt_doc("t", "6.12.1", json_pack("[o]", hbt_wl("access", "pass",
		json_pack("[o, o, o]", hbt_met("seq", "lower", x, 3, 1), hbt_met("rand", "lower", x, 3, 1),
			  hbt_met("tlb", "lower", x, 3, 1)), NULL)), "pass"));
	const char *b = hbt_write_run("van_b", hbt_doc("t", "6.12.1", json_pack("[o]", hbt_wl("access", "pass",
		json_pack("[o, o]", hbt_met("seq", "lower", x, 3, 1), na), NULL)), "pass"));
	int rc;

	(void)state;
	cmp = hbt_report(a, b, "none", NULL, &rc, &root);
	/* one boot a side, the rest advisory: nothing tested (issue 34) */
	assert_int_equal(rc, HB_CMP_NOTHING_TESTED);
	assert_int_equal(hbt_findings(cmp, "metric", "access", "rand", false), 1);
	assert_int_equal(hbt_findings(cmp, "metric", "access", "tlb", false), 1);
	json_decref(root);
	cmp = hbt_report(a, b, "none", "--strict", &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_int_equal(hbt_findings(cmp, "metric", "access", "rand", true), 1);
	assert_int_equal(hbt_findings(cmp, "metric", "access", "tlb", true), 1);
	json_decref(root);
}

/* BASE says lower is better, NEW higher: the direction was BASE's alone. */
static void test_direction_disagreement(void **state)
{
	double x[] = { 10, 11, 12 };
	const char *a = hbt_write_run("dir_a", hbt_doc1("knobs", hbt_met("cells", "lower", x, 3, 1)));
	const char *b = hbt_write_run("dir_b", hbt_doc1("knobs", hbt_met("cells", "higher", x, 3, 1)));
	char *out;

	(void)state;
	assert_int_equal(hbt_compare(NULL, a, b, NULL), HB_CMP_INCOMPARABLE);
	/* one boot a side: advisory, nothing tested (issue 34) */
	assert_int_equal(hbt_compare(&out, "--force", a, b, NULL), HB_CMP_NOTHING_TESTED);
	assert_non_null(strstr(out, "better=lower in BASE, higher in NEW"));
	free(out);
}

/* 5 repetitions of 32 skewed samples; NEW is the same boot with one sample
 * dropped (a NaN the guest left out). Before: NEW's center fell back to the
 * repetition means (the count was no longer divisible) while BASE used
 * medians: "+13 % REGRESSION" from one missing sample. */
static void test_dropped_sample(void **state)
{
	double x[160];
	json_t *root, *cmp, *m;
	const char *a, *b;
	int rc;

	(void)state;
	for (int i = 0; i < 160; i++)
		x[i] = 1000 * exp(gsl_ran_gaussian(hbt_rng, 0.5));
	a = hbt_write_run("nan_a", hbt_doc1("fault", hbt_met("f", "lower", x, 160, 5)));
	{
		json_t *mm = hbt_met("f", "lower", x, 160, 5);

		json_array_remove(json_object_get(mm, "samples"), 77);
		b = hbt_write_run("nan_b", hbt_doc1("fault", mm));
	}
	cmp = hbt_report(a, b, "none", NULL, &rc, &root);
	/* one boot a side: advisory, nothing tested (issue 34) */
	assert_int_equal(rc, HB_CMP_NOTHING_TESTED);
	m = hbt_metric_of(cmp, "fault", "f");
	assert_true(fabs(hbt_num(m, "change_pct")) < 2);
	json_decref(root);
}

/* The same in groups of 5 boots: one sample missing in one NEW boot leaves
 * the verdict and (almost) the change as they were. */
static void test_dropped_sample_groups(void **state)
{
	json_t *docs[5], *docs2[5], *root, *cmp;
	double x[5][160], c1, c2;
	const char *a, *b, *b2;
	const char *v1, *v2;
	int rc;

	(void)state;
	for (int k = 0; k < 5; k++) {
		for (int i = 0; i < 160; i++)
			x[k][i] = 1000 * exp(gsl_ran_gaussian(hbt_rng, 0.3));
		docs[k] = hbt_doc1("fault", hbt_lat("f", "lower", 1000, 0.3, 160, 5));
	}
	a = hbt_write_group("nang_a", docs, 5);
	for (int k = 0; k < 5; k++) {
		json_t *mm = hbt_met("f", "lower", x[k], 160, 5);

		docs[k] = hbt_doc1("fault", mm);
		docs2[k] = json_deep_copy(docs[k]);
	}
	b = hbt_write_group("nang_b", docs, 5);
	json_array_remove(json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(docs2[2], "workloads"), 0), "metrics"), 0), "samples"), 5);
	b2 = hbt_write_group("nang_b2", docs2, 5);
	cmp = hbt_report(a, b, "none", NULL, &rc, &root);
	v1 = strdup(hbt_verdict_of(cmp, "fault", "f"));
	c1 = hbt_num(hbt_metric_of(cmp, "fault", "f"), "change_pct");
	json_decref(root);
	cmp = hbt_report(a, b2, "none", NULL, &rc, &root);
	v2 = hbt_verdict_of(cmp, "fault", "f");
	c2 = hbt_num(hbt_metric_of(cmp, "fault", "f"), "change_pct");
	assert_string_equal(v1, v2);
	assert_true(fabs(c1 - c2) < 1);
	free((char *)v1);
	json_decref(root);
}

/* >= 3 boots per side: a 20 % shift is found; the same groups A/A are not. */
static void test_welch_on_boots(void **state)
{
	const char *a = hbt_boots("w_a", 5, "lower", 1000, 0.01, 1, "6.12.1");
	const char *b = hbt_boots("w_b", 5, "lower", 1000, 0.01, 1.2, "6.12.1");
	json_t *root, *cmp, *m;
	int rc;

	(void)state;
	cmp = hbt_report(a, b, "none", NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	m = hbt_metric_of(cmp, "fault", "f");
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "regression");
	assert_string_equal(json_string_value(json_object_get(m, "test")), "welch(log boot centers)");
	assert_int_equal(json_array_size(json_object_get(m, "base_centers")), 5);
	json_decref(root);
}

/* Symmetric on the log scale: 1/1.05 (-4.76 %) is the threshold of a
 * higher-is-better metric, +5 % of a lower-is-better one. */
static void test_symmetric_threshold(void **state)
{
	static const struct {
		const char *name, *better;
		double factor;
	} side[] = { { "sym_h0", "higher", 1 }, { "sym_h1", "higher", 0.951 },
		     { "sym_l0", "lower", 1 }, { "sym_l1", "lower", 1.049 } };
	const char *g[4];
	json_t *root, *cmp;
	int rc;

	(void)state;
	hbt_within = 0.001;
	for (int i = 0; i < 4; i++)
		g[i] = hbt_boots(side[i].name, 6, side[i].better, 1000, 0.001, side[i].factor,
				 "6.12.1");
	hbt_within = 0.05;
	/* -4.9 %: beyond log(1.05) in the worse direction (was: 4.9 < 5, same) */
	cmp = hbt_report(g[0], g[1], "none", NULL, &rc, &root);
	assert_string_equal(hbt_verdict_of(cmp, "fault", "f"), "regression");
	json_decref(root);
	/* +4.9 %: short of it; certain, so listed as "small" (issue 34) */
	cmp = hbt_report(g[2], g[3], "none", NULL, &rc, &root);
	assert_string_equal(hbt_verdict_of(cmp, "fault", "f"), "small");
	json_decref(root);
}

/* No metric is excluded from judgement by its noise (issue 19). Before,
 * a metric with a boot sd of 30 % was "too noisy" and a 20x change was
 * only a note (exit 0, q ~ 1e-7): now the noise only sets how large a
 * change must be to reach q <= alpha. A/A stays quiet; 20x is a regression;
 * tripled at 3 and at 5 boots a side too. */
static void test_noisy_metric_judged(void **state)
{
	static const char *const names[] = { "nz_a", "nz_b", "nz_c" };
	const char *g[3];
	json_t *root, *cmp, *m;
	int rc;

	(void)state;
	for (int i = 0; i < 3; i++) /* c: 20 times a and b */
		g[i] = hbt_boots(names[i], 4, "lower", 1000, 0.3, i == 2 ? 20 : 1, "6.12.1");
	cmp = hbt_report(g[0], g[1], "none", NULL, &rc, &root);
	m = hbt_metric_of(cmp, "fault", "f");
	assert_int_equal(rc, HB_CMP_OK);
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "same");
	/* one metric, BH family of 1: detectable at alpha, 80 % power */
	assert_true(hbt_num(m, "detectable_pct") > 5);
	assert_int_equal(json_integer_value(json_object_get(cmp, "bh_family")), 1);
	assert_string_equal(json_string_value(json_object_get(m, "boot_sd_source")), "measured");
	json_decref(root);
	cmp = hbt_report(g[0], g[2], "none", NULL, &rc, &root);
	m = hbt_metric_of(cmp, "fault", "f");
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "regression");
	assert_int_equal(hbt_findings(cmp, "metric", "fault", "f", true), 1);
	json_decref(root);
	/* tripled, boot sd 10 %, 3 and 5 boots a side (the example) */
	for (int n = 3; n <= 5; n += 2) {
		char na[16], nb[16];
		const char *a, *b;

		snprintf(na, sizeof(na), "x3a%d", n);
		snprintf(nb, sizeof(nb), "x3b%d", n);
		a = hbt_boots(na, n, "lower", 1000, 0.1, 1, "6.12.1");
		b = hbt_boots(nb, n, "lower", 1000, 0.1, 3, "6.12.1");
		cmp = hbt_report(a, b, "none", NULL, &rc, &root);
		assert_int_equal(rc, HB_CMP_REGRESSION);
		assert_string_equal(hbt_verdict_of(cmp, "fault", "f"), "regression");
		json_decref(root);
	}
}

/* Over every boot: with 4 boots a side, a check failing in one NEW boot
 * that passed in every BASE boot is flaky, not a regression (the rate rule:
 * it was an alarm in 20-24 % of A/A comparisons of a 10 %-flaky check);
 * failing in every NEW boot is; one failing in a BASE boot too is flaky. */
static void test_functional_over_boots(void **state)
{
	json_t *da[4], *db[4], *dc[4], *dd[4], *root, *cmp;
	const char *a, *b, *c, *d;
	int rc;

	(void)state;
	for (int k = 0; k < 4; k++) {
		da[k] = hbt_doc("t", "6.12.1", json_pack("[o]", hbt_wl("fault", "pass", NULL,
			json_pack("[o]", hbt_chk("pmd", k != 2)))), "pass");
		db[k] = hbt_doc("t", "6.12.1", json_pack("[o]", hbt_wl("fault", "pass", NULL,
			json_pack("[o]", hbt_chk("pmd", k != 1)))), "pass");
		dc[k] = hbt_doc("t", "6.12.1", json_pack("[o]", hbt_wl("fault", "pass", NULL,
			json_pack("[o]", hbt_chk("pmd", true)))), "pass");
		dd[k] = hbt_doc("t", "6.12.1", json_pack("[o]", hbt_wl("fault", "pass", NULL,
			json_pack("[o]", hbt_chk("pmd", false)))), "pass");
	}
	a = hbt_write_group("fn_a", da, 4); /* fails in boot 3 */
	b = hbt_write_group("fn_b", db, 4); /* fails in boot 2 */
	c = hbt_write_group("fn_c", dc, 4); /* never fails */
	d = hbt_write_group("fn_d", dd, 4); /* always fails */
	cmp = hbt_report(c, b, "none", NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_OK);
	assert_int_equal(hbt_findings(cmp, "check", "fault", "pmd", false), 1);
	assert_string_equal(json_string_value(json_object_get(cmp, "functional_rule")), "rates");
	json_decref(root);
	cmp = hbt_report(c, d, "none", NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_int_equal(hbt_findings(cmp, "check", "fault", "pmd", true), 1);
	json_decref(root);
	cmp = hbt_report(a, b, "none", NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_OK);
	assert_int_equal(hbt_findings(cmp, "check", "fault", "pmd", false), 1);
	json_decref(root);
}

/* The boot center on the virtual clock is the mean, on the wall clock the
 * median. Virtual-clock faults split between k and k + 1 timer ticks
 * (minimal-6.1, HZ 250: 17.2 or 17.4 ms a huge fault); a delay that moves
 * one fault across the split moved the median by half a tick on top of the
 * delay: a 1 % injection measured +0.84 % (docs/compare.md). Here BASE has
 * 4 of 8 faults with the extra tick, NEW (delay d) has 5: the mean moves by
 * d + T/8, the median by d + T/2. */
static void test_virtual_clock_center_is_mean(void **state)
{
	const double W = 17230000, T = 170000, d = 173000;
	static const char *const clk[] = { "virtual", "wall" };

	(void)state;
	for (int c = 0; c < 2; c++) {
		json_t *da[3], *db[3], *root, *cmp, *m;
		double xa[8], xb[8], ma = 0, mb = 0;
		char na[32], nb[32];
		int rc;

		for (int i = 0; i < 8; i++) {
			xa[i] = W + (i < 4 ? T : 0);
			xb[i] = W + d + (i < 5 ? T : 0);
			ma += xa[i] / 8;
			mb += xb[i] / 8;
		}
		for (int k = 0; k < 3; k++) {
			da[k] = hbt_doc1("fault", hbt_met("f", "lower", xa, 8, 1));
			db[k] = hbt_doc1("fault", hbt_met("f", "lower", xb, 8, 1));
			json_object_set_new(json_object_get(da[k], "environment"), "clock",
					    json_string(clk[c]));
			json_object_set_new(json_object_get(db[k], "environment"), "clock",
					    json_string(clk[c]));
		}
		snprintf(na, sizeof(na), "tick_a_%s", clk[c]);
		snprintf(nb, sizeof(nb), "tick_b_%s", clk[c]);
		cmp = hbt_report(hbt_write_group(na, da, 3), hbt_write_group(nb, db, 3), "none", NULL,
				 &rc, &root);
		/* +1.1 % passes the virtual clock's minimum effect, not the wall's */
		assert_int_equal(rc, c == 0 ? HB_CMP_REGRESSION : HB_CMP_OK);
		m = hbt_metric_of(cmp, "fault", "f");
		assert_non_null(m);
		if (c == 0) {
			assert_true(fabs(json_number_value(json_array_get(
				json_object_get(m, "base_centers"), 0)) - ma) < 1e-6);
			assert_true(fabs(hbt_num(m, "change_pct") - (mb / ma - 1) * 100) < 1e-6);
		} else {
			/* medians: (W + W + T) / 2 and W + d + T */
			assert_true(fabs(json_number_value(json_array_get(
				json_object_get(m, "base_centers"), 0)) - (W + T / 2)) < 1e-6);
			assert_true(fabs(hbt_num(m, "change_pct") -
					 ((W + d + T) / (W + T / 2) - 1) * 100) < 1e-6);
		}
		json_decref(root);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_pseudo_replication),
		cmocka_unit_test(test_workload_listed_twice),
		cmocka_unit_test(test_vanished_metric),
		cmocka_unit_test(test_direction_disagreement),
		cmocka_unit_test(test_dropped_sample),
		cmocka_unit_test(test_dropped_sample_groups),
		cmocka_unit_test(test_welch_on_boots),
		cmocka_unit_test(test_symmetric_threshold),
		cmocka_unit_test(test_noisy_metric_judged),
		cmocka_unit_test(test_functional_over_boots),
		cmocka_unit_test(test_virtual_clock_center_is_mean),
	};

	if (getenv("HB_TEST_FILTER"))
		cmocka_set_test_filter(getenv("HB_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, hbt_rng_teardown);
}
