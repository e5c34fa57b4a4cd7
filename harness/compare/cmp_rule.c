/* cmp_rule.c - the per-metric decision rule of compare-report (thresholds:
 * cmp_thresholds.c), and the rate rule of functional findings over boots.
 *
 * THE RULE (also in docs/compare.md, with the measurements behind it):
 *
 * The unit of replication is the boot. The samples of one boot, and the
 * repetitions inside it, share that boot's page layout, host scheduling and
 * TCG translation cache; a test on the samples of one boot per side flags
 * most A/A pairs (`make aa-study`, docs/compare.md). Per metric and per side:
 *
 *  - One center per boot: for a distribution (>= 5 samples per
 *    repetition) on the wall clock, the median of the boot's samples pooled
 *    over its repetitions; otherwise, and always on the virtual clock, their
 *    mean. Virtual time counts instructions, so a sample has no host
 *    outlier for a median to resist, while a boot's samples split between
 *    faults that k and k + 1 timer ticks interrupt: the median of such a
 *    sample jumps by a whole tick when the split shifts (docs/compare.md,
 *    "Boot center on the virtual clock").
 *  - The calibrated sd s_c (log scale): a matching calibration file's,
 *    measured on m boots (a t with m - 1 df), else the thresholds file's
 *    boot_sd_pct (taken as known: normal quantiles), else, with >= 3 boots
 *    a side on the virtual clock, its sd_floor_virtual_pct (a floor only,
 *    with HB_CMP_FLOOR_DF df: it never makes a metric testable with fewer
 *    boots); never below
 *    HB_CMP_SD_FLOOR (0.1 %): a calibration of identical virtual-clock
 *    boots measures 0, and a change must not become certain by a division
 *    by zero.
 *  - BOOTS mode, when both sides have >= 3 boots: Welch's t-test on the
 *    logs of the boot centers (raw values if one is <= 0), one-sided toward
 *    "worse"; the change is the ratio of geometric means, its interval the
 *    Welch t interval. With a calibrated sd larger than the pooled sd of
 *    the log boot centers, the test is instead t = (mean log NEW - mean log
 *    BASE) / (s_c sqrt(1/na + 1/nb)) with the calibration's df: the floor
 *    that guards bimodal metrics, whose boots per side can all fall in one
 *    mode and look constant. Constant sides (sd exactly 0, common with a
 *    virtual clock) are handled by Welch: equal means p = 1, different
 *    means p = 0 - certain; the minimum effect still decides.
 *    With a calibration, when the measured sd is above s_c but the boots
 *    agree with it but for one odd boot, and the sides lie apart (every
 *    boot of one above every boot of the other, the gap wider than either
 *    side's range), the sd is that of the calibration's and these boots'
 *    logs pooled, with the calibration's df (issue 34: Welch's df fell to
 *    ~2 when one of 3 boots was 10-30 % off, and a 3x change was missed).
 *  - CALIB mode, when a side has fewer boots but there is a calibrated sd:
 *    the same t with s_c and the calibration's df, unless the calibration
 *    cannot vouch for these boots (issue 34): they vary significantly more,
 *    its sd is above the ceiling, neither side's mean sits in the span of
 *    its boot centers (widened by 3 sds), or a change that would be flagged
 *    is no larger than that span (a mode it saw). Then UNTESTABLE, said.
 *  - ADVISORY otherwise (a test is impossible): the change is shown, it
 *    never fails the run. For one boot per side a Mann-Whitney p on the
 *    samples is shown as a description of that pair of boots.
 *  - Regression <=> BH q(worse) <= alpha over every tested metric of the
 *    comparison AND |log(NEW/BASE)| >= log(1 + min_effect) in the worse
 *    direction (symmetric on the log scale: +5 % and -4.76 % are the same
 *    distance). No metric is left out for its noise: a noisy metric needs a
 *    larger change to reach q <= alpha, and that is all. Improvements the
 *    same way on the other side.
 *  - The detectable change shown: (q(1 - alpha/m) + q(power)) * s *
 *    sqrt(1/na + 1/nb) on the log scale, m the BH family size (a lone true
 *    effect must reach p <= alpha/m), s and the quantiles' df those of the
 *    test, and never below the minimum effect.
 *  - A measured pooled sd that is more than 3x from the calibrated one
 *    either way, with an F-test p <= alpha, is a note: the calibration may
 *    not describe these boots.
 *
 * "Worse" follows the metric's direction (better: lower|higher); info
 * metrics are shown and never judged. min_effect comes from
 * configs/thresholds.conf, per clock: min_effect_virtual_pct (0.5 %) when
 * every boot of both sides ran on the virtual clock (it counts
 * instructions: most metrics repeat within 0.5 %), else min_effect_pct
 * (5 %, for the wall clock's noise).
 *
 * Functional findings at every boot count (hb_cmp_rate_regression, used by
 * cmp_functional.c): a failure rate that rose by Fisher's exact test at
 * alpha, or a failure in every NEW boot and no BASE boot. Monotone: one
 * more failing NEW boot (added, or a passing one failing) never takes a
 * regression away (tests/unit/compare/test_functional.c checks the grid).
 */
#define _DEFAULT_SOURCE
#include "compare.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HB_CMP_DIST_PER_REP 5 /* samples per repetition that make a distribution */

void hb_cmp_opts_default(struct hb_cmp_opts *o)
{
	o->alpha = 0.01;
	o->ci_level = 0.99;
	o->power = 0.8;
	o->boot_B = 2000;
	o->boot_cap = 4096;
	o->seed = 20151;
	o->strict = false;
	o->calibration = NULL;
	o->unseen_min_pct = NAN;
}

/* ---- the test ---------------------------------------------------------------- */

bool hb_cmp_metric_is_dist(const struct hb_cmp_metric *m)
{
	size_t reps = m->n_reps ? m->n_reps : 1;

	return m->n >= HB_CMP_DIST_PER_REP * reps;
}

/* The boot's center (median when use_median, else mean): 1 found, 0 no
 * value (absent, unavailable, no samples), -1 a sample or the center is not
 * a finite number. */
static int hb_cmp_center(const struct hb_cmp_metric *m, bool use_median, double *c)
{
	if (!m || m->unavailable || !m->n || !m->samples)
		return 0;
	for (size_t i = 0; i < m->n; i++)
		if (!isfinite(m->samples[i]))
			return -1;
	*c = use_median ? hb_stats_median(m->samples, m->n) : hb_stats_mean(m->samples, m->n);
	return isfinite(*c) ? 1 : -1;
}

static bool hb_cmp_all_positive(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0))
			return false;
	return true;
}

/* 1 + d / |c|: the relative level of c + d (an interval bound of a
 * difference), with the direction kept when c = 0. */
static double hb_cmp_rel_diff(double c, double d)
{
	if (c != 0)
		return 1 + d / fabs(c);
	return d > 0 ? INFINITY : d < 0 ? -INFINITY : 1;
}

static double hb_cmp_var(const double *x, size_t n)
{
	double sd = hb_stats_sd(x, n);

	return n < 2 ? 0 : sd * sd;
}

double hb_cmp_detectable_pct(double sd_log, double df, size_t na, size_t nb, size_t family,
			     const struct hb_cmp_opts *o)
{
	double a = o->alpha / (double)(family ? family : 1), qa, qp;

	if (!na || !nb || isnan(sd_log))
		return NAN;
	if (df > 0) {
		qa = hb_stats_t_quantile(1 - a, df);
		qp = hb_stats_t_quantile(o->power, df);
	} else {
		qa = gsl_cdf_ugaussian_Pinv(1 - a);
		qp = gsl_cdf_ugaussian_Pinv(o->power);
	}
	return expm1((qa + qp) * sd_log * sqrt(1.0 / (double)na + 1.0 / (double)nb)) * 100;
}

bool hb_cmp_blind_to_3x(const struct hb_cmp_mres *m)
{
	return m->verdict == HB_CMP_SAME && m->blind_3x;
}

bool hb_cmp_rate_regression(size_t ka, size_t na, size_t kb, size_t nb, double alpha,
			    double *p)
{
	double fp = hb_stats_fisher_greater(ka, na, kb, nb);

	if (p)
		*p = fp;
	if (!kb)
		return false;
	return fp <= alpha || (kb == nb && ka == 0);
}

/* Pooled sd of the logs of the centers over the sides with >= 2 boots, and
 * its df; NAN / 0 with no df or a center <= 0. */
static void hb_cmp_pooled(const double *x, size_t nx, const double *y, size_t ny, double *sd,
			  double *df)
{
	double ss = 0, d = 0;

	*sd = NAN;
	*df = 0;
	for (int s = 0; s < 2; s++) {
		const double *v = s ? y : x;
		size_t n = s ? ny : nx;
		double *l;

		if (n < 2)
			continue;
		l = malloc(n * sizeof(*l));
		if (!l)
			return;
		for (size_t i = 0; i < n; i++) {
			if (!(v[i] > 0)) {
				free(l);
				return;
			}
			l[i] = log(v[i]);
		}
		ss += (double)(n - 1) * pow(hb_stats_sd(l, n), 2);
		d += (double)(n - 1);
		free(l);
	}
	if (d > 0) {
		*sd = sqrt(ss / d);
		*df = d;
	}
}

/* The pooled sd of the log centers (as hb_cmp_pooled) without the one boot
 * whose removal lowers the pooled sum of squares most (the boot farthest
 * from its side's mean, weighted n / (n - 1)); *df its df (one less).
 * NAN / 0 with fewer than 2 df to start from or a center <= 0. */
static double hb_cmp_pooled_drop1(const double *x, size_t nx, const double *y, size_t ny,
				  double *df)
{
	double ss = 0, d = 0, cut = 0;

	*df = 0;
	for (int s = 0; s < 2; s++) {
		const double *v = s ? y : x;
		size_t n = s ? ny : nx;
		double m = 0;

		if (n < 2)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!(v[i] > 0))
				return NAN;
			m += log(v[i]);
		}
		m /= (double)n;
		for (size_t i = 0; i < n; i++) {
			double e = log(v[i]) - m;

			ss += e * e;
			cut = fmax(cut, (double)n / (double)(n - 1) * e * e);
		}
		d += (double)(n - 1);
	}
	if (d < 2)
		return NAN;
	*df = d - 1;
	return sqrt(fmax(ss - cut, 0) / (d - 1));
}

/* BOOTS mode: Welch on the logs of the boot centers (raw values, scaled by
 * a power of two, when one is <= 0). Fills p-values, centers and the t
 * interval; *sd_log gets the pooled sd of the logs (NAN for raw values). */
static void hb_cmp_welch_boots(const double *x, size_t nx, const double *y, size_t ny,
			       bool worse_is_greater, const struct hb_cmp_opts *o,
			       struct hb_cmp_mres *r, double *sd_log)
{
	bool logs = hb_cmp_all_positive(x, nx) && hb_cmp_all_positive(y, ny);
	double *lx = malloc(nx * sizeof(*lx)), *ly = malloc(ny * sizeof(*ly));
	struct hb_stats_test tg, tl;
	double lo, hi, m = 0;
	int k = 0;

	*sd_log = NAN;
	if (!lx || !ly)
		goto out;
	if (!logs) {
		for (size_t i = 0; i < nx; i++)
			m = fmax(m, fabs(x[i]));
		for (size_t i = 0; i < ny; i++)
			m = fmax(m, fabs(y[i]));
		if (m > 0 && isfinite(m)) {
			frexp(m, &k);
			k = -k;
		}
	}
	for (size_t i = 0; i < nx; i++)
		lx[i] = logs ? log(x[i]) : ldexp(x[i], k);
	for (size_t i = 0; i < ny; i++)
		ly[i] = logs ? log(y[i]) : ldexp(y[i], k);
	hb_stats_welch(lx, nx, ly, ny, HB_STATS_GREATER, &tg);
	hb_stats_welch(lx, nx, ly, ny, HB_STATS_LESS, &tl);
	r->p_worse = worse_is_greater ? tg.p : tl.p;
	r->p_better = worse_is_greater ? tl.p : tg.p;
	r->df = tg.df;
	r->ci_method = "t";
	if (logs) {
		r->test = "welch(log boot centers)";
		r->center_a = exp(hb_stats_mean(lx, nx));
		r->center_b = exp(hb_stats_mean(ly, ny));
		*sd_log = sqrt(((double)(nx - 1) * hb_cmp_var(lx, nx) +
				(double)(ny - 1) * hb_cmp_var(ly, ny)) / (double)(nx + ny - 2));
		if (!hb_stats_welch_ci(lx, nx, ly, ny, o->ci_level, &lo, &hi)) {
			r->ci_lo = exp(lo);
			r->ci_hi = exp(hi);
		}
	} else {
		double ca = hb_stats_mean(lx, nx);

		r->test = "welch(boot centers)";
		r->center_a = ldexp(ca, -k);
		r->center_b = ldexp(hb_stats_mean(ly, ny), -k);
		/* A difference interval, relative to |BASE|: a zero or negative
		 * BASE keeps the direction (0 -> 1 is +inf, not "no ratio"). */
		if (!hb_stats_welch_ci(lx, nx, ly, ny, o->ci_level, &lo, &hi)) {
			r->ci_lo = hb_cmp_rel_diff(ca, lo);
			r->ci_hi = hb_cmp_rel_diff(ca, hi);
		}
	}
out:
	free(lx);
	free(ly);
}

static double hb_cmp_mean_log(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += log(x[i]);
	return s / (double)n;
}

/* The mean log centers against the calibrated boot sd (CALIB mode, or the
 * floor in BOOTS mode): a t-test with the calibration's df (df <= 0: the
 * sd is taken as known, a z-test). */
static void hb_cmp_t_calib(const double *x, size_t nx, const double *y, size_t ny, double sd,
			   double df, bool worse_is_greater, const struct hb_cmp_opts *o,
			   struct hb_cmp_mres *r)
{
	double mx = hb_cmp_mean_log(x, nx), my = hb_cmp_mean_log(y, ny);
	double se = sd * sqrt(1.0 / (double)nx + 1.0 / (double)ny), d = my - mx, z, q;

	r->center_a = exp(mx);
	r->center_b = exp(my);
	r->test = df > 0 ? "t(log boot centers, calibrated sd)" : "z(log boot centers, given sd)";
	r->ci_method = df > 0 ? "t" : "z";
	r->df = df > 0 ? df : 0;
	if (!(se > 0)) {
		/* not reached: the calibrated sd has a floor above 0 */
		double pg = d > 0 ? 0 : 1, pl = d < 0 ? 0 : 1;

		r->p_worse = worse_is_greater ? pg : pl;
		r->p_better = worse_is_greater ? pl : pg;
		r->ci_lo = r->ci_hi = exp(d);
		return;
	}
	z = d / se;
	if (df > 0) {
		r->p_worse = worse_is_greater ? gsl_cdf_tdist_Q(z, df) : gsl_cdf_tdist_P(z, df);
		r->p_better = worse_is_greater ? gsl_cdf_tdist_P(z, df) : gsl_cdf_tdist_Q(z, df);
		q = hb_stats_t_quantile(0.5 + o->ci_level / 2, df);
	} else {
		r->p_worse = worse_is_greater ? gsl_cdf_ugaussian_Q(z) : gsl_cdf_ugaussian_P(z);
		r->p_better = worse_is_greater ? gsl_cdf_ugaussian_P(z) : gsl_cdf_ugaussian_Q(z);
		q = gsl_cdf_ugaussian_Pinv(0.5 + o->ci_level / 2);
	}
	r->ci_lo = exp(d - q * se);
	r->ci_hi = exp(d + q * se);
}

/* A tested metric whose statistics are not numbers is not judged, and says
 * so: never a silent "same" (or worse) built on NAN. */
static void hb_cmp_check_finite(struct hb_cmp_mres *r)
{
	const char *bad = NULL;

	if ((r->mode != HB_CMP_MODE_BOOTS && r->mode != HB_CMP_MODE_CALIB) ||
	    r->verdict == HB_CMP_UNTESTABLE)
		return;
	if (isnan(r->p_worse) || isnan(r->p_better))
		bad = "the test's p-value could not be computed";
	else if (!isfinite(r->center_a) || !isfinite(r->center_b))
		bad = "a center is not a finite number";
	else if (isnan(r->change_pct))
		bad = "the change could not be computed";
	if (!bad)
		return;
	r->not_judged = true;
	r->p_worse = r->p_better = NAN;
	snprintf(r->why, sizeof(r->why), "not judged: %s (%s)", bad,
		 "samples that are not finite numbers, or beyond what a double can hold");
}

static void hb_cmp_reset(struct hb_cmp_mres *r, const struct hb_cmp_metric *any,
			 const struct hb_cmp_limits *lim)
{
	const char *wl = r->workload, *wn = r->wl_name;

	memset(r, 0, sizeof(*r));
	r->workload = wl;
	r->wl_name = wn ? wn : wl;
	r->name = any->name;
	r->unit = any->unit ? any->unit : "";
	r->better = any->better;
	r->min_effect_pct = hb_cmp_limits_min_effect(lim, &r->min_effect_source);
	r->mode = HB_CMP_MODE_NONE;
	r->test = "-";
	r->ci_method = "-";
	r->sd_source = "-";
	r->center_a = r->center_b = r->ratio = r->change_pct = r->worse_pct = NAN;
	r->ci_lo = r->ci_hi = r->p_worse = r->p_better = r->q_worse = r->q_better = NAN;
	r->sd_log = r->mde_pct = r->p_within = NAN;
	r->sd_measured = r->sd_calib = r->sd_check_p = NAN;
	r->calib_lo = r->calib_hi = NAN;
	r->excl_a = r->excl_b = NAN;
	r->one_unseen = false;
	r->verdict = HB_CMP_UNTESTED;
}

/* Presence of the metric on a side: *avail boots with values, the reason
 * of the first `unavailable` entry. Returns the boots that have it at all. */
static size_t hb_cmp_presence(const struct hb_cmp_metric *const *m, size_t n, size_t *avail,
			      const char **unavailable)
{
	size_t present = 0;

	*avail = 0;
	for (size_t i = 0; i < n; i++) {
		if (!m[i])
			continue;
		present++;
		if (m[i]->unavailable) {
			if (!*unavailable)
				*unavailable = m[i]->unavailable;
		} else {
			++*avail;
		}
	}
	return present;
}

/* One outlier boot of a side of >= 3 (issue 34: a BASE of [1, 1, 8x] hid
 * a 3x change): the boot farthest from the side's median, when it is more
 * than HB_CMP_OUTLIER_RATIO times off and beyond HB_CMP_OUTLIER_SDS
 * calibrated sds, is moved to the end of c and *n reduced; returns its
 * center, or NAN when none. Only with a calibration, which says what a
 * boot's noise is: without one a far boot may be the metric's own noise
 * (wall-clock metrics vary by up to 65 %). At most one a side. */
static double hb_cmp_outlier_boot(double *c, size_t *n, double cal)
{
	double med, far = 0, lim = fmax(log(HB_CMP_OUTLIER_RATIO), HB_CMP_OUTLIER_SDS * cal), x;
	size_t k = *n;
	double *l;

	if (*n < HB_CMP_MIN_BOOTS || !(l = malloc(*n * sizeof(*l))))
		return NAN;
	for (size_t i = 0; i < *n; i++)
		l[i] = log(c[i]);
	med = hb_stats_median(l, *n);
	for (size_t i = 0; i < *n; i++)
		if (fabs(l[i] - med) > far) {
			far = fabs(l[i] - med);
			k = i;
		}
	free(l);
	if (k == *n || !(far > lim))
		return NAN;
	x = c[k];
	c[k] = c[*n - 1];
	c[*n - 1] = x;
	--*n;
	return x;
}

/* How far (log scale, signed) the mean log center m lies outside the
 * calibration's span widened by HB_CMP_SPAN_SDS calibrated sds; 0 inside,
 * NAN when the span is unknown. */
static double hb_cmp_off_span(const struct hb_cmp_mres *r, double m, double cal)
{
	double lo = r->calib_lo - HB_CMP_SPAN_SDS * cal, hi = r->calib_hi + HB_CMP_SPAN_SDS * cal;

	if (isnan(r->calib_lo) || isnan(r->calib_hi))
		return NAN;
	return m < lo ? m - lo : m > hi ? m - hi : 0;
}

/* Fewer than 3 boots a side: neither side's mean log center lies in the
 * calibration's span (widened by HB_CMP_SPAN_SDS sds): both sit in modes
 * it never saw, and its sd says nothing about them (issue 34). With the
 * calibration made on BASE's or NEW's kernel one side sits in it; a
 * calibration of a third kernel of the family whose level differs from
 * both makes the metric untestable too, which is said. */
static bool hb_cmp_unseen(const struct hb_cmp_mres *r, const double *ca, const double *cb,
			  double cal)
{
	double oa = hb_cmp_off_span(r, hb_cmp_mean_log(ca, r->na), cal);
	double ob = hb_cmp_off_span(r, hb_cmp_mean_log(cb, r->nb), cal);

	return oa != 0 && ob != 0 && !isnan(oa) && !isnan(ob);
}

/* Centers of one side into c; returns how many, -1 if one is not finite. */
static long hb_cmp_centers(const struct hb_cmp_metric *const *m, size_t n, bool use_median,
			   double *c, size_t *reps)
{
	size_t k = 0;

	*reps = 0;
	for (size_t i = 0; i < n; i++) {
		int got = hb_cmp_center(m[i], use_median, &c[k]);

		if (got < 0)
			return -1;
		if (got) {
			k++;
			*reps += m[i]->n_reps ? m[i]->n_reps : 1;
		}
	}
	return (long)k;
}

/* The two sides lie apart: every boot of one side above every boot of the
 * other, and the gap between them wider than either side's range (log
 * scale). No boot, and no subset of a side's boots, then bridges the
 * sides: the difference does not rest on an odd boot, which at most
 * widens its side's range. */
static bool hb_cmp_apart(const double *x, size_t nx, const double *y, size_t ny)
{
	double xl = INFINITY, xh = -INFINITY, yl = INFINITY, yh = -INFINITY, gap, range;

	for (size_t i = 0; i < nx; i++) {
		xl = fmin(xl, log(x[i]));
		xh = fmax(xh, log(x[i]));
	}
	for (size_t i = 0; i < ny; i++) {
		yl = fmin(yl, log(y[i]));
		yh = fmax(yh, log(y[i]));
	}
	gap = fmax(yl - xh, xl - yh);
	range = fmax(xh - xl, yh - yl);
	return gap > 0 && gap > range;
}

/* Boots mode: do the compared boots vary significantly more than the
 * calibrated sd cal says (> HB_CMP_SD_RATIO_NOTE times, F-test p <= alpha)
 * even without their one most outlying boot? Then the calibration does
 * not describe them and their own sd is used (Welch). One odd boot among
 * 6 (a rare mode: 10-30 % off on the virtual clock) does not make them
 * so: their variance still enters the pooled sd. */
static bool hb_cmp_noisier_but_one(const struct hb_cmp_mres *r, const double *ca,
				   const double *cb, double cal, const struct hb_cmp_opts *o)
{
	double df, sd = hb_cmp_pooled_drop1(ca, r->na, cb, r->nb, &df), ratio;

	if (isnan(sd) || df < 1)
		return r->sd_disagrees;
	ratio = fmax(sd, HB_CMP_SD_FLOOR) / cal;
	return ratio > HB_CMP_SD_RATIO_NOTE &&
	       hb_stats_var_ratio_p(ratio * ratio, df, r->calib_df > 0 ? r->calib_df : 1e6) <=
		       o->alpha;
}

/* hb_cmp_metric_test_boots with the pooled samples of each side sorted
 * once (sa, sb; NULL when a side has none or memory ran out): describe and
 * Mann-Whitney both read them (issue 38: three sorts of 10 million samples
 * were half of compare-report's time on a 100 MB result.json). */
static void hb_cmp_test_boots_sorted(const struct hb_cmp_metric *const *a, size_t na,
				     const struct hb_cmp_metric *const *b, size_t nb,
				     const struct hb_cmp_metric *pool_a,
				     const struct hb_cmp_metric *pool_b, const double *sa,
				     const double *sb, double *ca, double *cb,
				     const struct hb_cmp_limits *lim, const struct hb_cmp_calref *cref,
				     const struct hb_cmp_opts *o, struct hb_cmp_mres *r)
{
	const struct hb_cmp_metric *any = NULL;
	const char *ua = NULL, *ub = NULL;
	size_t pa, pb, va, vb, dist_n = 0, with_n = 0;
	const char *src = "-";
	long ka, kb;
	double cal;
	bool wg, pos, median, noisier = false, floor_only = false;

	for (size_t i = 0; !any && i < na; i++)
		any = a[i];
	for (size_t i = 0; !any && i < nb; i++)
		any = b[i];
	if (!any)
		return;
	hb_cmp_reset(r, any, lim);
	r->a = pool_a;
	r->b = pool_b;
	if (sa)
		hb_stats_describe_sorted(sa, pool_a->n, &r->da);
	else
		hb_stats_describe(pool_a && pool_a->samples ? pool_a->samples : NULL,
				  pool_a ? pool_a->n : 0, &r->da);
	if (sb)
		hb_stats_describe_sorted(sb, pool_b->n, &r->db);
	else
		hb_stats_describe(pool_b && pool_b->samples ? pool_b->samples : NULL,
				  pool_b ? pool_b->n : 0, &r->db);
	r->center_a = r->da.n >= HB_CMP_DIST_PER_REP && !lim->virtual_clock ? r->da.p50 : r->da.mean;
	r->center_b = r->db.n >= HB_CMP_DIST_PER_REP && !lim->virtual_clock ? r->db.p50 : r->db.mean;
	pa = hb_cmp_presence(a, na, &va, &ua);
	pb = hb_cmp_presence(b, nb, &vb, &ub);
	if (!pa || !pb) {
		r->verdict = HB_CMP_MISSING;
		snprintf(r->why, sizeof(r->why), "only in %s", pa ? "BASE" : "NEW");
		return;
	}
	if (!va || !vb) {
		r->verdict = HB_CMP_UNAVAILABLE;
		snprintf(r->why, sizeof(r->why), "%s", !va ? ua : ub);
		return;
	}
	/* A distribution when every boot with samples has >= 5 per repetition. */
	for (size_t s = 0; s < 2; s++)
		for (size_t i = 0; i < (s ? nb : na); i++) {
			const struct hb_cmp_metric *m = s ? b[i] : a[i];

			if (!m || m->unavailable || !m->n)
				continue;
			with_n++;
			dist_n += hb_cmp_metric_is_dist(m);
		}
	r->distribution = with_n && dist_n == with_n;
	median = r->distribution && !lim->virtual_clock;
	ka = hb_cmp_centers(a, na, median, ca, &r->reps_a);
	kb = hb_cmp_centers(b, nb, median, cb, &r->reps_b);
	if (ka < 0 || kb < 0) {
		r->not_judged = true;
		snprintf(r->why, sizeof(r->why), "not judged: a boot center is not a finite number (%s)",
			 "samples that are not finite numbers, or beyond what a double can hold");
		return;
	}
	r->ca = ca;
	r->cb = cb;
	r->na = (size_t)ka;
	r->nb = (size_t)kb;
	if (!r->na || !r->nb) {
		snprintf(r->why, sizeof(r->why), "%zu vs %zu boots with a value: too few to test",
			 r->na, r->nb);
		return;
	}
	wg = r->better != HB_CMP_HIGHER; /* info metrics: "worse" only names a side */
	pos = hb_cmp_all_positive(ca, r->na) && hb_cmp_all_positive(cb, r->nb);
	if (cref && !isnan(cref->sd)) {
		r->sd_calib = cref->sd;
		r->calib_df = cref->boots >= 2 ? (double)(cref->boots - 1) : 0;
		r->calib_lo = cref->lo;
		r->calib_hi = cref->hi;
		src = "calibration";
	} else if (!isnan(lim->boot_sd_pct)) {
		r->sd_calib = lim->boot_sd_pct / 100;
		src = "thresholds";
	} else if (lim->virtual_clock && lim->sd_floor_virtual_pct > 0 &&
		   r->na >= HB_CMP_MIN_BOOTS && r->nb >= HB_CMP_MIN_BOOTS) {
		/* a floor only, with 3 or more boots a side: a metric whose
		 * boots fall in discrete modes (configs/thresholds.conf) */
		r->sd_calib = lim->sd_floor_virtual_pct / 100;
		r->calib_df = HB_CMP_FLOOR_DF;
		src = "thresholds";
		floor_only = true;
	}
	cal = isnan(r->sd_calib) ? NAN : fmax(r->sd_calib, HB_CMP_SD_FLOOR);
	/* a floor leaves no boot out and says nothing of these boots' noise:
	 * a kernel may well vary more than the metric's floor */
	if (pos && !isnan(cal) && r->better != HB_CMP_INFO && !floor_only) {
		r->excl_a = hb_cmp_outlier_boot(ca, &r->na, cal);
		r->excl_b = hb_cmp_outlier_boot(cb, &r->nb, cal);
	}
	if (pos)
		hb_cmp_pooled(ca, r->na, cb, r->nb, &r->sd_measured, &r->df_measured);
	/* does the noise of these boots look like the calibration's? */
	if (r->better != HB_CMP_INFO && !isnan(cal) && !isnan(r->sd_measured) &&
	    r->df_measured >= 1 && !floor_only) {
		double sm = fmax(r->sd_measured, HB_CMP_SD_FLOOR), ratio = sm / cal;

		r->sd_check_p = hb_stats_var_ratio_p(ratio * ratio, r->df_measured,
						     r->calib_df > 0 ? r->calib_df : 1e6);
		r->sd_disagrees = r->sd_check_p <= o->alpha &&
				  (ratio > HB_CMP_SD_RATIO_NOTE || ratio < 1 / HB_CMP_SD_RATIO_NOTE);
		/* with fewer than 3 boots a side the calibration alone would
		 * judge: any significant sign that these boots vary more than it
		 * says (F-test p <= alpha, whatever the ratio; the note keeps its
		 * 3x) leaves it unable to vouch. At 2 + 2 (2 df against a
		 * calibration's 29) that takes a ratio of 2.3 or more: one NEW boot
		 * 30 % off in a mode 30 boots never showed, ratio 2.97, was a
		 * flag in 1.5 % of real 2 + 2 A/A splits (docs/compare.md) */
		noisier = r->sd_check_p <= o->alpha && ratio > 1;
	}
	if (r->na >= HB_CMP_MIN_BOOTS && r->nb >= HB_CMP_MIN_BOOTS) {
		double measured, floor = fmin(cal, HB_CMP_CALIB_SD_CEIL);

		r->mode = HB_CMP_MODE_BOOTS;
		if (pos && !isnan(cal) && !(r->sd_measured >= floor)) {
			/* the calibrated sd is a floor under the measured one, capped
			 * at the ceiling: a calibration cannot blind a metric */
			hb_cmp_t_calib(ca, r->na, cb, r->nb, floor, r->calib_df, wg, o, r);
			r->sd_log = floor;
			r->sd_source = src;
		} else if (pos && !isnan(cal) && r->calib_df > 0 && cal <= HB_CMP_CALIB_SD_CEIL &&
			   !floor_only && r->better != HB_CMP_INFO && hb_cmp_apart(ca, r->na, cb, r->nb) &&
			   !hb_cmp_noisier_but_one(r, ca, cb, cal, o)) {
			/* the boots vary more than the calibration says, but not
			 * beyond what it and one odd boot explain, and the sides lie
			 * apart (no boot bridges them): the floor is raised to the
			 * sd of the calibration and these boots pooled, with the
			 * calibration's df as when the floor binds, so this test is
			 * never more liberal than the floor's at the same sd (issue
			 * 34: Welch's df fell to ~2 when one of 3 boots was odd,
			 * and a 3x change went unflagged) */
			double s = sqrt((r->calib_df * cal * cal + r->df_measured * r->sd_measured *
					 r->sd_measured) / (r->calib_df + r->df_measured));

			hb_cmp_t_calib(ca, r->na, cb, r->nb, s, r->calib_df, wg, o, r);
			r->test = "t(log boot centers, calibrated and measured sd pooled)";
			r->sd_log = s;
			r->sd_source = "pooled";
		} else {
			hb_cmp_welch_boots(ca, r->na, cb, r->nb, wg, o, r, &measured);
			r->sd_log = measured;
			r->sd_source = isnan(measured) ? "-" : "measured";
		}
	} else if (!isnan(cal) && pos && r->better != HB_CMP_INFO &&
		   (cal > HB_CMP_CALIB_SD_CEIL || noisier || hb_cmp_unseen(r, ca, cb, cal))) {
		/* fewer than 3 boots a side: the calibration alone would decide, and
		 * it cannot vouch for these boots. Said so, never a silent "same" or
		 * a flag on the calibration alone (issue 34). */
		r->mode = HB_CMP_MODE_CALIB;
		r->verdict = HB_CMP_UNTESTABLE;
		r->center_a = exp(hb_cmp_mean_log(ca, r->na));
		r->center_b = exp(hb_cmp_mean_log(cb, r->nb));
		r->untestable = noisier ? HB_CMP_UNT_NOISIER
			      : cal > HB_CMP_CALIB_SD_CEIL ? HB_CMP_UNT_CEILING : HB_CMP_UNT_UNSEEN;
		if (r->untestable == HB_CMP_UNT_UNSEEN)
			snprintf(r->why, sizeof(r->why),
				 "untestable: neither side sits where the calibration's boots did "
				 "(BASE %+.2g%%, NEW %+.2g%% from its span [%.6g, %.6g] widened by %d sds of "
				 "%.2g%%): it cannot vouch for their noise, and %zu vs %zu boots are too few "
				 "to show it (>= %d a side)",
				 hb_cmp_off_span(r, hb_cmp_mean_log(ca, r->na), cal) * 100,
				 hb_cmp_off_span(r, hb_cmp_mean_log(cb, r->nb), cal) * 100,
				 exp(r->calib_lo), exp(r->calib_hi), HB_CMP_SPAN_SDS, cal * 100, r->na,
				 r->nb, HB_CMP_MIN_BOOTS);
		else if (noisier)
			snprintf(r->why, sizeof(r->why),
				 "untestable: these boots vary %.2g%% (pooled, %.0f df), the calibration "
				 "says %.2g%% (F-test p=%.2g); %zu vs %zu boots are too few to judge "
				 "alone (>= %d a side)", r->sd_measured * 100, r->df_measured, cal * 100,
				 r->sd_check_p, r->na, r->nb, HB_CMP_MIN_BOOTS);
		else
			snprintf(r->why, sizeof(r->why),
				 "untestable: calibrated boot sd %.2g%% is above the ceiling %.3g%% (log "
				 "scale); %zu vs %zu boots are too few to show its noise (>= %d a side)",
				 cal * 100, HB_CMP_CALIB_SD_CEIL * 100, r->na, r->nb, HB_CMP_MIN_BOOTS);
	} else if (!isnan(cal) && pos) {
		r->mode = HB_CMP_MODE_CALIB;
		hb_cmp_t_calib(ca, r->na, cb, r->nb, cal, r->calib_df, wg, o, r);
		/* both sides outside were untestable above: at most one is */
		r->one_unseen = hb_cmp_off_span(r, hb_cmp_mean_log(ca, r->na), cal) != 0 ||
				hb_cmp_off_span(r, hb_cmp_mean_log(cb, r->nb), cal) != 0;
		r->sd_log = cal;
		r->sd_source = src;
	} else {
		r->mode = HB_CMP_MODE_ADVISORY;
		r->center_a = pos ? exp(hb_cmp_mean_log(ca, r->na)) : hb_stats_mean(ca, r->na);
		r->center_b = pos ? exp(hb_cmp_mean_log(cb, r->nb)) : hb_stats_mean(cb, r->nb);
		/* one boot per side: what its samples say, as a description */
		if (r->na == 1 && r->nb == 1 && r->distribution && pool_a && pool_b &&
		    pool_a->n >= 3 && pool_b->n >= 3) {
			struct hb_stats_test t;

			if (sa && sb ? !hb_stats_mann_whitney_sorted(sa, pool_a->n, sb, pool_b->n,
								      wg ? HB_STATS_GREATER
									 : HB_STATS_LESS,
								      &t)
				     : !hb_stats_mann_whitney(pool_a->samples, pool_a->n,
							      pool_b->samples, pool_b->n,
							      wg ? HB_STATS_GREATER : HB_STATS_LESS,
							      &t))
				r->p_within = t.p;
		}
	}
	/* 1 + (NEW - BASE) / |BASE|: center_b / center_a for a positive BASE. */
	r->ratio = hb_stats_rel(r->center_a, r->center_b);
	r->change_pct = (r->ratio - 1) * 100;
	r->worse_pct = r->better == HB_CMP_HIGHER ? -r->change_pct : r->change_pct;
	hb_cmp_check_finite(r);
}

/* A sorted copy of a side's pooled samples, or NULL (none, or no memory:
 * then the unsorted functions are used). */
static double *hb_cmp_sorted_pool(const struct hb_cmp_metric *m)
{
	double *s;

	if (!m || !m->samples || !m->n || !(s = malloc(m->n * sizeof(*s))))
		return NULL;
	memcpy(s, m->samples, m->n * sizeof(*s));
	hb_stats_sort(s, m->n);
	return s;
}

/* A copy of m with every value made f times larger; false when out of
 * memory. */
static bool hb_cmp_scaled(const struct hb_cmp_metric *m, double f, struct hb_cmp_metric *out)
{
	*out = *m;
	out->samples = out->rep_means = NULL;
	if (m->samples && m->n && !(out->samples = malloc(m->n * sizeof(double))))
		return false;
	if (m->rep_means && m->n_reps && !(out->rep_means = malloc(m->n_reps * sizeof(double))))
		return false;
	for (size_t i = 0; out->samples && i < m->n; i++)
		out->samples[i] = m->samples[i] * f;
	for (size_t i = 0; out->rep_means && i < m->n_reps; i++)
		out->rep_means[i] = m->rep_means[i] * f;
	return true;
}

/* p(worse) of the test of r had NEW been 3x worse than BASE: every NEW
 * value scaled so that NEW's center is 3x BASE's (/3 when higher is
 * better), its boots' spread kept. Could these boots, with this noise and
 * this calibration, show a 3x change at all? NEW is put at 3x BASE, not at
 * 3x itself, so that a 3x change the comparison missed is asked about
 * as it is, not as a 9x one. NAN when that test would not be made (a
 * center not positive, untestable, not a number, out of memory). */
static double hb_cmp_p_worse_3x(const struct hb_cmp_metric *const *a, size_t na,
				const struct hb_cmp_metric *const *b, size_t nb,
				const struct hb_cmp_limits *lim, const struct hb_cmp_calref *cref,
				const struct hb_cmp_opts *o, const struct hb_cmp_mres *r)
{
	struct hb_cmp_metric *b3 = calloc(nb, sizeof(*b3));
	const struct hb_cmp_metric **pb3 = calloc(nb, sizeof(*pb3));
	double *ca = calloc(na, sizeof(*ca)), *cb = calloc(nb, sizeof(*cb)), p = NAN;
	struct hb_cmp_mres r3 = { .workload = r->workload, .wl_name = r->wl_name };
	double f = r->center_a / r->center_b * (r->better == HB_CMP_HIGHER ? 1.0 / 3 : 3);
	bool ok = b3 && pb3 && ca && cb && r->center_a > 0 && r->center_b > 0 && isfinite(f);

	for (size_t k = 0; ok && k < nb; k++)
		if (b[k]) {
			ok = hb_cmp_scaled(b[k], f, &b3[k]);
			pb3[k] = &b3[k];
		}
	if (ok) {
		hb_cmp_test_boots_sorted(a, na, pb3, nb, NULL, NULL, NULL, NULL, ca, cb, lim, cref,
					 o, &r3);
		if ((r3.mode == HB_CMP_MODE_BOOTS || r3.mode == HB_CMP_MODE_CALIB) &&
		    r3.verdict != HB_CMP_UNTESTABLE && !r3.not_judged)
			p = r3.p_worse;
	}
	for (size_t k = 0; b3 && k < nb; k++) {
		free(b3[k].samples);
		free(b3[k].rep_means);
	}
	free(b3);
	free(pb3);
	free(ca);
	free(cb);
	return p;
}

void hb_cmp_metric_test_boots(const struct hb_cmp_metric *const *a, size_t na,
			      const struct hb_cmp_metric *const *b, size_t nb,
			      const struct hb_cmp_metric *pool_a, const struct hb_cmp_metric *pool_b,
			      double *ca, double *cb, const struct hb_cmp_limits *lim,
			      const struct hb_cmp_calref *cref, const struct hb_cmp_opts *o,
			      struct hb_cmp_mres *r)
{
	double *sa = hb_cmp_sorted_pool(pool_a), *sb = hb_cmp_sorted_pool(pool_b);

	hb_cmp_test_boots_sorted(a, na, b, nb, pool_a, pool_b, sa, sb, ca, cb, lim, cref, o, r);
	free(sa);
	free(sb);
	r->p_worse_3x = NAN;
	if ((r->mode == HB_CMP_MODE_BOOTS || r->mode == HB_CMP_MODE_CALIB) &&
	    r->verdict != HB_CMP_UNTESTABLE && !r->not_judged && r->better != HB_CMP_INFO)
		r->p_worse_3x = hb_cmp_p_worse_3x(a, na, b, nb, lim, cref, o, r);
}

void hb_cmp_metric_test(const struct hb_cmp_metric *a, const struct hb_cmp_metric *b,
			const struct hb_cmp_limits *lim, const struct hb_cmp_opts *o,
			struct hb_cmp_mres *r)
{
	double ca[1], cb[1];

	hb_cmp_metric_test_boots(&a, 1, &b, 1, a, b, ca, cb, lim, NULL, o, r);
	/* the centers live on this stack only */
	r->ca = r->cb = NULL;
}

/* The change in the worse direction on the log scale (> 0 worse), or for
 * raw values the worse % as a fraction; compared with log(1 + me). */
static bool hb_cmp_beyond(const struct hb_cmp_mres *r, bool worse)
{
	double me = log1p(r->min_effect_pct / 100), d;

	if (r->center_a > 0 && r->center_b > 0) {
		d = log(r->center_b / r->center_a);
		if (r->better == HB_CMP_HIGHER)
			d = -d;
		if (!worse)
			d = -d;
		return d >= me * (1 - 1e-12);
	}
	/* a zero or negative center: the relative change, as before */
	d = worse ? r->worse_pct : -r->worse_pct;
	return d >= r->min_effect_pct;
}

/* " (boot sd 2.1% measured)": the noise the test used. */
static void hb_cmp_noise_txt(char *buf, size_t len, const struct hb_cmp_mres *r)
{
	if (isnan(r->sd_log))
		buf[0] = 0;
	else
		snprintf(buf, len, "; boot sd %.2g%% %s", r->sd_log * 100, r->sd_source);
}

/* The interval of the change lies entirely on the worse (or the better)
 * side of no change. */
static bool hb_cmp_interval_side(const struct hb_cmp_mres *r, bool worse)
{
	bool up = (r->better == HB_CMP_HIGHER) != worse; /* the ratio is above 1 */

	if (isnan(r->ci_lo) || isnan(r->ci_hi))
		return false;
	return up ? r->ci_lo > 1 : r->ci_hi < 1;
}

/* Calibrated mode (fewer than 3 boots a side): a change that would be
 * flagged but is no larger than the span of the calibration's own boot
 * centers. The calibration has seen two boots of one kernel differ by as
 * much: a mode it saw (a metric whose boots sit at 77 616 or 79 200 ns)
 * cannot be told from a change with 2 boots a side, however small its sd
 * (issue 34). Normal noise is hardly touched: its span over 10 boots is
 * about 3 sds, a flag at 2 + 2 needs about 6. */
static bool hb_cmp_within_span(const struct hb_cmp_mres *r)
{
	if (r->mode != HB_CMP_MODE_CALIB || isnan(r->calib_lo) || isnan(r->calib_hi) ||
	    !(r->center_a > 0 && r->center_b > 0))
		return false;
	return fabs(log(r->center_b / r->center_a)) <= r->calib_hi - r->calib_lo;
}

static void hb_cmp_judge(struct hb_cmp_mres *r, const struct hb_cmp_opts *o)
{
	double w = r->worse_pct;
	char nz[64];

	hb_cmp_noise_txt(nz, sizeof(nz), r);
	if (((r->q_worse <= o->alpha && w > 0 && hb_cmp_beyond(r, true)) ||
	     (r->q_better <= o->alpha && w < 0 && hb_cmp_beyond(r, false))) &&
	    hb_cmp_within_span(r)) {
		r->verdict = HB_CMP_UNTESTABLE;
		r->untestable = HB_CMP_UNT_SPAN;
		snprintf(r->why, sizeof(r->why),
			 "untestable: a change of %+.2f%% (q=%.2g) lies within the span of the "
			 "calibration's own boot centers (%.3g%%, [%.6g, %.6g]): %zu vs %zu boots cannot "
			 "tell a mode it saw from a change (>= %d a side)", r->change_pct,
			 w > 0 ? r->q_worse : r->q_better, expm1(r->calib_hi - r->calib_lo) * 100,
			 exp(r->calib_lo), exp(r->calib_hi), r->na, r->nb, HB_CMP_MIN_BOOTS);
		return;
	}
	if (((r->q_worse <= o->alpha && w > 0 && hb_cmp_beyond(r, true)) ||
	     (r->q_better <= o->alpha && w < 0 && hb_cmp_beyond(r, false))) &&
	    r->mode == HB_CMP_MODE_CALIB && r->one_unseen && !isnan(o->unseen_min_pct) &&
	    r->center_a > 0 && r->center_b > 0 &&
	    fabs(log(r->center_b / r->center_a)) < log1p(o->unseen_min_pct / 100)) {
		r->verdict = HB_CMP_UNTESTABLE;
		r->untestable = HB_CMP_UNT_ONE_UNSEEN;
		snprintf(r->why, sizeof(r->why),
			 "untestable: a change of %+.2f%% (q=%.2g) with one side where the "
			 "calibration's boots never were ([%.6g, %.6g]) is below %g%%: %zu vs %zu "
			 "boots cannot tell a mode it never saw from a change (>= %d a side)",
			 r->change_pct, w > 0 ? r->q_worse : r->q_better, exp(r->calib_lo),
			 exp(r->calib_hi), o->unseen_min_pct, r->na, r->nb, HB_CMP_MIN_BOOTS);
		return;
	}
	if (r->q_worse <= o->alpha && w > 0 && hb_cmp_beyond(r, true)) {
		r->verdict = HB_CMP_WORSE;
		snprintf(r->why, sizeof(r->why), "%s q=%.2g <= %g, worse by %.1f%% (min effect %g%% %s%s)",
			 r->test, r->q_worse, o->alpha, w, r->min_effect_pct, r->min_effect_source, nz);
		return;
	}
	if (r->q_better <= o->alpha && w < 0 && hb_cmp_beyond(r, false)) {
		r->verdict = HB_CMP_BETTER;
		snprintf(r->why, sizeof(r->why), "%s q=%.2g <= %g, better by %.1f%%%s", r->test,
			 r->q_better, o->alpha, -w, nz);
		return;
	}
	if (((w > 0 && (r->q_worse <= o->alpha || hb_cmp_interval_side(r, true))) ||
	     (w < 0 && (r->q_better <= o->alpha || hb_cmp_interval_side(r, false)))) &&
	    !hb_cmp_beyond(r, w > 0)) {
		/* certain (q <= alpha, or its interval entirely on that side of no
		 * change) but smaller than the minimum effect: listed with its size
		 * and interval, never shown as "same". A change beyond the minimum
		 * effect whose interval is one-sided but whose q is above alpha
		 * (BH over the family) is not significant: "same", not "small"
		 * (it was "small ... worse by 227% < min effect 0.5%"). */
		char lo[24] = "-", hi[24] = "-";

		if (!isnan(r->ci_lo)) {
			snprintf(lo, sizeof(lo), "%+.2f%%", (r->ci_lo - 1) * 100);
			snprintf(hi, sizeof(hi), "%+.2f%%", (r->ci_hi - 1) * 100);
		}
		r->verdict = HB_CMP_SMALL;
		snprintf(r->why, sizeof(r->why), "certain change %+.2f%% [%s, %s] (q=%.2g), %s by %.2f%% "
			 "< min effect %g%% (%s): below the minimum effect, not a regression",
			 r->change_pct, lo, hi, w > 0 ? r->q_worse : r->q_better,
			 w > 0 ? "worse" : "better", fabs(w), r->min_effect_pct, r->min_effect_source);
		return;
	}
	r->verdict = HB_CMP_SAME;
	if (w > 0)
		snprintf(r->why, sizeof(r->why), "not significant (q=%.2g > %g; detectable %.3g%%%s)",
			 r->q_worse, o->alpha, r->mde_pct, nz);
	else
		snprintf(r->why, sizeof(r->why), "no worse");
}

/* In the BH family: every tested metric. No metric is picked out by its
 * noise (a noisy metric simply needs a larger change); picking metrics by an
 * sd measured on the same boots would also favour those whose t is large by
 * chance. */
static bool hb_cmp_in_family(const struct hb_cmp_mres *r)
{
	return r->better != HB_CMP_INFO &&
	       (r->mode == HB_CMP_MODE_BOOTS || r->mode == HB_CMP_MODE_CALIB) &&
	       r->verdict == HB_CMP_UNTESTED && !r->not_judged;
}

size_t hb_cmp_decide(struct hb_cmp_mres *r, size_t n, const struct hb_cmp_opts *o)
{
	double *pw = calloc(n + 1, sizeof(*pw)), *pb = calloc(n + 1, sizeof(*pb));
	double *qw = calloc(n + 1, sizeof(*qw)), *qb = calloc(n + 1, sizeof(*qb));
	size_t family = 0;

	if (!pw || !pb || !qw || !qb)
		goto out;
	/* Two families, each BH-controlled: "NEW is worse" over every tested
	 * metric (the exit code rests on it), and "NEW is better". Advisory
	 * and within-boot p-values never enter them. */
	for (size_t i = 0; i < n; i++) {
		bool judged = hb_cmp_in_family(&r[i]);

		pw[i] = judged ? r[i].p_worse : NAN;
		pb[i] = judged ? r[i].p_better : NAN;
		family += judged;
	}
	hb_stats_bh(pw, n, qw);
	hb_stats_bh(pb, n, qb);
	for (size_t i = 0; i < n; i++) {
		r[i].q_worse = qw[i];
		r[i].q_better = qb[i];
		if (r[i].verdict != HB_CMP_UNTESTED || r[i].not_judged)
			continue;
		if (r[i].mode == HB_CMP_MODE_BOOTS || r[i].mode == HB_CMP_MODE_CALIB) {
			double d = hb_cmp_detectable_pct(r[i].sd_log, r[i].df, r[i].na, r[i].nb, family,
							 o);

			r[i].mde_pct = isnan(d) ? NAN : fmax(d, r[i].min_effect_pct);
		}
		if (r[i].better == HB_CMP_INFO) {
			r[i].verdict = HB_CMP_INFO_ONLY;
			snprintf(r[i].why, sizeof(r[i].why), "info metric: shown, not judged");
		} else if (r[i].mode == HB_CMP_MODE_ADVISORY) {
			char pw_txt[96] = "";

			r[i].verdict = HB_CMP_ADVISORY;
			if (!isnan(r[i].p_within))
				snprintf(pw_txt, sizeof(pw_txt),
					 "; within one boot Mann-Whitney p(worse)=%.2g (descriptive)",
					 r[i].p_within);
			snprintf(r[i].why, sizeof(r[i].why),
				 "advisory: %zu vs %zu boots, too few to test without a calibration "
				 "(>= %d per side, or hugebench calibrate); cannot fail the run%s",
				 r[i].na, r[i].nb, HB_CMP_MIN_BOOTS, pw_txt);
		} else if (r[i].mode == HB_CMP_MODE_NONE) {
			if (!r[i].why[0])
				snprintf(r[i].why, sizeof(r[i].why), "%zu vs %zu boots: too few to test",
					 r[i].na, r[i].nb);
		} else {
			hb_cmp_judge(&r[i], o);
		}
		/* BH flags a lone effect when its p <= alpha / family; a metric
		 * at 0 (a count that stayed 0) has no 3x change to show */
		r[i].blind_3x = r[i].verdict == HB_CMP_SAME && r[i].center_a > 0 &&
				!(r[i].p_worse_3x <= o->alpha / (double)(family ? family : 1));
	}
out:
	free(pw);
	free(pb);
	free(qw);
	free(qb);
	return family;
}
