/* aa_study.c - compare-report's rule on real boots: A/A splits and A/B
 * sub-samples (issue 11; `make aa-study`).
 *
 *   aa_study GROUP [--half K] [--splits N] [--seed S] [common options]
 *     GROUP: a run group of >= 2K boots of one kernel (A/A). Every split
 *     into two halves of K boots (C(2K, K) / 2 distinct splits; 126 for 10
 *     boots), or N random splits when there are more than 2000, is compared
 *     with the real rule (hb_cmp_pair_build_groups): how many splits flagged
 *     any metric (regression in either direction), and which metrics.
 *   aa_study --ab BASE NEW [--half K] [common options]
 *     two groups (e.g. minimal-6.1 and a delay-injection kernel, interleaved
 *     by `hugebench ab`): the verdicts of the full comparison, then every
 *     choice of K boots per side, how often each metric was flagged.
 *   aa_study --calib-diff A B
 *     two calibration files of one suite and kernel made apart (e.g. on
 *     two host CPUs, docs/compare.md "Across host CPUs"): per metric in
 *     both, Welch's t of the log boot centers (two-sided) and an F-test of
 *     their variances; how many fall below p 0.05 and 0.01 against the
 *     number chance gives; the metrics by Welch p, smallest first.
 *   common: --thresholds FILE (default configs/thresholds.conf),
 *     --calibration FILE (default none: an A/A study must not calibrate on
 *     its own boots; a calibration of other boots adds its floor under the
 *     measured sd), --results DIR (target names; default results),
 *     --unseen-min PCT (compare-report's option of that name: off unless given).
 * "Judged" counts metrics with a verdict of same, regression or
 * improvement: every tested one (advisory ones are not tested).
 * BASE may be a target folder: its group with NEW's stamp (the partner of
 * an interleaved `hugebench ab` run) is taken when it exists.
 * Exit 0 (the numbers are the output), 2 on bad input.
 */
#define _DEFAULT_SOURCE
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_rng.h>

#define AA_MAX_BOOTS 64
#define AA_MAX_ENUM 2000
#define AA_MAX_CAL 1000 /* boots of a calibration --calib-diff reads */

struct aa_ctx {
	struct hb_cmp_thresholds th;
	struct hb_cmp_opts o;
	size_t n_metrics; /* rows of the first comparison */
	char **names;	  /* "workload.metric" of each row */
	size_t *flag_w, *flag_b, *judged;
	size_t comparisons, flagged, flagged_worse, judged_sum;
};

static int aa_usage(void)
{
	fprintf(stderr, "usage: aa_study GROUP [--half K] [--splits N] [--seed S] [--thresholds F] "
			"[--calibration F] [--results DIR] [--unseen-min PCT]\n"
			"       aa_study --ab BASE NEW [--half K] [--thresholds F] [--calibration F] "
			"[--results DIR]\n"
			"       aa_study --calib-diff A.json B.json\n");
	return 2;
}

struct aa_diff {
	const char *key;
	double change_pct, p_mean, p_sd, sd_a, sd_b;
};

static int aa_by_p(const void *x, const void *y)
{
	const struct aa_diff *a = x, *b = y;

	return (a->p_mean > b->p_mean) - (a->p_mean < b->p_mean);
}

/* The log of each of m's boot centers into l; false when one is <= 0 (no
 * log scale). */
static bool aa_logs(const struct hb_cmp_calib_metric *m, double *l)
{
	for (size_t k = 0; k < m->n; k++) {
		if (m->centers[k] <= 0)
			return false;
		l[k] = log(m->centers[k]);
	}
	return true;
}

/* Every metric two calibrations share, compared on their log boot centers:
 * do they describe the same noise around the same centers? */
static int aa_calib_diff(const char *pa, const char *pb)
{
	struct hb_cmp_calib *c[2];
	struct aa_diff *d;
	size_t n = 0, low_mean[2] = { 0 }, low_sd[2] = { 0 }, constant = 0;
	char err[1024];

	for (int s = 0; s < 2; s++) {
		c[s] = hb_cmp_calib_load(s ? pb : pa, err, sizeof(err));
		if (!c[s]) {
			fprintf(stderr, "aa_study: %s\n", err);
			if (s)
				hb_cmp_calib_free(c[0]);
			return 2;
		}
	}
	d = calloc(c[0]->n ? c[0]->n : 1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "aa_study: out of memory\n");
		return 2;
	}
	for (size_t i = 0; i < c[0]->n; i++) {
		const struct hb_cmp_calib_metric *ma = &c[0]->m[i], *mb;
		size_t *k = c[1]->ix ? hb_cmp_idx_get(c[1]->ix, NULL, ma->key, NULL, NULL) : NULL;
		double la[AA_MAX_CAL], lb[AA_MAX_CAL], va, vb;
		struct hb_stats_test t;

		mb = k ? &c[1]->m[*k] : NULL;
		if (!mb || ma->n < 3 || mb->n < 3 || ma->n > AA_MAX_CAL || mb->n > AA_MAX_CAL ||
		    !aa_logs(ma, la) || !aa_logs(mb, lb))
			continue;
		va = hb_stats_sd(la, ma->n);
		vb = hb_stats_sd(lb, mb->n);
		if (va == 0 || vb == 0) {
			constant++;
			printf("constant: %s (%.6g in A, %.6g in B)\n", ma->key, ma->center, mb->center);
			continue;
		}
		hb_stats_welch(la, ma->n, lb, mb->n, HB_STATS_TWO_SIDED, &t);
		d[n] = (struct aa_diff){ .key = ma->key, .change_pct = (exp(hb_stats_mean(lb, mb->n) -
									  hb_stats_mean(la, ma->n)) -
								      1) * 100,
					 .p_mean = t.p,
					 .p_sd = hb_stats_var_ratio_p(vb * vb / (va * va),
								      (double)mb->n - 1, (double)ma->n - 1),
					 .sd_a = va * 100, .sd_b = vb * 100 };
		low_mean[0] += d[n].p_mean < 0.05;
		low_mean[1] += d[n].p_mean < 0.01;
		low_sd[0] += d[n].p_sd < 0.05;
		low_sd[1] += d[n].p_sd < 0.01;
		n++;
	}
	qsort(d, n, sizeof(*d), aa_by_p);
	printf("A %s: %zu boots, host CPU %s\nB %s: %zu boots, host CPU %s\n", pa, c[0]->boots,
	       c[0]->host_cpu, pb, c[1]->boots, c[1]->host_cpu);
	printf("%zu metrics that vary in both (%zu constant): centers (Welch, log) p < 0.05 in %zu, "
	       "p < 0.01 in %zu (chance: %.1f, %.1f); spreads (F) p < 0.05 in %zu, p < 0.01 in %zu\n",
	       n, constant, low_mean[0], low_mean[1], 0.05 * (double)n, 0.01 * (double)n, low_sd[0],
	       low_sd[1]);
	for (size_t i = 0; i < n && i < 12; i++)
		printf("  %-45s B/A %+.3f%%  Welch p %.3g  sd A %.3f%% B %.3f%%  F p %.3g\n", d[i].key,
		       d[i].change_pct, d[i].p_mean, d[i].sd_a, d[i].sd_b, d[i].p_sd);
	free(d);
	hb_cmp_calib_free(c[0]);
	hb_cmp_calib_free(c[1]);
	return 0;
}

static size_t aa_row(struct aa_ctx *c, const struct hb_cmp_mres *m)
{
	char key[512];

	snprintf(key, sizeof(key), "%s.%s", m->workload, m->name);
	for (size_t i = 0; i < c->n_metrics; i++)
		if (!strcmp(c->names[i], key))
			return i;
	c->names = realloc(c->names, (c->n_metrics + 1) * sizeof(*c->names));
	c->flag_w = realloc(c->flag_w, (c->n_metrics + 1) * sizeof(*c->flag_w));
	c->flag_b = realloc(c->flag_b, (c->n_metrics + 1) * sizeof(*c->flag_b));
	c->judged = realloc(c->judged, (c->n_metrics + 1) * sizeof(*c->judged));
	if (!c->names || !c->flag_w || !c->flag_b || !c->judged) {
		fprintf(stderr, "aa_study: out of memory\n");
		exit(2);
	}
	c->names[c->n_metrics] = strdup(key);
	c->flag_w[c->n_metrics] = c->flag_b[c->n_metrics] = c->judged[c->n_metrics] = 0;
	return c->n_metrics++;
}

/* One comparison of boots ia[] (BASE) with ib[] (NEW) of the groups. */
static void aa_compare(struct aa_ctx *c, const struct hb_cmp_group *ga, const size_t *ia,
		       const struct hb_cmp_group *gb, const size_t *ib, size_t k, bool print)
{
	struct hb_cmp_run *ra[AA_MAX_BOOTS], *rb[AA_MAX_BOOTS];
	struct hb_cmp_group *va, *vb;
	struct hb_cmp_pair p;
	bool any = false, worse = false;
	size_t judged = 0;

	for (size_t i = 0; i < k; i++) {
		ra[i] = ga->boots[ia[i]];
		rb[i] = gb->boots[ib[i]];
	}
	va = hb_cmp_group_view(ra, k, ga->path);
	vb = hb_cmp_group_view(rb, k, gb->path);
	if (!va || !vb || hb_cmp_pair_build_groups(va, vb, &c->th, &c->o, &p)) {
		fprintf(stderr, "aa_study: the comparison failed (out of memory or a broken "
				"calibration file)\n");
		exit(2);
	}
	for (size_t i = 0; i < p.n_m; i++) {
		const struct hb_cmp_mres *m = &p.m[i];
		size_t r = aa_row(c, m);
		bool j = m->verdict == HB_CMP_SAME || m->verdict == HB_CMP_WORSE ||
			 m->verdict == HB_CMP_BETTER || m->verdict == HB_CMP_SMALL;

		c->judged[r] += j;
		judged += j;
		if (m->verdict == HB_CMP_WORSE) {
			c->flag_w[r]++;
			any = worse = true;
		} else if (m->verdict == HB_CMP_BETTER) {
			c->flag_b[r]++;
			any = true;
		}
		if (print && (m->verdict == HB_CMP_WORSE || m->verdict == HB_CMP_BETTER))
			printf("  %-48s %-11s %+7.1f%%  q=%-8.2g boot sd %.1f%% (%s), detectable %.3g%%\n",
			       c->names[r], hb_cmp_verdict_name(m->verdict), m->change_pct,
			       m->verdict == HB_CMP_WORSE ? m->q_worse : m->q_better, m->sd_log * 100,
			       m->sd_source, m->mde_pct);
	}
	if (print)
		printf("  (%zu of %zu metrics judged; %zu regression finding(s) in all, functional "
		       "included)\n", judged, p.n_m, p.n_regressions);
	c->comparisons++;
	c->flagged += any;
	c->flagged_worse += worse;
	c->judged_sum += judged;
	hb_cmp_pair_free(&p);
	hb_cmp_group_free(va);
	hb_cmp_group_free(vb);
}

static void aa_report(const struct aa_ctx *c, const char *what)
{
	printf("%s: %zu comparisons; %zu flagged a metric in either direction (%.1f%%), %zu a "
	       "regression of NEW (%.1f%%); on average %.1f metrics judged per comparison\n",
	       what, c->comparisons, c->flagged, 100.0 * (double)c->flagged / (double)c->comparisons,
	       c->flagged_worse, 100.0 * (double)c->flagged_worse / (double)c->comparisons,
	       (double)c->judged_sum / (double)c->comparisons);
	for (size_t i = 0; i < c->n_metrics; i++)
		if (c->flag_w[i] || c->flag_b[i])
			printf("  %-48s worse %3zu, better %3zu of %zu (judged in %zu)\n", c->names[i],
			       c->flag_w[i], c->flag_b[i], c->comparisons, c->judged[i]);
}

static double aa_choose(size_t n, size_t k)
{
	double r = 1;

	for (size_t i = 1; i <= k; i++)
		r = r * (double)(n - k + i) / (double)i;
	return r;
}

/* Next k-combination of 0..n-1 in idx (lexicographic); false after the last. */
static bool aa_next(size_t *idx, size_t k, size_t n)
{
	size_t i = k;

	while (i > 0 && idx[i - 1] == n - k + i - 1)
		i--;
	if (!i)
		return false;
	idx[i - 1]++;
	for (size_t j = i; j < k; j++)
		idx[j] = idx[j - 1] + 1;
	return true;
}

static void aa_complement(const size_t *idx, size_t k, size_t n, size_t *out)
{
	size_t o = 0, j = 0;

	for (size_t i = 0; i < n; i++) {
		if (j < k && idx[j] == i)
			j++;
		else
			out[o++] = i;
	}
}

static void aa_splits(struct aa_ctx *c, const struct hb_cmp_group *g, size_t k, size_t splits,
		      unsigned long seed)
{
	size_t idx[AA_MAX_BOOTS], rest[AA_MAX_BOOTS], n = g->n;
	double total = aa_choose(n, k) / 2;

	printf("A/A split study: %s, %zu boots, halves of %zu: ", g->path, n, k);
	if (n == 2 * k && total <= AA_MAX_ENUM) {
		printf("every split (%.0f)\n", total);
		for (size_t i = 0; i < k; i++)
			idx[i] = i;
		do {
			/* each unordered split once: BASE holds boot 1 */
			if (idx[0] != 0)
				break;
			aa_complement(idx, k, n, rest);
			aa_compare(c, g, idx, g, rest, k, false);
		} while (aa_next(idx, k, n));
	} else {
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

		printf("%zu random splits (seed %lu)\n", splits, seed);
		gsl_rng_set(r, seed);
		for (size_t s = 0; s < splits; s++) {
			size_t perm[AA_MAX_BOOTS];

			for (size_t i = 0; i < n; i++)
				perm[i] = i;
			for (size_t i = n - 1; i > 0; i--) {
				size_t j = gsl_rng_uniform_int(r, i + 1), t = perm[i];

				perm[i] = perm[j];
				perm[j] = t;
			}
			aa_compare(c, g, perm, g, perm + k, k, false);
		}
		gsl_rng_free(r);
	}
	aa_report(c, "A/A");
}

static void aa_ab(struct aa_ctx *c, const struct hb_cmp_group *ga, const struct hb_cmp_group *gb,
		  size_t k)
{
	size_t ia[AA_MAX_BOOTS], ib[AA_MAX_BOOTS], n = ga->n < gb->n ? ga->n : gb->n;

	printf("A/B: BASE %s (%zu boots), NEW %s (%zu boots)\n", ga->path, ga->n, gb->path, gb->n);
	printf("all boots (%zu vs %zu), flagged metrics and notes:\n", n, n);
	for (size_t i = 0; i < n; i++)
		ia[i] = ib[i] = i;
	aa_compare(c, ga, ia, gb, ib, n, true);
	if (k >= n || k < 1)
		return;
	memset(c->flag_w, 0, c->n_metrics * sizeof(*c->flag_w));
	memset(c->flag_b, 0, c->n_metrics * sizeof(*c->flag_b));
	memset(c->judged, 0, c->n_metrics * sizeof(*c->judged));
	c->comparisons = c->flagged = c->flagged_worse = c->judged_sum = 0;
	for (size_t i = 0; i < k; i++)
		ia[i] = i;
	do {
		for (size_t i = 0; i < k; i++)
			ib[i] = i;
		do
			aa_compare(c, ga, ia, gb, ib, k, false);
		while (aa_next(ib, k, n));
	} while (aa_next(ia, k, n));
	{
		char what[64];

		snprintf(what, sizeof(what), "A/B, every choice of %zu vs %zu boots", k, k);
		aa_report(c, what);
	}
}

/* BASE given as a target folder: its group with NEW's stamp, if any. */
static char *aa_partner(const char *base, const struct hb_cmp_group *gb)
{
	const char *slash = gb->group_id ? strrchr(gb->group_id, '/') : NULL;
	char path[4400];
	struct stat st;

	if (!slash)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s/group.json", base, slash + 1);
	return !stat(path, &st) && S_ISREG(st.st_mode) ? strdup(path) : NULL;
}

int main(int argc, char **argv)
{
	const char *args[2] = { NULL, NULL }, *th = "configs/thresholds.conf", *res = "results";
	struct hb_cmp_group *g[2] = { NULL, NULL };
	struct aa_ctx c = { 0 };
	size_t half = 0, splits = 200;
	unsigned long seed = 1;
	bool ab = false, dashdash = false;
	int nargs = 0;
	char err[1024];

	hb_stats_init();
	hb_cmp_opts_default(&c.o);
	if (argc > 1 && !strcmp(argv[1], "--calib-diff"))
		return argc == 4 ? aa_calib_diff(argv[2], argv[3]) : aa_usage();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;

		if (dashdash || (a[0] != '-' && nargs < 2)) {
			if (nargs == 2)
				return aa_usage();
			args[nargs++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = true;
		} else if (!strcmp(a, "--ab")) {
			ab = true;
		} else if (!strcmp(a, "--half") && v) {
			half = strtoul(v, &end, 10);
			i++;
		} else if (!strcmp(a, "--splits") && v) {
			splits = strtoul(v, &end, 10);
			i++;
		} else if (!strcmp(a, "--seed") && v) {
			seed = strtoul(v, &end, 10);
			i++;
		} else if (!strcmp(a, "--thresholds") && v) {
			th = v;
			i++;
		} else if (!strcmp(a, "--calibration") && v) {
			c.o.calibration = strcmp(v, "none") ? v : NULL;
			i++;
		} else if (!strcmp(a, "--results") && v) {
			res = v;
			i++;
		} else if (!strcmp(a, "--unseen-min") && v) {
			c.o.unseen_min_pct = strtod(v, &end);
			if (!(c.o.unseen_min_pct >= 1 && c.o.unseen_min_pct <= 1000))
				return aa_usage();
			i++;
		} else {
			return aa_usage();
		}
		if (end && (*end || end == v))
			return aa_usage();
	}
	if (nargs != (ab ? 2 : 1) || splits < 20 || splits > 100000 || half > AA_MAX_BOOTS / 2)
		return aa_usage();
	if (hb_cmp_thresholds_load(th, &c.th, err, sizeof(err))) {
		fprintf(stderr, "aa_study: %s\n", err);
		return 2;
	}
	for (int s = nargs - 1; s >= 0; s--) {
		char *partner = ab && s == 0 ? aa_partner(args[0], g[1]) : NULL;

		g[s] = partner ? hb_cmp_group_load_for(partner, HB_CMP_USE_RULE, err, sizeof(err))
			       : hb_cmp_group_open(args[s], res, NULL, HB_CMP_USE_RULE, err,
						   sizeof(err));
		free(partner);
		if (!g[s]) {
			fprintf(stderr, "aa_study: %s\n", err);
			return 2;
		}
		if (g[s]->n > AA_MAX_BOOTS) {
			fprintf(stderr, "aa_study: %s: at most %d boots\n", g[s]->path, AA_MAX_BOOTS);
			return 2;
		}
	}
	printf("rule: BH FDR %g over every tested metric (none left out for its noise), detectable "
	       "change at alpha/m with power %g, thresholds %s, calibration %s\n", c.o.alpha,
	       c.o.power, th, c.o.calibration ? c.o.calibration : "none");
	if (ab) {
		aa_ab(&c, g[0], g[1], half ? half : 3);
	} else {
		if (!half)
			half = g[0]->n / 2;
		if (half < 1 || 2 * half > g[0]->n) {
			fprintf(stderr, "aa_study: %s has %zu boots: too few for halves of %zu\n",
				g[0]->path, g[0]->n, half);
			return 2;
		}
		aa_splits(&c, g[0], half, splits, seed);
	}
	for (size_t i = 0; i < c.n_metrics; i++)
		free(c.names[i]);
	free(c.names);
	free(c.flag_w);
	free(c.flag_b);
	free(c.judged);
	hb_cmp_group_free(g[0]);
	hb_cmp_group_free(g[1]);
	hb_cmp_thresholds_free(&c.th);
	return 0;
}
