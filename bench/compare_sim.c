/* compare_sim.c - false alarms and power of compare-report's rule, by simulation.
 *
 * Not a test: a benchmark of decision rules. It simulates a suite of 40
 * judged metrics (half per-fault latency distributions, half one value per
 * repetition), two runs at a time, each run one boot: a boot effect shared
 * by all repetitions of a run, a repetition effect, and the samples. Latency
 * shapes are resampled from real runs (results/<target>/<run>/result.json)
 * when any exist, else lognormal with 2% slow outliers. It then measures,
 * for hugebench's rule (cmp_rule.c), the mmtests rule (|dmean| > sum of the
 * two 95% CI half-widths) and the LKP rule (>= 3 runs, ranges do not
 * overlap, change > 5%):
 *   - false alarms per suite: share of A/A suites with any regression;
 *   - power: share of trials where a 5/10/20% worse shift in one metric is
 *     flagged on that metric,
 * at 3, 5 and 10 repetitions, and prints a markdown table.
 *
 * Build and run from the repository root (see docs/compare.md):
 *   gcc -std=c11 -O2 -Iharness -o build/compare_sim bench/compare_sim.c \
 *       harness/stats.c harness/cmp_rule.c harness/cmp_util.c harness/cmp_load.c \
 *       harness/cmp_report.c -ljansson -lgsl -lgslcblas -lm
 *   build/compare_sim [--trials N] [--boot-sd PCT] [--rep-sd PCT] [--seed N] [--synthetic]
 */
#define _DEFAULT_SOURCE
#include "compare.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define SIM_METRICS 40
#define SIM_MAX_PER_REP 512
#define SIM_MAX_SHAPES 64

enum sim_rule { SIM_HB, SIM_MMTESTS, SIM_LKP, SIM_RULES };
static const char *const sim_rule_names[] = { "hugebench", "mmtests", "LKP" };

struct sim_shape { /* a latency distribution to resample, or lognormal */
	double *x;
	size_t n;
	const char *from;
};

struct sim_metric_kind {
	bool dist;
	size_t per_rep;
	double sigma;	    /* lognormal sample sd (synthetic) */
	int shape;	    /* index into shapes, -1 synthetic */
	enum hb_cmp_better better;
	struct hb_cmp_limits lim; /* from the thresholds */
};

struct sim {
	gsl_rng *rng;
	double boot_sd, rep_sd;
	struct sim_shape shapes[SIM_MAX_SHAPES];
	size_t n_shapes;
	struct sim_metric_kind kinds[SIM_METRICS];
	struct hb_cmp_opts opts;
	struct hb_cmp_thresholds th;
};

/* Collect real latency distributions: metrics with >= 5 samples per rep. */
static void sim_load_shapes(struct sim *s)
{
	glob_t g;

	if (glob("results/*/*/result.json", 0, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char err[512];
		struct hb_cmp_run *r = hb_cmp_load(g.gl_pathv[i], err, sizeof(err));

		if (!r)
			continue;
		for (size_t w = 0; w < r->n_workloads; w++)
			for (size_t m = 0; m < r->workloads[w].n_metrics; m++) {
				struct hb_cmp_metric *mt = &r->workloads[w].metrics[m];
				size_t reps = mt->n_reps ? mt->n_reps : 1, per = mt->n / reps;
				struct sim_shape *sh;

				if (mt->unavailable || mt->better == HB_CMP_INFO || per < 5 ||
				    s->n_shapes == SIM_MAX_SHAPES)
					continue;
				sh = &s->shapes[s->n_shapes++];
				/* one repetition's samples, scaled to median 1 */
				sh->n = per;
				sh->x = malloc(per * sizeof(double));
				memcpy(sh->x, mt->samples, per * sizeof(double));
				{
					double med = hb_stats_median(sh->x, per);

					for (size_t k = 0; k < per; k++)
						sh->x[k] /= med > 0 ? med : 1;
				}
				sh->from = strdup(mt->name);
			}
		hb_cmp_run_free(r);
	}
	globfree(&g);
}

static void sim_kinds(struct sim *s)
{
	static const double dist_sigma[] = { 0.1, 0.2, 0.3, 0.5 };
	static const double scalar_cov[] = { 0.01, 0.02, 0.03, 0.05 };

	for (int i = 0; i < SIM_METRICS; i++) {
		struct sim_metric_kind *k = &s->kinds[i];
		char name[32];

		k->dist = i < SIM_METRICS / 2;
		k->better = i % 3 == 2 ? HB_CMP_HIGHER : HB_CMP_LOWER;
		k->shape = -1;
		if (k->dist) {
			k->sigma = dist_sigma[i % 4];
			k->per_rep = i % 2 ? 32 : 256;
			k->better = HB_CMP_LOWER;
			if (s->n_shapes) {
				k->shape = (int)((size_t)i % s->n_shapes);
				k->per_rep = s->shapes[k->shape].n;
				if (k->per_rep > SIM_MAX_PER_REP)
					k->per_rep = SIM_MAX_PER_REP;
			}
		} else {
			k->sigma = scalar_cov[i % 4];
			k->per_rep = 1;
		}
		snprintf(name, sizeof(name), "m%d", i);
		hb_cmp_limits_for(&s->th, "sim", name, &k->lim);
	}
}

/* One simulated run of metric k: reps repetitions, factor `mult`. */
static void sim_run(struct sim *s, const struct sim_metric_kind *k, int reps, double mult,
		    struct hb_cmp_metric *m)
{
	double boot = exp(gsl_ran_gaussian(s->rng, s->boot_sd));

	m->n = (size_t)reps * k->per_rep;
	m->n_reps = (size_t)reps;
	m->better = k->better;
	m->name = "m";
	m->unit = "ns";
	m->unavailable = NULL;
	for (int r = 0; r < reps; r++) {
		double eff = mult * boot * exp(gsl_ran_gaussian(s->rng, s->rep_sd)), sum = 0;
		double *x = m->samples + (size_t)r * k->per_rep;
		const struct sim_shape *sh = k->shape >= 0 ? &s->shapes[k->shape] : NULL;

		for (size_t i = 0; i < k->per_rep; i++) {
			double v;

			if (sh)
				v = sh->x[gsl_rng_uniform_int(s->rng, sh->n)];
			else if (k->dist && gsl_rng_uniform(s->rng) < 0.02)
				v = 3 + 7 * gsl_rng_uniform(s->rng); /* slow outlier */
			else
				v = exp(gsl_ran_gaussian(s->rng, k->sigma));
			x[i] = 1000 * eff * v;
			sum += x[i];
		}
		m->rep_means[r] = sum / (double)k->per_rep;
	}
}

/* mmtests: worse difference of means over the sum of the 95% CI half-widths;
 * the rule flags a score > 1. */
static double sim_mmtests(const struct hb_cmp_metric *a, const struct hb_cmp_metric *b)
{
	size_t na = a->n_reps, nb = b->n_reps;
	double ma = hb_stats_mean(a->rep_means, na), mb = hb_stats_mean(b->rep_means, nb);
	double ha = gsl_cdf_tdist_Pinv(0.975, (double)na - 1) * hb_stats_sd(a->rep_means, na) /
		    sqrt((double)na);
	double hb = gsl_cdf_tdist_Pinv(0.975, (double)nb - 1) * hb_stats_sd(b->rep_means, nb) /
		    sqrt((double)nb);
	double worse = a->better == HB_CMP_HIGHER ? ma - mb : mb - ma;

	if (ha + hb <= 0)
		return worse > 0 ? INFINITY : 0;
	return worse / (ha + hb);
}

/* LKP: the worse change (ratio - 1) when the ranges do not overlap, else -1;
 * the rule flags a score > 0.05. */
static double sim_lkp(const struct hb_cmp_metric *a, const struct hb_cmp_metric *b)
{
	double mina = INFINITY, maxa = -INFINITY, minb = INFINITY, maxb = -INFINITY, ratio;

	if (a->n_reps < 3 || b->n_reps < 3)
		return -1;
	for (size_t i = 0; i < a->n_reps; i++) {
		mina = fmin(mina, a->rep_means[i]);
		maxa = fmax(maxa, a->rep_means[i]);
	}
	for (size_t i = 0; i < b->n_reps; i++) {
		minb = fmin(minb, b->rep_means[i]);
		maxb = fmax(maxb, b->rep_means[i]);
	}
	ratio = hb_stats_mean(b->rep_means, b->n_reps) / hb_stats_mean(a->rep_means, a->n_reps);
	if (a->better == HB_CMP_HIGHER)
		return maxb < mina ? 1 / ratio - 1 : -1;
	return minb > maxa ? ratio - 1 : -1;
}

/* One suite: score[rule][metric], flagged when > the rule's threshold
 * (hugebench: 1 for a regression, 0 otherwise). target < 0: A/A. */
static void sim_suite(struct sim *s, int reps, int target, double shift,
		      double score[SIM_RULES][SIM_METRICS])
{
	static double buf[4][SIM_METRICS][10 * SIM_MAX_PER_REP];
	static double rm[4][SIM_METRICS][10];
	struct hb_cmp_metric ma[SIM_METRICS], mb[SIM_METRICS];
	struct hb_cmp_mres res[SIM_METRICS];

	for (int i = 0; i < SIM_METRICS; i++) {
		const struct sim_metric_kind *k = &s->kinds[i];
		double mult = 1;

		if (i == target)
			mult = k->better == HB_CMP_HIGHER ? 1 / (1 + shift) : 1 + shift;
		ma[i].samples = buf[0][i];
		ma[i].rep_means = rm[0][i];
		mb[i].samples = buf[1][i];
		mb[i].rep_means = rm[1][i];
		sim_run(s, k, reps, 1, &ma[i]);
		sim_run(s, k, reps, mult, &mb[i]);
		memset(&res[i], 0, sizeof(res[i]));
		res[i].workload = "sim";
		hb_cmp_metric_test(&ma[i], &mb[i], &k->lim, &s->opts, &res[i]);
		score[SIM_MMTESTS][i] = sim_mmtests(&ma[i], &mb[i]);
		score[SIM_LKP][i] = sim_lkp(&ma[i], &mb[i]);
	}
	hb_cmp_decide(res, SIM_METRICS, &s->opts);
	for (int i = 0; i < SIM_METRICS; i++) {
		score[SIM_HB][i] = res[i].verdict == HB_CMP_WORSE;
		if (getenv("SIM_DEBUG") && score[SIM_HB][i] > 0 && i != target)
			fprintf(stderr, "false alarm: m%d reps %d shape %d per_rep %zu: %s\n", i, reps,
				s->kinds[i].shape, s->kinds[i].per_rep, res[i].why);
	}
}

static int sim_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A number in [lo, hi] (whole when `whole`), or NAN: atoi/atof accepted
 * "-5" and "x", and a negative --trials indexed before an array. */
static double sim_arg(const char *s, double lo, double hi, bool whole)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo && v <= hi) || (whole && v != floor(v)))
		return NAN;
	return v;
}

int main(int argc, char **argv)
{
	static const int reps_list[] = { 3, 5, 10 };
	static const double shifts[] = { 0.05, 0.10, 0.20 };
	struct sim s = { .boot_sd = 0.01, .rep_sd = 0.01 };
	int trials = 1000, synthetic = 0;
	double me = NAN, rbs = NAN;
	unsigned long seed = 1;
	char err[256];
	double fa[SIM_RULES][3], pw[SIM_RULES][3][3], side[SIM_RULES][3];
	double fa_cal[SIM_RULES][3], pw_cal[SIM_RULES][3][3], cal[SIM_RULES][3];
	const double thr[SIM_RULES] = { 0.5, 1, 0.05 }; /* each rule's own threshold */

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
		bool ok = true;

		if (!strcmp(o, "--synthetic")) {
			synthetic = 1;
			continue;
		}
		i++;
		if (!strcmp(o, "--trials") && (ok = !isnan(sim_arg(v, 10, 1e7, true))))
			trials = (int)sim_arg(v, 10, 1e7, true);
		else if (!strcmp(o, "--boot-sd") && (ok = !isnan(sim_arg(v, 0, 100, false))))
			s.boot_sd = sim_arg(v, 0, 100, false) / 100;
		else if (!strcmp(o, "--rep-sd") && (ok = !isnan(sim_arg(v, 0, 100, false))))
			s.rep_sd = sim_arg(v, 0, 100, false) / 100;
		else if (!strcmp(o, "--seed") && (ok = !isnan(sim_arg(v, 0, 4294967295.0, true))))
			seed = (unsigned long)sim_arg(v, 0, 4294967295.0, true);
		else if (!strcmp(o, "--min-effect"))
			ok = !isnan(me = sim_arg(v, 0, 99.9, false));
		else if (!strcmp(o, "--rule-boot-sd"))
			ok = !isnan(rbs = sim_arg(v, 0, 99.9, false));
		else
			ok = false;
		if (!ok) {
			fprintf(stderr, "usage: %s [--trials N] [--boot-sd PCT] [--rep-sd PCT] "
					"[--min-effect PCT] [--rule-boot-sd PCT] [--seed N] [--synthetic]\n"
					"  (N: 10 to 10000000 trials; PCT: 0 to 100; seed: 0 to 2^32-1)\n",
				argv[0]);
			return 2;
		}
	}
	s.rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(s.rng, seed);
	hb_cmp_opts_default(&s.opts);
	if (hb_cmp_thresholds_load("configs/thresholds.conf", &s.th, err, sizeof(err)))
		hb_cmp_thresholds_default(&s.th);
	if (!isnan(me) || !isnan(rbs)) { /* explicit rule settings replace the file */
		hb_cmp_thresholds_free(&s.th);
		if (!isnan(me))
			s.th.def.min_effect_pct = me;
		if (!isnan(rbs))
			s.th.def.boot_sd_pct = rbs;
	}
	if (!synthetic)
		sim_load_shapes(&s);
	sim_kinds(&s);

	for (int r = 0; r < 3; r++) {
		double *maxes[SIM_RULES];

		for (int u = 0; u < SIM_RULES; u++)
			maxes[u] = calloc((size_t)trials, sizeof(double));
		for (int t = 0; t < trials; t++) {
			double f[SIM_RULES][SIM_METRICS];

			sim_suite(&s, reps_list[r], -1, 0, f);
			for (int u = 0; u < SIM_RULES; u++) {
				maxes[u][t] = -INFINITY;
				for (int i = 0; i < SIM_METRICS; i++)
					maxes[u][t] = fmax(maxes[u][t], f[u][i]);
			}
		}
		for (int u = 0; u < SIM_RULES; u++) {
			int any = 0, any_cal = 0;

			for (int t = 0; t < trials; t++)
				any += maxes[u][t] > thr[u];
			fa[u][r] = (double)any / trials;
			/* calibrated: the smallest threshold with <= 1% A/A suites over it */
			qsort(maxes[u], (size_t)trials, sizeof(double), sim_cmp);
			cal[u][r] = fmax(thr[u], maxes[u][(int)(0.99 * trials)]);
			for (int t = 0; t < trials; t++)
				any_cal += maxes[u][t] > cal[u][r];
			fa_cal[u][r] = (double)any_cal / trials;
			free(maxes[u]);
		}
		for (int sh = 0; sh < 3; sh++) {
			int hits[SIM_RULES] = { 0 }, hits_cal[SIM_RULES] = { 0 };
			int others[SIM_RULES] = { 0 };

			for (int t = 0; t < trials; t++) {
				double f[SIM_RULES][SIM_METRICS];
				int target = t % SIM_METRICS;

				sim_suite(&s, reps_list[r], target, shifts[sh], f);
				for (int u = 0; u < SIM_RULES; u++) {
					bool o = false;

					hits[u] += f[u][target] > thr[u];
					hits_cal[u] += f[u][target] > cal[u][r];
					for (int i = 0; i < SIM_METRICS; i++)
						o |= i != target && f[u][i] > thr[u];
					others[u] += o;
				}
			}
			for (int u = 0; u < SIM_RULES; u++) {
				pw[u][r][sh] = (double)hits[u] / trials;
				pw_cal[u][r][sh] = (double)hits_cal[u] / trials;
				if (sh == 2)
					side[u][r] = (double)others[u] / trials;
			}
		}
	}

	printf("Simulated suite: %d judged metrics (%d latency distributions, %d one value per "
	       "repetition), %d trials per cell, boot-to-boot sd %.1f%%, repetition sd %.1f%%, "
	       "latency shapes: %s%s; hugebench: BH FDR %g, min effect %g%%, assumed boot sd %g%% "
	       "(%s).\n\n",
	       SIM_METRICS, SIM_METRICS / 2, SIM_METRICS / 2, trials, s.boot_sd * 100,
	       s.rep_sd * 100, s.n_shapes ? "resampled from " : "lognormal sd 0.1-0.5 + 2% outliers",
	       s.n_shapes ? "real runs under results/" : "", s.opts.alpha,
	       s.kinds[0].lim.min_effect_pct, s.kinds[0].lim.boot_sd_pct,
	       s.th.n ? "configs/thresholds.conf" : "defaults");
	printf("| rule | reps | false alarms / suite | power 5%% | power 10%% | power 20%% | "
	       "other metrics flagged (20%%) |\n|---|---:|---:|---:|---:|---:|---:|\n");
	for (int u = 0; u < SIM_RULES; u++)
		for (int r = 0; r < 3; r++)
			printf("| %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n",
			       sim_rule_names[u], reps_list[r], fa[u][r] * 100, pw[u][r][0] * 100,
			       pw[u][r][1] * 100, pw[u][r][2] * 100, side[u][r] * 100);
	printf("\nThe other rules made as strict as it takes for <= 1%% false alarms per suite "
	       "(threshold chosen on these A/A suites, an advantage hugebench does not get):\n\n"
	       "| rule | reps | threshold | false alarms / suite | power 5%% | power 10%% | "
	       "power 20%% |\n|---|---:|---|---:|---:|---:|---:|\n");
	for (int u = SIM_MMTESTS; u < SIM_RULES; u++)
		for (int r = 0; r < 3; r++)
			printf("| %s, calibrated | %d | %s > %.3g | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n",
			       sim_rule_names[u], reps_list[r],
			       u == SIM_MMTESTS ? "diff / CI half-widths" : "change",
			       cal[u][r], fa_cal[u][r] * 100, pw_cal[u][r][0] * 100,
			       pw_cal[u][r][1] * 100, pw_cal[u][r][2] * 100);
	hb_cmp_thresholds_free(&s.th);
	gsl_rng_free(s.rng);
	return 0;
}
