/* test_stats.c - harness/common/stats.c against values computed with R 4.2.2.
 *
 * Each expected value is R's output (t.test, wilcox.test, p.adjust,
 * quantile) for the same data, hard-coded with a tolerance, plus the
 * bootstrap's determinism and coverage. Fisher's exact test and the
 * F-test are checked against exact fractions and mpmath (no R here).
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

/* Identical values (a virtual-clock guest repeats a boot to the
 * nanosecond): a variance of exactly 0 and the value itself as the mean,
 * not a rounding residue that made a constant side "vary" (0.1 summed
 * three times and divided by 3 is not 0.1). Constant and equal: p = 1;
 * constant and different: certain. */
static void test_constant_exact(void **state)
{
	static const double k[] = { 0.1, 0.1, 0.1 }, k2[] = { 0.1000001, 0.1000001, 0.1000001 };
	double l[3];
	struct hb_stats_test t;

	(void)state;
	for (int i = 0; i < 3; i++)
		l[i] = log(131.0);
	assert_true(hb_stats_sd(k, 3) == 0);
	assert_true(hb_stats_mean(k, 3) == 0.1);
	assert_true(hb_stats_sd(l, 3) == 0);
	hb_stats_welch(k, 3, k, 3, HB_STATS_GREATER, &t);
	assert_near(t.p, 1, 0);
	hb_stats_welch(k, 3, k2, 3, HB_STATS_GREATER, &t);
	assert_near(t.p, 0, 0);
	hb_stats_welch(k, 3, k2, 3, HB_STATS_LESS, &t);
	assert_near(t.p, 1, 0);
}

/* fisher.test(matrix(c(ky, ny - ky, kx, nx - kx), 2), alternative =
 * "greater")$p.value, here as exact fractions: 1/C(6,3), 1/C(10,5),
 * 6/252, 6/252, and the tail sums. */
static void test_fisher(void **state)
{
	(void)state;
	assert_near(hb_stats_fisher_greater(0, 3, 3, 3), 0.05, 1e-12);
	assert_near(hb_stats_fisher_greater(0, 5, 5, 5), 0.003968253968253968, 1e-12);
	assert_near(hb_stats_fisher_greater(0, 5, 4, 5), 0.023809523809523808, 1e-12);
	assert_near(hb_stats_fisher_greater(1, 5, 5, 5), 0.023809523809523808, 1e-12);
	assert_near(hb_stats_fisher_greater(0, 10, 6, 10), 0.005417956656346749, 1e-12);
	assert_near(hb_stats_fisher_greater(2, 10, 7, 10), 0.03488925934746368, 1e-12);
	assert_near(hb_stats_fisher_greater(5, 20, 15, 20), 0.0019237636541887641, 1e-10);
	assert_near(hb_stats_fisher_greater(1, 3, 2, 3), 0.5, 1e-12);
	assert_near(hb_stats_fisher_greater(0, 3, 1, 3), 0.5, 1e-12);
	/* no event in y, or fewer than x: nothing to test */
	assert_near(hb_stats_fisher_greater(3, 3, 0, 3), 1, 0);
	assert_near(hb_stats_fisher_greater(3, 3, 3, 3), 1, 1e-12);
	assert_near(hb_stats_fisher_greater(0, 0, 3, 3), 1, 0);
	assert_true(isnan(hb_stats_fisher_greater(4, 3, 0, 3)));
}

/* var.test's p-value, 2 min(pf(F, df1, df2), 1 - pf(F, df1, df2)), here
 * from the regularized incomplete beta (mpmath 1.3.0). */
static void test_var_ratio(void **state)
{
	(void)state;
	assert_near(hb_stats_var_ratio_p(0.25, 4, 9), 0.19494977563226792, 1e-8);
	assert_near(hb_stats_var_ratio_p(9.0, 4, 9), 0.006582984125759417, 1e-8);
	assert_near(hb_stats_var_ratio_p(1.0, 4, 9), 0.9115794879820969, 1e-8);
	assert_near(hb_stats_var_ratio_p(0.05, 8, 9), 0.0002921115977218942, 1e-8);
	assert_near(hb_stats_var_ratio_p(3.3, 2, 20), 0.11548181101899102, 1e-8);
	assert_near(hb_stats_var_ratio_p(0, 4, 9), 0, 0);
	assert_near(hb_stats_var_ratio_p(INFINITY, 4, 9), 0, 0);
	assert_true(isnan(hb_stats_var_ratio_p(-1, 4, 9)));
	assert_true(isnan(hb_stats_var_ratio_p(1, 0, 9)));
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
		cmocka_unit_test(test_constant_exact),
		cmocka_unit_test(test_fisher),
		cmocka_unit_test(test_var_ratio),
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_mann_whitney_ties),
		cmocka_unit_test(test_mann_whitney_large),
		cmocka_unit_test(test_bh),
		cmocka_unit_test(test_bootstrap),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
