/* cmp_text.c - compare-report as terminal text or as markdown.
 *
 * Both formats share the tables built here; text aligns columns and marks
 * regressions with "!!" and the word REGRESSION so they stand out without
 * colour, markdown prints GitHub tables. Text from the result files is
 * printed cleaned (no control characters) and, in markdown, escaped: a name
 * is shown, never interpreted.
 */
#define _DEFAULT_SOURCE
#include "compare.h"
#include "cmp_table.h"

#include <math.h>
#include <string.h>

struct hb_cmp_out {
	FILE *f;
	bool md;
};

static void hb_cmp_heading(struct hb_cmp_out *o, const char *title)
{
	if (o->md)
		fprintf(o->f, "### %s\n\n", title);
	else
		fprintf(o->f, "\n%s\n", title);
}

static void hb_cmp_emit(struct hb_cmp_out *o, struct hb_cmp_tbl *t)
{
	if (o->md)
		hb_cmp_tbl_md(o->f, t);
	else
		hb_cmp_tbl_text(o->f, t, "  ");
	hb_cmp_tbl_free(t);
}

static void hb_cmp_pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "%sinf%%", v > 0 ? "+" : "-");
	else
		snprintf(buf, len, "%+.1f%%", v);
}

static void hb_cmp_env_table(struct hb_cmp_out *o, const struct hb_cmp_pair *p)
{
	static const char *const head[] = { "", "field", "BASE", "NEW" };
	struct hb_cmp_tbl t;

	hb_cmp_heading(o, "Environment (* differs, ! not comparable)");
	hb_cmp_tbl_init(&t, "llll", head);
	for (size_t i = 0; i < p->n_env; i++) {
		const struct hb_cmp_envdiff *e = &p->env[i];
		const char *row[] = { e->blocks ? "!" : (e->differs ? "*" : ""), e->field, e->a,
				      e->b };

		hb_cmp_tbl_add(&t, row);
	}
	hb_cmp_emit(o, &t);
}

static void hb_cmp_findings(struct hb_cmp_out *o, const struct hb_cmp_pair *p)
{
	hb_cmp_heading(o, p->n_regressions ? "Regressions and notes" : "Notes");
	if (!p->n_f)
		fprintf(o->f, o->md ? "None.\n\n" : "  none\n");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->n_f; i++) {
			const struct hb_cmp_finding *f = &p->f[i];

			if (f->regression != !pass)
				continue;
			if (o->md) {
				fprintf(o->f, "- %s", f->regression ? "**REGRESSION** " : "");
				if (f->workload[0]) {
					hb_cmp_md_puts(o->f, f->workload);
					fputs(": ", o->f);
				}
				hb_cmp_md_puts(o->f, f->text);
				fputc('\n', o->f);
			} else
				fprintf(o->f, "  %s %s%s%s\n", f->regression ? "!! REGRESSION" : "   note",
					f->workload, f->workload[0] ? ": " : "", f->text);
		}
	if (o->md && p->n_f)
		fputc('\n', o->f);
}

static void hb_cmp_wl_table(struct hb_cmp_out *o, const struct hb_cmp_pair *p)
{
	static const char *const head[] = { "", "workload", "BASE", "NEW", "BASE reason",
					    "NEW reason" };
	struct hb_cmp_tbl t;

	hb_cmp_heading(o, "Workloads");
	hb_cmp_tbl_init(&t, "llllll", head);
	for (size_t i = 0; i < p->n_wl; i++) {
		const struct hb_cmp_wlrow *w = &p->wl[i];
		const char *row[] = { w->regression ? "!!" : "", w->name,
				      w->status_a ? w->sum_a : "(not run)",
				      w->status_b ? w->sum_b : "(not run)",
				      w->reason_a, w->reason_b };

		hb_cmp_tbl_add(&t, row);
	}
	hb_cmp_emit(o, &t);
}

/* "3.1% m": the boot sd the test used and where it came from. */
static void hb_cmp_noise(char *buf, size_t len, const struct hb_cmp_mres *m)
{
	if (isnan(m->sd_log))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%% %c", m->sd_log * 100, m->sd_source[0]);
}

static void hb_cmp_metric_table(struct hb_cmp_out *o, const struct hb_cmp_report *r,
				const struct hb_cmp_pair *p)
{
	static const char *const head[] = { "", "metric", "unit", "better", "boots B/N", "test",
					    "BASE", "NEW", "change", "interval", "q(worse)",
					    "min/detect", "noise", "verdict" };
	struct hb_cmp_tbl t;
	char title[200];

	snprintf(title, sizeof(title),
		 "Metrics (one center per boot; BH FDR %g over the %zu tested metrics; %g%% intervals "
		 "of NEW/BASE; q = BH-adjusted p)", r->opts.alpha, p->family, r->opts.ci_level * 100);
	hb_cmp_heading(o, title);
	hb_cmp_tbl_init(&t, "llllllrrrlrrrl", head);
	for (size_t i = 0; i < p->n_m; i++) {
		const struct hb_cmp_mres *m = &p->m[i];
		char name[192], n[48], ca[32], cb[32], ch[32], lo[32], hi[32], ci[72], q[32],
			me[40], sd[24];
		const char *flag = m->verdict == HB_CMP_WORSE ? "!!" :
				   m->verdict == HB_CMP_BETTER ? "++" : "";

		snprintf(name, sizeof(name), "%s.%s", m->workload, m->name);
		snprintf(n, sizeof(n), "%zu/%zu", m->na, m->nb);
		hb_cmp_fmt_num(ca, sizeof(ca), m->center_a);
		hb_cmp_fmt_num(cb, sizeof(cb), m->center_b);
		hb_cmp_pct(ch, sizeof(ch), m->change_pct);
		hb_cmp_pct(lo, sizeof(lo), (m->ci_lo - 1) * 100);
		hb_cmp_pct(hi, sizeof(hi), (m->ci_hi - 1) * 100);
		if (isnan(m->ci_lo))
			snprintf(ci, sizeof(ci), "-");
		else
			snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
		if (isnan(m->q_worse))
			snprintf(q, sizeof(q), "-");
		else
			snprintf(q, sizeof(q), "%.2g", m->q_worse);
		if (isnan(m->mde_pct))
			snprintf(me, sizeof(me), "%g%%", m->min_effect_pct);
		else
			snprintf(me, sizeof(me), "%g%%/%.3g%%", m->min_effect_pct, m->mde_pct);
		hb_cmp_noise(sd, sizeof(sd), m);
		{
			const char *row[] = { flag, name, m->unit, hb_cmp_better_name(m->better), n,
					      m->test, ca, cb, ch, ci, q, me, sd,
					      hb_cmp_verdict_name(m->verdict) };

			hb_cmp_tbl_add(&t, row);
		}
	}
	hb_cmp_emit(o, &t);
	if (!o->md)
		fprintf(o->f, "  (boots B/N: boots with a value; BASE/NEW: geometric mean of the boot "
			      "centers; min/detect: the minimum effect, and the smallest change a lone "
			      "true effect shows at 80%% power when BH needs p <= alpha/%zu; noise: boot "
			      "sd of the log center the test used, c calibration, m measured, t "
			      "thresholds; advisory: too few boots and no calibration, cannot fail; "
			      "reasons: --format json)\n", p->family ? p->family : 1);
}

static void hb_cmp_dist_row(struct hb_cmp_tbl *t, const char *name, const char *side,
			    const struct hb_stats_desc *d)
{
	char n[24], v[6][32];
	double x[6] = { d->mean, d->sd, d->cov * 100, d->p50, d->p90, d->p99 };

	snprintf(n, sizeof(n), "%zu", d->n);
	for (int i = 0; i < 6; i++)
		hb_cmp_fmt_num(v[i], sizeof(v[i]), x[i]);
	if (!isnan(d->cov))
		strcat(v[2], "%");
	{
		const char *row[] = { name, side, n, v[0], v[1], v[2], v[3], v[4], v[5] };

		hb_cmp_tbl_add(t, row);
	}
}

static void hb_cmp_dist_table(struct hb_cmp_out *o, const struct hb_cmp_pair *p)
{
	static const char *const head[] = { "metric", "", "n", "mean", "stddev", "CoV", "p50",
					    "p90", "p99" };
	struct hb_cmp_tbl t;

	hb_cmp_heading(o, "Samples (every boot and repetition pooled, descriptive; p90/p99 need >= 10 / 100 samples)");
	hb_cmp_tbl_init(&t, "llrrrrrrr", head);
	for (size_t i = 0; i < p->n_m; i++) {
		const struct hb_cmp_mres *m = &p->m[i];
		char name[192];
		struct hb_stats_desc da = m->da, db = m->db;

		if (da.n < 2 && db.n < 2)
			continue;
		if (da.n < 10)
			da.p90 = da.p99 = NAN;
		if (db.n < 10)
			db.p90 = db.p99 = NAN;
		if (da.n < 100)
			da.p99 = NAN;
		if (db.n < 100)
			db.p99 = NAN;
		snprintf(name, sizeof(name), "%s.%s", m->workload, m->name);
		hb_cmp_dist_row(&t, name, "BASE", &da);
		hb_cmp_dist_row(&t, "", "NEW", &db);
	}
	hb_cmp_emit(o, &t);
}

static const char *hb_cmp_pass_word(int st)
{
	return st == 1 ? "pass" : st == 0 ? "FAIL" : "-";
}

static void hb_cmp_check_table(struct hb_cmp_out *o, const struct hb_cmp_pair *p)
{
	static const char *const head[] = { "", "workload", "check", "expected", "BASE", "NEW" };
	struct hb_cmp_tbl t;

	hb_cmp_heading(o, "Checks (!! regression, ~ flaky: fails in some boots of a side)");
	hb_cmp_tbl_init(&t, "llllll", head);
	for (size_t i = 0; i < p->n_checks; i++) {
		const struct hb_cmp_checkrow *c = &p->checks[i];
		char a[128], b[128];

		/* "FAIL 2/5 ...": failing boots of those that ran it */
		if (c->ran_a > 1 && c->failed_a)
			snprintf(a, sizeof(a), "FAIL %zu/%zu %s", c->failed_a, c->ran_a, c->observed_a);
		else
			snprintf(a, sizeof(a), "%s %s", hb_cmp_pass_word(c->pass_a), c->observed_a);
		if (c->ran_b > 1 && c->failed_b)
			snprintf(b, sizeof(b), "FAIL %zu/%zu %s", c->failed_b, c->ran_b, c->observed_b);
		else
			snprintf(b, sizeof(b), "%s %s", hb_cmp_pass_word(c->pass_b), c->observed_b);
		{
			const char *row[] = { c->regression ? "!!" : c->flaky ? "~" : "", c->workload,
					      c->name, c->expected, a, b };

			hb_cmp_tbl_add(&t, row);
		}
	}
	hb_cmp_emit(o, &t);
}

static void hb_cmp_snap_table(struct hb_cmp_out *o, const struct hb_cmp_pair *p)
{
	static const char *const head[] = { "workload", "label", "key", "BASE", "NEW", "NEW-BASE" };
	struct hb_cmp_tbl t;
	size_t hidden = 0;

	hb_cmp_heading(o, "meminfo (kB) and vmstat deltas per snapshot label, mean over repetitions");
	hb_cmp_tbl_init(&t, "lllrrr", head);
	for (size_t i = 0; i < p->n_snaps; i++) {
		const struct hb_cmp_snaprow *s = &p->snaps[i];
		char a[32], b[32], d[32];

		if (!s->key_of_interest) {
			hidden++;
			continue;
		}
		hb_cmp_fmt_num(a, sizeof(a), s->a);
		hb_cmp_fmt_num(b, sizeof(b), s->b);
		hb_cmp_fmt_num(d, sizeof(d), s->b - s->a);
		{
			const char *row[] = { s->workload, s->label, s->key, a, b, d };

			hb_cmp_tbl_add(&t, row);
		}
	}
	hb_cmp_emit(o, &t);
	if (hidden)
		fprintf(o->f, o->md ? "%zu other keys: see the JSON or HTML report.\n\n"
				    : "  (%zu other keys: --format json or html)\n", hidden);
}

static void hb_cmp_pair_out(struct hb_cmp_out *o, const struct hb_cmp_report *r,
			    const struct hb_cmp_pair *p, size_t k)
{
	char ida[512], idb[512], verdict[1024];
	enum hb_cmp_outcome out = hb_cmp_pair_outcome(p);

	hb_cmp_clean(ida, sizeof(ida), hb_cmp_side_name(p, 0));
	hb_cmp_clean(idb, sizeof(idb), hb_cmp_side_name(p, 1));
	hb_cmp_pair_verdict(p, verdict, sizeof(verdict));
	if (o->md) {
		fprintf(o->f, "## %zu. ", k + 1);
		hb_cmp_md_puts(o->f, ida);
		fputs(" vs ", o->f);
		hb_cmp_md_puts(o->f, idb);
		fprintf(o->f, ": %s\n\n", out == HB_CMP_OUT_REGRESSION ? "**REGRESSION**"
					  : out == HB_CMP_OUT_NOTHING  ? "**nothing tested**"
								       : "no regression");
		fputs("Verdict: ", o->f);
		hb_cmp_md_puts(o->f, verdict);
		fputs("\n\n", o->f);
	} else {
		fprintf(o->f, "\n== %zu. BASE %s\n      NEW  %s\n   => %s%s\n", k + 1, ida, idb,
			out == HB_CMP_OUT_REGRESSION ? "!! " : out == HB_CMP_OUT_NOTHING ? "?? " : "",
			verdict);
	}
	if (!p->comparable)
		fprintf(o->f, o->md ? "> **Not comparable** (compared because of --force).\n\n"
				    : "   !! NOT COMPARABLE (compared because of --force)\n");
	{
		char note[600];

		hb_cmp_clean(note, sizeof(note), p->calib_note);
		const char *fr = "failure rates over boots (Fisher, or every NEW boot and no BASE "
				 "boot)";

		const char *me = !strcmp(p->clock, "virtual")
					 ? "virtual: minimum effects min_effect_virtual_pct"
				 : !strcmp(p->clock, "wall")
					 ? "wall: minimum effects min_effect_pct"
					 : "differs between boots: minimum effects min_effect_pct";

		if (o->md) {
			fprintf(o->f, "Boots: %zu BASE, %zu NEW; functional findings: %s. Clock: %s. "
				      "Calibration: ", p->ga->n, p->gb->n, fr, me);
			hb_cmp_md_puts(o->f, note);
			fputs("\n\n", o->f);
		} else {
			fprintf(o->f, "   boots: %zu BASE, %zu NEW; functional findings: %s\n"
				      "   clock: %s\n   calibration: %s\n", p->ga->n, p->gb->n, fr, me,
				note);
		}
	}
	hb_cmp_env_table(o, p);
	hb_cmp_findings(o, p);
	hb_cmp_wl_table(o, p);
	hb_cmp_metric_table(o, r, p);
	hb_cmp_dist_table(o, p);
	hb_cmp_check_table(o, p);
	hb_cmp_snap_table(o, p);
}

static int hb_cmp_render(FILE *f, const struct hb_cmp_report *r, bool md)
{
	struct hb_cmp_out o = { f, md };
	enum hb_cmp_outcome out = hb_cmp_report_outcome(r);
	char th[1024];
	size_t bad = 0, none = 0;

	for (size_t i = 0; i < r->n_pairs; i++) {
		bad += r->pairs[i].n_regressions > 0;
		none += hb_cmp_pair_outcome(&r->pairs[i]) == HB_CMP_OUT_NOTHING;
	}
	hb_cmp_clean(th, sizeof(th), r->thresholds_path ? r->thresholds_path : "built-in");
	if (md) {
		fprintf(f, "# hugebench compare-report\n\n**Result: %s** (%zu of %zu NEW run%s with a "
			   "regression, %zu with nothing tested; BH FDR %g, thresholds ",
			out == HB_CMP_OUT_REGRESSION ? "REGRESSION" : hb_cmp_outcome_word(out), bad,
			r->n_pairs, r->n_pairs == 1 ? "" : "s", none, r->opts.alpha);
		hb_cmp_md_puts(f, th);
		fputs(")\n\n", f);
	} else {
		fprintf(f, "hugebench compare-report: %s (%zu of %zu NEW run%s with a regression, %zu "
			   "with nothing tested; BH FDR %g, thresholds %s)\n",
			hb_cmp_outcome_word(out), bad, r->n_pairs, r->n_pairs == 1 ? "" : "s", none,
			r->opts.alpha, th);
	}
	for (size_t i = 0; i < r->n_pairs; i++)
		hb_cmp_pair_out(&o, r, &r->pairs[i], i);
	return ferror(f) ? -1 : 0;
}

int hb_cmp_render_text(FILE *f, const struct hb_cmp_report *r)
{
	return hb_cmp_render(f, r, false);
}

int hb_cmp_render_markdown(FILE *f, const struct hb_cmp_report *r)
{
	return hb_cmp_render(f, r, true);
}
