/* cmp_rule.c - thresholds and the per-metric decision rule of compare-report.
 *
 * THE RULE (also in docs/compare.md, where the simulation backs it):
 *
 * The unit of replication is the repetition, never the single sample: the
 * samples of one run share a boot (page layout, host noise, caches), so
 * thousands of per-fault samples do not make two runs thousands of
 * independent observations, and a test that pretends they do flags every
 * A/A pair. Per metric and per side:
 *
 *  - A metric is a *distribution* when it has >= 5 samples per repetition
 *    (per-fault latencies); its center is the median, else the mean.
 *  - REPS mode, when both sides have >= 3 repetitions: one value per
 *    repetition (the repetition's median for distributions, its rep_mean
 *    otherwise). Welch's t-test on the logs of those values (ratio scale;
 *    raw values if one is <= 0), one-sided toward "worse"; the ratio is the
 *    ratio of geometric means and its interval the Welch t interval on the
 *    log scale (a bootstrap of 3..10 values under-covers).
 *    Regression <=> BH q(worse) <= alpha AND change >= min_effect.
 *  - SAMPLES mode, when a side has < 3 repetitions but both have >= 3
 *    samples: the samples are all we have, so the test is on them (Mann-
 *    Whitney U for distributions, Welch on logs otherwise), but because
 *    within-boot samples understate run-to-run variance the effect must be
 *    shown to exceed the minimum effect, not only to be non-zero:
 *    Regression <=> q(worse) <= alpha AND change >= min_effect AND the
 *    ratio's interval (seeded bootstrap of the median ratio for
 *    distributions, t interval otherwise) lies entirely beyond
 *    1 +/- min_effect on the worse side.
 *  - NONE otherwise (one value per side): the change is shown, never judged.
 *
 * "Worse" follows the metric's direction (better: lower|higher); info
 * metrics are shown and never judged. BH runs over every judged metric of
 * one BASE/NEW comparison. Improvements are found the same way on the other
 * side. min_effect comes from configs/thresholds.conf.
 */
#define _DEFAULT_SOURCE
#include "compare.h"

#include <errno.h>
#include <fnmatch.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HB_CMP_DIST_PER_REP 5 /* samples per repetition that make a distribution */
#define HB_CMP_MIN_UNITS 3
#define HB_CMP_DEFAULT_MIN_EFFECT 5 /* % (configs/thresholds.conf explains) */
#define HB_CMP_DEFAULT_BOOT_SD 1    /* % */

void hb_cmp_opts_default(struct hb_cmp_opts *o)
{
	o->alpha = 0.01;
	o->ci_level = 0.99;
	o->boot_B = 2000;
	o->boot_cap = 4096;
	o->seed = 20151;
}

/* ---- thresholds.conf ----------------------------------------------------------- */

void hb_cmp_thresholds_default(struct hb_cmp_thresholds *t)
{
	t->lines = NULL;
	t->n = 0;
	t->def.min_effect_pct = HB_CMP_DEFAULT_MIN_EFFECT;
	t->def.boot_sd_pct = HB_CMP_DEFAULT_BOOT_SD;
}

void hb_cmp_thresholds_free(struct hb_cmp_thresholds *t)
{
	free(t->lines);
	t->lines = NULL;
	t->n = 0;
}

int hb_cmp_thresholds_load(const char *path, struct hb_cmp_thresholds *t, char *err,
			   size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lcap = 0;
	int lineno = 0;

	hb_cmp_thresholds_default(t);
	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &lcap, f) >= 0) { /* a line of any length is one line */
		struct hb_cmp_rule_line rl = { .lim = { NAN, NAN } };
		char *s = line, *tok, *save = NULL;

		lineno++;
		if ((tok = strchr(s, '#')))
			*tok = 0;
		tok = strtok_r(s, " \t\r\n", &save);
		if (!tok)
			continue;
		if (strlen(tok) >= sizeof(rl.pattern))
			goto bad_pattern;
		snprintf(rl.pattern, sizeof(rl.pattern), "%s", tok);
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			char *eq = strchr(tok, '='), *end;
			double v, *dst;

			if (eq && !strncmp(tok, "min_effect_pct=", 15))
				dst = &rl.lim.min_effect_pct;
			else if (eq && !strncmp(tok, "boot_sd_pct=", 12))
				dst = &rl.lim.boot_sd_pct;
			else {
				snprintf(err, errlen, "%s:%d: unknown setting \"%s\" (known: "
					 "min_effect_pct=N boot_sd_pct=N)", path, lineno, tok);
				goto fail;
			}
			v = strtod(eq + 1, &end);
			if (end == eq + 1 || *end || !(v >= 0 && v < 100)) { /* NAN too */
				snprintf(err, errlen, "%s:%d: %.*s wants a number in [0, 100), not \"%s\"",
					 path, lineno, (int)(eq - tok), tok, eq + 1);
				goto fail;
			}
			*dst = v;
		}
		if (isnan(rl.lim.min_effect_pct) && isnan(rl.lim.boot_sd_pct)) {
			snprintf(err, errlen, "%s:%d: \"%s\" sets nothing (want: %s min_effect_pct=N)",
				 path, lineno, rl.pattern, rl.pattern);
			goto fail;
		}
		if (hb_cmp_append((void **)&t->lines, &t->n, &cap, sizeof(rl), &rl)) {
			snprintf(err, errlen, "%s:%d: out of memory", path, lineno);
			goto fail;
		}
	}
	free(line);
	fclose(f);
	return 0;
bad_pattern:
	snprintf(err, errlen, "%s:%d: pattern too long", path, lineno);
fail:
	free(line);
	fclose(f);
	hb_cmp_thresholds_free(t);
	return -1;
}

void hb_cmp_limits_for(const struct hb_cmp_thresholds *t, const char *workload,
		       const char *metric, struct hb_cmp_limits *lim)
{
	const char *w = workload ? workload : "", *m = metric ? metric : "";
	size_t len = strlen(w) + strlen(m) + 2;
	char small[256], *key = len <= sizeof(small) ? small : malloc(len);

	*lim = t->def;
	if (!key)
		return; /* out of memory: the defaults */
	snprintf(key, len, "%s.%s", w, m);
	for (size_t i = 0; i < t->n; i++) {
		if (fnmatch(t->lines[i].pattern, key, 0))
			continue;
		if (!isnan(t->lines[i].lim.min_effect_pct))
			lim->min_effect_pct = t->lines[i].lim.min_effect_pct;
		if (!isnan(t->lines[i].lim.boot_sd_pct))
			lim->boot_sd_pct = t->lines[i].lim.boot_sd_pct;
	}
	if (key != small)
		free(key);
}

double hb_cmp_min_effect(const struct hb_cmp_thresholds *t, const char *workload,
			 const char *metric)
{
	struct hb_cmp_limits l;

	hb_cmp_limits_for(t, workload, metric, &l);
	return l.min_effect_pct;
}

/* ---- names ------------------------------------------------------------------- */

const char *hb_cmp_verdict_name(enum hb_cmp_verdict v)
{
	static const char *const names[] = { "same", "REGRESSION", "improvement", "info",
					     "untested", "unavailable", "missing" };

	return names[v];
}

const char *hb_cmp_mode_name(enum hb_cmp_mode m)
{
	static const char *const names[] = { "none", "reps", "samples" };

	return names[m];
}

const char *hb_cmp_better_name(enum hb_cmp_better b)
{
	static const char *const names[] = { "lower", "higher", "info" };

	return names[b];
}

/* ---- the test ---------------------------------------------------------------- */

static uint64_t hb_cmp_hash(const char *s, uint64_t h)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* One value per repetition, or NULL when there are fewer than 3. */
static double *hb_cmp_units(const struct hb_cmp_metric *m, bool dist, size_t *n)
{
	double *u;

	*n = 0;
	if (m->n_reps < HB_CMP_MIN_UNITS)
		return NULL;
	u = malloc(m->n_reps * sizeof(*u));
	if (!u)
		return NULL;
	if (dist && m->n % m->n_reps == 0) {
		size_t per = m->n / m->n_reps;

		for (size_t i = 0; i < m->n_reps; i++)
			u[i] = hb_stats_median(m->samples + i * per, per);
	} else {
		memcpy(u, m->rep_means, m->n_reps * sizeof(*u));
	}
	*n = m->n_reps;
	return u;
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

/* Welch on logs (or raw values): fills p-values, centers, ratio and t CI.
 * Raw values are first scaled by a power of two (exactly) into [-1, 1], so
 * that the boot-to-boot variance below cannot overflow and denormals do
 * not vanish. */
static void hb_cmp_welch_ratio(const double *x, size_t nx, const double *y, size_t ny,
			       bool worse_is_greater, const struct hb_cmp_opts *o,
			       struct hb_cmp_mres *r)
{
	bool logs = hb_cmp_all_positive(x, nx) && hb_cmp_all_positive(y, ny);
	double *lx = malloc(nx * sizeof(*lx)), *ly = malloc(ny * sizeof(*ly));
	struct hb_stats_test tg, tl;
	double lo, hi, bs = r->boot_sd_pct / 100, ev, m = 0;
	int k = 0;

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
	/* Each side's center carries one boot effect of sd bs (relative):
	 * var(difference) gains 2 bs^2 on the log scale. */
	ev = 2 * bs * bs;
	if (!logs)
		ev *= hb_stats_mean(lx, nx) * hb_stats_mean(lx, nx);
	hb_stats_welch_ev(lx, nx, ly, ny, ev, HB_STATS_GREATER, &tg);
	hb_stats_welch_ev(lx, nx, ly, ny, ev, HB_STATS_LESS, &tl);
	r->p_worse = worse_is_greater ? tg.p : tl.p;
	r->p_better = worse_is_greater ? tl.p : tg.p;
	r->ci_method = "t";
	if (logs) {
		r->test = "welch(log)";
		r->center_a = exp(hb_stats_mean(lx, nx));
		r->center_b = exp(hb_stats_mean(ly, ny));
		if (!hb_stats_welch_ev_ci(lx, nx, ly, ny, ev, o->ci_level, &lo, &hi)) {
			r->ci_lo = exp(lo);
			r->ci_hi = exp(hi);
		}
	} else {
		double ca = hb_stats_mean(lx, nx);

		r->test = "welch";
		r->center_a = ldexp(ca, -k);
		r->center_b = ldexp(hb_stats_mean(ly, ny), -k);
		/* A difference interval, relative to |BASE|: a zero or negative
		 * BASE keeps the direction (0 -> 1 is +inf, not "no ratio"). */
		if (!hb_stats_welch_ev_ci(lx, nx, ly, ny, ev, o->ci_level, &lo, &hi)) {
			r->ci_lo = hb_cmp_rel_diff(ca, lo);
			r->ci_hi = hb_cmp_rel_diff(ca, hi);
		}
	}
out:
	free(lx);
	free(ly);
}

static void hb_cmp_mw_median(const struct hb_cmp_metric *a, const struct hb_cmp_metric *b,
			     bool worse_is_greater, const struct hb_cmp_opts *o,
			     struct hb_cmp_mres *r)
{
	struct hb_stats_test tg, tl;
	uint64_t seed = hb_cmp_hash(r->name, hb_cmp_hash(r->workload, o->seed ^ 0xcbf29ce484222325ULL));

	hb_stats_mann_whitney(a->samples, a->n, b->samples, b->n, HB_STATS_GREATER, &tg);
	hb_stats_mann_whitney(a->samples, a->n, b->samples, b->n, HB_STATS_LESS, &tl);
	r->p_worse = worse_is_greater ? tg.p : tl.p;
	r->p_better = worse_is_greater ? tl.p : tg.p;
	r->test = "mann-whitney";
	r->ci_method = "bootstrap";
	r->center_a = r->da.p50;
	r->center_b = r->db.p50;
	if (hb_stats_bootstrap_ratio(a->samples, a->n, b->samples, b->n, HB_STATS_MEDIAN,
				     o->boot_B, o->ci_level, seed, o->boot_cap, &r->ci_lo, &r->ci_hi))
		return;
	/* Widen by the boot-to-boot term the samples of one boot cannot show:
	 * half-widths add in quadrature on the log scale. */
	if (r->center_a > 0 && r->center_b > 0 && r->ci_lo > 0) {
		double c = log(r->center_b / r->center_a);
		double zb = gsl_cdf_ugaussian_Pinv(0.5 + o->ci_level / 2) * sqrt(2) *
			    r->boot_sd_pct / 100;
		double dl = c - log(r->ci_lo), dh = log(r->ci_hi) - c;

		r->ci_lo = exp(c - sqrt(dl * dl + zb * zb));
		r->ci_hi = exp(c + sqrt(dh * dh + zb * zb));
		r->ci_method = "bootstrap+boot sd";
	}
}

/* A tested metric whose statistics are not numbers is not judged, and says
 * so: never a silent "same" (or worse) built on NAN. */
static void hb_cmp_check_finite(struct hb_cmp_mres *r)
{
	const char *bad = NULL;

	if (r->mode == HB_CMP_MODE_NONE)
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

static bool hb_cmp_is_dist(const struct hb_cmp_metric *m)
{
	size_t reps = m->n_reps ? m->n_reps : 1;

	return m->n >= HB_CMP_DIST_PER_REP * reps;
}

void hb_cmp_metric_test(const struct hb_cmp_metric *a, const struct hb_cmp_metric *b,
			const struct hb_cmp_limits *lim, const struct hb_cmp_opts *o,
			struct hb_cmp_mres *r)
{
	const struct hb_cmp_metric *any = a ? a : b;
	double *ua = NULL, *ub = NULL;
	size_t nua = 0, nub = 0;
	bool wg;

	r->a = a;
	r->b = b;
	r->name = any->name;
	r->unit = any->unit ? any->unit : "";
	r->better = any->better;
	r->min_effect_pct = lim->min_effect_pct;
	r->boot_sd_pct = lim->boot_sd_pct;
	r->mode = HB_CMP_MODE_NONE;
	r->test = "-";
	r->ci_method = "-";
	r->center_a = r->center_b = r->ratio = r->change_pct = r->worse_pct = NAN;
	r->ci_lo = r->ci_hi = r->p_worse = r->p_better = r->q_worse = r->q_better = NAN;
	r->not_judged = false;
	r->why[0] = 0;
	hb_stats_describe(a && a->samples ? a->samples : NULL, a ? a->n : 0, &r->da);
	hb_stats_describe(b && b->samples ? b->samples : NULL, b ? b->n : 0, &r->db);
	r->center_a = r->da.n >= HB_CMP_DIST_PER_REP ? r->da.p50 : r->da.mean;
	r->center_b = r->db.n >= HB_CMP_DIST_PER_REP ? r->db.p50 : r->db.mean;
	if (!a || !b) {
		r->verdict = HB_CMP_MISSING;
		snprintf(r->why, sizeof(r->why), "only in %s", a ? "BASE" : "NEW");
		return;
	}
	if (a->unavailable || b->unavailable) {
		r->verdict = HB_CMP_UNAVAILABLE;
		snprintf(r->why, sizeof(r->why), "%s", a->unavailable ? a->unavailable : b->unavailable);
		return;
	}
	r->verdict = HB_CMP_UNTESTED;
	r->distribution = hb_cmp_is_dist(a) && hb_cmp_is_dist(b);
	wg = r->better != HB_CMP_HIGHER; /* info metrics: "worse" only names a side */
	ua = hb_cmp_units(a, r->distribution, &nua);
	ub = hb_cmp_units(b, r->distribution, &nub);
	if (ua && ub) {
		r->mode = HB_CMP_MODE_REPS;
		hb_cmp_welch_ratio(ua, nua, ub, nub, wg, o, r);
		r->test = r->distribution ? (!strcmp(r->test, "welch") ? "welch(rep medians)"
								: "welch(log rep medians)")
					  : (!strcmp(r->test, "welch") ? "welch(rep means)"
								: "welch(log rep means)");
	} else if (a->n >= HB_CMP_MIN_UNITS && b->n >= HB_CMP_MIN_UNITS) {
		r->mode = HB_CMP_MODE_SAMPLES;
		if (r->distribution)
			hb_cmp_mw_median(a, b, wg, o, r);
		else
			hb_cmp_welch_ratio(a->samples, a->n, b->samples, b->n, wg, o, r);
	} else {
		r->center_a = r->da.mean;
		r->center_b = r->db.mean;
	}
	free(ua);
	free(ub);
	/* 1 + (NEW - BASE) / |BASE|: center_b / center_a for a positive BASE. */
	r->ratio = hb_stats_rel(r->center_a, r->center_b);
	r->change_pct = (r->ratio - 1) * 100;
	r->worse_pct = r->better == HB_CMP_HIGHER ? -r->change_pct : r->change_pct;
	hb_cmp_check_finite(r);
}

static void hb_cmp_judge(struct hb_cmp_mres *r, const struct hb_cmp_opts *o)
{
	double me = r->min_effect_pct, w = r->worse_pct;
	bool strict = r->mode == HB_CMP_MODE_SAMPLES;
	/* The interval's bound nearest to "no change", as a worse-% value. */
	double ci_near_worse = r->better == HB_CMP_HIGHER ? (1 - r->ci_hi) * 100
							  : (r->ci_lo - 1) * 100;
	double ci_near_better = r->better == HB_CMP_HIGHER ? (r->ci_lo - 1) * 100
							   : (1 - r->ci_hi) * 100;

	if (r->q_worse <= o->alpha && w >= me && (!strict || ci_near_worse > me)) {
		r->verdict = HB_CMP_WORSE;
		snprintf(r->why, sizeof(r->why), "%s q=%.2g <= %g, worse by %.1f%% >= %g%%%s",
			 r->test, r->q_worse, o->alpha, w, me,
			 strict ? ", interval beyond the minimum effect" : "");
		return;
	}
	if (r->q_better <= o->alpha && -w >= me && (!strict || ci_near_better > me)) {
		r->verdict = HB_CMP_BETTER;
		snprintf(r->why, sizeof(r->why), "%s q=%.2g <= %g, better by %.1f%%", r->test,
			 r->q_better, o->alpha, -w);
		return;
	}
	r->verdict = HB_CMP_SAME;
	if (w > 0 && r->q_worse <= o->alpha && w >= me && isnan(ci_near_worse))
		snprintf(r->why, sizeof(r->why),
			 "worse by %.1f%%, but no interval of the change could be computed (samples of one boot)",
			 w);
	else if (w > 0 && r->q_worse <= o->alpha && w >= me)
		snprintf(r->why, sizeof(r->why),
			 "worse by %.1f%% but the %g%% interval reaches %.1f%% < min effect %g%% (samples of one boot)",
			 w, o->ci_level * 100, ci_near_worse, me);
	else if (w > 0 && r->q_worse <= o->alpha)
		snprintf(r->why, sizeof(r->why), "significant but %.1f%% < min effect %g%%", w, me);
	else if (w > 0)
		snprintf(r->why, sizeof(r->why), "not significant (q=%.2g > %g)", r->q_worse, o->alpha);
	else
		snprintf(r->why, sizeof(r->why), "no worse");
}

void hb_cmp_decide(struct hb_cmp_mres *r, size_t n, const struct hb_cmp_opts *o)
{
	double *pw = calloc(n + 1, sizeof(*pw)), *pb = calloc(n + 1, sizeof(*pb));
	double *qw = calloc(n + 1, sizeof(*qw)), *qb = calloc(n + 1, sizeof(*qb));

	if (!pw || !pb || !qw || !qb)
		goto out;
	/* Two families, each BH-controlled: "NEW is worse" over every judged,
	 * tested metric (the exit code rests on it), and "NEW is better". */
	for (size_t i = 0; i < n; i++) {
		bool judged = r[i].better != HB_CMP_INFO && r[i].mode != HB_CMP_MODE_NONE &&
			      r[i].verdict == HB_CMP_UNTESTED && !r[i].not_judged;

		pw[i] = judged ? r[i].p_worse : NAN;
		pb[i] = judged ? r[i].p_better : NAN;
	}
	hb_stats_bh(pw, n, qw);
	hb_stats_bh(pb, n, qb);
	for (size_t i = 0; i < n; i++) {
		r[i].q_worse = qw[i];
		r[i].q_better = qb[i];
		if (r[i].verdict != HB_CMP_UNTESTED || r[i].not_judged)
			continue;
		if (r[i].better == HB_CMP_INFO) {
			r[i].verdict = HB_CMP_INFO_ONLY;
			snprintf(r[i].why, sizeof(r[i].why), "info metric: shown, not judged");
		} else if (r[i].mode == HB_CMP_MODE_NONE) {
			snprintf(r[i].why, sizeof(r[i].why), "%zu vs %zu values: too few to test",
				 r[i].da.n, r[i].db.n);
		} else {
			hb_cmp_judge(&r[i], o);
		}
	}
out:
	free(pw);
	free(pb);
	free(qw);
	free(qb);
}
