/* cmp_report.c - pair a BASE group of boots with a NEW group for
 * compare-report.
 *
 * Builds everything the renderers show: environment differences (and
 * whether the sides are comparable at all), workload status and skip
 * reasons side by side, checks, kernel issues and verdicts, meminfo/vmstat
 * deltas by snapshot label, and the per-metric statistics of cmp_rule.c
 * with one center per boot. A single run is a group of one boot.
 *
 * Workloads are keyed by (name, instance): a suite that lists fragment
 * twice has "fragment" and "fragment#2", each compared with its own
 * counterpart. Functional regressions count whatever the statistics, over
 * every boot: a check that fails in any NEW boot and passed in every BASE
 * boot (or was not run there), a workload that is fail/error in a NEW boot
 * and in no BASE boot, or that ran in every BASE boot and is missing from
 * a NEW boot, a kernel issue kind seen more often in one NEW boot than in
 * any BASE boot, a NEW boot with a worse verdict than every BASE boot. A
 * metric that vanished or became unavailable in NEW is a finding (a
 * regression with --strict); sides that disagree on a metric's `better`
 * are not comparable. Every lookup goes through a hash index, so the cost
 * stays linear in the size of the files.
 */
#define _DEFAULT_SOURCE
#include "compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A workload of the pair: (name, instance), and its entry in every boot. */
struct hb_cmp_wkey {
	const char *name;
	size_t inst;
	char *label; /* "name", or "name#<inst+1>" */
	const struct hb_cmp_workload **w[2]; /* [side][boot], NULL when absent */
};

static const char *hb_cmp_s(const char *s)
{
	return s ? s : "-";
}

static bool hb_cmp_streq(const char *a, const char *b)
{
	return !strcmp(hb_cmp_s(a), hb_cmp_s(b));
}

static const struct hb_cmp_group *hb_cmp_g(const struct hb_cmp_pair *p, int s)
{
	return s ? p->gb : p->ga;
}

/* ---- environment ---------------------------------------------------------------- */

static void hb_cmp_env_str(struct hb_cmp_pair *p, const char *field, const char *a,
			   const char *b, bool blocks)
{
	struct hb_cmp_envdiff *e;

	if (p->n_env == sizeof(p->env) / sizeof(p->env[0]))
		return;
	e = &p->env[p->n_env++];
	e->field = field;
	hb_cmp_clean(e->a, sizeof(e->a), hb_cmp_s(a));
	hb_cmp_clean(e->b, sizeof(e->b), hb_cmp_s(b));
	e->differs = !hb_cmp_streq(a, b);
	/* An unknown value on one side cannot prove a difference. */
	e->blocks = blocks && e->differs && a && b;
	if (e->blocks)
		p->comparable = false;
}

static void hb_cmp_env_long(struct hb_cmp_pair *p, const char *field, long a, long b)
{
	char sa[32] = "-", sb[32] = "-";

	if (a >= 0)
		snprintf(sa, sizeof(sa), "%ld", a);
	if (b >= 0)
		snprintf(sb, sizeof(sb), "%ld", b);
	hb_cmp_env_str(p, field, sa, sb, false);
}

/* The fields that make runs not comparable must agree inside a group too. */
static void hb_cmp_env_group(struct hb_cmp_pair *p, int s)
{
	static const char *const fields[2][4] = {
		{ "BASE boots: schema", "BASE boots: suite", "BASE boots: accelerator",
		  "BASE boots: host CPU" },
		{ "NEW boots: schema", "NEW boots: suite", "NEW boots: accelerator",
		  "NEW boots: host CPU" },
	};
	const struct hb_cmp_group *g = hb_cmp_g(p, s);
	bool shown[4] = { false };

	for (size_t i = 1; i < g->n; i++) {
		const struct hb_cmp_run *r0 = g->boots[0], *r = g->boots[i];
		const char *v0[4] = { r0->schema, r0->suite, r0->accelerator, r0->host_cpu };
		const char *v[4] = { r->schema, r->suite, r->accelerator, r->host_cpu };

		for (int f = 0; f < 4; f++)
			if (!shown[f] && v0[f] && v[f] && strcmp(v0[f], v[f])) {
				shown[f] = true;
				hb_cmp_env_str(p, fields[s][f], v0[f], v[f], true);
			}
	}
}

static void hb_cmp_env(struct hb_cmp_pair *p)
{
	const struct hb_cmp_run *a = p->a, *b = p->b;
	const char *pmu[] = { "-", "no", "yes" };
	char na[32], nb[32];

	p->comparable = true;
	hb_cmp_env_str(p, "schema", a->schema, b->schema, false);
	if (strcmp(a->schema, HB_CMP_RESULT_SCHEMA) || strcmp(b->schema, HB_CMP_RESULT_SCHEMA)) {
		p->env[p->n_env - 1].blocks = true;
		p->comparable = false;
	}
	hb_cmp_env_str(p, "run", hb_cmp_side_name(p, 0), hb_cmp_side_name(p, 1), false);
	snprintf(na, sizeof(na), "%zu", p->ga->n);
	snprintf(nb, sizeof(nb), "%zu", p->gb->n);
	hb_cmp_env_str(p, "boots", na, nb, false);
	hb_cmp_env_str(p, "target", a->target, b->target, false);
	hb_cmp_env_str(p, "kernel release", a->kernel_release, b->kernel_release, false);
	hb_cmp_env_str(p, "package", a->package, b->package, false);
	hb_cmp_env_str(p, "cmdline", a->cmdline, b->cmdline, false);
	hb_cmp_env_str(p, "suite", a->suite, b->suite, true);
	hb_cmp_env_long(p, "repeat", a->repeat, b->repeat);
	hb_cmp_env_str(p, "accelerator", a->accelerator, b->accelerator, true);
	hb_cmp_env_str(p, "QEMU version", a->qemu_version, b->qemu_version, false);
	hb_cmp_env_long(p, "vCPUs", a->vcpus, b->vcpus);
	hb_cmp_env_long(p, "memory MB", a->memory_mb, b->memory_mb);
	hb_cmp_env_str(p, "nested virt", a->nested_virt, b->nested_virt, false);
	hb_cmp_env_str(p, "PMU", pmu[a->pmu + 1], pmu[b->pmu + 1], false);
	hb_cmp_env_str(p, "host kernel", a->host_kernel, b->host_kernel, false);
	hb_cmp_env_str(p, "host CPU", a->host_cpu, b->host_cpu, true);
	hb_cmp_env_str(p, "verdict", a->verdict, b->verdict, false);
	hb_cmp_env_group(p, 0);
	hb_cmp_env_group(p, 1);
}

static void hb_cmp_find(struct hb_cmp_pair *p, enum hb_cmp_fkind kind, bool regression,
			const char *workload, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void hb_cmp_find(struct hb_cmp_pair *p, enum hb_cmp_fkind kind, bool regression,
			const char *workload, const char *what, const char *fmt, ...)
{
	struct hb_cmp_finding f = { .kind = kind, .regression = regression };
	char text[1024];
	va_list ap;

	/* cleaned and cut at a character boundary: printable anywhere, and
	 * always valid UTF-8 for the JSON report */
	hb_cmp_clean(f.workload, sizeof(f.workload), workload);
	hb_cmp_clean(f.what, sizeof(f.what), what);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	hb_cmp_clean(f.text, sizeof(f.text), text);
	if (!hb_cmp_append((void **)&p->f, &p->n_f, &p->f_cap, sizeof(f), &f) && regression)
		p->n_regressions++;
}

/* " (in 2 of 5 boots)" for a group, "" for a single boot. */
static void hb_cmp_of_boots(char *buf, size_t len, size_t k, size_t n)
{
	if (n > 1)
		snprintf(buf, len, " (in %zu of %zu boots)", k, n);
	else
		buf[0] = 0;
}

/* ---- per-side indexes (over every boot of the side) ------------------------------- */

struct hb_cmp_chkagg {
	int st; /* 1 all repetitions passed, 0 one failed */
	const char *observed, *expected;
};

struct hb_cmp_snapagg {
	double sum;
	size_t found;
};

struct hb_cmp_sideix {
	const struct hb_cmp_group *g;
	struct hb_cmp_idx met;	/* (workload, name) -> first metric of that name */
	struct hb_cmp_idx chk;	/* (workload, name) -> chks[] */
	struct hb_cmp_idx lab;	/* (workload, label) -> snapshots with that label */
	struct hb_cmp_idx key;	/* (workload, label, source, key) -> sums[] */
	struct hb_cmp_idx kind; /* (run, kernel issue kind) -> count */
	struct hb_cmp_chkagg *chks;
	struct hb_cmp_snapagg *sums;
	size_t n_chks, cap_chks, n_sums, cap_sums;
};

static const char *const hb_cmp_src[2] = { "meminfo_kb", "vmstat" };

static void hb_cmp_sideix_free(struct hb_cmp_sideix *x)
{
	hb_cmp_idx_free(&x->met);
	hb_cmp_idx_free(&x->chk);
	hb_cmp_idx_free(&x->lab);
	hb_cmp_idx_free(&x->key);
	hb_cmp_idx_free(&x->kind);
	free(x->chks);
	free(x->sums);
}

/* One check result folded into its (workload, name) aggregate: every
 * repetition passed, or the first failure's observed value. */
static int hb_cmp_ix_check(struct hb_cmp_sideix *x, const struct hb_cmp_workload *w,
			   const struct hb_cmp_check *c)
{
	bool added;
	size_t *v = hb_cmp_idx_put(&x->chk, w, c->name, NULL, NULL, x->n_chks, &added);
	struct hb_cmp_chkagg *g, fresh = { -1, NULL, NULL };

	if (!v)
		return -1;
	if (added && hb_cmp_append((void **)&x->chks, &x->n_chks, &x->cap_chks, sizeof(fresh), &fresh))
		return -1;
	g = &x->chks[*v];
	if (g->st == -1 || (g->st == 1 && !c->pass))
		g->observed = c->observed;
	if (!g->expected && c->expected)
		g->expected = c->expected;
	g->st = g->st == -1 ? c->pass : (g->st && c->pass);
	return 0;
}

static int hb_cmp_ix_snap(struct hb_cmp_sideix *x, const struct hb_cmp_workload *w,
			  const struct hb_cmp_snap *sn)
{
	size_t *v = hb_cmp_idx_put(&x->lab, w, sn->label, NULL, NULL, 0, NULL);

	if (!v)
		return -1;
	++*v;
	for (int vm = 0; vm < 2; vm++) {
		const struct hb_cmp_kv *kv = vm ? sn->vmstat : sn->meminfo;
		size_t nk = vm ? sn->n_vmstat : sn->n_meminfo;

		for (size_t k = 0; k < nk; k++) {
			struct hb_cmp_snapagg fresh = { 0, 0 };
			bool added;

			v = hb_cmp_idx_put(&x->key, w, sn->label, hb_cmp_src[vm], kv[k].key,
					   x->n_sums, &added);
			if (!v || (added && hb_cmp_append((void **)&x->sums, &x->n_sums,
							  &x->cap_sums, sizeof(fresh), &fresh)))
				return -1;
			x->sums[*v].sum += kv[k].val;
			x->sums[*v].found++;
		}
	}
	return 0;
}

static int hb_cmp_sideix_build(struct hb_cmp_sideix *x, const struct hb_cmp_group *g)
{
	memset(x, 0, sizeof(*x));
	x->g = g;
	for (size_t b = 0; b < g->n; b++) {
		const struct hb_cmp_run *r = g->boots[b];

		for (size_t i = 0; i < r->n_workloads; i++) {
			const struct hb_cmp_workload *w = &r->workloads[i];

			for (size_t j = 0; j < w->n_metrics; j++)
				if (!hb_cmp_idx_put(&x->met, w, w->metrics[j].name, NULL, NULL, j, NULL))
					return -1;
			for (size_t j = 0; j < w->n_checks; j++)
				if (hb_cmp_ix_check(x, w, &w->checks[j]))
					return -1;
			for (size_t j = 0; j < w->n_snaps; j++)
				if (hb_cmp_ix_snap(x, w, &w->snaps[j]))
					return -1;
		}
		for (size_t i = 0; i < r->n_issues; i++) {
			size_t *v = hb_cmp_idx_put(&x->kind, r, r->issues[i].kind, NULL, NULL, 0, NULL);

			if (!v)
				return -1;
			++*v;
		}
	}
	return 0;
}

static const struct hb_cmp_metric *hb_cmp_metric(const struct hb_cmp_sideix *x,
						 const struct hb_cmp_workload *w, const char *name)
{
	size_t *v = w ? hb_cmp_idx_get(&x->met, w, name, NULL, NULL) : NULL;

	return v ? &w->metrics[*v] : NULL;
}

struct hb_cmp_ctx {
	struct hb_cmp_pair *p;
	const struct hb_cmp_thresholds *t;
	const struct hb_cmp_opts *o;
	struct hb_cmp_sideix x[2];
	struct hb_cmp_idx wix;	/* (instance + 1, name) -> p->wk[] */
	struct hb_cmp_idx seen; /* rows already made (checks, metrics, snapshot keys) */
	size_t wk_cap;
	bool oom;
};

/* ---- workload keys --------------------------------------------------------------- */

static void *hb_cmp_inst_tag(size_t inst)
{
	return (void *)(uintptr_t)(inst + 1);
}

static int hb_cmp_wkeys(struct hb_cmp_ctx *c)
{
	struct hb_cmp_pair *p = c->p;

	for (int s = 0; s < 2; s++) {
		const struct hb_cmp_group *g = hb_cmp_g(p, s);

		for (size_t b = 0; b < g->n; b++) {
			const struct hb_cmp_run *r = g->boots[b];
			struct hb_cmp_idx count = { 0 }; /* name -> instances so far */

			for (size_t i = 0; i < r->n_workloads; i++) {
				const struct hb_cmp_workload *w = &r->workloads[i];
				size_t *n = hb_cmp_idx_put(&count, NULL, w->name, NULL, NULL, 0, NULL);
				size_t inst, *v;
				bool added;

				if (!n)
					goto oom;
				inst = (*n)++;
				v = hb_cmp_idx_put(&c->wix, hb_cmp_inst_tag(inst), w->name, NULL, NULL,
						   p->n_wk, &added);
				if (!v)
					goto oom;
				if (added) {
					struct hb_cmp_wkey k = { .name = w->name, .inst = inst };

					if (inst)
						k.label = malloc(strlen(w->name) + 24);
					else
						k.label = strdup(w->name);
					k.w[0] = hb_cmp_xcalloc(p->ga->n, sizeof(*k.w[0]));
					k.w[1] = hb_cmp_xcalloc(p->gb->n, sizeof(*k.w[1]));
					if (!k.label || !k.w[0] || !k.w[1] ||
					    hb_cmp_append((void **)&p->wk, &p->n_wk, &c->wk_cap,
							  sizeof(k), &k)) {
						free(k.label);
						free(k.w[0]);
						free(k.w[1]);
						goto oom;
					}
					if (inst)
						sprintf(k.label, "%s#%zu", w->name, inst + 1);
				}
				p->wk[*v].w[s][b] = w;
				continue;
oom:
				hb_cmp_idx_free(&count);
				return -1;
			}
			hb_cmp_idx_free(&count);
		}
	}
	return 0;
}

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

static void hb_cmp_workloads(struct hb_cmp_ctx *c)
{
	struct hb_cmp_pair *p = c->p;

	p->wl = hb_cmp_xcalloc(p->n_wk, sizeof(*p->wl));
	if (!p->wl)
		return;
	for (size_t i = 0; i < p->n_wk; i++) {
		const struct hb_cmp_wkey *k = &p->wk[i];
		struct hb_cmp_wlrow *r = &p->wl[p->n_wl++];
		struct hb_cmp_wlsum ua, ub;
		size_t bad_a, bad_b;
		bool a_ran;
		char ob[48];

		r->name = k->label;
		hb_cmp_wl_sum(k, 0, p->ga->n, &ua, r->sum_a, sizeof(r->sum_a));
		hb_cmp_wl_sum(k, 1, p->gb->n, &ub, r->sum_b, sizeof(r->sum_b));
		r->status_a = ua.worst ? ua.worst->status : NULL;
		r->status_b = ub.worst ? ub.worst->status : NULL;
		r->reason_a = ua.worst ? ua.worst->reason : NULL;
		r->reason_b = ub.worst ? ub.worst->reason : NULL;
		bad_a = ua.n[2] + ua.n[3];
		bad_b = ub.n[2] + ub.n[3];
		/* ran in every BASE boot (not only skipped) */
		a_ran = !ua.absent && ua.n[0] < ua.boots;
		/* pass/skip/absent in every BASE boot -> fail/error in a NEW boot;
		 * ran in BASE -> not run in a NEW boot */
		r->regression = (bad_b && !bad_a) || (a_ran && ub.absent);
		if (r->regression && bad_b && !bad_a) {
			hb_cmp_of_boots(ob, sizeof(ob), bad_b, ub.boots);
			hb_cmp_find(p, HB_CMP_F_WORKLOAD, true, k->label, "status",
				    "workload %s -> %s%s%s%s", r->status_a ? r->sum_a : "(not run)",
				    r->status_b, ob, r->reason_b && *r->reason_b ? ": " : "",
				    r->reason_b ? r->reason_b : "");
		} else if (r->regression) {
			hb_cmp_of_boots(ob, sizeof(ob), ub.absent, ub.boots);
			hb_cmp_find(p, HB_CMP_F_WORKLOAD, true, k->label, "status",
				    "workload %s -> (not run)%s", r->sum_a, ob);
		} else if (r->status_a && r->status_b && strcmp(r->sum_a, r->sum_b)) {
			hb_cmp_find(p, HB_CMP_F_WORKLOAD, false, k->label, "status",
				    "workload %s -> %s%s%s", r->sum_a, r->sum_b,
				    r->reason_b && *r->reason_b ? ": " : "",
				    r->reason_b ? r->reason_b : "");
		}
	}
}

/* ---- checks ------------------------------------------------------------------------ */

/* Over the boots of a side: 0 when one boot failed it, 1 when it passed in
 * every boot that ran it, -1 when none did; *failed counts failing boots. */
static int hb_cmp_check_state(const struct hb_cmp_sideix *x, const struct hb_cmp_wkey *k, int s,
			      const char *name, char *obs, size_t len, const char **expected,
			      size_t *failed)
{
	int st = -1;

	*failed = 0;
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
		st = st == -1 ? g->st : (st && g->st);
	}
	return st;
}

static void hb_cmp_check_one(struct hb_cmp_ctx *c, size_t *cap, const struct hb_cmp_wkey *k,
			     const char *cname)
{
	struct hb_cmp_pair *p = c->p;
	struct hb_cmp_checkrow row = { .workload = k->label, .name = cname };
	size_t fa, fb;
	bool added;
	char ob[48];

	if (!hb_cmp_idx_put(&c->seen, k, "check", cname, NULL, 0, &added)) {
		c->oom = true;
		return;
	}
	if (!added)
		return;
	row.pass_a = hb_cmp_check_state(&c->x[0], k, 0, cname, row.observed_a,
					sizeof(row.observed_a), &row.expected, &fa);
	row.pass_b = hb_cmp_check_state(&c->x[1], k, 1, cname, row.observed_b,
					sizeof(row.observed_b), &row.expected, &fb);
	if (hb_cmp_append((void **)&p->checks, &p->n_checks, cap, sizeof(row), &row))
		c->oom = true;
	hb_cmp_of_boots(ob, sizeof(ob), fb, p->gb->n);
	if (row.pass_b == 0 && row.pass_a != 0)
		hb_cmp_find(p, HB_CMP_F_CHECK, true, k->label, cname,
			    "check %s %s in BASE, fails in NEW%s (expected %s, observed %s)", cname,
			    row.pass_a == 1 ? "passed" : "was not run", ob, hb_cmp_s(row.expected),
			    row.observed_b);
	else if (row.pass_a == 0 && row.pass_b == 1)
		hb_cmp_find(p, HB_CMP_F_CHECK, false, k->label, cname,
			    "check %s failed in BASE, passes in NEW", cname);
	else if (row.pass_a == 0 && row.pass_b == 0)
		hb_cmp_find(p, HB_CMP_F_CHECK, false, k->label, cname,
			    "check %s fails in both%s (NEW observed %s)", cname, ob, row.observed_b);
}

static void hb_cmp_checks(struct hb_cmp_ctx *c)
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

/* Directions must agree over every boot of both sides. */
static void hb_cmp_direction(struct hb_cmp_ctx *c, const struct hb_cmp_mrow *row,
			     const struct hb_cmp_metric *const *m[2])
{
	struct hb_cmp_pair *p = c->p;
	const struct hb_cmp_metric *first[2] = { NULL, NULL };
	bool differ = false;

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
		}
	if (!differ)
		return;
	p->comparable = false;
	p->n_direction++;
	hb_cmp_find(p, HB_CMP_F_DIRECTION, false, row->k->label, row->name,
		    "%s: better=%s in BASE, %s in NEW%s: not comparable", row->name,
		    first[0] ? hb_cmp_better_name(first[0]->better) : "-",
		    first[1] ? hb_cmp_better_name(first[1]->better) : "-",
		    first[0] && first[1] && first[0]->better == first[1]->better
			    ? " (and differs between boots of one side)" : "");
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

static void hb_cmp_metrics(struct hb_cmp_ctx *c)
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
		size_t sd_n;
		double sd;

		for (size_t b = 0; b < p->ga->n; b++)
			ma[b] = hb_cmp_metric(&c->x[0], k->w[0][b], rows[i].name);
		for (size_t b = 0; b < p->gb->n; b++)
			mb[b] = hb_cmp_metric(&c->x[1], k->w[1][b], rows[i].name);
		hb_cmp_direction(c, &rows[i], m);
		hb_cmp_vanished(c, &rows[i], m);
		pa = hb_cmp_pool(c, ma, p->ga->n);
		pb = hb_cmp_pool(c, mb, p->gb->n);
		hb_cmp_limits_for(c->t, k->name, rows[i].name, &lim);
		sd = hb_cmp_calib_sd(p->calib, k->label, rows[i].name, &sd_n);
		r->workload = k->label;
		r->wl_name = k->name;
		hb_cmp_metric_test_boots(ma, p->ga->n, mb, p->gb->n, pa, pb, p->centers + i * nb,
					 p->centers + i * nb + p->ga->n, &lim, sd, sd_n, c->o, r);
		p->n_m++;
	}
	hb_cmp_decide(p->m, p->n_m, c->o);
	for (size_t i = 0; i < p->n_m; i++) {
		struct hb_cmp_mres *r = &p->m[i];

		if (r->verdict == HB_CMP_WORSE)
			hb_cmp_find(p, HB_CMP_F_METRIC, true, r->workload, r->name,
				    "%s worse by %.1f%% (%s)", r->name, r->worse_pct, r->why);
		else if (r->not_judged)
			hb_cmp_find(p, HB_CMP_F_METRIC, false, r->workload, r->name, "%s %s", r->name,
				    r->why);
		else if (r->verdict == HB_CMP_NOISY && r->q_worse <= c->o->alpha &&
			 r->worse_pct > r->mde_pct)
			/* beyond what the noise can explain, but the rule does not
			 * judge this metric: a note for a human */
			hb_cmp_find(p, HB_CMP_F_METRIC, false, r->workload, r->name,
				    "%s worse by %.1f%% (q=%.2g), beyond its detectable change %.0f%%; "
				    "too noisy to be judged at the %g%% minimum effect", r->name,
				    r->worse_pct, r->q_worse, r->mde_pct, r->min_effect_pct);
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

static void hb_cmp_snaps(struct hb_cmp_ctx *c)
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

static void hb_cmp_issues(struct hb_cmp_ctx *c)
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
	hb_cmp_of_boots(ob, sizeof(ob), cnt_b, p->gb->n);
	if (rb > ra)
		hb_cmp_find(p, HB_CMP_F_VERDICT, true, NULL, "verdict",
			    "run verdict %s -> %s%s%s%s", wa->verdict, wb->verdict, ob,
			    wb->verdict_reason ? ": " : "", hb_cmp_s(wb->verdict_reason));
	else if (rb < ra)
		hb_cmp_find(p, HB_CMP_F_VERDICT, false, NULL, "verdict", "run verdict %s -> %s",
			    wa->verdict, wb->verdict);
}

/* ---- the pair ------------------------------------------------------------------------ */

int hb_cmp_pair_build_groups(const struct hb_cmp_group *a, const struct hb_cmp_group *b,
			     const struct hb_cmp_thresholds *t, const struct hb_cmp_opts *o,
			     struct hb_cmp_pair *p)
{
	struct hb_cmp_ctx c = { .p = p, .t = t, .o = o };
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (!a->n || !b->n)
		return -1;
	p->ga = a;
	p->gb = b;
	p->a = a->boots[0];
	p->b = b->boots[0];
	hb_cmp_env(p);
	if (hb_cmp_calib_find(o->calibration, a, b, &p->calib, p->calib_note,
			      sizeof(p->calib_note)))
		return -2;
	if (hb_cmp_sideix_build(&c.x[0], a) || hb_cmp_sideix_build(&c.x[1], b) || hb_cmp_wkeys(&c))
		goto out;
	hb_cmp_issues(&c);
	hb_cmp_workloads(&c);
	hb_cmp_checks(&c);
	hb_cmp_metrics(&c);
	hb_cmp_snaps(&c);
	ret = p->wl && p->m && !c.oom ? 0 : -1;
out:
	hb_cmp_sideix_free(&c.x[0]);
	hb_cmp_sideix_free(&c.x[1]);
	hb_cmp_idx_free(&c.wix);
	hb_cmp_idx_free(&c.seen);
	return ret;
}

int hb_cmp_pair_build(const struct hb_cmp_run *a, const struct hb_cmp_run *b,
		      const struct hb_cmp_thresholds *t, const struct hb_cmp_opts *o,
		      struct hb_cmp_pair *p)
{
	struct hb_cmp_group *ga = hb_cmp_group_view((struct hb_cmp_run *const *)&a, 1, NULL);
	struct hb_cmp_group *gb = hb_cmp_group_view((struct hb_cmp_run *const *)&b, 1, NULL);
	int ret = -1;

	if (ga && gb)
		ret = hb_cmp_pair_build_groups(ga, gb, t, o, p);
	else
		memset(p, 0, sizeof(*p));
	p->own_ga = ga;
	p->own_gb = gb;
	return ret;
}

void hb_cmp_pair_free(struct hb_cmp_pair *p)
{
	for (size_t i = 0; i < p->n_wk; i++) {
		free(p->wk[i].label);
		free(p->wk[i].w[0]);
		free(p->wk[i].w[1]);
	}
	for (size_t i = 0; i < p->n_pool; i++)
		free(p->pool[i].samples);
	free(p->pool);
	free(p->centers);
	free(p->wk);
	free(p->m);
	free(p->wl);
	free(p->checks);
	free(p->snaps);
	free(p->f);
	hb_cmp_calib_free(p->calib);
	hb_cmp_group_free(p->own_ga);
	hb_cmp_group_free(p->own_gb);
	memset(p, 0, sizeof(*p));
}
