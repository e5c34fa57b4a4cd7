/* compare_sim.c - false alarms and power of compare-report's rule, by
 * simulation from measured boot-to-boot noise (issue 11; `make compare-sim`).
 *
 * Not a test: a benchmark of the decision rule. The rule works on one
 * center per boot, so a simulated boot is one center per metric. The
 * noise comes from a calibration file (`hugebench calibrate`; the one used
 * by `make compare-sim` is shipped as bench/data/, so the numbers do not
 * depend on the git-ignored results/): every timing metric of the suite
 * with its measured sd of the log boot center. Metrics with a boot sd of 0
 * (counts that never vary between boots) are left out: any change in them
 * is found at any boot count. Noise models, one row each:
 *   measured      each metric's boot centers lognormal with its measured sd;
 *   resampled     each metric's boot centers drawn (with replacement) from
 *                 its measured boot centers (keeps bimodal boots bimodal);
 *   3 / 5 / 10 %  every metric with that boot sd.
 * For 1, 3, 5 and 10 boots per side, without and with a calibration (the
 * calibration's sd is itself estimated per trial from as many A/A boots as
 * the file was measured on), it runs the real rule (cmp_rule.c:
 * hb_cmp_metric_test_boots + hb_cmp_decide, thresholds from
 * configs/thresholds.conf) and reports:
 *   judged       share of metrics the rule judges (the rest: advisory or
 *                too noisy to judge);
 *   false alarms share of A/A suites with any regression;
 *   power        share of trials in which NEW made one metric (chosen at
 *                random) 10 / 25 / 50 % worse and that metric was flagged.
 * Every metric is simulated as lower-is-better (the rule is symmetric).
 *
 *   build/compare_sim [--calibration FILE] [--trials N] [--seed N]
 *                     [--thresholds FILE]
 */
#define _DEFAULT_SOURCE
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define SIM_MAX_BOOTS 10
#define SIM_MAX_METRICS 512

enum sim_noise { SIM_MEASURED, SIM_RESAMPLED, SIM_FIXED };

struct sim_metric {
	char wl[128], name[128];
	double sd;	 /* measured sd of the log boot center */
	double *dev;	 /* measured log deviations from the mean (n) */
	size_t n;
	struct hb_cmp_limits lim;
};

struct sim {
	gsl_rng *rng;
	struct sim_metric m[SIM_MAX_METRICS];
	size_t n;
	size_t cal_boots; /* boots the calibration was measured on */
	struct hb_cmp_opts o;
};

/* One boot's log deviation of metric i under the noise model. */
static double sim_dev(struct sim *s, size_t i, enum sim_noise noise, double fixed_sd)
{
	const struct sim_metric *m = &s->m[i];

	switch (noise) {
	case SIM_MEASURED:
		return gsl_ran_gaussian(s->rng, m->sd);
	case SIM_RESAMPLED:
		return m->dev[gsl_rng_uniform_int(s->rng, m->n)];
	default:
		return gsl_ran_gaussian(s->rng, fixed_sd);
	}
}

/* The sd a calibration of cal_boots A/A boots would have measured. */
static double sim_cal_sd(struct sim *s, size_t i, enum sim_noise noise, double fixed_sd)
{
	double x[64], mean = 0, ss = 0;
	size_t n = s->cal_boots < 64 ? s->cal_boots : 64;

	for (size_t k = 0; k < n; k++) {
		x[k] = sim_dev(s, i, noise, fixed_sd);
		mean += x[k];
	}
	mean /= (double)n;
	for (size_t k = 0; k < n; k++)
		ss += (x[k] - mean) * (x[k] - mean);
	return sqrt(ss / (double)(n - 1));
}

struct sim_out {
	size_t judged, metrics;	   /* over all trials */
	bool any_worse, target_worse;
};

/* One suite: nb boots per side, metric `target` (or none) made `shift`
 * worse in NEW. */
static void sim_suite(struct sim *s, enum sim_noise noise, double fixed_sd, size_t nb, bool calib,
		      long target, double shift, struct sim_out *out)
{
	static double va[SIM_MAX_METRICS][SIM_MAX_BOOTS], vb[SIM_MAX_METRICS][SIM_MAX_BOOTS];
	static double ca[SIM_MAX_METRICS][SIM_MAX_BOOTS], cb[SIM_MAX_METRICS][SIM_MAX_BOOTS];
	static struct hb_cmp_metric ma[SIM_MAX_METRICS][SIM_MAX_BOOTS], mb[SIM_MAX_METRICS][SIM_MAX_BOOTS];
	static struct hb_cmp_mres r[SIM_MAX_METRICS];
	const struct hb_cmp_metric *pa[SIM_MAX_BOOTS], *pb[SIM_MAX_BOOTS];

	for (size_t i = 0; i < s->n; i++) {
		double mult = (long)i == target ? 1 + shift : 1;
		double cal = calib ? sim_cal_sd(s, i, noise, fixed_sd) : NAN;

		for (size_t k = 0; k < nb; k++) {
			va[i][k] = 1000 * exp(sim_dev(s, i, noise, fixed_sd));
			vb[i][k] = 1000 * mult * exp(sim_dev(s, i, noise, fixed_sd));
			ma[i][k] = (struct hb_cmp_metric){ .name = s->m[i].name, .unit = "ns",
							   .better = HB_CMP_LOWER,
							   .samples = &va[i][k], .n = 1 };
			mb[i][k] = ma[i][k];
			mb[i][k].samples = &vb[i][k];
			pa[k] = &ma[i][k];
			pb[k] = &mb[i][k];
		}
		r[i] = (struct hb_cmp_mres){ .workload = s->m[i].wl };
		hb_cmp_metric_test_boots(pa, nb, pb, nb, NULL, NULL, ca[i], cb[i], &s->m[i].lim, cal,
					 s->cal_boots, &s->o, &r[i]);
	}
	hb_cmp_decide(r, s->n, &s->o);
	out->any_worse = out->target_worse = false;
	for (size_t i = 0; i < s->n; i++) {
		bool j = r[i].verdict == HB_CMP_SAME || r[i].verdict == HB_CMP_WORSE ||
			 r[i].verdict == HB_CMP_BETTER;

		out->judged += j;
		out->metrics++;
		if (r[i].verdict == HB_CMP_WORSE) {
			if (getenv("SIM_DEBUG") && (long)i != target)
				fprintf(stderr, "false alarm: %zu boots: %s.%s: %s\n", nb, s->m[i].wl,
					s->m[i].name, r[i].why);
			out->any_worse = true;
			if ((long)i == target)
				out->target_worse = true;
		}
	}
}

static int sim_load(struct sim *s, const char *path, const struct hb_cmp_thresholds *th)
{
	json_t *root, *ms, *v;
	const char *key;
	char err[1024];

	root = hb_cmp_read_json(path, err, sizeof(err));
	if (!root) {
		fprintf(stderr, "compare_sim: %s\n", err);
		return -1;
	}
	ms = json_object_get(root, "metrics");
	s->cal_boots = (size_t)json_integer_value(json_object_get(root, "boots"));
	if (!json_is_object(ms) || s->cal_boots < 3) {
		fprintf(stderr, "compare_sim: %s: not a calibration file (metrics, boots >= 3)\n",
			path);
		json_decref(root);
		return -1;
	}
	json_object_foreach(ms, key, v) {
		struct sim_metric *m = &s->m[s->n];
		json_t *cs = json_object_get(v, "centers"), *c;
		const char *dot = strchr(key, '.');
		double sd = json_number_value(json_object_get(v, "sd_log")), mean = 0;
		size_t k;

		if (!dot || !(sd > 0) || !json_is_array(cs) || json_array_size(cs) < 3 ||
		    s->n == SIM_MAX_METRICS)
			continue;
		snprintf(m->wl, sizeof(m->wl), "%.*s", (int)(dot - key), key);
		snprintf(m->name, sizeof(m->name), "%s", dot + 1);
		m->sd = sd;
		m->n = json_array_size(cs);
		m->dev = calloc(m->n, sizeof(double));
		json_array_foreach(cs, k, c)
			mean += log(json_number_value(c));
		mean /= (double)m->n;
		json_array_foreach(cs, k, c)
			m->dev[k] = log(json_number_value(c)) - mean;
		{
			char wl[128];

			/* thresholds match the workload's name, not "name#2" */
			snprintf(wl, sizeof(wl), "%s", m->wl);
			if (strchr(wl, '#'))
				*strchr(wl, '#') = 0;
			hb_cmp_limits_for(th, wl, m->name, &m->lim);
		}
		m->lim.boot_sd_pct = NAN; /* the calibration is simulated, not the file's */
		s->n++;
	}
	json_decref(root);
	if (!s->n) {
		fprintf(stderr, "compare_sim: %s: no metric with a boot sd > 0\n", path);
		return -1;
	}
	return 0;
}

static double sim_arg(const char *v, double lo, double hi)
{
	char *end;
	double x = strtod(v, &end);

	return end == v || *end || !(x >= lo && x <= hi) || x != floor(x) ? NAN : x;
}

int main(int argc, char **argv)
{
	static const size_t boots[] = { 1, 3, 5, 10 };
	static const double shifts[] = { 0.10, 0.25, 0.50 };
	static const double fixed[] = { 0.03, 0.05, 0.10 };
	const char *cal = "bench/data/debian-6.12-tcg-quick.json", *thf = "configs/thresholds.conf";
	struct hb_cmp_thresholds th;
	static struct sim s;
	long trials = 1000;
	unsigned long seed = 1;
	char err[512];

	hb_cmp_opts_default(&s.o);
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double x = v ? sim_arg(v, 0, 4294967295.0) : NAN;

		if (v && !strcmp(o, "--calibration"))
			cal = v;
		else if (v && !strcmp(o, "--thresholds"))
			thf = v;
		else if (!strcmp(o, "--judge-noisy")) {
			s.o.noisy_judged = true;
			continue;
		} else if (!strcmp(o, "--trials") && x >= 20 && x <= 1e7)
			trials = (long)x;
		else if (!strcmp(o, "--seed") && !isnan(x))
			seed = (unsigned long)x;
		else {
			fprintf(stderr, "usage: compare_sim [--calibration FILE] [--trials N (20..1e7)] "
					"[--seed N] [--thresholds FILE]\n");
			return 2;
		}
		i++;
	}
	hb_stats_init();
	if (hb_cmp_thresholds_load(thf, &th, err, sizeof(err))) {
		fprintf(stderr, "compare_sim: %s\n", err);
		return 2;
	}
	if (sim_load(&s, cal, &th))
		return 2;
	s.rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(s.rng, seed);
	{
		double sds[SIM_MAX_METRICS], med;

		for (size_t i = 0; i < s.n; i++)
			sds[i] = s.m[i].sd;
		med = hb_stats_median(sds, s.n);
		printf("Simulated suite: the %zu timing metrics of %s (boot sd measured on %zu boots: "
		       "median %.1f%%, from %.1f%% to %.1f%%), %ld trials per cell, BH FDR %g, "
		       "power %g for the too-noisy rule, min effect from %s; a calibration is "
		       "simulated as measured on %zu A/A boots.\n\n",
		       s.n, cal, s.cal_boots, med * 100, hb_stats_quantile(sds, s.n, 0) * 100,
		       hb_stats_quantile(sds, s.n, 1) * 100, trials, s.o.alpha, s.o.power, thf,
		       s.cal_boots);
	}
	printf("| boot noise | boots / side | calibration | metrics judged | false alarms / suite "
	       "| power +10%% | power +25%% | power +50%% |\n|---|---:|---|---:|---:|---:|---:|---:|\n");
	for (int nz = 0; nz < 5; nz++) {
		enum sim_noise noise = nz == 0 ? SIM_MEASURED : nz == 1 ? SIM_RESAMPLED : SIM_FIXED;
		double fsd = nz >= 2 ? fixed[nz - 2] : 0;
		char label[48];

		if (nz == 0)
			snprintf(label, sizeof(label), "measured (lognormal)");
		else if (nz == 1)
			snprintf(label, sizeof(label), "measured (resampled)");
		else
			snprintf(label, sizeof(label), "%.0f%% every metric", fsd * 100);
		for (size_t b = 0; b < sizeof(boots) / sizeof(boots[0]); b++)
			for (int calib = 0; calib < 2; calib++) {
				struct sim_out o = { 0 };
				long fa = 0, hit[3] = { 0 };

				for (long t = 0; t < trials; t++) {
					sim_suite(&s, noise, fsd, boots[b], calib, -1, 0, &o);
					fa += o.any_worse;
				}
				for (int k = 0; k < 3; k++)
					for (long t = 0; t < trials; t++) {
						struct sim_out q = { 0 };

						sim_suite(&s, noise, fsd, boots[b], calib,
							  (long)gsl_rng_uniform_int(s.rng, s.n), shifts[k],
							  &q);
						hit[k] += q.target_worse;
					}
				printf("| %s | %zu | %s | %.0f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n",
				       label, boots[b], calib ? "yes" : "no",
				       100.0 * (double)o.judged / (double)o.metrics,
				       100.0 * (double)fa / (double)trials,
				       100.0 * (double)hit[0] / (double)trials,
				       100.0 * (double)hit[1] / (double)trials,
				       100.0 * (double)hit[2] / (double)trials);
				fflush(stdout);
			}
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.m[i].dev);
	hb_cmp_thresholds_free(&th);
	gsl_rng_free(s.rng);
	return 0;
}
