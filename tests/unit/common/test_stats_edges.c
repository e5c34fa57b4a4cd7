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

/* What hb_stats_sort, hb_stats_describe_sorted and
 * hb_stats_mann_whitney_sorted replaced (issue 38), kept here as the
 * reference: glibc's qsort with a numeric comparison, and Mann-Whitney's
 * ranks from a sort of the pooled, tagged values. */
static int ref_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct ref_tagged {
	double v;
	int y;
};

static int ref_cmp_tagged(const void *a, const void *b)
{
	const struct ref_tagged *p = a, *q = b;

	return (p->v > q->v) - (p->v < q->v);
}

/* U and the tie sum as the pooled sort gave them. */
static void ref_mw_sums(const double *x, size_t nx, const double *y, size_t ny, double *u,
			double *ties)
{
	size_t n = nx + ny, i, j;
	struct ref_tagged *a = malloc(n * sizeof(*a));
	double ranksum = 0;

	assert_non_null(a);
	*ties = 0;
	for (i = 0; i < nx; i++)
		a[i] = (struct ref_tagged){ x[i], 0 };
	for (i = 0; i < ny; i++)
		a[nx + i] = (struct ref_tagged){ y[i], 1 };
	qsort(a, n, sizeof(*a), ref_cmp_tagged);
	for (i = 0; i < n; i = j) {
		double t, rank;

		for (j = i + 1; j < n && a[j].v == a[i].v; j++)
			;
		t = (double)(j - i);
		rank = ((double)i + 1 + (double)j) / 2;
		for (size_t k = i; k < j; k++)
			if (a[k].y)
				ranksum += rank;
		*ties += t * t * t - t;
	}
	free(a);
	*u = ranksum - (double)ny * ((double)ny + 1) / 2;
}

/* Data of kind k: 0 distinct, 1 few values (ties), 2 -0 and +0 mixed with
 * negatives, 3 extremes (denormals, +-inf, +-DBL_MAX), 4 latencies rounded
 * to 0.1 (the samples of a result.json). */
static void fill(double *x, size_t n, int kind, unsigned int *seed)
{
	static const double ext[] = { 4.9e-324, -4.9e-324, 2.2e-308, INFINITY, -INFINITY,
				      1.7976931348623157e308, -1.7976931348623157e308, 0.0, -0.0,
				      1, -1 };

	for (size_t i = 0; i < n; i++) {
		double r = (double)rand_r(seed) / RAND_MAX;

		switch (kind) {
		case 0:
			x[i] = (r - 0.5) * 1e6;
			break;
		case 1:
			x[i] = (double)(rand_r(seed) % 7) - 3;
			break;
		case 2:
			x[i] = rand_r(seed) % 3 ? (rand_r(seed) % 2 ? -0.0 : 0.0) : -r;
			break;
		case 3:
			x[i] = ext[rand_r(seed) % (sizeof(ext) / sizeof(ext[0]))] * (r + 0.5);
			break;
		default:
			x[i] = round(1000 * exp(r - 0.5) * 10) / 10;
		}
	}
}

/* hb_stats_sort is qsort's order bit for bit (the radix sort from 512
 * values on, the signs of zeros in their input order), and describe and
 * Mann-Whitney from sorted sides are what they were from a pooled sort:
 * every field, every bit. Sizes around the radix threshold and up to
 * 100 000, five kinds of data. */
static void test_sorted_paths_bit_identical(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 49, 50, 511, 512, 513, 1000, 4097, 100000 };
	unsigned int seed = 38;

	(void)state;
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (int kind = 0; kind < 5; kind++) {
			size_t n = sizes[si], ny = n / 2 + 1;
			double *x = malloc(n * sizeof(*x)), *want = malloc(n * sizeof(*x));
			double *got = malloc(n * sizeof(*x)), *y = malloc(ny * sizeof(*y));
			double *sy = malloc(ny * sizeof(*y));
			struct hb_stats_desc d1, d2;
			struct hb_stats_test t1, t2;
			double u, ties;
			int r1, r2;

			assert_true(x && want && got && y && sy);
			fill(x, n, kind, &seed);
			fill(y, ny, kind, &seed);
			memcpy(want, x, n * sizeof(*x));
			qsort(want, n, sizeof(*want), ref_cmp);
			memcpy(got, x, n * sizeof(*x));
			hb_stats_sort(got, n);
			if (memcmp(want, got, n * sizeof(*x)))
				fail_msg("n=%zu kind %d: hb_stats_sort is not qsort's order", n,
					 kind);
			memset(&d1, 0, sizeof(d1));
			memset(&d2, 0, sizeof(d2));
			hb_stats_describe(x, n, &d1);
			hb_stats_describe_sorted(got, n, &d2);
			if (memcmp(&d1, &d2, sizeof(d1)))
				fail_msg("n=%zu kind %d: describe differs", n, kind);
			/* and describe is what GSL gives on qsort's order */
			assert_memory_equal(&d1.p90,
					    &(double){ gsl_stats_quantile_from_sorted_data(want, 1, n,
											   0.9) },
					    sizeof(double));
			memcpy(sy, y, ny * sizeof(*y));
			hb_stats_sort(sy, ny);
			/* both zeroed: memcmp sees padding, and fields a refusal (n = 1)
			 * leaves alone were stack garbage, different under ASan */
			memset(&t1, 0, sizeof(t1));
			memset(&t2, 0, sizeof(t2));
			r1 = hb_stats_mann_whitney(x, n, y, ny, HB_STATS_GREATER, &t1);
			r2 = hb_stats_mann_whitney_sorted(got, n, sy, ny, HB_STATS_GREATER, &t2);
			assert_int_equal(r1, r2);
			if (memcmp(&t1, &t2, sizeof(t1)))
				fail_msg("n=%zu kind %d: Mann-Whitney differs", n, kind);
			if (r1 == 0) {
				ref_mw_sums(x, n, y, ny, &u, &ties);
				if (memcmp(&u, &t1.stat, sizeof(u)))
					fail_msg("n=%zu kind %d: U %.17g, the pooled sort's %.17g", n,
						 kind, t1.stat, u);
			}
			free(x);
			free(want);
			free(got);
			free(y);
			free(sy);
		}
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
		cmocka_unit_test(test_sorted_paths_bit_identical),
		cmocka_unit_test(test_stats_bad_arguments),
		cmocka_unit_test(test_describe_extremes),
		cmocka_unit_test(test_welch_denormals),
		cmocka_unit_test(test_bootstrap_zero_and_negative_centers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
