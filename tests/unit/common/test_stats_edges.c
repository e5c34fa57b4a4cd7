/* test_stats_edges.c - harness/common/stats.c on hostile numbers (issue 9):
 * GSL must never abort (its default handler did on NaN and inf), overflow
 * and denormals are handled, the bootstrap takes centers of 0 and negative
 * centers. The values against R are in test_stats.c. */
#define _GNU_SOURCE
#include "helpers.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* hb_stats_quantile finds its two order statistics by selection (issue 38:
 * a sort a call took seconds on 10 million samples): bit for bit what GSL
 * gives on the sorted data, for every size 1-200 and quantile, with ties
 * and without, and the input left as it was. */
static void test_quantile_selection_is_gsl(void **state)
{
	static const double qs[] = { 0, 0.01, 0.25, 0.5, 0.9, 0.99, 1 };
	double x[200], keep[200], s[200];
	unsigned int seed = 7;

	(void)state;
	for (size_t n = 1; n <= 200; n++)
		for (int ties = 0; ties < 2; ties++) {
			for (size_t i = 0; i < n; i++)
				x[i] = ties ? (double)(rand_r(&seed) % 5)
					    : (double)rand_r(&seed) / 3.7 - 1e8;
			memcpy(keep, x, n * sizeof(*x));
			memcpy(s, x, n * sizeof(*x));
			gsl_sort(s, 1, n);
			for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
				double want = gsl_stats_quantile_from_sorted_data(s, 1, n, qs[k]);
				double got = hb_stats_quantile(x, n, qs[k]);

				if (memcmp(&want, &got, sizeof(got)))
					fail_msg("n=%zu q=%g ties=%d: %.17g, GSL %.17g", n, qs[k],
						 ties, got, want);
			}
			assert_memory_equal(x, keep, n * sizeof(*x));
		}
	assert_true(isnan(hb_stats_quantile(x, 0, 0.5)));
}

static void test_welch_huge_no_abort(void **state)
{
	static const double x[] = { 1e100, -1e100, 2e100 }, y[] = { 1e100, -1e100, 3e100 };
	static const double m[] = { 1.7e308, -1.7e308, 1.79e308 };
	struct hb_stats_test t;
	double lo, hi;

	(void)state;
	/* variance 1e200 squares to inf in Welch-Satterthwaite: df was NaN and
	 * gsl_cdf_tdist_Q aborted the process */
	assert_int_equal(hb_stats_welch(x, 3, y, 3, HB_STATS_GREATER, &t), 0);
	assert_true(isfinite(t.df) && t.df > 0);
	assert_true(t.p > 0.2 && t.p < 0.8);
	assert_int_equal(hb_stats_welch_ci(x, 3, y, 3, 0.95, &lo, &hi), 0);
	assert_true(lo < 0 && hi > 0 && isfinite(lo) && isfinite(hi));
	assert_int_equal(hb_stats_welch(m, 3, m, 3, HB_STATS_TWO_SIDED, &t), 0);
	assert_true(t.p == 1 || (t.p > 0.99 && t.p <= 1));
	/* the same data scaled down: identical t and df */
	{
		double xs[3], ys[3];
		struct hb_stats_test t2;

		for (int i = 0; i < 3; i++) {
			xs[i] = x[i] * 1e-100;
			ys[i] = y[i] * 1e-100;
		}
		hb_stats_welch(x, 3, y, 3, HB_STATS_GREATER, &t);
		hb_stats_welch(xs, 3, ys, 3, HB_STATS_GREATER, &t2);
		assert_true(fabs(t.stat - t2.stat) < 1e-9 && fabs(t.df - t2.df) < 1e-9);
	}
}

static void test_stats_bad_arguments(void **state)
{
	static const double x[] = { 1, 2, INFINITY }, y[] = { 1, NAN, 3 }, z[] = { 1, 2, 3 };
	struct hb_stats_test t;
	double lo, hi;

	(void)state;
	/* GSL's default handler aborted on each of these */
	assert_true(isnan(hb_stats_t_quantile(0.975, NAN)));
	assert_true(isnan(hb_stats_t_quantile(0.975, -1)));
	assert_true(isnan(hb_stats_t_quantile(2, 3)));
	assert_int_equal(hb_stats_welch(x, 3, z, 3, HB_STATS_LESS, &t), -1);
	assert_true(isnan(t.p));
	assert_int_equal(hb_stats_welch(z, 3, y, 3, HB_STATS_LESS, &t), -1);
	assert_true(isnan(t.p));
	assert_int_equal(hb_stats_welch_ci(z, 3, y, 3, 0.95, &lo, &hi), -1);
	assert_true(isnan(lo) && isnan(hi));
	assert_int_equal(hb_stats_mann_whitney(z, 3, y, 3, HB_STATS_LESS, &t), -1);
	assert_true(isnan(t.p));
}

static void test_describe_extremes(void **state)
{
	static const double m[] = { 1.7e308, -1.7e308, 1.79e308 };
	static const double big[] = { 1.7e308, 1.75e308, 1.79e308 };
	static const double den[] = { 5e-324, 1e-323, 1.5e-323 };
	struct hb_stats_desc d;

	(void)state;
	/* GSL's running mean overflowed to -inf on the first step */
	hb_stats_describe(m, 3, &d);
	assert_true(fabs(d.mean / 0.5966666666666667e308 - 1) < 1e-12);
	assert_true(!isnan(d.sd) && d.sd > 1e308); /* 1.99e308: may be inf */
	hb_stats_describe(big, 3, &d);
	assert_true(fabs(d.mean / 1.7466666666666667e308 - 1) < 1e-12);
	assert_true(d.p50 == 1.75e308);
	hb_stats_describe(den, 3, &d);
	assert_true(d.mean == 1e-323 && d.sd == 5e-324);
}

static void test_welch_denormals(void **state)
{
	static const double z[] = { 0, 0, 0 }, d[] = { 1e-320, 1.1e-320, 0.9e-320 };
	struct hb_stats_test t;

	(void)state;
	/* the variance of denormals underflowed to 0: "both constant", p = 0 */
	assert_int_equal(hb_stats_welch(z, 3, d, 3, HB_STATS_GREATER, &t), 0);
	assert_true(isfinite(t.stat) && t.stat > 5 && t.stat < 50);
	assert_true(t.p > 0 && t.p < 0.01);
}

static void test_bootstrap_zero_and_negative_centers(void **state)
{
	static const double z[] = { 0, 0, 0, 0, 0, 0, 0, 0 }, o[] = { 1, 1, 2, 1, 1, 3, 1, 1 };
	static const double n10[] = { -10, -10.2, -9.8, -10.1, -9.9, -10, -10.3, -9.7 };
	double n20[8], lo, hi;

	(void)state;
	/* a center of 0 returned -1: no interval, so 0 -> 1 was never judged */
	assert_int_equal(hb_stats_bootstrap_ratio(z, 8, o, 8, HB_STATS_MEDIAN, 500, 0.99, 1, 0,
						  &lo, &hi), 0);
	assert_true(lo == INFINITY && hi == INFINITY);
	/* negative centers: the relative change keeps its direction
	 * (-10 -> -20 is 100% lower: 1 + (-20 - -10) / |-10| = 0) */
	for (int i = 0; i < 8; i++)
		n20[i] = 2 * n10[i];
	assert_int_equal(hb_stats_bootstrap_ratio(n10, 8, n20, 8, HB_STATS_MEDIAN, 500, 0.99, 1, 0,
						  &lo, &hi), 0);
	assert_true(lo < 0.1 && hi > -0.1 && hi < 0.2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_welch_huge_no_abort),
		cmocka_unit_test(test_quantile_selection_is_gsl),
		cmocka_unit_test(test_stats_bad_arguments),
		cmocka_unit_test(test_describe_extremes),
		cmocka_unit_test(test_welch_denormals),
		cmocka_unit_test(test_bootstrap_zero_and_negative_centers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
