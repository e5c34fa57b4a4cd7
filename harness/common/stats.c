/* stats.c - descriptive statistics, Welch, Mann-Whitney, bootstrap, BH,
 * Fisher's exact test on two rates and the F-test of two variances.
 *
 * Conventions follow R so that results can be checked against it: type-7
 * quantiles, wilcox.test's exact/normal switch, p.adjust(method = "BH").
 * See stats.h for the contract of each function.
 *
 * Any finite double is valid input: sums and variances are taken on the
 * data scaled by a power of two (exact) so that 1e308 does not overflow and
 * denormals do not underflow, and GSL's abort()ing error handler is off.
 * A result that still cannot be computed is NAN, never a crash.
 */
#include "stats.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

void hb_stats_init(void)
{
	static bool done;

	if (done)
		return;
	/* GSL's default handler calls abort() on a domain error (e.g. a NaN
	 * df): errors become return values (NAN) that the callers check. */
	gsl_set_error_handler_off();
	done = true;
}

static bool hb_stats_all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

/* A shift k with max |x_i 2^k| in [0.5, 1) (0 when all are 0): sums of
 * x 2^k and of its squares cannot overflow, and nothing underflows. The
 * scaling is exact (ldexp), and 2^k itself may not be representable
 * (k up to 1074 for denormals). */
static int hb_stats_scale2(const double *x, size_t nx, const double *y, size_t ny)
{
	double m = 0;
	int e;

	for (size_t i = 0; i < nx; i++)
		m = fmax(m, fabs(x[i]));
	for (size_t i = 0; i < ny; i++)
		m = fmax(m, fabs(y[i]));
	if (!(m > 0) || !isfinite(m))
		return 0;
	frexp(m, &e);
	return -e;
}

/* Mean and sample variance (n - 1) of x 2^k, two passes. Identical values
 * give exactly their value and a variance of exactly 0 (a guest on a
 * virtual clock repeats a boot to the nanosecond): summing and dividing
 * would leave a rounding residue, and a variance of 1e-34 is not "none". */
static void hb_stats_mv(const double *x, size_t n, int k, double *mean, double *var)
{
	double s = 0, ss = 0, c = 0;
	size_t same = 1;

	while (same < n && x[same] == x[0])
		same++;
	if (n && same == n) {
		*mean = ldexp(x[0], k);
		if (var)
			*var = n >= 2 ? 0 : NAN;
		return;
	}
	for (size_t i = 0; i < n; i++)
		s += ldexp(x[i], k);
	s /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = ldexp(x[i], k) - s;

		ss += d * d;
		c += d;
	}
	*mean = s;
	if (var)
		*var = n >= 2 ? (ss - c * c / (double)n) / (double)(n - 1) : NAN;
}

static int hb_stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The sort key of a double: its IEEE bits, the sign bit flipped for a
 * positive value and every bit for a negative one, so that unsigned order
 * is numeric order (-0 just below +0). */
static inline uint64_t hb_stats_key(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u & UINT64_C(0x8000000000000000) ? ~u : u | UINT64_C(0x8000000000000000);
}

static inline double hb_stats_unkey(uint64_t k)
{
	uint64_t u = k & UINT64_C(0x8000000000000000) ? k & ~UINT64_C(0x8000000000000000) : ~k;
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* Below this many values a comparison sort is as fast. */
#define HB_STATS_RADIX_MIN 512
#define HB_STATS_RADIX_BITS 11
#define HB_STATS_RADIX_PASSES 6 /* 6 x 11 >= 64 */

void hb_stats_sort(double *a, size_t n)
{
	enum { R = 1 << HB_STATS_RADIX_BITS };
	size_t (*count)[R], npos0 = 0, nneg0 = 0;
	uint64_t *k, *t, *from, *to;
	unsigned char *signs = NULL;
	bool nan = false;

	for (size_t i = 0; i < n; i++) {
		nan |= a[i] != a[i];
		if (a[i] == 0) {
			if (signbit(a[i]))
				nneg0++;
			else
				npos0++;
		}
	}
	/* NaN compares equal to everything under hb_stats_cmp_double: such
	 * data is left to the comparison sort, whose order it was */
	if (n < HB_STATS_RADIX_MIN || nan ||
	    !(k = malloc(n * sizeof(*k) * 2 + sizeof(size_t[HB_STATS_RADIX_PASSES][R])))) {
		qsort(a, n, sizeof(*a), hb_stats_cmp_double);
		return;
	}
	/* -0 and +0 compare equal: a stable comparison sort (glibc's merge
	 * sort) keeps them in their input order, where the keys put every -0
	 * first. The order of their signs is noted to be put back. */
	if (nneg0 && npos0) {
		size_t z = 0;

		signs = malloc(nneg0 + npos0);
		if (!signs) {
			free(k);
			qsort(a, n, sizeof(*a), hb_stats_cmp_double);
			return;
		}
		for (size_t i = 0; i < n; i++)
			if (a[i] == 0)
				signs[z++] = (unsigned char)(signbit(a[i]) != 0);
	}
	t = k + n;
	count = (size_t(*)[R])(void *)(t + n);
	memset(count, 0, sizeof(size_t[HB_STATS_RADIX_PASSES][R]));
	for (size_t i = 0; i < n; i++) {
		k[i] = hb_stats_key(a[i]);
		for (int p = 0; p < HB_STATS_RADIX_PASSES; p++)
			count[p][(k[i] >> (p * HB_STATS_RADIX_BITS)) & (R - 1)]++;
	}
	/* LSD radix sort, stable; a digit every key shares is skipped (the
	 * sign and exponent of the samples of one metric mostly are) */
	from = k;
	to = t;
	for (int p = 0; p < HB_STATS_RADIX_PASSES; p++) {
		size_t sum = 0, *c = count[p];
		int shift = p * HB_STATS_RADIX_BITS;

		if (c[(from[0] >> shift) & (R - 1)] == n)
			continue;
		for (size_t d = 0; d < R; d++) {
			size_t x = c[d];

			c[d] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++)
			to[c[(from[i] >> shift) & (R - 1)]++] = from[i];
		from = to;
		to = from == k ? t : k;
	}
	for (size_t i = 0; i < n; i++)
		a[i] = hb_stats_unkey(from[i]);
	free(k);
	if (signs) {
		size_t z = 0;

		while (a[z] != 0)
			z++;
		for (size_t i = 0; i < nneg0 + npos0; i++)
			a[z + i] = signs[i] ? -0.0 : 0.0;
		free(signs);
	}
}

static double *hb_stats_sorted_copy(const double *x, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	hb_stats_sort(s, n);
	return s;
}

double hb_stats_mean(const double *x, size_t n)
{
	double m;
	int k;

	if (!n)
		return NAN;
	k = hb_stats_scale2(x, n, NULL, 0);
	hb_stats_mv(x, n, k, &m, NULL);
	return ldexp(m, -k);
}

double hb_stats_sd(const double *x, size_t n)
{
	double m, v;
	int k;

	if (n < 2)
		return NAN;
	k = hb_stats_scale2(x, n, NULL, 0);
	hb_stats_mv(x, n, k, &m, &v);
	return ldexp(sqrt(v), -k);
}

/* c(n) of hb_stats_sd_drop1 for n = 4 .. 64: sqrt(1 / E[s^2]) of the sd of
 * n - 1 standard normal draws after the one farthest from the median of n
 * is dropped (200 000 draws a size, GSL's mt19937 seeded 34). */
static const double hb_stats_drop1_c[] = {
	1.6593, 1.4535, 1.3772, 1.3122, 1.2802, 1.2475, 1.2284, 1.2068,
	1.1932, 1.1807, 1.1712, 1.1604, 1.1528, 1.1444, 1.1382, 1.1326,
	1.1277, 1.1221, 1.1176, 1.1136, 1.1100, 1.1068, 1.1033, 1.0997,
	1.0974, 1.0947, 1.0923, 1.0895, 1.0879, 1.0859, 1.0836, 1.0819,
	1.0796, 1.0777, 1.0767, 1.0750, 1.0735, 1.0725, 1.0710, 1.0696,
	1.0688, 1.0673, 1.0664, 1.0647, 1.0639, 1.0632, 1.0618, 1.0610,
	1.0601, 1.0590, 1.0583, 1.0572, 1.0565, 1.0559, 1.0552, 1.0544,
	1.0537, 1.0529, 1.0522, 1.0518, 1.0511,
};

double hb_stats_sd_drop1(const double *x, size_t n, size_t *dropped)
{
	size_t nc = sizeof(hb_stats_drop1_c) / sizeof(hb_stats_drop1_c[0]), far = 0, k = 0;
	double med, sd, *y;

	if (dropped)
		*dropped = n;
	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return NAN;
	if (n < HB_STATS_DROP1_MIN)
		return hb_stats_sd(x, n);
	y = malloc(n * sizeof(*y));
	if (!y)
		return NAN;
	med = hb_stats_median(x, n);
	for (size_t i = 1; i < n; i++)
		if (fabs(x[i] - med) > fabs(x[far] - med))
			far = i;
	for (size_t i = 0; i < n; i++)
		if (i != far)
			y[k++] = x[i];
	sd = hb_stats_sd(y, k);
	free(y);
	if (dropped)
		*dropped = far;
	return sd * hb_stats_drop1_c[n - HB_STATS_DROP1_MIN < nc ? n - HB_STATS_DROP1_MIN : nc - 1];
}

static double hb_stats_select(double *a, size_t n, size_t k);

/* GSL's gsl_stats_quantile_from_sorted_data() (type 7), on the two order
 * statistics it reads, found by selection: O(n) instead of a sort, which
 * took seconds a call on a 10 million sample metric (issue 38), the same
 * bits. */
double hb_stats_quantile(const double *x, size_t n, double q)
{
	const double index = q * (double)(n - 1);
	const size_t lhs = (size_t)index;
	const double delta = index - (double)lhs;
	double *s, a, b;

	if (!n)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	a = hb_stats_select(s, n, lhs);
	if (lhs + 1 >= n) {
		free(s);
		return a;
	}
	/* the next order statistic: the smallest of what selection left right of lhs */
	b = s[lhs + 1];
	for (size_t i = lhs + 2; i < n; i++)
		if (s[i] < b)
			b = s[i];
	free(s);
	return (1 - delta) * a + delta * b;
}

double hb_stats_median(const double *x, size_t n)
{
	return hb_stats_quantile(x, n, 0.5);
}

void hb_stats_describe(const double *x, size_t n, struct hb_stats_desc *d)
{
	double *s = n ? hb_stats_sorted_copy(x, n) : NULL;

	hb_stats_describe_sorted(s, s ? n : 0, d);
	d->n = n;
	free(s);
}

void hb_stats_describe_sorted(const double *s, size_t n, struct hb_stats_desc *d)
{
	d->n = n;
	d->mean = d->sd = d->cov = d->min = d->max = d->p50 = d->p90 = d->p99 = NAN;
	if (!n || !s)
		return;
	d->mean = hb_stats_mean(s, n);
	d->sd = hb_stats_sd(s, n);
	if (n >= 2 && d->mean != 0)
		d->cov = d->sd / fabs(d->mean);
	d->min = s[0];
	d->max = s[n - 1];
	d->p50 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.50);
	d->p90 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.90);
	d->p99 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.99);
}

static double hb_stats_p_from_t(double t, double df, enum hb_stats_alt alt)
{
	hb_stats_init();
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t)) {
		if (alt == HB_STATS_TWO_SIDED)
			return 0;
		return (alt == HB_STATS_GREATER) == (t > 0) ? 0 : 1;
	}
	switch (alt) {
	case HB_STATS_GREATER:
		return gsl_cdf_tdist_Q(t, df);
	case HB_STATS_LESS:
		return gsl_cdf_tdist_P(t, df);
	default:
		return 2 * gsl_cdf_tdist_Q(fabs(t), df);
	}
}

int hb_stats_welch_ev(const double *x, size_t nx, const double *y, size_t ny, double ev,
		      enum hb_stats_alt alt, struct hb_stats_test *r)
{
	double mx, my, vx, vy, se2, dden, a, b, e, s;
	int k;

	r->stat = r->df = r->p = NAN;
	r->exact = 0;
	if (nx < 2 || ny < 2 || !hb_stats_all_finite(x, nx) || !hb_stats_all_finite(y, ny) ||
	    isnan(ev))
		return -1;
	/* In units of the scaled data (the test is scale-free). */
	k = hb_stats_scale2(x, nx, y, ny);
	hb_stats_mv(x, nx, k, &mx, &vx);
	hb_stats_mv(y, ny, k, &my, &vy);
	vx /= (double)nx;
	vy /= (double)ny;
	e = ev > 0 ? ldexp(ev, 2 * k) : 0;
	se2 = vx + vy + e;
	if (se2 <= 0) {
		/* Both constant: no variance to test against. */
		r->stat = my == mx ? 0 : (my > mx ? INFINITY : -INFINITY);
		r->df = (double)(nx + ny - 2);
		if (my == mx)
			r->p = 1;
		else if (alt == HB_STATS_TWO_SIDED)
			r->p = 0;
		else
			r->p = (alt == HB_STATS_GREATER) == (my > mx) ? 0 : 1;
		return 0;
	}
	r->stat = (my - mx) / sqrt(se2);
	/* Welch-Satterthwaite with the known part at infinite df, capped at
	 * nx + ny - 2: a sample variance that is small by chance would
	 * otherwise claim near-normal tails (anti-conservative at n = 3).
	 * Taken relative to se2 so that no square overflows. */
	s = se2;
	a = vx / s;
	b = vy / s;
	dden = a * a / (double)(nx - 1) + b * b / (double)(ny - 1);
	r->df = dden > 0 ? 1 / dden : 1e9;
	if (ev > 0 && r->df > (double)(nx + ny - 2))
		r->df = (double)(nx + ny - 2);
	r->p = hb_stats_p_from_t(r->stat, r->df, alt);
	return isnan(r->p) ? -1 : 0;
}

int hb_stats_welch(const double *x, size_t nx, const double *y, size_t ny,
		   enum hb_stats_alt alt, struct hb_stats_test *r)
{
	return hb_stats_welch_ev(x, nx, y, ny, 0, alt, r);
}

int hb_stats_welch_ev_ci(const double *x, size_t nx, const double *y, size_t ny, double ev,
			 double level, double *lo, double *hi)
{
	struct hb_stats_test t;
	double mx, my, vx, vy, d, se, q;
	int k;

	*lo = *hi = NAN;
	if (!(level > 0 && level < 1) ||
	    hb_stats_welch_ev(x, nx, y, ny, ev, HB_STATS_TWO_SIDED, &t))
		return -1;
	k = hb_stats_scale2(x, nx, y, ny);
	hb_stats_mv(x, nx, k, &mx, &vx);
	hb_stats_mv(y, ny, k, &my, &vy);
	d = my - mx;
	se = sqrt(vx / (double)nx + vy / (double)ny + (ev > 0 ? ldexp(ev, 2 * k) : 0));
	if (se <= 0) {
		*lo = *hi = ldexp(d, -k);
		return 0;
	}
	q = hb_stats_t_quantile(0.5 + level / 2, t.df);
	if (isnan(q))
		return -1;
	/* back to the data's units (may overflow to +-inf, never NAN) */
	*lo = ldexp(d - q * se, -k);
	*hi = ldexp(d + q * se, -k);
	return 0;
}

int hb_stats_welch_ci(const double *x, size_t nx, const double *y, size_t ny, double level,
		      double *lo, double *hi)
{
	return hb_stats_welch_ev_ci(x, nx, y, ny, 0, level, lo, hi);
}

double hb_stats_t_quantile(double p, double df)
{
	hb_stats_init();
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	return gsl_cdf_tdist_Pinv(p, df);
}

/* ---- Mann-Whitney ------------------------------------------------------ */

/* P(U <= u) and P(U >= u) for U = #(y > x) with ny y's and nx x's and no
 * ties, from the recurrence f(u; i, j) = f(u - j; i - 1, j) + f(u; i, j - 1)
 * (i y's, j x's: the largest value is a y above all j x's, or an x). */
static int hb_stats_mw_exact(size_t nx, size_t ny, double u, double *le, double *ge)
{
	size_t w = nx * ny + 1, i, j, k;
	double *f = calloc((ny + 1) * w, sizeof(*f)), tot = 0, sle = 0, sge = 0;

	if (!f)
		return -1;
	for (i = 0; i <= ny; i++)
		f[i * w] = 1; /* j = 0: no x, U = 0 */
	for (j = 1; j <= nx; j++)
		for (i = 1; i <= ny; i++)
			for (k = j; k < w; k++)
				f[i * w + k] += f[(i - 1) * w + k - j];
	for (k = 0; k < w; k++) {
		double c = f[ny * w + k];

		tot += c;
		if ((double)k <= u + 1e-9)
			sle += c;
		if ((double)k >= u - 1e-9)
			sge += c;
	}
	free(f);
	*le = sle / tot;
	*ge = sge / tot;
	return 0;
}

int hb_stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
			  enum hb_stats_alt alt, struct hb_stats_test *r)
{
	double *sx, *sy;
	int rc = -1;

	r->stat = r->df = r->p = NAN;
	r->exact = 0;
	if (!nx || !ny || !hb_stats_all_finite(x, nx) || !hb_stats_all_finite(y, ny))
		return -1;
	sx = hb_stats_sorted_copy(x, nx);
	sy = hb_stats_sorted_copy(y, ny);
	if (sx && sy)
		rc = hb_stats_mann_whitney_sorted(sx, nx, sy, ny, alt, r);
	free(sx);
	free(sy);
	return rc;
}

/* The ranks come from merging the two sorted sides: each run of equal
 * values (a tie group) gets the average of its ranks, added once per y in
 * it, in increasing order of value -- the sums a sort of the pooled values
 * made, term for term. */
int hb_stats_mann_whitney_sorted(const double *x, size_t nx, const double *y, size_t ny,
				 enum hb_stats_alt alt, struct hb_stats_test *r)
{
	size_t n = nx + ny, i = 0, j = 0, pos = 0;
	double ranksum = 0, ties = 0, u, mu, sigma, z, corr;

	r->stat = r->df = r->p = NAN;
	r->exact = 0;
	if (!nx || !ny || !hb_stats_all_finite(x, nx) || !hb_stats_all_finite(y, ny))
		return -1;
	hb_stats_init();
	while (i < nx || j < ny) {
		double v = j >= ny || (i < nx && x[i] <= y[j]) ? x[i] : y[j], t, rank;
		size_t cy = 0, end;

		end = pos;
		while (i < nx && x[i] == v) {
			i++;
			end++;
		}
		while (j < ny && y[j] == v) {
			j++;
			end++;
			cy++;
		}
		t = (double)(end - pos);
		rank = ((double)pos + 1 + (double)end) / 2; /* average of ranks pos+1..end */
		for (size_t k = 0; k < cy; k++)
			ranksum += rank;
		ties += t * t * t - t;
		pos = end;
	}
	u = ranksum - (double)ny * ((double)ny + 1) / 2;
	r->stat = u;
	mu = (double)nx * (double)ny / 2;
	if (nx < 50 && ny < 50 && ties == 0) {
		double le, ge;

		if (hb_stats_mw_exact(nx, ny, u, &le, &ge))
			return -1;
		r->exact = 1;
		if (alt == HB_STATS_GREATER)
			r->p = ge;
		else if (alt == HB_STATS_LESS)
			r->p = le;
		else
			r->p = fmin(1, 2 * (u > mu ? ge : le));
		return 0;
	}
	sigma = sqrt((double)nx * (double)ny / 12 *
		     ((double)n + 1 - ties / ((double)n * ((double)n - 1))));
	if (sigma <= 0) {
		r->p = 1;
		return 0;
	}
	z = u - mu;
	if (alt == HB_STATS_GREATER)
		corr = 0.5;
	else if (alt == HB_STATS_LESS)
		corr = -0.5;
	else
		corr = z > 0 ? 0.5 : (z < 0 ? -0.5 : 0);
	z = (z - corr) / sigma;
	if (alt == HB_STATS_GREATER)
		r->p = gsl_cdf_ugaussian_Q(z);
	else if (alt == HB_STATS_LESS)
		r->p = gsl_cdf_ugaussian_P(z);
	else
		r->p = fmin(1, 2 * fmin(gsl_cdf_ugaussian_P(z), gsl_cdf_ugaussian_Q(z)));
	return 0;
}

/* ---- bootstrap --------------------------------------------------------- */

/* k-th smallest of a[0..n) (reorders a): Wirth's selection. */
static double hb_stats_select(double *a, size_t n, size_t k)
{
	long l = 0, m = (long)n - 1, kk = (long)k;

	while (l < m) {
		double x = a[kk];
		long i = l, j = m;

		do {
			while (a[i] < x)
				i++;
			while (x < a[j])
				j--;
			if (i <= j) {
				double t = a[i];

				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
	return a[kk];
}

static double hb_stats_center_of(double *a, size_t n, enum hb_stats_center c)
{
	double m;

	if (c == HB_STATS_MEAN)
		return hb_stats_mean(a, n);
	m = hb_stats_select(a, n, n / 2);
	if (n % 2 == 0) {
		/* the lower middle is the largest element left of n/2 */
		double lo = a[0];

		for (size_t i = 1; i < n / 2; i++)
			if (a[i] > lo)
				lo = a[i];
		m = isfinite(m + lo) ? (m + lo) / 2 : m / 2 + lo / 2;
	}
	return m;
}

double hb_stats_rel(double cx, double cy)
{
	if (cx > 0)
		return cy / cx;
	if (cx < 0)
		return 2 + cy / -cx;
	return cy > 0 ? INFINITY : cy < 0 ? -INFINITY : 1;
}

/* Type-7 quantile of sorted data that may hold +-inf (GSL's interpolation
 * gives NAN there: 0 * inf). */
static double hb_stats_q7(const double *s, size_t n, double q)
{
	double h = (double)(n - 1) * q, f, a, b;
	size_t i = (size_t)h;

	if (i + 1 >= n)
		return s[n - 1];
	f = h - (double)i;
	a = s[i];
	b = s[i + 1];
	if (f == 0 || a == b)
		return a;
	if (isinf(a))
		return a;
	if (isinf(b))
		return b;
	return (1 - f) * a + f * b;
}

/* Thin x to `cap` evenly spaced order statistics (a copy either way). */
static double *hb_stats_thin(const double *x, size_t n, size_t cap, size_t *out_n)
{
	double *s;

	if (!cap || n <= cap) {
		s = malloc(n * sizeof(*s));
		if (s)
			memcpy(s, x, n * sizeof(*s));
		*out_n = n;
		return s;
	}
	s = hb_stats_sorted_copy(x, n);
	if (!s)
		return NULL;
	for (size_t i = 0; i < cap; i++)
		s[i] = s[(size_t)(((double)i + 0.5) * (double)n / (double)cap)];
	*out_n = cap;
	return s;
}

int hb_stats_bootstrap_ratio(const double *x, size_t nx, const double *y, size_t ny,
			     enum hb_stats_center c, unsigned B, double level, uint64_t seed,
			     size_t cap, double *lo, double *hi)
{
	double *xs = NULL, *ys = NULL, *buf = NULL, *ratios = NULL;
	size_t mx, my, bn;
	gsl_rng *rng = NULL;
	unsigned b, ok = 0;
	int ret = -1;

	*lo = *hi = NAN;
	if (!nx || !ny || !B || !(level > 0 && level < 1) || !hb_stats_all_finite(x, nx) ||
	    !hb_stats_all_finite(y, ny))
		return -1;
	xs = hb_stats_thin(x, nx, cap, &mx);
	ys = hb_stats_thin(y, ny, cap, &my);
	bn = mx > my ? mx : my;
	buf = malloc(bn * sizeof(*buf));
	ratios = malloc(B * sizeof(*ratios));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!xs || !ys || !buf || !ratios || !rng)
		goto out;
	gsl_rng_set(rng, (unsigned long)(seed ? seed : 1));
	for (b = 0; b < B; b++) {
		double cx, cy;

		for (size_t i = 0; i < mx; i++)
			buf[i] = xs[gsl_rng_uniform_int(rng, mx)];
		cx = hb_stats_center_of(buf, mx, c);
		for (size_t i = 0; i < my; i++)
			buf[i] = ys[gsl_rng_uniform_int(rng, my)];
		cy = hb_stats_center_of(buf, my, c);
		if (!isnan(hb_stats_rel(cx, cy)))
			ratios[ok++] = hb_stats_rel(cx, cy);
	}
	if (!ok || ok < B / 2)
		goto out;
	qsort(ratios, ok, sizeof(*ratios), hb_stats_cmp_double);
	*lo = hb_stats_q7(ratios, ok, (1 - level) / 2);
	*hi = hb_stats_q7(ratios, ok, 1 - (1 - level) / 2);
	ret = 0;
out:
	gsl_rng_free(rng);
	free(xs);
	free(ys);
	free(buf);
	free(ratios);
	return ret;
}

/* ---- Benjamini-Hochberg -------------------------------------------------- */

struct hb_stats_pidx {
	double p;
	size_t i;
};

static int hb_stats_cmp_pidx(const void *a, const void *b)
{
	const struct hb_stats_pidx *x = a, *y = b;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

void hb_stats_bh(const double *p, size_t n, double *q)
{
	struct hb_stats_pidx *s = malloc((n ? n : 1) * sizeof(*s));
	size_t m = 0, k;
	double run = 1;

	for (size_t i = 0; i < n; i++)
		q[i] = NAN;
	if (!s)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = (struct hb_stats_pidx){ p[i], i };
	qsort(s, m, sizeof(*s), hb_stats_cmp_pidx);
	for (k = m; k > 0; k--) {
		double v = s[k - 1].p * (double)m / (double)k;

		if (v < run)
			run = v;
		q[s[k - 1].i] = run;
	}
	free(s);
}

/* ---- rates and variances -------------------------------------------------- */

double hb_stats_fisher_greater(size_t kx, size_t nx, size_t ky, size_t ny)
{
	size_t K, N, lo, hi;
	double p = 0, lden;

	hb_stats_init();
	if (kx > nx || ky > ny)
		return NAN;
	if (!nx || !ny)
		return 1;
	K = kx + ky;
	N = nx + ny;
	/* ky ~ hypergeometric: ny draws from N with K "events"; P(X >= ky) */
	lo = K > nx ? K - nx : 0;
	hi = K < ny ? K : ny;
	if (ky <= lo)
		return 1;
	lden = gsl_sf_lnchoose((unsigned)N, (unsigned)ny);
	for (size_t j = ky; j <= hi; j++)
		p += exp(gsl_sf_lnchoose((unsigned)K, (unsigned)j) +
			 gsl_sf_lnchoose((unsigned)(N - K), (unsigned)(ny - j)) - lden);
	return p > 1 ? 1 : p;
}

double hb_stats_var_ratio_p(double ratio, double df1, double df2)
{
	double lo, hi;

	hb_stats_init();
	if (!(ratio >= 0) || !(df1 > 0) || !(df2 > 0))
		return NAN;
	if (isinf(ratio))
		return 0;
	lo = gsl_cdf_fdist_P(ratio, df1, df2);
	hi = gsl_cdf_fdist_Q(ratio, df1, df2);
	if (isnan(lo) || isnan(hi))
		return NAN;
	return fmin(1, 2 * fmin(lo, hi));
}
