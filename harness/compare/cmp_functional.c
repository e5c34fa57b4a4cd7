/* cmp_functional.c - compare-report's functional findings in a pair of
 * groups: workload status side by side, checks, kernel issues and run
 * verdicts (the metrics are cmp_findings.c's). At every boot count
 * checks, workload statuses and run verdicts are judged as failure rates
 * (hb_cmp_rate_regression, cmp_rule.c: one rule, monotone in the failing
 * NEW boots; it used to be "any NEW failure" below 3 boots a side, which
 * flagged 1 of 2 failing boots but not 2 of 3), so that a check
 * failing in 10 % of boots does not raise an alarm in one A/A comparison
 * out of five; kernel issues and panics stay deterministic (a kernel
 * WARNING, BUG or panic is never noise). The rules are described at the top
 * of cmp_report.c and in docs/compare.md. */
#define _DEFAULT_SOURCE
#include "cmp_pair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- workloads --------------------------------------------------------------------- */

/* error > fail > pass > skip: the status a side is summed up by (the loader
 * admits only these four). */
static int hb_cmp_status_rank(const char *s)
{
	int r = hb_status_rank(s);

	return r < 0 ? 0 : r;
}

struct hb_cmp_wlsum {
	size_t n[4]; /* skip, pass, fail, error */
	size_t absent, boots;
	const struct hb_cmp_workload *worst;
};

static void hb_cmp_wl_sum(const struct hb_cmp_wkey *k, int s, size_t boots, struct hb_cmp_wlsum *u,
			  char *buf, size_t len)
{
	static const char *const words[] = { "skip", "pass", "fail", "error" };
	size_t kinds = 0, o = 0;

	memset(u, 0, sizeof(*u));
	u->boots = boots;
	for (size_t b = 0; b < boots; b++) {
		const struct hb_cmp_workload *w = k->w[s][b];
		int r;

		if (!w) {
			u->absent++;
			continue;
		}
		r = hb_cmp_status_rank(w->status);
		u->n[r]++;
		if (!u->worst || r > hb_cmp_status_rank(u->worst->status))
			u->worst = w;
	}
	buf[0] = 0;
	for (int r = 0; r < 4; r++)
		kinds += u->n[r] > 0;
	if (kinds == 1 && !u->absent) {
		snprintf(buf, len, "%s", u->worst->status);
		return;
	}
	for (int r = 1; r < 5; r++) {
		int q = r % 4; /* pass, fail, error, skip */

		if (u->n[q] && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s %zu", o ? ", " : "", words[q], u->n[q]);
	}
	if (u->absent && u->absent < boots && o < len)
		snprintf(buf + o, len - o, "%snot run %zu", o ? ", " : "", u->absent);
}

/* " (Fisher p=0.024 <= 0.01)" or " (in every NEW boot, no BASE boot)": why
 * the rate rule flagged it, or " (Fisher p=0.5)" when it did not. */
static void hb_cmp_rate_why(char *buf, size_t len, size_t ka, size_t kb, size_t nb, double p,
			    double alpha)
{
	if (kb && kb == nb && !ka && !(p <= alpha))
		snprintf(buf, len, " (in every NEW boot, no BASE boot)");
	else if (!isnan(p))
		snprintf(buf, len, " (Fisher p=%.2g %s %g)", p, p <= alpha ? "<=" : ">", alpha);
	else
		buf[0] = 0;
}

/* The rate rule for one workload: fail/error among the boots it ran in, and
 * missing among all boots when BASE ran it at all. */
static void hb_cmp_wl_rates(struct hb_cmp_ctx *c, const struct hb_cmp_wkey *k,
			    struct hb_cmp_wlrow *r, const struct hb_cmp_wlsum *ua,
			    const struct hb_cmp_wlsum *ub)
{
	struct hb_cmp_pair *p = c->p;
	double alpha = c->o->alpha, pf, pm;
	size_t bad_a = ua->n[2] + ua->n[3], bad_b = ub->n[2] + ub->n[3];
	size_t ran_a = ua->boots - ua->absent, ran_b = ub->boots - ub->absent;
	bool base_ran = ran_a > ua->n[0]; /* ran (not only skipped) in a BASE boot */
	bool fail = hb_cmp_rate_regression(bad_a, ran_a, bad_b, ran_b, alpha, &pf);
	bool miss = base_ran &&
		    hb_cmp_rate_regression(ua->absent, ua->boots, ub->absent, ub->boots, alpha, &pm);
	char why[64];

	r->regression = fail || miss;
	if (fail) {
		hb_cmp_rate_why(why, sizeof(why), bad_a, bad_b, ran_b, pf, alpha);
		hb_cmp_find(p, HB_CMP_F_WORKLOAD, true, k->label, "status",
			    "workload %s -> %s: fail or error in %zu of %zu NEW boots, %zu of %zu "
			    "BASE boots%s%s%s", r->status_a ? r->sum_a : "(not run)", r->sum_b, bad_b,
			    ran_b, bad_a, ran_a, why, r->reason_b && *r->reason_b ? ": " : "",
			    r->reason_b ? r->reason_b : "");
	}
	if (miss) {
		hb_cmp_rate_why(why, sizeof(why), ua->absent, ub->absent, ub->boots, pm, alpha);
		hb_cmp_find(p, HB_CMP_F_WORKLOAD, true, k->label, "status",
			    "workload %s -> not run in %zu of %zu NEW boots, %zu of %zu BASE boots%s",
			    r->sum_a, ub->absent, ub->boots, ua->absent, ua->boots, why);
	}
	if (!r->regression && r->status_a && r->status_b && strcmp(r->sum_a, r->sum_b)) {
		hb_cmp_rate_why(why, sizeof(why), bad_a, bad_b, ran_b, bad_b ? pf : NAN, alpha);
		hb_cmp_find(p, HB_CMP_F_WORKLOAD, false, k->label, "status",
			    "workload %s -> %s%s%s%s%s", r->sum_a, r->sum_b,
			    bad_b ? ": not beyond chance" : "", why,
			    r->reason_b && *r->reason_b ? ": " : "", r->reason_b ? r->reason_b : "");
	}
}

void hb_cmp_workloads(struct hb_cmp_ctx *c)
{
	struct hb_cmp_pair *p = c->p;

	p->wl = hb_cmp_xcalloc(p->n_wk, sizeof(*p->wl));
	if (!p->wl) {
		c->oom = true;
		return;
	}
	for (size_t i = 0; i < p->n_wk; i++) {
		const struct hb_cmp_wkey *k = &p->wk[i];
		struct hb_cmp_wlrow *r = &p->wl[p->n_wl++];
		struct hb_cmp_wlsum ua, ub;

		r->name = k->label;
		hb_cmp_wl_sum(k, 0, p->ga->n, &ua, r->sum_a, sizeof(r->sum_a));
		hb_cmp_wl_sum(k, 1, p->gb->n, &ub, r->sum_b, sizeof(r->sum_b));
		r->status_a = ua.worst ? ua.worst->status : NULL;
		r->status_b = ub.worst ? ub.worst->status : NULL;
		r->reason_a = ua.worst ? ua.worst->reason : NULL;
		r->reason_b = ub.worst ? ub.worst->reason : NULL;
		hb_cmp_wl_rates(c, k, r, &ua, &ub);
	}
}

/* ---- checks ------------------------------------------------------------------------ */

/* Over the boots of a side: 0 when one boot failed it, 1 when it passed in
 * every boot that ran it, -1 when none did; *failed counts failing boots,
 * *ran the boots that ran it. */
static int hb_cmp_check_state(const struct hb_cmp_sideix *x, const struct hb_cmp_wkey *k, int s,
			      const char *name, char *obs, size_t len, const char **expected,
			      size_t *failed, size_t *ran)
{
	int st = -1;

	*failed = *ran = 0;
	snprintf(obs, len, "-");
	for (size_t b = 0; b < x->g->n; b++) {
		const struct hb_cmp_workload *w = k->w[s][b];
		size_t *v = w ? hb_cmp_idx_get(&x->chk, w, name, NULL, NULL) : NULL;
		const struct hb_cmp_chkagg *g;

		if (!v)
			continue;
		g = &x->chks[*v];
		if (st == -1 || (st == 1 && !g->st))
			hb_cmp_clean(obs, len, hb_cmp_s(g->observed));
		if (!*expected && g->expected)
			*expected = g->expected;
		*failed += !g->st;
		++*ran;
		st = st == -1 ? g->st : (st && g->st);
	}
	return st;
}

static void hb_cmp_check_one(struct hb_cmp_ctx *c, size_t *cap, const struct hb_cmp_wkey *k,
			     const char *cname)
{
	struct hb_cmp_pair *p = c->p;
	struct hb_cmp_checkrow row = { .workload = k->label, .name = cname, .p = NAN };
	double alpha = c->o->alpha;
	bool added;
	char ob[48], why[64];

	if (!hb_cmp_idx_put(&c->seen, k, "check", cname, NULL, 0, &added)) {
		c->oom = true;
		return;
	}
	if (!added)
		return;
	row.pass_a = hb_cmp_check_state(&c->x[0], k, 0, cname, row.observed_a,
					sizeof(row.observed_a), &row.expected, &row.failed_a,
					&row.ran_a);
	row.pass_b = hb_cmp_check_state(&c->x[1], k, 1, cname, row.observed_b,
					sizeof(row.observed_b), &row.expected, &row.failed_b,
					&row.ran_b);
	row.regression = hb_cmp_rate_regression(row.failed_a, row.ran_a, row.failed_b, row.ran_b,
						 alpha, &row.p);
	row.flaky = (row.failed_a && row.failed_a < row.ran_a) ||
		    (row.failed_b && row.failed_b < row.ran_b);
	if (hb_cmp_append((void **)&p->checks, &p->n_checks, cap, sizeof(row), &row))
		c->oom = true;
	hb_cmp_of_boots(ob, sizeof(ob), row.failed_b, p->gb->n);
	hb_cmp_rate_why(why, sizeof(why), row.failed_a, row.failed_b, row.ran_b, row.p, alpha);
	if (row.regression)
		hb_cmp_find(p, HB_CMP_F_CHECK, true, k->label, cname,
			    "check %s fails in %zu of %zu NEW boots, %zu of %zu BASE boots%s "
			    "(expected %s, NEW observed %s)", cname, row.failed_b, row.ran_b,
			    row.failed_a, row.ran_a, why, hb_cmp_s(row.expected), row.observed_b);
	else if (row.flaky)
		hb_cmp_find(p, HB_CMP_F_CHECK, false, k->label, cname,
			    "check %s flaky: fails in %zu of %zu BASE boots, %zu of %zu NEW boots%s; "
			    "not a regression", cname, row.failed_a, row.ran_a, row.failed_b, row.ran_b,
			    why);
	else if (row.pass_a == 0 && row.pass_b == 1)
		hb_cmp_find(p, HB_CMP_F_CHECK, false, k->label, cname,
			    "check %s failed in BASE, passes in NEW", cname);
	else if (row.pass_a == 0 && row.pass_b == 0)
		hb_cmp_find(p, HB_CMP_F_CHECK, false, k->label, cname,
			    "check %s fails in both%s (NEW observed %s)", cname, ob, row.observed_b);
}

void hb_cmp_checks(struct hb_cmp_ctx *c)
{
	struct hb_cmp_pair *p = c->p;
	size_t cap = 0;

	for (size_t i = 0; i < p->n_wk; i++)
		for (int s = 0; s < 2; s++)
			for (size_t b = 0; b < hb_cmp_g(p, s)->n; b++) {
				const struct hb_cmp_workload *w = p->wk[i].w[s][b];

				for (size_t j = 0; w && j < w->n_checks; j++)
					hb_cmp_check_one(c, &cap, &p->wk[i], w->checks[j].name);
			}
}

/* ---- kernel issues and verdicts ------------------------------------------------------ */

/* The most of one kind in a single boot of the side, and in how many boots. */
static size_t hb_cmp_kind_max(const struct hb_cmp_sideix *x, const char *kind, size_t *boots)
{
	size_t best = 0;

	*boots = 0;
	for (size_t b = 0; b < x->g->n; b++) {
		size_t *v = hb_cmp_idx_get(&x->kind, x->g->boots[b], kind, NULL, NULL);

		if (v) {
			++*boots;
			if (*v > best)
				best = *v;
		}
	}
	return best;
}

/* The worst verdict of a side's boots: its rank, and the boot. */
static int hb_cmp_worst_verdict(const struct hb_cmp_group *g, const struct hb_cmp_run **worst,
				size_t *count)
{
	int best = -2;

	*count = 0;
	for (size_t b = 0; b < g->n; b++) {
		int r = hb_verdict_rank(g->boots[b]->verdict);

		if (r > best) {
			best = r;
			*worst = g->boots[b];
			*count = 0;
		}
		*count += r == best;
	}
	return best;
}

/* Boots of g whose verdict ranks at least `rank`. */
static size_t hb_cmp_verdicts_from(const struct hb_cmp_group *g, int rank)
{
	size_t k = 0;

	for (size_t b = 0; b < g->n; b++)
		k += hb_verdict_rank(g->boots[b]->verdict) >= rank;
	return k;
}

/* With >= 3 boots a side: a panic in NEW and in no BASE boot is a
 * regression even once; "fail or worse", "error or worse", "incomplete or
 * worse" and "timeout or worse" each by the rate rule (a guest that times
 * out under host load now and then is not a regression). kernel-warning
 * comes from kernel issues, judged one by one above. true when a finding
 * was made. */
static bool hb_cmp_verdict_rates(struct hb_cmp_ctx *c, int ra, int rb)
{
	static const char *const classes[] = { "timeout", "incomplete", "error", "fail" };
	struct hb_cmp_pair *p = c->p;
	int panic = hb_verdict_rank("panic");
	size_t pa = hb_cmp_verdicts_from(p->ga, panic), pb = hb_cmp_verdicts_from(p->gb, panic);
	char why[64];

	if (pb && !pa) {
		hb_cmp_find(p, HB_CMP_F_VERDICT, true, NULL, "verdict",
			    "run verdict panic in %zu of %zu NEW boots, in no BASE boot (a kernel "
			    "crash is never noise)", pb, p->gb->n);
		return true;
	}
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		int r = hb_verdict_rank(classes[i]);
		size_t ka = hb_cmp_verdicts_from(p->ga, r), kb = hb_cmp_verdicts_from(p->gb, r);
		double fp;

		if (hb_cmp_rate_regression(ka, p->ga->n, kb, p->gb->n, c->o->alpha, &fp)) {
			hb_cmp_rate_why(why, sizeof(why), ka, kb, p->gb->n, fp, c->o->alpha);
			hb_cmp_find(p, HB_CMP_F_VERDICT, true, NULL, "verdict",
				    "run verdict %s or worse in %zu of %zu NEW boots, %zu of %zu BASE "
				    "boots%s", classes[i], kb, p->gb->n, ka, p->ga->n, why);
			return true;
		}
	}
	if (rb > ra && rb >= hb_verdict_rank("fail")) {
		size_t ka = hb_cmp_verdicts_from(p->ga, rb), kb = hb_cmp_verdicts_from(p->gb, rb);
		double fp = hb_stats_fisher_greater(ka, p->ga->n, kb, p->gb->n);

		for (size_t b = 0; b < p->gb->n; b++)
			if (hb_verdict_rank(p->gb->boots[b]->verdict) == rb) {
				hb_cmp_find(p, HB_CMP_F_VERDICT, false, NULL, "verdict",
					    "run verdict %s in %zu of %zu NEW boots, %zu of %zu BASE "
					    "boots at that level or worse (Fisher p=%.2g): not beyond "
					    "chance", p->gb->boots[b]->verdict, kb, p->gb->n, ka,
					    p->ga->n, fp);
				break;
			}
		return true;
	}
	return false;
}

void hb_cmp_issues(struct hb_cmp_ctx *c)
{
	struct hb_cmp_pair *p = c->p;
	const struct hb_cmp_run *wa = p->a, *wb = p->b;
	size_t cnt_a, cnt_b;
	int ra = hb_cmp_worst_verdict(p->ga, &wa, &cnt_a), rb = hb_cmp_worst_verdict(p->gb, &wb, &cnt_b);
	char ob[48];

	for (size_t b = 0; b < p->gb->n; b++) {
		const struct hb_cmp_run *r = p->gb->boots[b];

		for (size_t i = 0; i < r->n_issues; i++) {
			const char *kind = r->issues[i].kind;
			size_t ba, bb, na = hb_cmp_kind_max(&c->x[0], kind, &ba);
			size_t nb = hb_cmp_kind_max(&c->x[1], kind, &bb);
			bool first;

			if (!hb_cmp_idx_put(&c->seen, "issue", kind, NULL, NULL, 0, &first)) {
				c->oom = true;
				return;
			}
			if (!first)
				continue;
			hb_cmp_of_boots(ob, sizeof(ob), bb, p->gb->n);
			hb_cmp_find(p, HB_CMP_F_ISSUE, nb > na, NULL, kind,
				    "kernel %s: %zu in BASE, %zu in NEW%s%s (first: line %ld: %s)", kind,
				    na, nb, p->ga->n > 1 || p->gb->n > 1 ? " at most per boot" : "", ob,
				    r->issues[i].line, hb_cmp_s(r->issues[i].excerpt));
		}
	}
	if (hb_cmp_verdict_rates(c, ra, rb))
		return;
	hb_cmp_of_boots(ob, sizeof(ob), cnt_b, p->gb->n);
	if (rb > ra)
		hb_cmp_find(p, HB_CMP_F_VERDICT, true, NULL, "verdict",
			    "run verdict %s -> %s%s%s%s", wa->verdict, wb->verdict, ob,
			    wb->verdict_reason ? ": " : "", hb_cmp_s(wb->verdict_reason));
	else if (rb < ra)
		hb_cmp_find(p, HB_CMP_F_VERDICT, false, NULL, "verdict", "run verdict %s -> %s",
			    wa->verdict, wb->verdict);
}

