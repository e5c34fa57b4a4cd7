/* compare_sim.c - false alarms and power of compare-report's rule, by
 * simulation from measured boot-to-boot noise (issues 11 and 19; `make
 * compare-sim`).
 *
 * Not a test: a benchmark of the decision rule. The rule works on one
 * center per boot, so a simulated boot is one center per metric. The
 * noise comes from a calibration file (`hugebench calibrate`, schema 1 or
 * 2; the one used by `make compare-sim` is shipped as bench/data/, so the
 * numbers do not depend on the git-ignored results/): every metric of the
 * suite with positive centers, with its measured sd of the log boot center
 * (0 for counts that never vary: they are tested too). Noise models, one
 * block of rows each:
 *   measured      each metric's boot centers lognormal with its measured sd;
 *   resampled     each metric's boot centers drawn (with replacement) from
 *                 its measured boot centers (rare outlier boots stay rare);
 *   bimodal 10 %  as measured, but one metric in ten (every tenth by
 *                 rank of sd among those that vary) is bimodal with that sd: a boot is slow with
 *                 probability 0.3, the modes sd / sqrt(0.21) apart, each
 *                 mode with a tenth of the sd. The boots of a side often
 *                 all fall in one mode and look constant: the case the
 *                 calibrated floor guards;
 *   virtual clock the file's noise when it was measured on the virtual
 *                 clock ("clock": "virtual"); otherwise a virtual-clock
 *                 calibration's (--virtual FILE, default bench/data/debian-
 *                 6.12-tcg-virtual-quick-means.json when present: boot
 *                 means, the rule's center; the rows are labelled "means"
 *                 or "medians" by the file's center_rule), lognormal and
 *                 resampled (its discrete modes stay discrete); with
 *                 --virtual none (or for a metric it lacks) a synthetic
 *                 model: each sd scaled to a median of 0.39 % and the
 *                 tenth with the smallest sd constant, as measured on 10
 *                 virtual-clock boots of debian-6.12 at 2 vCPUs.
 * The minimum effect is the clock's (configs/thresholds.conf):
 * min_effect_virtual_pct in the virtual-clock rows (every row of a
 * virtual-clock file), min_effect_pct in the others.
 * For 1, 3 and 5 boots per side, without and with a calibration (the
 * calibration's sd is itself estimated per trial from as many A/A boots of
 * the same model as the file was measured on), it runs the real rule
 * (cmp_rule.c: hb_cmp_metric_test_boots + hb_cmp_decide, thresholds from
 * configs/thresholds.conf) and reports:
 *   false alarms share of A/A suites with any regression;
 *   power        share of suites in which NEW made one metric (chosen at
 *                random, among those matching --shift-only GLOBS when
 *                given) 1 / 2 / 5 / 10 / 20 / 25 % or 3x worse and that metric was
 *                flagged (a change below its minimum effect never is);
 *   3x said      share of suites whose verdict line flagged the 3x change or
 *                named its metric: not tested (untestable, advisory) or
 *                judged "same" when the same test on NEW made 3x worse
 *                would not have flagged it either (hb_cmp_blind_to_3x():
 *                "could not show a 3x change");
 *   detectable   median over metrics of the detectable change the report
 *                prints (alpha / m, 80 % power, never below the minimum
 *                effect).
 * One boot per side without a calibration is advisory (never judged): not
 * simulated. Every metric is simulated as lower-is-better (the rule is
 * symmetric). Last, the functional rate rule: the exact A/A false-alarm
 * rate of a check that fails in 10 % or 30 % of boots.
 *
 *   build/compare_sim [--calibration FILE] [--virtual FILE|none] [--trials N]
 *                     [--seed N] [--thresholds FILE] [--shift-only GLOB,...]
 *                     [--cal-boots N] [--boots N,...] [--noise MODEL,...]
 * --cal-boots N: a simulated calibration is measured on N boots of the
 * model instead of as many as the file's (how large a calibration must be
 * to see the modes 2 boots a side cannot tell from a change).
 * --unseen-min PCT: a studied variant of the rule (hb_cmp_opts.unseen_min_pct,
 * off in compare-report): below 3 boots a side, a change with one side
 * outside the calibration's span is untestable when smaller than PCT.
 * --trials N: A/A suites per row (power: N / 2 per shift). --shift-only:
 * comma-separated fnmatch(3) globs over "workload.metric" (e.g. the shmem
 * huge allocation path: "fault.write_fault_huge,kvm-map.huge_first_*").
 */
#define _DEFAULT_SOURCE
#include "compare.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define SIM_MAX_BOOTS 10
#define SIM_MAX_METRICS 512
#define SIM_BIMODAL_P 0.3 /* share of slow boots of a bimodal metric */
/* the synthetic virtual clock: median boot sd, share of constant metrics
 * (10 boots of debian-6.12 on the virtual clock, 2 vCPUs: 0.39 %, 6 of 61) */
#define SIM_VIRT_MEDIAN 0.0039
#define SIM_VIRT_CONST 0.1

enum sim_noise { SIM_MEASURED, SIM_RESAMPLED, SIM_BIMODAL, SIM_VIRTUAL, SIM_VIRTUAL_RESAMPLED,
		 SIM_RUNMODE, SIM_N_NOISE };

/* --noise names, in enum order */
static const char *const sim_noise_names[SIM_N_NOISE] = {
	"measured", "resampled", "bimodal", "virtual", "virtual-resampled", "run-level",
};
/* a metric with this many distinct boot centers or fewer (and more than
 * one) has discrete modes: in the run-level model its mode sticks to a run */
#define SIM_MODES_MAX 4

/* the virtual rows' noise: the shipped calibration of boot means, the
 * rule's center on the virtual clock (center_rule 2); the older file of
 * boot medians stays reachable with --virtual, and its rows say so */
#define SIM_VIRTUAL_DEFAULT "bench/data/debian-6.12-tcg-virtual-quick-means.json"

struct sim_metric {
	char wl[128], name[128];
	double sd;	/* measured sd of the log boot center */
	double sd_virt; /* the virtual-clock model's sd */
	double *dev_virt; /* the virtual-clock file's log deviations (n_virt), or NULL */
	size_t n_virt;
	bool bimodal;	/* bimodal in the bimodal model */
	bool runmode;	/* discrete modes in the virtual file: run-level in that model */
	double *dev;	/* measured log deviations from the mean (n) */
	size_t n;
	struct hb_cmp_limits lim;
	bool shift_ok;	/* may be the shifted metric (--shift-only) */
};

struct sim {
	gsl_rng *rng;
	struct sim_metric m[SIM_MAX_METRICS];
	size_t n;
	size_t cal_boots; /* boots the calibration was measured on */
	size_t cal_boots_arg; /* --cal-boots: simulate calibrations of this many (0: the file's) */
	bool virtual_file; /* the file was measured on the virtual clock */
	const char *virt_path; /* a virtual-clock file for the virtual rows, or NULL */
	size_t virt_boots, virt_matched; /* its boots; metrics found in it */
	int virt_center_rule; /* its center_rule (1 when absent: boot medians) */
	size_t *shiftable; /* indexes of the metrics that may be shifted */
	size_t n_shiftable;
	size_t n_runmode; /* metrics with run-level modes */
	/* the run-level model: each metric's mode in the run being simulated */
	double run_dev[SIM_MAX_METRICS];
	struct hb_cmp_opts o;
};

/* One boot's log deviation of metric i under the noise model. */
static double sim_dev(struct sim *s, size_t i, enum sim_noise noise)
{
	const struct sim_metric *m = &s->m[i];

	switch (noise) {
	case SIM_RESAMPLED:
		return m->dev[gsl_rng_uniform_int(s->rng, m->n)];
	case SIM_BIMODAL:
		if (m->bimodal) {
			double gap = m->sd / sqrt(SIM_BIMODAL_P * (1 - SIM_BIMODAL_P));
			double slow = gsl_rng_uniform(s->rng) < SIM_BIMODAL_P ? gap : 0;

			return slow + (m->sd > 0 ? gsl_ran_gaussian(s->rng, m->sd / 10) : 0);
		}
		/* fall through */
	case SIM_MEASURED:
		return m->sd > 0 ? gsl_ran_gaussian(s->rng, m->sd) : 0;
	case SIM_RUNMODE:
		/* a metric with modes keeps its run's; the others vary by boot */
		if (m->runmode)
			return s->run_dev[i];
		/* fall through */
	case SIM_VIRTUAL_RESAMPLED:
		if (m->dev_virt)
			return m->dev_virt[gsl_rng_uniform_int(s->rng, m->n_virt)];
		/* fall through */
	default:
		if (s->virtual_file)
			return m->sd > 0 ? gsl_ran_gaussian(s->rng, m->sd) : 0;
		return m->sd_virt > 0 ? gsl_ran_gaussian(s->rng, m->sd_virt) : 0;
	}
}

/* Both sides on the virtual clock: its minimum effect applies. */
static bool sim_virtual(const struct sim *s, enum sim_noise noise)
{
	return s->virtual_file || noise >= SIM_VIRTUAL;
}

/* Boots a calibration of this noise is measured on: the virtual file's for
 * its rows. */
static size_t sim_cal_boots(const struct sim *s, enum sim_noise noise)
{
	if (s->cal_boots_arg)
		return s->cal_boots_arg;
	return noise >= SIM_VIRTUAL && s->virt_path ? s->virt_boots : s->cal_boots;
}

/* What a calibration of cal_boots A/A boots would have measured, as
 * compare-report takes it (hb_cmp_calib_scale, hb_cmp_calib_span). */
static void sim_cal(struct sim *s, size_t i, enum sim_noise noise, struct hb_cmp_calref *cal)
{
	double x[64];
	size_t n = sim_cal_boots(s, noise) < 64 ? sim_cal_boots(s, noise) : 64, dropped;

	for (size_t k = 0; k < n; k++)
		x[k] = 1000 * exp(sim_dev(s, i, noise));
	cal->sd = hb_cmp_calib_scale(x, n, &cal->boots, &dropped);
	hb_cmp_calib_span(x, n, dropped, &cal->lo, &cal->hi);
}

struct sim_out {
	bool any_worse, target_worse;
	bool target_said; /* not flagged, but named in the verdict line */
	double mde_sum; /* median detectable change of this suite */
	double untestable_sum; /* metrics untestable in this suite */
};

/* A new run starts (the run-level model): each metric with modes takes one
 * of its measured boot values, for every boot of that run. */
static void sim_new_run(struct sim *s, size_t i, enum sim_noise noise)
{
	const struct sim_metric *m = &s->m[i];

	if (noise == SIM_RUNMODE && m->runmode)
		s->run_dev[i] = m->dev_virt[gsl_rng_uniform_int(s->rng, m->n_virt)];
}

/* One suite: nb boots per side, metric `target` (or none) made `shift`
 * worse in NEW. */
static void sim_suite(struct sim *s, enum sim_noise noise, size_t nb, bool calib, long target,
		      double shift, struct sim_out *out)
{
	static double va[SIM_MAX_METRICS][SIM_MAX_BOOTS], vb[SIM_MAX_METRICS][SIM_MAX_BOOTS];
	static double ca[SIM_MAX_METRICS][SIM_MAX_BOOTS], cb[SIM_MAX_METRICS][SIM_MAX_BOOTS];
	static struct hb_cmp_metric ma[SIM_MAX_METRICS][SIM_MAX_BOOTS], mb[SIM_MAX_METRICS][SIM_MAX_BOOTS];
	static struct hb_cmp_mres r[SIM_MAX_METRICS];
	static double mde[SIM_MAX_METRICS];
	const struct hb_cmp_metric *pa[SIM_MAX_BOOTS], *pb[SIM_MAX_BOOTS];
	size_t k_mde = 0;

	for (size_t i = 0; i < s->n; i++) {
		double mult = (long)i == target ? 1 + shift : 1;
		struct hb_cmp_calref cal = { .sd = NAN, .lo = NAN, .hi = NAN };
		struct hb_cmp_limits lim = s->m[i].lim;

		/* three separately started runs: the calibration's, BASE's, NEW's
		 * (only the run-level model tells them apart) */
		if (calib) {
			sim_new_run(s, i, noise);
			sim_cal(s, i, noise, &cal);
		}
		sim_new_run(s, i, noise);
		for (size_t k = 0; k < nb; k++)
			va[i][k] = 1000 * exp(sim_dev(s, i, noise));
		sim_new_run(s, i, noise);
		for (size_t k = 0; k < nb; k++) {
			vb[i][k] = 1000 * mult * exp(sim_dev(s, i, noise));
			ma[i][k] = (struct hb_cmp_metric){ .name = s->m[i].name, .unit = "ns",
							   .better = HB_CMP_LOWER,
							   .samples = &va[i][k], .n = 1 };
			mb[i][k] = ma[i][k];
			mb[i][k].samples = &vb[i][k];
			pa[k] = &ma[i][k];
			pb[k] = &mb[i][k];
		}
		r[i] = (struct hb_cmp_mres){ .workload = s->m[i].wl };
		lim.virtual_clock = sim_virtual(s, noise);
		hb_cmp_metric_test_boots(pa, nb, pb, nb, NULL, NULL, ca[i], cb[i], &lim, &cal, &s->o,
					 &r[i]);
	}
	hb_cmp_decide(r, s->n, &s->o);
	out->any_worse = out->target_worse = out->target_said = false;
	if (target >= 0) {
		const struct hb_cmp_mres *t = &r[target];

		out->target_said = t->verdict == HB_CMP_UNTESTABLE ||
				   t->verdict == HB_CMP_ADVISORY || t->verdict == HB_CMP_UNTESTED ||
				   hb_cmp_blind_to_3x(t);
	}
	for (size_t i = 0; i < s->n; i++) {
		out->untestable_sum += r[i].verdict == HB_CMP_UNTESTABLE;
		if (!isnan(r[i].mde_pct))
			mde[k_mde++] = r[i].mde_pct;
		if (r[i].verdict == HB_CMP_WORSE) {
			if (getenv("SIM_DEBUG") && (long)i != target)
				fprintf(stderr, "false alarm: %zu boots: %s.%s: %s\n", nb, s->m[i].wl,
					s->m[i].name, r[i].why);
			out->any_worse = true;
			if ((long)i == target)
				out->target_worse = true;
		} else if ((long)i == target && shift >= 1 && getenv("SIM_DEBUG")) {
			fprintf(stderr, "3x missed: %zu boots: %s.%s: %s (%s)\n", nb, s->m[i].wl,
				s->m[i].name, hb_cmp_verdict_name(r[i].verdict), r[i].why);
		}
	}
	out->mde_sum += k_mde ? hb_stats_median(mde, k_mde) : NAN;
}

static int sim_cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The log deviations of a calibration's boot centers from their mean (all
 * 0 when sd is 0), malloc'ed; NULL when fewer than 3 or one is <= 0. */
static double *sim_devs(json_t *cs, double sd, size_t *n)
{
	double mean = 0, *dev;
	json_t *c;
	size_t k;

	*n = json_array_size(cs);
	if (!json_is_array(cs) || *n < 3 || !(sd >= 0))
		return NULL;
	json_array_foreach(cs, k, c) {
		if (!(json_number_value(c) > 0))
			return NULL; /* no log scale */
		mean += log(json_number_value(c));
	}
	mean /= (double)*n;
	dev = calloc(*n, sizeof(double));
	json_array_foreach(cs, k, c)
		if (dev)
			dev[k] = sd > 0 ? log(json_number_value(c)) - mean : 0;
	return dev;
}

/* key matches one of the comma-separated fnmatch(3) globs */
static bool sim_globs(const char *globs, const char *key)
{
	char buf[1024], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", globs);
	for (char *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save))
		if (!fnmatch(g, key, 0))
			return true;
	return false;
}

static int sim_load(struct sim *s, const char *path, const struct hb_cmp_thresholds *th,
		    const char *shift_only)
{
	json_t *root, *ms, *v;
	const char *key, *clock;
	char err[1024];
	double sds[SIM_MAX_METRICS], med, cut;
	size_t nv = 0, varying = 0;

	root = hb_cmp_read_json(path, err, sizeof(err));
	if (!root) {
		fprintf(stderr, "compare_sim: %s\n", err);
		return -1;
	}
	ms = json_object_get(root, "metrics");
	s->cal_boots = (size_t)json_integer_value(json_object_get(root, "boots"));
	clock = json_string_value(json_object_get(root, "clock"));
	s->virtual_file = clock && !strcmp(clock, "virtual");
	if (!json_is_object(ms) || s->cal_boots < 3) {
		fprintf(stderr, "compare_sim: %s: not a calibration file (metrics, boots >= 3)\n",
			path);
		json_decref(root);
		return -1;
	}
	json_object_foreach(ms, key, v) {
		struct sim_metric *m = &s->m[s->n];
		const char *dot = strchr(key, '.');
		double sd = json_number_value(json_object_get(v, "sd_log"));

		if (!dot || s->n == SIM_MAX_METRICS ||
		    !(m->dev = sim_devs(json_object_get(v, "centers"), sd, &m->n)))
			continue;
		snprintf(m->wl, sizeof(m->wl), "%.*s", (int)(dot - key), key);
		snprintf(m->name, sizeof(m->name), "%s", dot + 1);
		m->sd = sd;
		{
			char wl[128];

			/* thresholds match the workload's name, not "name#2" */
			snprintf(wl, sizeof(wl), "%s", m->wl);
			if (strchr(wl, '#'))
				*strchr(wl, '#') = 0;
			hb_cmp_limits_for(th, wl, m->name, &m->lim);
		}
		m->shift_ok = !shift_only || sim_globs(shift_only, key);
		m->lim.boot_sd_pct = NAN; /* the calibration is simulated, not the file's */
		varying += sd > 0;
		sds[nv++] = sd;
		s->n++;
	}
	json_decref(root);
	if (!s->n) {
		fprintf(stderr, "compare_sim: %s: no metric with positive centers\n", path);
		return -1;
	}
	s->shiftable = calloc(s->n, sizeof(*s->shiftable));
	for (size_t i = 0; s->shiftable && i < s->n; i++)
		if (s->m[i].shift_ok)
			s->shiftable[s->n_shiftable++] = i;
	if (!s->n_shiftable) {
		fprintf(stderr, "compare_sim: %s: no metric matches --shift-only %s\n", path,
			shift_only ? shift_only : "");
		return -1;
	}
	qsort(sds, nv, sizeof(double), sim_cmp_dbl);
	/* bimodal: one metric in ten of those that vary, spread over the range
	 * of sd (ranks 5, 15, 25, ... from the smallest sd) */
	for (size_t r = 5; r < varying; r += 10) {
		double want = sds[nv - varying + r];

		for (size_t i = 0; i < s->n; i++)
			if (s->m[i].sd == want && !s->m[i].bimodal) {
				s->m[i].bimodal = true;
				break;
			}
	}
	/* the synthetic virtual clock: the tenth with the smallest sd constant,
	 * the others scaled to the measured median */
	med = hb_stats_median(sds, nv);
	cut = sds[(size_t)((double)nv * SIM_VIRT_CONST)];
	for (size_t i = 0; i < s->n; i++)
		s->m[i].sd_virt = s->m[i].sd <= cut || !(med > 0) ? 0
				  : s->m[i].sd * SIM_VIRT_MEDIAN / med;
	return 0;
}

/* The noise of a virtual-clock calibration for the virtual rows: each
 * metric's sd and log deviations, by key; 0, or -1 with a message. */
static int sim_load_virtual(struct sim *s, const char *path)
{
	json_t *root, *ms, *v;
	const char *clock;
	char err[1024];

	root = hb_cmp_read_json(path, err, sizeof(err));
	if (!root) {
		fprintf(stderr, "compare_sim: %s\n", err);
		return -1;
	}
	ms = json_object_get(root, "metrics");
	clock = json_string_value(json_object_get(root, "clock"));
	s->virt_boots = (size_t)json_integer_value(json_object_get(root, "boots"));
	s->virt_center_rule = json_is_integer(json_object_get(root, "center_rule"))
				      ? (int)json_integer_value(json_object_get(root, "center_rule"))
				      : 1;
	if (!json_is_object(ms) || s->virt_boots < 3 || !clock || strcmp(clock, "virtual")) {
		fprintf(stderr, "compare_sim: %s: not a virtual-clock calibration (clock virtual, "
				"metrics, boots >= 3)\n", path);
		json_decref(root);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct sim_metric *m = &s->m[i];
		char key[300];
		double sd;

		snprintf(key, sizeof(key), "%s.%s", m->wl, m->name);
		v = json_object_get(ms, key);
		sd = json_number_value(json_object_get(v, "sd_log"));
		if (!(m->dev_virt = sim_devs(json_object_get(v, "centers"), sd, &m->n_virt)))
			continue;
		m->sd_virt = sd;
		s->virt_matched++;
		{
			size_t distinct = 0;

			for (size_t k = 0; k < m->n_virt; k++) {
				bool seen = false;

				for (size_t j = 0; j < k && !seen; j++)
					seen = m->dev_virt[j] == m->dev_virt[k];
				distinct += !seen;
			}
			m->runmode = distinct > 1 && distinct <= SIM_MODES_MAX;
			s->n_runmode += m->runmode;
		}
	}
	json_decref(root);
	s->virt_path = path;
	return 0;
}

static double sim_arg(const char *v, double lo, double hi)
{
	char *end;
	double x = strtod(v, &end);

	return end == v || *end || !(x >= lo && x <= hi) || x != floor(x) ? NAN : x;
}

static double sim_binom(size_t k, size_t n, double f)
{
	double c = 1;

	for (size_t i = 0; i < k; i++)
		c = c * (double)(n - i) / (double)(i + 1);
	return c * pow(f, (double)k) * pow(1 - f, (double)(n - k));
}

/* The functional rate rule, exactly: A/A alarms for a flaky check. */
static void sim_functional(double alpha)
{
	static const size_t boots[] = { 3, 5, 10 };
	static const double rates[] = { 0.1, 0.3 };

	printf("\nFunctional findings (exact): share of A/A comparisons in which a check failing "
	       "in a share f of all boots is a regression, alpha %g.\n\n"
	       "| f | boots / side | rule (Fisher, or every NEW boot and no BASE boot) | "
	       "previous rule (any NEW failure, no BASE failure) |\n|---:|---:|---:|---:|\n",
	       alpha);
	for (size_t r = 0; r < 2; r++)
		for (size_t b = 0; b < 3; b++) {
			size_t n = boots[b];
			double now = 0, old = 0;

			for (size_t ka = 0; ka <= n; ka++)
				for (size_t kb = 0; kb <= n; kb++) {
					double w = sim_binom(ka, n, rates[r]) * sim_binom(kb, n, rates[r]);

					if (hb_cmp_rate_regression(ka, n, kb, n, alpha, NULL))
						now += w;
					if (kb && !ka)
						old += w;
				}
			printf("| %.0f%% | %zu | %.4f%% | %.1f%% |\n", rates[r] * 100, n, now * 100,
			       old * 100);
		}
}

int main(int argc, char **argv)
{
	static const size_t all_boots[] = { 1, 2, 3, 5 };
	static const double shifts[] = { 0.01, 0.02, 0.05, 0.10, 0.20, 0.25, 2.0 };
	enum { N_SHIFTS = sizeof(shifts) / sizeof(shifts[0]) };
	size_t boots[8];
	size_t n_boots = 0;
	bool noise_on[SIM_N_NOISE];
	const char *boots_arg = NULL, *noise_arg = NULL;
	const char *cal = "bench/data/debian-6.12-tcg-quick.json", *thf = "configs/thresholds.conf";
	const char *shift_only = NULL, *virt = NULL;
	struct hb_cmp_thresholds th;
	static struct sim s;
	long trials = 2000;
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
		else if (v && !strcmp(o, "--shift-only"))
			shift_only = v;
		else if (v && !strcmp(o, "--virtual"))
			virt = v;
		else if (v && !strcmp(o, "--boots"))
			boots_arg = v;
		else if (v && !strcmp(o, "--noise"))
			noise_arg = v;
		else if (!strcmp(o, "--trials") && x >= 20 && x <= 1e7)
			trials = (long)x;
		else if (!strcmp(o, "--seed") && !isnan(x))
			seed = (unsigned long)x;
		else if (!strcmp(o, "--cal-boots") && x >= 3 && x <= 64)
			s.cal_boots_arg = (size_t)x;
		else if (!strcmp(o, "--unseen-min") && x >= 1 && x <= 1000)
			s.o.unseen_min_pct = x;
		else {
			fprintf(stderr, "usage: compare_sim [--calibration FILE] [--trials N (20..1e7)] "
					"[--seed N] [--thresholds FILE] [--shift-only GLOB,...] "
					"[--virtual FILE|none] [--cal-boots N (3..64)] [--unseen-min PCT (1..1000)] "
					"[--boots N,... (1..10)] [--noise "
					"measured|resampled|bimodal|virtual|virtual-resampled|"
					"run-level,...]\n");
			return 2;
		}
		i++;
	}
	for (size_t k = 0; !boots_arg && k < sizeof(all_boots) / sizeof(all_boots[0]); k++)
		boots[n_boots++] = all_boots[k];
	if (boots_arg) {
		char buf[128], *save = NULL;

		snprintf(buf, sizeof(buf), "%s", boots_arg);
		for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			double x = sim_arg(w, 1, SIM_MAX_BOOTS);

			if (isnan(x) || n_boots == 8) {
				fprintf(stderr, "compare_sim: --boots: \"%s\" is not a list of boot "
						"counts from 1 to %d\n", boots_arg, SIM_MAX_BOOTS);
				return 2;
			}
			boots[n_boots++] = (size_t)x;
		}
	}
	for (int k = 0; k < SIM_N_NOISE; k++)
		noise_on[k] = !noise_arg;
	if (noise_arg) {
		char buf[256], *save = NULL;

		snprintf(buf, sizeof(buf), "%s", noise_arg);
		for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			int k = 0;

			while (k < SIM_N_NOISE && strcmp(w, sim_noise_names[k]))
				k++;
			if (k == SIM_N_NOISE) {
				fprintf(stderr, "compare_sim: --noise: \"%s\" is not one of measured, "
						"resampled, bimodal, virtual, virtual-resampled, run-level\n",
					w);
				return 2;
			}
			noise_on[k] = true;
		}
	}
	hb_stats_init();
	if (hb_cmp_thresholds_load(thf, &th, err, sizeof(err))) {
		fprintf(stderr, "compare_sim: %s\n", err);
		return 2;
	}
	if (sim_load(&s, cal, &th, shift_only))
		return 2;
	/* the virtual rows: a measured virtual-clock file, unless the main
	 * file is one, or none is given or shipped */
	if (!virt && !access(SIM_VIRTUAL_DEFAULT, R_OK))
		virt = SIM_VIRTUAL_DEFAULT;
	if (virt && strcmp(virt, "none") && !s.virtual_file && sim_load_virtual(&s, virt))
		return 2;
	/* a virtual-clock file is its own virtual noise: resampled and
	 * run-level rows from its boot centers too */
	if (s.virtual_file && sim_load_virtual(&s, cal))
		return 2;
	s.rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(s.rng, seed);
	{
		double sds[SIM_MAX_METRICS], med;
		size_t zero = 0, bim = 0;

		for (size_t i = 0; i < s.n; i++) {
			sds[i] = s.m[i].sd;
			zero += s.m[i].sd == 0;
			bim += s.m[i].bimodal;
		}
		med = hb_stats_median(sds, s.n);
		printf("Simulated suite: the %zu metrics of %s (%s clock; boot sd measured on %zu "
		       "boots: median %.2f%%, up to %.1f%%, %zu constant), %ld A/A suites and %ld per "
		       "shift in each row, BH FDR %g over every tested metric, min effect from %s; a "
		       "calibration is simulated as measured on %zu A/A boots of the same model; "
		       "bimodal model: %zu metrics bimodal (",
		       s.n, cal, s.virtual_file ? "virtual" : "wall", s.cal_boots, med * 100,
		       hb_stats_quantile(sds, s.n, 1) * 100, zero, trials, trials / 2, s.o.alpha, thf,
		       s.cal_boots_arg ? s.cal_boots_arg : s.cal_boots, bim);
		for (size_t i = 0, k = 0; i < s.n; i++)
			if (s.m[i].bimodal)
				printf("%s%s.%s %.1f%%", k++ ? ", " : "", s.m[i].wl, s.m[i].name,
				       s.m[i].sd * 100);
		printf(": modes %.1f sd apart). Minimum effects: min_effect_virtual_pct in %s, "
		       "min_effect_pct in the others.", 1 / sqrt(SIM_BIMODAL_P * (1 - SIM_BIMODAL_P)),
		       s.virtual_file ? "every row (a virtual-clock file)" : "the virtual-clock rows");
		if (s.virt_path) {
			double vs[SIM_MAX_METRICS];
			size_t nvs = 0, vz = 0;

			for (size_t i = 0; i < s.n; i++)
				if (s.m[i].dev_virt) {
					vs[nvs++] = s.m[i].sd_virt;
					vz += s.m[i].sd_virt == 0;
				}
			printf(" Virtual-clock rows: the noise of %s (boot %s, center_rule %d; %zu boots; %zu of the %zu metrics "
			       "found in it, boot sd median %.2f%%, up to %.1f%%, %zu constant). Run-level "
			       "modes: the %zu metrics with 2 to %d distinct boot centers in it take one of "
			       "them per run (the calibration's, BASE's and NEW's runs each draw one), the "
			       "others vary from boot to boot as resampled.",
			       s.virt_path, s.virt_center_rule >= HB_CMP_CENTER_RULE ? "means" : "medians",
			       s.virt_center_rule, s.virt_boots, s.virt_matched, s.n,
			       nvs ? hb_stats_median(vs, nvs) * 100 : NAN,
			       nvs ? hb_stats_quantile(vs, nvs, 1) * 100 : NAN, vz, s.n_runmode,
			       SIM_MODES_MAX);
			if (s.virt_center_rule < HB_CMP_CENTER_RULE)
				printf(" Warning: its centers are boot medians (center_rule %d), the "
				       "rule's virtual-clock center is the mean (center_rule %d): the "
				       "rows model the noise of medians; recalibrate to model means.",
				       s.virt_center_rule, HB_CMP_CENTER_RULE);
		}
		if (shift_only) {
			printf(" Power: the worsened metric is one of the %zu matching %s (", s.n_shiftable,
			       shift_only);
			for (size_t k = 0; k < s.n_shiftable; k++)
				printf("%s%s.%s", k ? ", " : "", s.m[s.shiftable[k]].wl,
				       s.m[s.shiftable[k]].name);
			printf(").");
		}
		if (!isnan(s.o.unseen_min_pct))
			printf(" Rule variant studied (--unseen-min %g, not the rule): with fewer than 3 "
			       "boots a side, a change with one side outside the calibration's span is "
			       "untestable below %g%%.", s.o.unseen_min_pct, s.o.unseen_min_pct);
		printf("\n\n");
	}
	printf("| boot noise | boots / side | calibration | false alarms / suite | power +1%% | "
	       "+2%% | +5%% | +10%% | +20%% | +25%% | 3x | 3x said | median detectable | untestable "
	       "metrics / suite |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int nz = 0; nz < SIM_N_NOISE; nz++) {
		enum sim_noise noise = (enum sim_noise)nz;
		/* the virtual rows say which center their file's sds are of */
		const char *vc = s.virt_center_rule >= HB_CMP_CENTER_RULE ? "means" : "medians";
		char label[96];

		if (nz == SIM_MEASURED || nz == SIM_RESAMPLED || nz == SIM_BIMODAL)
			snprintf(label, sizeof(label), "%s%s",
				 nz == SIM_MEASURED ? "measured (lognormal)"
				 : nz == SIM_RESAMPLED ? "measured (resampled)" : "bimodal 10%",
				 s.virtual_file ? ", virtual clock" : "");
		else if (!s.virt_path)
			snprintf(label, sizeof(label), "virtual clock (synthetic)");
		else
			snprintf(label, sizeof(label), "virtual clock (%s, %s)", vc,
				 nz == SIM_VIRTUAL ? "lognormal"
				 : nz == SIM_VIRTUAL_RESAMPLED ? "resampled" : "run-level modes");

		/* resampled virtual boots need a measured virtual-clock file */
		if ((nz == SIM_VIRTUAL_RESAMPLED || nz == SIM_RUNMODE) && !s.virt_path)
			continue;
		if (!noise_on[nz])
			continue;
		for (size_t b = 0; b < n_boots; b++)
			for (int calib = 0; calib < 2; calib++) {
				struct sim_out o = { 0 };
				long fa = 0, hit[N_SHIFTS] = { 0 }, said = 0, per = trials / 2;

				if (boots[b] < HB_CMP_MIN_BOOTS && !calib) {
					printf("| %s | %zu | no | advisory: never judged | - | - | - | - | "
					       "- | - | - | - | - | all |\n", label, boots[b]);
					continue;
				}
				for (long t = 0; t < trials; t++) {
					sim_suite(&s, noise, boots[b], calib, -1, 0, &o);
					fa += o.any_worse;
				}
				for (int k = 0; k < N_SHIFTS; k++)
					for (long t = 0; t < per; t++) {
						struct sim_out q = { 0 };

						size_t pick = s.shiftable[gsl_rng_uniform_int(
							s.rng, s.n_shiftable)];

						sim_suite(&s, noise, boots[b], calib, (long)pick,
							  shifts[k], &q);
						hit[k] += q.target_worse;
						said += k == N_SHIFTS - 1 &&
							(q.target_worse || q.target_said);
					}
				printf("| %s | %zu | %s | %.2f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | "
				       "%.1f%% | %.1f%% | %.1f%% | %.1f%% | %.3g%% | %.2f |\n",
				       label, boots[b], calib ? "yes" : "no",
				       100.0 * (double)fa / (double)trials,
				       100.0 * (double)hit[0] / (double)per,
				       100.0 * (double)hit[1] / (double)per,
				       100.0 * (double)hit[2] / (double)per,
				       100.0 * (double)hit[3] / (double)per,
				       100.0 * (double)hit[4] / (double)per,
				       100.0 * (double)hit[5] / (double)per,
				       100.0 * (double)hit[6] / (double)per,
				       100.0 * (double)said / (double)per, o.mde_sum / (double)trials,
				       o.untestable_sum / (double)trials);
				fflush(stdout);
			}
	}
	sim_functional(s.o.alpha);
	for (size_t i = 0; i < s.n; i++) {
		free(s.m[i].dev);
		free(s.m[i].dev_virt);
	}
	free(s.shiftable);
	hb_cmp_thresholds_free(&th);
	gsl_rng_free(s.rng);
	return 0;
}
