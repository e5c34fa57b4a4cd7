/* cmp_html.c - compare-report as one self-contained HTML page.
 *
 * Inline CSS and inline SVG generated here, no scripts and no external
 * assets: a forest plot of every judged metric's change with its interval
 * and minimum-effect band, empirical CDFs of each latency distribution
 * (BASE vs NEW), and the same tables as the text report. Every string that
 * comes from a result file or the command line goes through hb_cmp_esc().
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#define HB_CMP_C_BASE "#1f77b4"
#define HB_CMP_C_NEW "#e8710a"
#define HB_CMP_C_BAD "#c62828"
#define HB_CMP_C_GOOD "#2e7d32"
#define HB_CMP_C_SAME "#616161"

/* Text for element content or a quoted attribute: cleaned of control
 * characters, markup characters as entities. */
static void hb_cmp_esc(FILE *f, const char *s)
{
	char *c = hb_cmp_clean_dup(s);

	for (const char *p = c ? c : "?"; *p; p++) {
		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*p, f);
		}
	}
	free(c);
}

static void hb_cmp_td(FILE *f, const char *s, const char *cls)
{
	fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	hb_cmp_esc(f, s);
	fputs("</td>", f);
}

static void hb_cmp_tdnum(FILE *f, double v)
{
	char b[32];

	hb_cmp_fmt_num(b, sizeof(b), v);
	hb_cmp_td(f, b, "r");
}

static const char *hb_cmp_color(enum hb_cmp_verdict v)
{
	return v == HB_CMP_WORSE ? HB_CMP_C_BAD : v == HB_CMP_BETTER ? HB_CMP_C_GOOD : HB_CMP_C_SAME;
}

/* Forest plot: change in % with its interval, one row per metric. */
static void hb_cmp_forest(FILE *f, const struct hb_cmp_pair *p)
{
	const double W = 760, L = 300, R = 20, row = 20, top = 24;
	double span = 10, x0, x1;
	size_t rows = 0, k = 0;

	for (size_t i = 0; i < p->n_m; i++) {
		const struct hb_cmp_mres *m = &p->m[i];

		if (m->mode == HB_CMP_MODE_NONE || !isfinite(m->change_pct))
			continue;
		rows++;
		span = fmax(span, fabs(m->change_pct) * 1.15);
		span = fmax(span, m->min_effect_pct * 1.5);
		if (isfinite(m->ci_lo))
			span = fmax(span, fmax(fabs(m->ci_lo - 1), fabs(m->ci_hi - 1)) * 105);
	}
	if (!rows) {
		fputs("<p>No metric could be tested.</p>\n", f);
		return;
	}
	span = fmin(span, 100);
	x0 = L;
	x1 = W - R;
#define HB_X(pct) (x0 + (fmax(-span, fmin(span, (pct))) + span) / (2 * span) * (x1 - x0))
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "role=\"img\" aria-label=\"change of each metric with its interval\">\n",
		W, top + row * (double)rows + 24);
	for (int t = -2; t <= 2; t++) {
		double pct = span * t / 2, x = HB_X(pct);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"%s\"/>"
			   "<text x=\"%.1f\" y=\"14\" font-size=\"11\" text-anchor=\"middle\">%+.0f%%</text>\n",
			x, top - 4, x, top + row * (double)rows, t ? "#e0e0e0" : "#555", x, pct);
	}
	for (size_t i = 0; i < p->n_m; i++) {
		const struct hb_cmp_mres *m = &p->m[i];
		double y = top + row * (double)k + row / 2, me = m->min_effect_pct;
		/* the band of "too small to matter" on the worse side */
		double worse_sign = m->better == HB_CMP_HIGHER ? -1 : 1;

		if (m->mode == HB_CMP_MODE_NONE || !isfinite(m->change_pct))
			continue;
		k++;
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"%s\">",
			L - 8, y + 4, hb_cmp_color(m->verdict));
		hb_cmp_esc(f, m->workload);
		fputc('.', f);
		hb_cmp_esc(f, m->name);
		fprintf(f, "%s</text>\n", m->verdict == HB_CMP_WORSE ? " !!" : "");
		if (m->better != HB_CMP_INFO)
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"#fdecea\"/>\n",
				fmin(HB_X(worse_sign * me), HB_X(worse_sign * span)), y - row / 2 + 2,
				fabs(HB_X(worse_sign * span) - HB_X(worse_sign * me)), row - 4);
		if (isfinite(m->ci_lo) && isfinite(m->ci_hi))
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
				HB_X((m->ci_lo - 1) * 100), y, HB_X((m->ci_hi - 1) * 100), y,
				hb_cmp_color(m->verdict));
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>%+.2f%%, interval [%+.2f%%, %+.2f%%], %s</title></circle>\n",
			HB_X(m->change_pct), y, hb_cmp_color(m->verdict), m->change_pct,
			(m->ci_lo - 1) * 100, (m->ci_hi - 1) * 100, hb_cmp_verdict_name(m->verdict));
	}
#undef HB_X
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">change of NEW vs BASE; pink: the worse side beyond the minimum effect</text>\n</svg>\n",
		x0, top + row * (double)rows + 18);
}

static double *hb_cmp_sorted(const struct hb_cmp_metric *m)
{
	double *s = malloc(m->n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, m->samples, m->n * sizeof(*s));
	gsl_sort(s, 1, m->n);
	return s;
}

static void hb_cmp_cdf_line(FILE *f, const double *s, size_t n, double lo, double hi, bool lg,
			    const char *color, double W, double H, double pad)
{
	const size_t pts = 300;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color);
	for (size_t i = 0; i < pts; i++) {
		double q = (double)i / (double)(pts - 1);
		double v = s[(size_t)(q * (double)(n - 1))];
		/* halves: hi - lo of +-1.7e308 overflows */
		double t = lg ? (log(v) - log(lo)) / (log(hi) - log(lo))
			      : (v / 2 - lo / 2) / (hi / 2 - lo / 2);

		fprintf(f, "%.1f,%.1f ", pad + t * (W - 2 * pad), H - pad - q * (H - 2 * pad));
	}
	fputs("\"/>\n", f);
}

/* Empirical CDF of BASE and NEW samples, log x when they span > 20x. */
static void hb_cmp_cdf(FILE *f, const struct hb_cmp_mres *m)
{
	const double W = 360, H = 200, pad = 30;
	double *a = hb_cmp_sorted(m->a), *b = hb_cmp_sorted(m->b), lo, hi;
	bool lg;

	if (!a || !b)
		goto out;
	lo = fmin(a[0], b[0]);
	hi = fmax(a[m->a->n - 1], b[m->b->n - 1]);
	lg = lo > 0 && hi / lo > 20;
	if (hi <= lo)
		hi = lo + 1;
	fprintf(f, "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\">\n"
		   "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#bbb\"/>\n",
		W, H, pad, pad, W - 2 * pad, H - 2 * pad);
	hb_cmp_cdf_line(f, a, m->a->n, lo, hi, lg, HB_CMP_C_BASE, W, H, pad);
	hb_cmp_cdf_line(f, b, m->b->n, lo, hi, lg, HB_CMP_C_NEW, W, H, pad);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">%.4g</text>"
		   "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">%.4g ",
		pad, H - pad + 14, lo, W - pad, H - pad + 14, hi);
	hb_cmp_esc(f, m->unit);
	fprintf(f, "%s</text>"
		   "<text x=\"4\" y=\"%.0f\" font-size=\"10\">1</text><text x=\"4\" y=\"%.0f\" font-size=\"10\">0</text>\n"
		   "<text x=\"%.0f\" y=\"16\" font-size=\"11\"><tspan fill=\"%s\">BASE n=%zu</tspan> "
		   "<tspan fill=\"%s\">NEW n=%zu</tspan></text></svg>\n<figcaption>",
		lg ? " (log)" : "", pad + 4, H - pad, pad, HB_CMP_C_BASE, m->a->n, HB_CMP_C_NEW, m->b->n);
	hb_cmp_esc(f, m->workload);
	fputc('.', f);
	hb_cmp_esc(f, m->name);
	fprintf(f, ": median %+.1f%% <b style=\"color:%s\">%s</b></figcaption></figure>\n",
		(hb_stats_rel(m->da.p50, m->db.p50) - 1) * 100, hb_cmp_color(m->verdict),
		hb_cmp_verdict_name(m->verdict));
out:
	free(a);
	free(b);
}

static void hb_cmp_html_tables(FILE *f, const struct hb_cmp_pair *p)
{
	fputs("<h3>Metrics</h3>\n<table><tr><th></th><th>metric</th><th>unit</th><th>better</th>"
	      "<th>boots B/N</th><th>test</th><th>BASE</th><th>NEW</th><th>change</th><th>interval</th>"
	      "<th>q(worse)</th><th>min</th><th>detectable</th><th>verdict</th><th>why</th></tr>\n",
	      f);
	for (size_t i = 0; i < p->n_m; i++) {
		const struct hb_cmp_mres *m = &p->m[i];
		char b[192];

		fprintf(f, "<tr class=\"%s\">", m->verdict == HB_CMP_WORSE ? "bad" :
						 m->verdict == HB_CMP_BETTER ? "good" : "");
		hb_cmp_td(f, m->verdict == HB_CMP_WORSE ? "!!" : "", NULL);
		snprintf(b, sizeof(b), "%s.%s", m->workload, m->name);
		hb_cmp_td(f, b, NULL);
		hb_cmp_td(f, m->unit, NULL);
		hb_cmp_td(f, hb_cmp_better_name(m->better), NULL);
		snprintf(b, sizeof(b), "%zu/%zu", m->na, m->nb);
		hb_cmp_td(f, b, NULL);
		hb_cmp_td(f, m->test, NULL);
		hb_cmp_tdnum(f, m->center_a);
		hb_cmp_tdnum(f, m->center_b);
		snprintf(b, sizeof(b), isfinite(m->change_pct) ? "%+.1f%%" : "-", m->change_pct);
		hb_cmp_td(f, b, "r");
		if (isfinite(m->ci_lo))
			snprintf(b, sizeof(b), "[%+.1f%%, %+.1f%%]", (m->ci_lo - 1) * 100,
				 (m->ci_hi - 1) * 100);
		else
			snprintf(b, sizeof(b), "-");
		hb_cmp_td(f, b, "r");
		hb_cmp_tdnum(f, m->q_worse);
		snprintf(b, sizeof(b), "%g%%", m->min_effect_pct);
		hb_cmp_td(f, b, "r");
		snprintf(b, sizeof(b), isfinite(m->mde_pct) ? "%.3g%%" : "-", m->mde_pct);
		hb_cmp_td(f, b, "r");
		hb_cmp_td(f, hb_cmp_verdict_name(m->verdict), NULL);
		hb_cmp_td(f, m->why, NULL);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h3>Workloads</h3>\n<table><tr><th>workload</th><th>BASE</th><th>NEW</th>"
	      "<th>BASE reason</th><th>NEW reason</th></tr>\n", f);
	for (size_t i = 0; i < p->n_wl; i++) {
		fprintf(f, "<tr class=\"%s\">", p->wl[i].regression ? "bad" : "");
		hb_cmp_td(f, p->wl[i].name, NULL);
		hb_cmp_td(f, p->wl[i].status_a ? p->wl[i].sum_a : "(not run)", NULL);
		hb_cmp_td(f, p->wl[i].status_b ? p->wl[i].sum_b : "(not run)", NULL);
		hb_cmp_td(f, p->wl[i].reason_a, NULL);
		hb_cmp_td(f, p->wl[i].reason_b, NULL);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h3>Checks</h3>\n<table><tr><th>workload</th><th>check</th><th>expected</th>"
	      "<th>BASE</th><th>NEW</th></tr>\n", f);
	for (size_t i = 0; i < p->n_checks; i++) {
		const struct hb_cmp_checkrow *c = &p->checks[i];
		static const char *const w[] = { "-", "FAIL", "pass" };
		char a[128], b[128];

		/* "FAIL 2/5 ...": failing boots of those that ran it */
		if (c->ran_a > 1 && c->failed_a)
			snprintf(a, sizeof(a), "FAIL %zu/%zu %s", c->failed_a, c->ran_a, c->observed_a);
		else
			snprintf(a, sizeof(a), "%s %s", w[c->pass_a + 1], c->observed_a);
		if (c->ran_b > 1 && c->failed_b)
			snprintf(b, sizeof(b), "FAIL %zu/%zu %s", c->failed_b, c->ran_b, c->observed_b);
		else
			snprintf(b, sizeof(b), "%s %s", w[c->pass_b + 1], c->observed_b);
		fprintf(f, "<tr class=\"%s\">", c->regression ? "bad" : "");
		hb_cmp_td(f, c->workload, NULL);
		hb_cmp_td(f, c->name, NULL);
		hb_cmp_td(f, c->expected, NULL);
		hb_cmp_td(f, a, NULL);
		hb_cmp_td(f, b, NULL);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h3>meminfo (kB) and vmstat deltas per snapshot label</h3>\n<table><tr>"
	      "<th>workload</th><th>label</th><th>source</th><th>key</th><th>BASE</th><th>NEW</th>"
	      "<th>NEW-BASE</th></tr>\n", f);
	for (size_t i = 0; i < p->n_snaps; i++) {
		const struct hb_cmp_snaprow *s = &p->snaps[i];

		fprintf(f, "<tr class=\"%s\">", s->key_of_interest ? "key" : "");
		hb_cmp_td(f, s->workload, NULL);
		hb_cmp_td(f, s->label, NULL);
		hb_cmp_td(f, s->source, NULL);
		hb_cmp_td(f, s->key, NULL);
		hb_cmp_tdnum(f, s->a);
		hb_cmp_tdnum(f, s->b);
		hb_cmp_tdnum(f, s->b - s->a);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void hb_cmp_html_pair(FILE *f, const struct hb_cmp_pair *p, size_t k)
{
	fprintf(f, "<h2>%zu. ", k + 1);
	hb_cmp_esc(f, hb_cmp_side_name(p, 0));
	fputs(" &rarr; ", f);
	hb_cmp_esc(f, hb_cmp_side_name(p, 1));
	{
		enum hb_cmp_outcome out = hb_cmp_pair_outcome(p);
		char verdict[1024];

		hb_cmp_pair_verdict(p, verdict, sizeof(verdict));
		fprintf(f, ": <span class=\"%s\">%s</span></h2>\n<p>Verdict: ",
			out == HB_CMP_OUT_OK ? "goodw" : "badw",
			out == HB_CMP_OUT_REGRESSION ? "REGRESSION" : hb_cmp_outcome_word(out));
		hb_cmp_esc(f, verdict);
		fputs("</p>\n", f);
	}
	if (!p->comparable)
		fputs("<p class=\"badw\">Not comparable (compared because of --force).</p>\n", f);
	fprintf(f, "<p>Boots: %zu BASE, %zu NEW. Clock: %s (minimum effects: %s). Calibration: ",
		p->ga->n, p->gb->n, p->clock,
		strcmp(p->clock, "virtual") ? "min_effect_pct" : "min_effect_virtual_pct");
	hb_cmp_esc(f, p->calib_note);
	fputs("</p>\n", f);
	fputs("<table><tr><th>environment</th><th>BASE</th><th>NEW</th></tr>\n", f);
	for (size_t i = 0; i < p->n_env; i++) {
		fprintf(f, "<tr class=\"%s\">", p->env[i].blocks ? "bad" : p->env[i].differs ? "diff" : "");
		hb_cmp_td(f, p->env[i].field, NULL);
		hb_cmp_td(f, p->env[i].a, NULL);
		hb_cmp_td(f, p->env[i].b, NULL);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h3>Findings</h3>\n<ul>\n", f);
	for (size_t i = 0; i < p->n_f; i++) {
		fprintf(f, "<li class=\"%s\">%s", p->f[i].regression ? "bad" : "",
			p->f[i].regression ? "<b>REGRESSION</b> " : "");
		if (p->f[i].workload[0]) {
			hb_cmp_esc(f, p->f[i].workload);
			fputs(": ", f);
		}
		hb_cmp_esc(f, p->f[i].text);
		fputs("</li>\n", f);
	}
	if (!p->n_f)
		fputs("<li>none</li>\n", f);
	fputs("</ul>\n<h3>Change of each metric (NEW vs BASE) with its interval</h3>\n", f);
	hb_cmp_forest(f, p);
	fputs("<h3>Latency distributions (empirical CDF)</h3>\n<div class=\"grid\">\n", f);
	for (size_t i = 0; i < p->n_m; i++)
		if (p->m[i].distribution && p->m[i].a && p->m[i].b && p->m[i].a->n >= 2 &&
		    p->m[i].b->n >= 2)
			hb_cmp_cdf(f, &p->m[i]);
	fputs("</div>\n", f);
	hb_cmp_html_tables(f, p);
}

int hb_cmp_render_html(FILE *f, const struct hb_cmp_report *r)
{
	size_t bad = 0;

	for (size_t i = 0; i < r->n_pairs; i++)
		bad += r->pairs[i].n_regressions > 0;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<title>hugebench compare-report</title>\n<style>\n"
	      "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}\n"
	      "table{border-collapse:collapse;margin:.5em 0;font-size:13px}\n"
	      "td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}\n"
	      "td.r{text-align:right;font-variant-numeric:tabular-nums}\n"
	      "tr.bad td,li.bad{background:#fdecea;color:#b71c1c}\n"
	      "tr.good td{background:#e8f5e9}\ntr.diff td{background:#fff8e1}\n"
	      ".badw{color:#c62828;font-weight:bold}.goodw{color:#2e7d32}\n"
	      ".grid{display:flex;flex-wrap:wrap;gap:8px}figure{margin:0}\n"
	      "figcaption{font-size:12px}\n</style></head><body>\n"
	      "<h1>hugebench compare-report</h1>\n", f);
	fprintf(f, "<p>Result: <span class=\"%s\">%s</span> (%zu of %zu NEW run%s with a regression). "
		   "Benjamini-Hochberg FDR %g, %g%% intervals, thresholds ",
		hb_cmp_report_outcome(r) == HB_CMP_OUT_OK ? "goodw" : "badw",
		bad ? "REGRESSION" : hb_cmp_outcome_word(hb_cmp_report_outcome(r)), bad, r->n_pairs,
		r->n_pairs == 1 ? "" : "s", r->opts.alpha, r->opts.ci_level * 100);
	hb_cmp_esc(f, r->thresholds_path ? r->thresholds_path : "built-in");
	fputs(". A regression is worse in the metric's own direction.</p>\n", f);
	for (size_t i = 0; i < r->n_pairs; i++)
		hb_cmp_html_pair(f, &r->pairs[i], i);
	fputs("</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
