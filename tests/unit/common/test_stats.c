/* test_stats.c - harness/common/stats.c against values computed with R 4.2.2.
 *
 * Each expected value is R's output (t.test, wilcox.test, p.adjust,
 * quantile) for the same data, hard-coded with a tolerance, plus the
 * bootstrap's determinism and coverage.
 */
#define _GNU_SOURCE
#include "helpers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "sysinfo.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define assert_near(a, b, tol) \
	assert_true(fabs((double)(a) - (double)(b)) <= (tol) * fmax(1, fabs((double)(b))))

static const double wx[] = { 10.1, 9.8, 10.4, 10.0, 9.7, 10.3 };
static const double wy[] = { 10.9, 11.2, 10.6, 11.5, 10.8 };

static void test_quantiles(void **state)
{
	static const double x[] = { 3, 1, 4, 1, 5, 9, 2, 6 };
	struct hb_stats_desc d;

	(void)state;
	/* quantile(x, c(.5, .9, .99)) = 3.50 6.90 8.79 */
	assert_near(hb_stats_median(x, NELEM(x)), 3.5, 1e-12);
	hb_stats_describe(x, NELEM(x), &d);
	assert_int_equal(d.n, 8);
	assert_near(d.p50, 3.5, 1e-12);
	assert_near(d.p90, 6.9, 1e-12);
	assert_near(d.p99, 8.79, 1e-12);
	assert_near(d.mean, 3.875, 1e-12);
	assert_near(d.min, 1, 0);
	assert_near(d.max, 9, 0);
	assert_near(d.cov, d.sd / 3.875, 1e-12);
	hb_stats_describe(x, 0, &d);
	assert_true(isnan(d.mean) && isnan(d.p50));
}

static void test_welch(void **state)
{
	struct hb_stats_test t;
	double lo, hi;

	(void)state;
	/* t.test(y, x): t = 4.90577890519606, df = 7.5, p = 0.00142837670502835 */
	assert_int_equal(hb_stats_welch(wx, NELEM(wx), wy, NELEM(wy), HB_STATS_TWO_SIDED, &t), 0);
	assert_near(t.stat, 4.90577890519606, 1e-10);
	assert_near(t.df, 7.5, 1e-10);
	assert_near(t.p, 0.00142837670502835, 1e-8);
	hb_stats_welch(wx, NELEM(wx), wy, NELEM(wy), HB_STATS_GREATER, &t);
	assert_near(t.p, 0.000714188352514176, 1e-8);
	hb_stats_welch(wx, NELEM(wx), wy, NELEM(wy), HB_STATS_LESS, &t);
	assert_near(t.p, 0.999285811647486, 1e-8);
	/* conf.int = 0.498208818955499 1.40179118104450 */
	assert_int_equal(hb_stats_welch_ci(wx, NELEM(wx), wy, NELEM(wy), 0.95, &lo, &hi), 0);
	assert_near(lo, 0.498208818955499, 1e-8);
	assert_near(hi, 1.40179118104450, 1e-8);
	/* qt(0.975, 4.3) */
	assert_near(hb_stats_t_quantile(0.975, 4.3), 2.70169489828223, 1e-8);
}

static void test_welch_extra_variance(void **state)
{
	struct hb_stats_test t0, t1;
	double lo0, hi0, lo1, hi1;

	(void)state;
	hb_stats_welch_ev(wx, NELEM(wx), wy, NELEM(wy), 0, HB_STATS_GREATER, &t0);
	assert_near(t0.p, 0.000714188352514176, 1e-8); /* ev = 0 is plain Welch */
	hb_stats_welch_ev(wx, NELEM(wx), wy, NELEM(wy), 0.05, HB_STATS_GREATER, &t1);
	assert_true(t1.p > t0.p && t1.stat < t0.stat);
	assert_true(t1.df <= (double)(NELEM(wx) + NELEM(wy) - 2));
	hb_stats_welch_ev_ci(wx, NELEM(wx), wy, NELEM(wy), 0, 0.95, &lo0, &hi0);
	hb_stats_welch_ev_ci(wx, NELEM(wx), wy, NELEM(wy), 0.05, 0.95, &lo1, &hi1);
	assert_true(lo1 < lo0 && hi1 > hi0);
}

static void test_welch_degenerate(void **state)
{
	static const double c1[] = { 5, 5, 5 }, c2[] = { 6, 6, 6 };
	struct hb_stats_test t;

	(void)state;
	hb_stats_welch(c1, 3, c1, 3, HB_STATS_TWO_SIDED, &t);
	assert_near(t.p, 1, 0);
	hb_stats_welch(c1, 3, c2, 3, HB_STATS_GREATER, &t);
	assert_near(t.p, 0, 0);
	hb_stats_welch(c1, 3, c2, 3, HB_STATS_LESS, &t);
	assert_near(t.p, 1, 0);
	assert_int_equal(hb_stats_welch(c1, 1, c2, 3, HB_STATS_LESS, &t), -1);
	assert_true(isnan(t.p));
}

/* hb_stats_mann_whitney(x, y) against R: the p-value within tol and, where
 * exact is 0 or 1, whether it is exact and the statistic W. */
static void expect_mw(const double *x, size_t nx, const double *y, size_t ny,
		      enum hb_stats_alt alt, int exact, double w, double p, double tol)
{
	struct hb_stats_test t;

	hb_stats_mann_whitney(x, nx, y, ny, alt, &t);
	if (exact >= 0) {
		assert_int_equal(t.exact, exact);
		assert_near(t.stat, w, 0);
	}
	assert_near(t.p, p, tol);
}

static void test_mann_whitney_exact(void **state)
{
	(void)state;
	/* wilcox.test(y, x): W = 30, p = 0.00432900432900433 (exact) */
	expect_mw(wx, NELEM(wx), wy, NELEM(wy), HB_STATS_TWO_SIDED, 1, 30, 0.00432900432900433,
		  1e-10);
	expect_mw(wx, NELEM(wx), wy, NELEM(wy), HB_STATS_GREATER, -1, 0, 0.00216450216450216, 1e-10);
	expect_mw(wx, NELEM(wx), wy, NELEM(wy), HB_STATS_LESS, -1, 0, 1, 1e-10);
}

static void test_mann_whitney_ties(void **state)
{
	static const double a[] = { 1, 2, 2, 3, 4, 5, 5, 5, 6, 7 };
	static const double b[] = { 3, 4, 4, 5, 6, 7, 8, 8, 9 };

	(void)state;
	/* wilcox.test(b, a): W = 67, p = 0.0766801776517502 (normal, ties, correct) */
	expect_mw(a, NELEM(a), b, NELEM(b), HB_STATS_TWO_SIDED, 0, 67, 0.0766801776517502, 1e-9);
	expect_mw(a, NELEM(a), b, NELEM(b), HB_STATS_LESS, -1, 0, 0.968031626997882, 1e-9);
}

/* set.seed(1); u <- round(rnorm(60, 100, 10), 3); v <- round(rnorm(70, 104, 10), 3)
 * (tests/unit/data/r_rnorm_u_v.txt, read by setup()) */
static double ru[60], rv[70];

static int setup(void **state)
{
	char *text = hb_slurp(hbt_data("r_rnorm_u_v.txt"), NULL), *save = NULL;
	size_t nu = 0, nv = 0;

	(void)state;
	if (!text)
		return -1;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		double *to = *l == 'u' ? ru : *l == 'v' ? rv : NULL;
		size_t *n = *l == 'u' ? &nu : &nv, max = *l == 'u' ? NELEM(ru) : NELEM(rv);
		char *end;

		for (l++; to; l = end) {
			double x = strtod(l, &end);

			if (end == l)
				break;
			if (*n < max)
				to[*n] = x;
			++*n;
		}
	}
	free(text);
	return nu == NELEM(ru) && nv == NELEM(rv) ? 0 : -1;
}

static void test_mann_whitney_large(void **state)
{
	(void)state;
	/* wilcox.test(v, u): W = 2530, p = 0.044874696487171 */
	expect_mw(ru, NELEM(ru), rv, NELEM(rv), HB_STATS_TWO_SIDED, 0, 2530, 0.044874696487171, 1e-9);
}

static void test_bh(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005, 0.2, 0.5, NAN, 0.049 };
	const double want[] = { 0.035, 0.0686, 0.0686, 0.035, 0.233333333333333, 0.5, NAN,
				0.0686 };
	double q[NELEM(p)];

	(void)state;
	hb_stats_bh(p, NELEM(p), q);
	for (size_t i = 0; i < NELEM(p); i++) {
		if (isnan(want[i]))
			assert_true(isnan(q[i]));
		else
			assert_near(q[i], want[i], 1e-12);
	}
}

static void test_bootstrap(void **state)
{
	double lo1, hi1, lo2, hi2, lo3, hi3, y[NELEM(ru)];

	(void)state;
	for (size_t i = 0; i < NELEM(ru); i++)
		y[i] = ru[i] * 1.2;
	/* y is exactly 1.2 x: every resample pair is not identical, but the
	 * median ratio of the full samples is 1.2 and must be inside. */
	assert_int_equal(hb_stats_bootstrap_ratio(ru, NELEM(ru), y, NELEM(ru), HB_STATS_MEDIAN,
						  2000, 0.95, 42, 0, &lo1, &hi1), 0);
	assert_true(lo1 < 1.2 && hi1 > 1.2 && lo1 > 1.05 && hi1 < 1.35);
	/* deterministic for a seed, different for another */
	hb_stats_bootstrap_ratio(ru, NELEM(ru), y, NELEM(ru), HB_STATS_MEDIAN, 2000, 0.95, 42, 0,
				 &lo2, &hi2);
	assert_true(lo1 == lo2 && hi1 == hi2);
	hb_stats_bootstrap_ratio(ru, NELEM(ru), y, NELEM(ru), HB_STATS_MEDIAN, 2000, 0.95, 43, 0,
				 &lo3, &hi3);
	assert_true(lo1 != lo3 || hi1 != hi3);
	/* a wider level gives a wider interval; means work too */
	hb_stats_bootstrap_ratio(ru, NELEM(ru), y, NELEM(ru), HB_STATS_MEDIAN, 2000, 0.99, 42, 0,
				 &lo2, &hi2);
	assert_true(lo2 <= lo1 && hi2 >= hi1);
	hb_stats_bootstrap_ratio(ru, NELEM(ru), rv, NELEM(rv), HB_STATS_MEAN, 1000, 0.95, 7, 0,
				 &lo2, &hi2);
	assert_true(lo2 > 1.0 && lo2 < 1.04 && hi2 > 1.04 && hi2 < 1.1);
	/* thinning keeps the answer close */
	hb_stats_bootstrap_ratio(ru, NELEM(ru), y, NELEM(ru), HB_STATS_MEDIAN, 2000, 0.95, 42, 30,
				 &lo3, &hi3);
	assert_true(lo3 < 1.2 && hi3 > 1.2);
	assert_int_equal(hb_stats_bootstrap_ratio(ru, 0, y, 3, HB_STATS_MEDIAN, 10, 0.9, 1, 0,
						  &lo3, &hi3), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_welch_extra_variance),
		cmocka_unit_test(test_welch_degenerate),
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_mann_whitney_ties),
		cmocka_unit_test(test_mann_whitney_large),
		cmocka_unit_test(test_bh),
		cmocka_unit_test(test_bootstrap),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
