/* stats.h - the statistics hugebench compare-report relies on.
 *
 * Descriptive statistics, Welch's t-test, the Mann-Whitney U test, a seeded
 * percentile bootstrap of a ratio of centers, Benjamini-Hochberg adjusted
 * p-values, Fisher's exact test of two rates and the F-test of two
 * variances. Built on GSL; every function is pure (no globals) and, given the
 * same seed, deterministic. Inputs are never modified.
 */
#ifndef HB_STATS_H
#define HB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Which alternative a test's p-value is for: the second sample (y) larger
 * than the first (x), smaller, or either. */
enum hb_stats_alt { HB_STATS_TWO_SIDED, HB_STATS_GREATER, HB_STATS_LESS };

struct hb_stats_desc {
	size_t n;
	double mean, sd, cov; /* cov = sd / |mean|, NAN when mean == 0 or n < 2 */
	double min, max, p50, p90, p99;
};

/* Turns GSL's default error handler (abort()) off for the whole process;
 * called by every function here that reaches GSL's special functions, and
 * by the commands at their start. Idempotent. */
void hb_stats_init(void);

double hb_stats_mean(const double *x, size_t n);
double hb_stats_sd(const double *x, size_t n); /* sample sd (n - 1); NAN for n < 2 */
/* A scale that one outlier cannot inflate: with n >= HB_STATS_DROP1_MIN
 * values, the sample sd of the n - 1 left when the value farthest from the
 * median is dropped, times a consistency factor c(n) that makes its square
 * unbiased for the variance of normal data (c(4) = 1.659, c(10) = 1.228,
 * c(30) = 1.092; measured by simulation, 200 000 draws a size, c(64) for
 * n > 64); below that, the sample sd. *dropped (may be NULL) gets the index
 * of the value left out, or n when none. NAN for n < 2 or a value that is
 * not finite. Exactly 0 when the values left are identical. */
#define HB_STATS_DROP1_MIN 4
double hb_stats_sd_drop1(const double *x, size_t n, size_t *dropped);
/* R's default quantile (type 7) of unsorted data, 0 <= q <= 1. */
double hb_stats_quantile(const double *x, size_t n, double q);
double hb_stats_median(const double *x, size_t n);
/* Fills d; every field is NAN when n == 0. */
void hb_stats_describe(const double *x, size_t n, struct hb_stats_desc *d);
/* The same of data already sorted (hb_stats_sort): one sort a side can
 * serve describe and Mann-Whitney (issue 38). */
void hb_stats_describe_sorted(const double *s, size_t n, struct hb_stats_desc *d);
/* Sorts a in place, ascending: the order qsort() with a numeric comparison
 * gives, bit for bit (-0 and +0, which compare equal, in their input
 * order, as glibc's merge sort leaves them; data with a NaN is sorted by
 * qsort() itself). An LSD radix sort of the IEEE bits, O(n), from 512
 * values on (issue 38: 10 million samples took 1-2 s a sort); needs 16
 * bytes a value more while it runs, and falls back to qsort() without
 * them. */
void hb_stats_sort(double *a, size_t n);

struct hb_stats_test {
	double stat; /* t, or U of y (count of pairs with y > x, ties 1/2) */
	double df;   /* Welch-Satterthwaite df; NAN for Mann-Whitney */
	double p;    /* NAN when the test cannot be computed */
	int exact;   /* Mann-Whitney: 1 when the exact distribution was used */
};

/* Welch's unequal-variance t-test of mean(y) - mean(x). Needs n >= 2 on both
 * sides and finite values (else -1, p NAN); identical constant samples give
 * p = 1. */
int hb_stats_welch(const double *x, size_t nx, const double *y, size_t ny,
		   enum hb_stats_alt alt, struct hb_stats_test *r);
/* Welch's confidence interval of mean(y) - mean(x) at `level` (e.g. 0.95). */
int hb_stats_welch_ci(const double *x, size_t nx, const double *y, size_t ny, double level,
		      double *lo, double *hi);
/* The same two with a known extra variance `ev` added to var(mean(y) -
 * mean(x)) (a between-boot component estimated elsewhere), counted with
 * infinite df in Welch-Satterthwaite, the total capped at nx + ny - 2.
 * ev = 0 gives plain Welch. */
int hb_stats_welch_ev(const double *x, size_t nx, const double *y, size_t ny, double ev,
		      enum hb_stats_alt alt, struct hb_stats_test *r);
int hb_stats_welch_ev_ci(const double *x, size_t nx, const double *y, size_t ny, double ev,
			 double level, double *lo, double *hi);

/* Mann-Whitney U (Wilcoxon rank-sum), as R's wilcox.test(y, x): exact when
 * both n < 50 and there are no ties, otherwise the normal approximation with
 * tie and continuity correction. */
int hb_stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
			  enum hb_stats_alt alt, struct hb_stats_test *r);
/* The same of x and y each already sorted ascending (hb_stats_sort): no
 * pooled sort, the ranks from a merge, the same bits. */
int hb_stats_mann_whitney_sorted(const double *x, size_t nx, const double *y, size_t ny,
				 enum hb_stats_alt alt, struct hb_stats_test *r);

enum hb_stats_center { HB_STATS_MEAN, HB_STATS_MEDIAN };

/* Percentile bootstrap of center(y) / center(x): B resamples of each side
 * (with replacement) from a gsl_rng mt19937 seeded with `seed`. Writes the
 * two-sided `level` interval. The "ratio" is 1 + (cy - cx) / |cx|, which is
 * cy / cx for cx > 0 and keeps the direction of the change otherwise: +inf
 * (-inf) when cx = 0 < cy (cy < 0), 1 when both are 0; the interval may
 * therefore hold infinities. Returns -1 when a side is empty or holds a
 * non-finite value. Samples larger than `cap` are first thinned to `cap`
 * evenly spaced order statistics (0: no cap), which keeps the shape and
 * bounds the cost. */
int hb_stats_bootstrap_ratio(const double *x, size_t nx, const double *y, size_t ny,
			     enum hb_stats_center c, unsigned B, double level, uint64_t seed,
			     size_t cap, double *lo, double *hi);

/* cy relative to cx as 1 + (cy - cx) / |cx|: cy / cx when cx > 0, and a
 * direction that survives a negative or zero cx: -10 -> -20 gives 0 (100%
 * lower), 0 -> 1 gives +inf, 0 -> -1 -inf, 0 -> 0 gives 1. NAN if either is. */
double hb_stats_rel(double cx, double cy);

/* Benjamini-Hochberg adjusted p-values (R's p.adjust(p, "BH")); NAN inputs
 * are not counted as tests and stay NAN. */
void hb_stats_bh(const double *p, size_t n, double *q);

/* Fisher's exact test, one-sided: the p-value of "y's rate is greater"
 * (ky events in ny trials against kx in nx), as R's
 * fisher.test(matrix(c(ky, ny - ky, kx, nx - kx), 2), alternative =
 * "greater")$p.value: P(X >= ky) for X hypergeometric with the margins
 * fixed. 1 when a side has no trials; NAN when k > n. */
double hb_stats_fisher_greater(size_t kx, size_t nx, size_t ky, size_t ny);

/* Two-sided p-value of an F-test of two variances: ratio = s1^2 / s2^2
 * with df1 and df2 degrees of freedom, 2 min(P(F <= ratio), P(F >=
 * ratio)) as R's var.test. A ratio of 0 (a variance of exactly 0 against
 * one that is not) gives 0; NAN for a negative ratio or df <= 0. */
double hb_stats_var_ratio_p(double ratio, double df1, double df2);

/* Student t quantile (P^-1); NAN unless 0 < p < 1 and df > 0. */
double hb_stats_t_quantile(double p, double df);

#endif
