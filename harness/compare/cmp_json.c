/* cmp_json.c - compare-report as JSON, schema hugebench-compare/1 (for CI).
 *
 * Layout (documented in docs/compare.md): top level schema, result
 * ("regression" | "ok"), alpha, ci_level, thresholds, forced, power, strict,
 * and comparisons[] with base/new identity, groups and boots, calibration,
 * comparable, regressions, bh_family, functional_rule, environment[],
 * findings[], workloads[], metrics[] (with the boot centers, the test's
 * df, the measured and calibrated boot sd), checks[] (with failing boots
 * per side), snapshots[]. Non-finite numbers are written as null.
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>

static json_t *hb_cmp_jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A string, or null; never NULL (json_pack would drop the whole object):
 * a path that is not UTF-8 is written cleaned. */
static json_t *hb_cmp_jstr(const char *s)
{
	json_t *j;
	char *c;

	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	c = hb_cmp_clean_dup(s);
	j = c ? json_string(c) : NULL;
	free(c);
	return j ? j : json_null();
}

static const char *hb_cmp_jverdict(enum hb_cmp_verdict v)
{
	static const char *const names[] = { "same", "regression", "improvement", "info",
					     "untested", "unavailable", "missing", "advisory",
					     "small", "untestable" };

	return names[v];
}

static json_t *hb_cmp_jrun(const struct hb_cmp_run *r)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:s}", "path", hb_cmp_jstr(r->path), "run_id",
			 hb_cmp_jstr(r->run_id), "target", hb_cmp_jstr(r->target),
			 "kernel_release", hb_cmp_jstr(r->kernel_release), "verdict", r->verdict);
}

static json_t *hb_cmp_jnums(const double *x, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; x && i < n; i++)
		json_array_append_new(a, hb_cmp_jnum(x[i]));
	return a;
}

static json_t *hb_cmp_jdesc(const struct hb_stats_desc *d, double center)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "n",
			 (json_int_t)d->n, "center", hb_cmp_jnum(center), "mean",
			 hb_cmp_jnum(d->mean), "sd", hb_cmp_jnum(d->sd), "cov", hb_cmp_jnum(d->cov),
			 "min", hb_cmp_jnum(d->min), "max", hb_cmp_jnum(d->max), "p50",
			 hb_cmp_jnum(d->p50), "p90", hb_cmp_jnum(d->p90), "p99", hb_cmp_jnum(d->p99));
}

static json_t *hb_cmp_jmetric(const struct hb_cmp_mres *m)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:s}", "workload", m->workload,
			      "name", m->name, "unit", m->unit, "better",
			      hb_cmp_better_name(m->better), "distribution", m->distribution, "mode",
			      hb_cmp_mode_name(m->mode), "test", m->test, "interval_method",
			      m->ci_method);

	json_object_set_new(o, "base", hb_cmp_jdesc(&m->da, m->center_a));
	json_object_set_new(o, "new", hb_cmp_jdesc(&m->db, m->center_b));
	json_object_set_new(o, "base_boots", json_integer((json_int_t)m->na));
	json_object_set_new(o, "new_boots", json_integer((json_int_t)m->nb));
	json_object_set_new(o, "base_centers", hb_cmp_jnums(m->ca, m->na));
	json_object_set_new(o, "new_centers", hb_cmp_jnums(m->cb, m->nb));
	/* an outlier boot left out of the test (issue 34), null none */
	json_object_set_new(o, "base_outlier_boot", isnan(m->excl_a) ? json_null()
								   : json_real(m->excl_a));
	json_object_set_new(o, "new_outlier_boot", isnan(m->excl_b) ? json_null()
								 : json_real(m->excl_b));
	json_object_set_new(o, "base_reps", json_integer((json_int_t)m->reps_a));
	json_object_set_new(o, "new_reps", json_integer((json_int_t)m->reps_b));
	json_object_set_new(o, "ratio", hb_cmp_jnum(m->ratio));
	json_object_set_new(o, "change_pct", hb_cmp_jnum(m->change_pct));
	json_object_set_new(o, "worse_pct", hb_cmp_jnum(m->worse_pct));
	json_object_set_new(o, "interval", json_pack("[o, o]", hb_cmp_jnum(m->ci_lo),
						      hb_cmp_jnum(m->ci_hi)));
	json_object_set_new(o, "p_worse", hb_cmp_jnum(m->p_worse));
	json_object_set_new(o, "q_worse", hb_cmp_jnum(m->q_worse));
	json_object_set_new(o, "p_better", hb_cmp_jnum(m->p_better));
	json_object_set_new(o, "q_better", hb_cmp_jnum(m->q_better));
	json_object_set_new(o, "min_effect_pct", hb_cmp_jnum(m->min_effect_pct));
	json_object_set_new(o, "min_effect_source",
			    json_string(m->min_effect_source ? m->min_effect_source : "-"));
	json_object_set_new(o, "boot_sd_log", hb_cmp_jnum(m->sd_log));
	json_object_set_new(o, "boot_sd_source", json_string(m->sd_source));
	json_object_set_new(o, "test_df", m->mode == HB_CMP_MODE_BOOTS || m->mode == HB_CMP_MODE_CALIB
						  ? hb_cmp_jnum(m->df) : json_null());
	json_object_set_new(o, "boot_sd_measured", hb_cmp_jnum(m->sd_measured));
	json_object_set_new(o, "boot_sd_calibrated", hb_cmp_jnum(m->sd_calib));
	json_object_set_new(o, "calibration_disagrees", json_boolean(m->sd_disagrees));
	json_object_set_new(o, "detectable_pct", hb_cmp_jnum(m->mde_pct));
	json_object_set_new(o, "p_worse_if_3x", hb_cmp_jnum(m->p_worse_3x));
	json_object_set_new(o, "blind_to_3x", json_boolean(hb_cmp_blind_to_3x(m)));
	json_object_set_new(o, "p_within_boot", hb_cmp_jnum(m->p_within));
	json_object_set_new(o, "verdict", json_string(hb_cmp_jverdict(m->verdict)));
	json_object_set_new(o, "why", json_string(m->why));
	return o;
}

static json_t *hb_cmp_jpair(const struct hb_cmp_pair *p)
{
	/* keyed by the enum: a new kind of finding names itself here */
	static const char *const kinds[] = {
		[HB_CMP_F_ENV] = "environment", [HB_CMP_F_VERDICT] = "verdict",
		[HB_CMP_F_ISSUE] = "kernel_issue", [HB_CMP_F_WORKLOAD] = "workload",
		[HB_CMP_F_CHECK] = "check", [HB_CMP_F_METRIC] = "metric",
		[HB_CMP_F_DIRECTION] = "direction",
	};
	json_t *o = json_object(), *a;

	json_object_set_new(o, "base", hb_cmp_jrun(p->a));
	json_object_set_new(o, "new", hb_cmp_jrun(p->b));
	json_object_set_new(o, "base_group", hb_cmp_jstr(p->ga->group_id));
	json_object_set_new(o, "new_group", hb_cmp_jstr(p->gb->group_id));
	json_object_set_new(o, "base_boots", json_integer((json_int_t)p->ga->n));
	json_object_set_new(o, "new_boots", json_integer((json_int_t)p->gb->n));
	json_object_set_new(o, "calibration", hb_cmp_jstr(p->calib ? p->calib->path : NULL));
	json_object_set_new(o, "calibration_note", hb_cmp_jstr(p->calib_note));
	json_object_set_new(o, "comparable", json_boolean(p->comparable));
	json_object_set_new(o, "clock", json_string(p->clock ? p->clock : "wall"));
	json_object_set_new(o, "regressions", json_integer((json_int_t)p->n_regressions));
	json_object_set_new(o, "bh_family", json_integer((json_int_t)p->family));
	{
		static const char *const outs[] = { "ok", "regression", "untested" };
		char verdict[1024];

		hb_cmp_pair_verdict(p, verdict, sizeof(verdict));
		json_object_set_new(o, "result", json_string(outs[hb_cmp_pair_outcome(p)]));
		json_object_set_new(o, "verdict", hb_cmp_jstr(verdict));
		json_object_set_new(o, "judgeable_metrics", json_integer((json_int_t)p->n_judgeable));
		json_object_set_new(o, "untested_metrics", json_integer((json_int_t)p->n_untested));
		json_object_set_new(o, "small_changes", json_integer((json_int_t)p->n_small));
		json_object_set_new(o, "blind_to_3x", json_integer((json_int_t)p->n_blind));
	}
	json_object_set_new(o, "functional_rule", json_string(p->rates ? "rates" : "deterministic"));
	a = json_array();
	for (size_t i = 0; i < p->n_env; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:b, s:b}", "field",
						   p->env[i].field, "base", p->env[i].a, "new",
						   p->env[i].b, "differs", p->env[i].differs,
						   "blocks", p->env[i].blocks));
	json_object_set_new(o, "environment", a);
	a = json_array();
	for (size_t i = 0; i < p->n_f; i++)
		json_array_append_new(a, json_pack("{s:s, s:b, s:s, s:s, s:s}", "kind",
						   kinds[p->f[i].kind], "regression",
						   p->f[i].regression, "workload", p->f[i].workload,
						   "what", p->f[i].what, "text", p->f[i].text));
	json_object_set_new(o, "findings", a);
	a = json_array();
	for (size_t i = 0; i < p->n_wl; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "name",
						   p->wl[i].name, "base", hb_cmp_jstr(p->wl[i].status_a),
						   "new", hb_cmp_jstr(p->wl[i].status_b), "base_boots",
						   hb_cmp_jstr(p->wl[i].status_a ? p->wl[i].sum_a : NULL),
						   "new_boots",
						   hb_cmp_jstr(p->wl[i].status_b ? p->wl[i].sum_b : NULL),
						   "base_reason", hb_cmp_jstr(p->wl[i].reason_a),
						   "new_reason", hb_cmp_jstr(p->wl[i].reason_b),
						   "regression", p->wl[i].regression));
	json_object_set_new(o, "workloads", a);
	a = json_array();
	for (size_t i = 0; i < p->n_m; i++)
		json_array_append_new(a, hb_cmp_jmetric(&p->m[i]));
	json_object_set_new(o, "metrics", a);
	a = json_array();
	for (size_t i = 0; i < p->n_checks; i++) {
		const struct hb_cmp_checkrow *c = &p->checks[i];
		json_t *pa = c->pass_a < 0 ? json_null() : json_boolean(c->pass_a);
		json_t *pb = c->pass_b < 0 ? json_null() : json_boolean(c->pass_b);

		json_t *row = json_pack("{s:s, s:s, s:o, s:o, s:o, s:s, s:s, s:I, s:I, s:I, s:I}",
					"workload", c->workload, "name", c->name, "expected",
					hb_cmp_jstr(c->expected), "base_pass", pa, "new_pass", pb,
					"base_observed", c->observed_a, "new_observed", c->observed_b,
					"base_ran", (json_int_t)c->ran_a, "base_failed",
					(json_int_t)c->failed_a, "new_ran", (json_int_t)c->ran_b,
					"new_failed", (json_int_t)c->failed_b);

		json_object_set_new(row, "p_fisher", hb_cmp_jnum(c->p));
		json_object_set_new(row, "flaky", json_boolean(c->flaky));
		json_object_set_new(row, "regression", json_boolean(c->regression));
		json_array_append_new(a, row);
	}
	json_object_set_new(o, "checks", a);
	a = json_array();
	for (size_t i = 0; i < p->n_snaps; i++) {
		const struct hb_cmp_snaprow *s = &p->snaps[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "workload",
						   s->workload, "label", s->label, "source",
						   s->source, "key", s->key, "base", hb_cmp_jnum(s->a),
						   "new", hb_cmp_jnum(s->b)));
	}
	json_object_set_new(o, "snapshots", a);
	return o;
}

json_t *hb_cmp_report_json(const struct hb_cmp_report *r)
{
	json_t *o = json_object(), *a = json_array();
	size_t bad = 0;

	for (size_t i = 0; i < r->n_pairs; i++) {
		bad += r->pairs[i].n_regressions > 0;
		json_array_append_new(a, hb_cmp_jpair(&r->pairs[i]));
	}
	json_object_set_new(o, "schema", json_string(HB_CMP_SCHEMA));
	json_object_set_new(o, "result",
			    json_string(bad ? "regression"
					: hb_cmp_report_outcome(r) == HB_CMP_OUT_NOTHING ? "untested"
											 : "ok"));
	json_object_set_new(o, "alpha", json_real(r->opts.alpha));
	json_object_set_new(o, "ci_level", json_real(r->opts.ci_level));
	json_object_set_new(o, "bootstrap_resamples", json_integer(r->opts.boot_B));
	json_object_set_new(o, "seed", json_integer((json_int_t)r->opts.seed));
	json_object_set_new(o, "thresholds", hb_cmp_jstr(r->thresholds_path));
	json_object_set_new(o, "forced", json_boolean(r->forced));
	json_object_set_new(o, "power", json_real(r->opts.power));
	json_object_set_new(o, "strict", json_boolean(r->opts.strict));
	json_object_set_new(o, "unseen_min_pct", isnan(r->opts.unseen_min_pct)
							 ? json_null()
							 : json_real(r->opts.unseen_min_pct));
	json_object_set_new(o, "comparisons", a);
	return o;
}

int hb_cmp_render_json(FILE *f, const struct hb_cmp_report *r)
{
	json_t *o = hb_cmp_report_json(r);
	int ret = json_dumpf(o, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));

	json_decref(o);
	if (!ret)
		fputc('\n', f);
	return ret || ferror(f) ? -1 : 0;
}
