/* cmp_findings.c - what compare-report finds in the metrics of a pair of
 * groups: per-metric statistics (the rule of cmp_rule.c, one center per
 * boot, with the minimum effect of the sides' clock), metrics that vanished or became unavailable in NEW, `better` or
 * units that differ, and meminfo/vmstat deltas by snapshot label. The
 * functional findings (workloads, checks, kernel issues, verdicts) are
 * cmp_functional.c's. */
#define _DEFAULT_SOURCE
#include "cmp_pair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- metrics ----------------------------------------------------------------------- */

struct hb_cmp_mrow {
	const struct hb_cmp_wkey *k;
	const char *name;
};

/* Every (workload key, metric name) of either side, first seen first. */
static struct hb_cmp_mrow *hb_cmp_metric_rows(struct hb_cmp_ctx *c, size_t *n)
{
	struct hb_cmp_pair *p = c->p;
	struct hb_cmp_mrow *rows = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t i = 0; i < p->n_wk; i++)
		for (int s = 0; s < 2; s++)
			for (size_t b = 0; b < hb_cmp_g(p, s)->n; b++) {
				const struct hb_cmp_workload *w = p->wk[i].w[s][b];

				for (size_t j = 0; w && j < w->n_metrics; j++) {
					struct hb_cmp_mrow row = { &p->wk[i], w->metrics[j].name };
					bool added;

					if (!hb_cmp_idx_put(&c->seen, &p->wk[i], "metric", row.name, NULL,
							    0, &added) ||
					    (added && hb_cmp_append((void **)&rows, n, &cap, sizeof(row),
								    &row))) {
						c->oom = true;
						free(rows);
						*n = 0;
						return NULL;
					}
				}
			}
	return rows ? rows : hb_cmp_xcalloc(1, sizeof(*rows));
}

/* All samples of a side in one metric: the boot's own entry when there is
 * one boot, else a pooled copy owned by the pair (p->pool[slot]). */
static const struct hb_cmp_metric *hb_cmp_pool(struct hb_cmp_ctx *c,
					       const struct hb_cmp_metric *const *m, size_t n)
{
	struct hb_cmp_pair *p = c->p;
	struct hb_cmp_metric *pm;
	size_t total = 0, k = 0, first = n;

	for (size_t i = 0; i < n; i++)
		if (m[i] && !m[i]->unavailable) {
			total += m[i]->n;
			if (first == n)
				first = i;
		}
	if (n == 1 || first == n)
		return n == 1 ? m[0] : NULL;
	pm = &p->pool[p->n_pool];
	*pm = *m[first];
	pm->samples = malloc((total + 1) * sizeof(double));
	pm->rep_means = NULL;
	pm->n_reps = 0;
	if (!pm->samples) {
		c->oom = true;
		return NULL;
	}
	p->n_pool++;
	for (size_t i = 0; i < n; i++)
		if (m[i] && !m[i]->unavailable && m[i]->n) {
			memcpy(pm->samples + k, m[i]->samples, m[i]->n * sizeof(double));
			k += m[i]->n;
			pm->n_reps += m[i]->n_reps ? m[i]->n_reps : 1;
		}
	pm->n = k;
	return pm;
}

/* Directions and units must agree over every boot of both sides (a unit
 * that is absent, or of an entry without values, proves no difference). */
static void hb_cmp_direction(struct hb_cmp_ctx *c, const struct hb_cmp_mrow *row,
			     const struct hb_cmp_metric *const *m[2])
{
	struct hb_cmp_pair *p = c->p;
	const struct hb_cmp_metric *first[2] = { NULL, NULL };
	const char *unit[2] = { NULL, NULL };
	bool differ = false, within = false, between;

	for (int s = 0; s < 2; s++)
		for (size_t b = 0; b < hb_cmp_g(p, s)->n; b++) {
			const struct hb_cmp_metric *x = m[s][b];

			if (!x)
				continue;
			if (!first[s])
				first[s] = x;
			if (x->better != (first[0] ? first[0] : x)->better ||
			    x->better != first[s]->better)
				differ = true;
			if (!x->unit || x->unavailable)
				continue;
			if (!unit[s])
				unit[s] = x->unit;
			else if (strcmp(x->unit, unit[s]))
				within = true;
		}
	between = unit[0] && unit[1] && strcmp(unit[0], unit[1]);
	if (differ) {
		p->comparable = false;
		p->n_direction++;
		hb_cmp_find(p, HB_CMP_F_DIRECTION, false, row->k->label, row->name,
			    "%s: better=%s in BASE, %s in NEW%s: not comparable", row->name,
			    first[0] ? hb_cmp_better_name(first[0]->better) : "-",
			    first[1] ? hb_cmp_better_name(first[1]->better) : "-",
			    first[0] && first[1] && first[0]->better == first[1]->better
				    ? " (and differs between boots of one side)" : "");
	}
	if (within || between) {
		p->comparable = false;
		p->n_direction++;
		hb_cmp_find(p, HB_CMP_F_DIRECTION, false, row->k->label, row->name,
			    "%s: unit=%s in BASE, %s in NEW%s: not comparable", row->name,
			    hb_cmp_s(unit[0]), hb_cmp_s(unit[1]),
			    !within ? "" : between ? " (and differs between boots of one side)"
						   : " (differs between boots of one side)");
	}
}

/* Vanished or newly unavailable in NEW: in a NEW boot where the workload
 * ran, while BASE had values. */
static void hb_cmp_vanished(struct hb_cmp_ctx *c, const struct hb_cmp_mrow *row,
			    const struct hb_cmp_metric *const *m[2])
{
	struct hb_cmp_pair *p = c->p;
	size_t base_avail = 0, gone = 0, unavail = 0, ran = 0;
	const char *why = NULL;

	for (size_t b = 0; b < p->ga->n; b++)
		base_avail += m[0][b] && !m[0][b]->unavailable;
	if (!base_avail)
		return;
	for (size_t b = 0; b < p->gb->n; b++) {
		const struct hb_cmp_workload *w = row->k->w[1][b];

		if (!w || !strcmp(w->status, "skip"))
			continue;
		ran++;
		if (!m[1][b])
			gone++;
		else if (m[1][b]->unavailable) {
			unavail++;
			if (!why)
				why = m[1][b]->unavailable;
		}
	}
	if (gone)
		hb_cmp_find(p, HB_CMP_F_METRIC, c->o->strict, row->k->label, row->name,
			    "%s vanished in NEW: absent in %zu of %zu NEW boots that ran %s (BASE has "
			    "values)%s", row->name, gone, ran, row->k->label,
			    c->o->strict ? "" : "; --strict makes this a regression");
	if (unavail)
		hb_cmp_find(p, HB_CMP_F_METRIC, c->o->strict, row->k->label, row->name,
			    "%s became unavailable in NEW (%zu of %zu boots): %s%s", row->name, unavail,
			    ran, why, c->o->strict ? "" : "; --strict makes this a regression");
}

void hb_cmp_metrics(struct hb_cmp_ctx *c)
{
	struct hb_cmp_pair *p = c->p;
	size_t n, nb = p->ga->n + p->gb->n;
	struct hb_cmp_mrow *rows = hb_cmp_metric_rows(c, &n);
	const struct hb_cmp_metric **ma = hb_cmp_xcalloc(p->ga->n, sizeof(*ma));
	const struct hb_cmp_metric **mb = hb_cmp_xcalloc(p->gb->n, sizeof(*mb));

	p->m = hb_cmp_xcalloc(n, sizeof(*p->m));
	p->centers = hb_cmp_xcalloc(n * nb, sizeof(*p->centers));
	p->pool = hb_cmp_xcalloc(2 * n, sizeof(*p->pool));
	if (!rows || !ma || !mb || !p->m || !p->centers || !p->pool) {
		c->oom = true;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_wkey *k = rows[i].k;
		const struct hb_cmp_metric *const *m[2] = { ma, mb };
		struct hb_cmp_mres *r = &p->m[p->n_m];
		const struct hb_cmp_metric *pa, *pb;
		struct hb_cmp_limits lim;
		struct hb_cmp_calref cal;

		for (size_t b = 0; b < p->ga->n; b++)
			ma[b] = hb_cmp_metric(&c->x[0], k->w[0][b], rows[i].name);
		for (size_t b = 0; b < p->gb->n; b++)
			mb[b] = hb_cmp_metric(&c->x[1], k->w[1][b], rows[i].name);
		hb_cmp_direction(c, &rows[i], m);
		hb_cmp_vanished(c, &rows[i], m);
		pa = hb_cmp_pool(c, ma, p->ga->n);
		pb = hb_cmp_pool(c, mb, p->gb->n);
		hb_cmp_limits_for(c->t, k->name, rows[i].name, &lim);
		lim.virtual_clock = !strcmp(p->clock, "virtual");
		hb_cmp_calib_ref(p->calib, k->label, rows[i].name, &cal);
		r->workload = k->label;
		r->wl_name = k->name;
		hb_cmp_metric_test_boots(ma, p->ga->n, mb, p->gb->n, pa, pb, p->centers + i * nb,
					 p->centers + i * nb + p->ga->n, &lim, &cal, c->o, r);
		p->n_m++;
	}
	p->family = hb_cmp_decide(p->m, p->n_m, c->o);
	for (size_t i = 0; i < p->n_m; i++) {
		struct hb_cmp_mres *r = &p->m[i];

		bool judgeable = r->better != HB_CMP_INFO && r->verdict != HB_CMP_INFO_ONLY &&
				 r->verdict != HB_CMP_MISSING && r->verdict != HB_CMP_UNAVAILABLE;
		bool tested = r->verdict == HB_CMP_SAME || r->verdict == HB_CMP_WORSE ||
			      r->verdict == HB_CMP_BETTER || r->verdict == HB_CMP_SMALL;

		p->n_judgeable += judgeable;
		p->n_untested += judgeable && !tested;
		p->n_blind += hb_cmp_blind_to_3x(r);
		if (r->verdict == HB_CMP_WORSE)
			hb_cmp_find(p, HB_CMP_F_METRIC, true, r->workload, r->name,
				    "%s worse by %.1f%% (%s)", r->name, r->worse_pct, r->why);
		else if (r->verdict == HB_CMP_SMALL && r->worse_pct > 0) {
			p->n_small++;
			hb_cmp_find(p, HB_CMP_F_METRIC, false, r->workload, r->name, "%s %s", r->name,
				    r->why);
		} else if (r->verdict == HB_CMP_UNTESTABLE)
			hb_cmp_find(p, HB_CMP_F_METRIC, false, r->workload, r->name, "%s %s", r->name,
				    r->why);
		else if (r->not_judged)
			hb_cmp_find(p, HB_CMP_F_METRIC, false, r->workload, r->name, "%s %s", r->name,
				    r->why);
		for (int s = 0; s < 2; s++) {
			double x = s ? r->excl_b : r->excl_a;
			const double *cs = s ? r->cb : r->ca;
			size_t nc = s ? r->nb : r->na;

			if (!isnan(x))
				hb_cmp_find(p, HB_CMP_F_METRIC, false, r->workload, r->name,
					    "%s: a %s boot at %.6g (%.3gx the median of the other %zu) "
					    "left out as an outlier boot (beyond %gx and %g calibrated "
					    "sds)", r->name, s ? "NEW" : "BASE", x,
					    x / hb_stats_median(cs, nc), nc, HB_CMP_OUTLIER_RATIO,
					    HB_CMP_OUTLIER_SDS);
		}
		if (r->sd_disagrees && r->verdict != HB_CMP_UNTESTABLE)
			hb_cmp_find(p, HB_CMP_F_METRIC, false, r->workload, r->name,
				    "%s: boot sd of these boots %.2g%% (pooled, %.0f df) vs %.2g%% "
				    "%s, F-test p=%.2g: the calibration may not describe these boots",
				    r->name, r->sd_measured * 100, r->df_measured,
				    fmax(r->sd_calib, HB_CMP_SD_FLOOR) * 100,
				    r->calib_df > 0 ? "calibrated" : "in the thresholds file (boot_sd_pct)",
				    r->sd_check_p);
	}
out:
	free(rows);
	free(ma);
	free(mb);
}

/* ---- snapshots --------------------------------------------------------------------- */

static const char *const hb_cmp_interesting[] = {
	"Shmem", "ShmemHugePages", "ShmemPmdMapped", "ShmemPmdMapped", "FilePmdMapped",
	"FileHugePages", "AnonHugePages", "Mapped", "Mlocked", "Unevictable", "SwapFree",
	"SwapCached", "MemAvailable", "thp_", "compact_", "pswp", "nr_shmem", "shmem_",
	NULL,
};

static bool hb_cmp_key_interesting(const char *key)
{
	for (size_t i = 0; hb_cmp_interesting[i]; i++) {
		size_t l = strlen(hb_cmp_interesting[i]);

		if (hb_cmp_interesting[i][l - 1] == '_' ? !strncmp(key, hb_cmp_interesting[i], l)
							: !strcmp(key, hb_cmp_interesting[i]))
			return true;
	}
	return false;
}

/* Mean of a key over every repetition (of every boot) with the snapshot
 * label; NAN when no boot has the label. */
static double hb_cmp_snap_mean(const struct hb_cmp_sideix *x, const struct hb_cmp_wkey *k, int s,
			       const char *label, int vm, const char *key)
{
	double sum = 0;
	size_t reps = 0;

	for (size_t b = 0; b < x->g->n; b++) {
		const struct hb_cmp_workload *w = k->w[s][b];
		size_t *r = w ? hb_cmp_idx_get(&x->lab, w, label, NULL, NULL) : NULL;
		size_t *v = w ? hb_cmp_idx_get(&x->key, w, label, hb_cmp_src[vm], key) : NULL;

		if (!r)
			continue;
		reps += *r;
		/* deltas are recorded when non-zero: a repetition without the key is 0 */
		if (v)
			sum += x->sums[*v].sum;
	}
	return reps ? sum / (double)reps : NAN;
}

void hb_cmp_snaps(struct hb_cmp_ctx *c)
{
	struct hb_cmp_pair *p = c->p;
	size_t cap = 0;

	for (size_t i = 0; i < p->n_wk; i++) {
		const struct hb_cmp_wkey *k = &p->wk[i];

		for (int s = 0; s < 2; s++)
			for (size_t b = 0; b < hb_cmp_g(p, s)->n; b++) {
				const struct hb_cmp_workload *w = k->w[s][b];

				for (size_t j = 0; w && j < w->n_snaps; j++)
					for (int vm = 0; vm < 2; vm++) {
						const struct hb_cmp_snap *sn = &w->snaps[j];
						const struct hb_cmp_kv *kv = vm ? sn->vmstat : sn->meminfo;
						size_t nk = vm ? sn->n_vmstat : sn->n_meminfo;

						for (size_t q = 0; q < nk; q++) {
							struct hb_cmp_snaprow row;
							bool added;

							if (!hb_cmp_idx_put(&c->seen, k, hb_cmp_src[vm],
									    sn->label, kv[q].key, 0,
									    &added)) {
								c->oom = true;
								return;
							}
							if (!added)
								continue;
							row = (struct hb_cmp_snaprow){
								k->label, sn->label, hb_cmp_src[vm],
								kv[q].key,
								hb_cmp_snap_mean(&c->x[0], k, 0, sn->label,
										 vm, kv[q].key),
								hb_cmp_snap_mean(&c->x[1], k, 1, sn->label,
										 vm, kv[q].key),
								hb_cmp_key_interesting(kv[q].key),
							};
							if (hb_cmp_append((void **)&p->snaps, &p->n_snaps,
									  &cap, sizeof(row), &row))
								c->oom = true;
						}
					}
			}
	}
}
