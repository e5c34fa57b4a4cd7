/* cmp_report.c - pair a BASE run with a NEW run for compare-report.
 *
 * Builds everything the renderers show: environment differences (and
 * whether the runs are comparable at all), workload status and skip reasons
 * side by side, checks, kernel issues and verdicts, meminfo/vmstat deltas by
 * snapshot label, and the per-metric statistics of cmp_rule.c. Functional
 * regressions (a check that passed and now fails, pass -> fail/error, a new
 * kernel WARNING/panic, a worse run verdict) count whatever the statistics.
 * Every lookup by name goes through a hash index built once per run, so the
 * cost is linear in the size of the files (20000 workloads: well under a
 * second), and a repeated name keeps its first entry.
 */
#define _DEFAULT_SOURCE
#include "compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int hb_cmp_verdict_rank(const char *v)
{
	static const char *const order[] = { "pass", "kernel-warning", "fail", "error",
					     "incomplete", "timeout", "panic" };

	for (int i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++)
		if (v && !strcmp(v, order[i]))
			return i;
	return -1;
}

static const char *hb_cmp_s(const char *s)
{
	return s ? s : "-";
}

static bool hb_cmp_streq(const char *a, const char *b)
{
	return !strcmp(hb_cmp_s(a), hb_cmp_s(b));
}

static void hb_cmp_env_str(struct hb_cmp_pair *p, const char *field, const char *a,
			   const char *b, bool blocks)
{
	struct hb_cmp_envdiff *e = &p->env[p->n_env++];

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

static void hb_cmp_env(struct hb_cmp_pair *p)
{
	const struct hb_cmp_run *a = p->a, *b = p->b;
	const char *pmu[] = { "-", "no", "yes" };

	p->comparable = true;
	hb_cmp_env_str(p, "schema", a->schema, b->schema, false);
	if (strcmp(a->schema, HB_CMP_RESULT_SCHEMA) || strcmp(b->schema, HB_CMP_RESULT_SCHEMA)) {
		p->env[p->n_env - 1].blocks = true;
		p->comparable = false;
	}
	hb_cmp_env_str(p, "run", a->run_id, b->run_id, false);
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

/* ---- per-run indexes ------------------------------------------------------------- */

struct hb_cmp_chkagg {
	int st; /* 1 all repetitions passed, 0 one failed */
	const char *observed, *expected;
};

struct hb_cmp_snapagg {
	double sum;
	size_t found;
};

struct hb_cmp_runix {
	const struct hb_cmp_run *r;
	struct hb_cmp_idx wl;	/* name -> first workload of that name */
	struct hb_cmp_idx met;	/* (workload, name) -> first metric of that name */
	struct hb_cmp_idx chk;	/* (workload, name) -> chks[] */
	struct hb_cmp_idx lab;	/* (workload, label) -> snapshots with that label */
	struct hb_cmp_idx key;	/* (workload, label, source, key) -> sums[] */
	struct hb_cmp_idx kind; /* kernel issue kind -> count */
	struct hb_cmp_chkagg *chks;
	struct hb_cmp_snapagg *sums;
	size_t n_chks, cap_chks, n_sums, cap_sums;
};

static const char *const hb_cmp_src[2] = { "meminfo_kb", "vmstat" };

static void hb_cmp_runix_free(struct hb_cmp_runix *x)
{
	hb_cmp_idx_free(&x->wl);
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
static int hb_cmp_ix_check(struct hb_cmp_runix *x, const struct hb_cmp_workload *w,
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

static int hb_cmp_ix_snap(struct hb_cmp_runix *x, const struct hb_cmp_workload *w,
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

static int hb_cmp_runix_build(struct hb_cmp_runix *x, const struct hb_cmp_run *r)
{
	memset(x, 0, sizeof(*x));
	x->r = r;
	for (size_t i = 0; i < r->n_workloads; i++) {
		const struct hb_cmp_workload *w = &r->workloads[i];

		if (!hb_cmp_idx_put(&x->wl, NULL, w->name, NULL, NULL, i, NULL))
			return -1;
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
		size_t *v = hb_cmp_idx_put(&x->kind, NULL, r->issues[i].kind, NULL, NULL, 0, NULL);

		if (!v)
			return -1;
		++*v;
	}
	return 0;
}

static const struct hb_cmp_workload *hb_cmp_wl(const struct hb_cmp_runix *x, const char *name)
{
	size_t *v = hb_cmp_idx_get(&x->wl, NULL, name, NULL, NULL);

	return v ? &x->r->workloads[*v] : NULL;
}

static const struct hb_cmp_metric *hb_cmp_metric(const struct hb_cmp_runix *x,
						 const struct hb_cmp_workload *w, const char *name)
{
	size_t *v = w ? hb_cmp_idx_get(&x->met, w, name, NULL, NULL) : NULL;

	return v ? &w->metrics[*v] : NULL;
}

struct hb_cmp_ctx {
	struct hb_cmp_pair *p;
	struct hb_cmp_runix a, b;
	struct hb_cmp_idx seen; /* rows already made (checks, snapshot keys) */
	bool oom;
};

/* Workload names of a then b (b-only appended), without repeats. */
static const char **hb_cmp_wl_union(struct hb_cmp_ctx *c, size_t *n)
{
	const struct hb_cmp_run *a = c->p->a, *b = c->p->b;
	const char **names = hb_cmp_xcalloc(a->n_workloads + b->n_workloads, sizeof(*names));

	*n = 0;
	if (!names)
		return NULL;
	for (size_t i = 0; i < a->n_workloads; i++)
		if (&a->workloads[i] == hb_cmp_wl(&c->a, a->workloads[i].name))
			names[(*n)++] = a->workloads[i].name;
	for (size_t i = 0; i < b->n_workloads; i++)
		if (!hb_cmp_wl(&c->a, b->workloads[i].name) &&
		    &b->workloads[i] == hb_cmp_wl(&c->b, b->workloads[i].name))
			names[(*n)++] = b->workloads[i].name;
	return names;
}

static void hb_cmp_workloads(struct hb_cmp_ctx *c, const char **names, size_t n)
{
	struct hb_cmp_pair *p = c->p;

	p->wl = hb_cmp_xcalloc(n, sizeof(*p->wl));
	if (!p->wl)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(&c->a, names[i]), *b = hb_cmp_wl(&c->b, names[i]);
		struct hb_cmp_wlrow *r = &p->wl[p->n_wl++];
		bool bad_b;

		r->name = names[i];
		r->status_a = a ? a->status : NULL;
		r->status_b = b ? b->status : NULL;
		r->reason_a = a ? a->reason : NULL;
		r->reason_b = b ? b->reason : NULL;
		bad_b = b && (!strcmp(b->status, "fail") || !strcmp(b->status, "error"));
		/* pass/skip/absent -> fail/error; ran -> not run at all. */
		r->regression = bad_b && (!a || !strcmp(a->status, "pass") || !strcmp(a->status, "skip"));
		if (a && !b && strcmp(a->status, "skip"))
			r->regression = true;
		if (r->regression)
			hb_cmp_find(p, HB_CMP_F_WORKLOAD, true, names[i], "status",
				    "workload %s -> %s%s%s", a ? a->status : "(not run)",
				    b ? b->status : "(not run)", b && b->reason && *b->reason ? ": " : "",
				    b && b->reason ? b->reason : "");
		else if (a && b && strcmp(a->status, b->status))
			hb_cmp_find(p, HB_CMP_F_WORKLOAD, false, names[i], "status",
				    "workload %s -> %s%s%s", a->status, b->status,
				    b->reason && *b->reason ? ": " : "", b->reason ? b->reason : "");
	}
}

/* 1 when every repetition of the check passed, 0 when one failed, -1 absent. */
static int hb_cmp_check_state(const struct hb_cmp_runix *x, const struct hb_cmp_workload *w,
			      const char *name, char *obs, size_t len, const char **expected)
{
	size_t *v = w ? hb_cmp_idx_get(&x->chk, w, name, NULL, NULL) : NULL;
	const struct hb_cmp_chkagg *g;

	if (!v)
		return -1;
	g = &x->chks[*v];
	hb_cmp_clean(obs, len, hb_cmp_s(g->observed));
	if (!*expected && g->expected)
		*expected = g->expected;
	return g->st;
}

static void hb_cmp_check_one(struct hb_cmp_ctx *c, size_t *cap, const char *wname,
			     const char *cname)
{
	struct hb_cmp_pair *p = c->p;
	const struct hb_cmp_workload *a = hb_cmp_wl(&c->a, wname), *b = hb_cmp_wl(&c->b, wname);
	struct hb_cmp_checkrow row = { .workload = wname, .name = cname };
	bool added;

	if (!hb_cmp_idx_put(&c->seen, "check", wname, cname, NULL, 0, &added)) {
		c->oom = true;
		return;
	}
	if (!added)
		return;
	row.pass_a = hb_cmp_check_state(&c->a, a, cname, row.observed_a, sizeof(row.observed_a),
					&row.expected);
	row.pass_b = hb_cmp_check_state(&c->b, b, cname, row.observed_b, sizeof(row.observed_b),
					&row.expected);
	if (row.pass_a == -1)
		snprintf(row.observed_a, sizeof(row.observed_a), "-");
	if (row.pass_b == -1)
		snprintf(row.observed_b, sizeof(row.observed_b), "-");
	if (hb_cmp_append((void **)&p->checks, &p->n_checks, cap, sizeof(row), &row))
		c->oom = true;
	if (row.pass_b == 0 && row.pass_a != 0)
		hb_cmp_find(p, HB_CMP_F_CHECK, true, wname, cname,
			    "check %s %s in BASE, fails in NEW (expected %s, observed %s)", cname,
			    row.pass_a == 1 ? "passed" : "was not run", hb_cmp_s(row.expected),
			    row.observed_b);
	else if (row.pass_a == 0 && row.pass_b == 1)
		hb_cmp_find(p, HB_CMP_F_CHECK, false, wname, cname,
			    "check %s failed in BASE, passes in NEW", cname);
	else if (row.pass_a == 0 && row.pass_b == 0)
		hb_cmp_find(p, HB_CMP_F_CHECK, false, wname, cname,
			    "check %s fails in both (NEW observed %s)", cname, row.observed_b);
}

static void hb_cmp_checks(struct hb_cmp_ctx *c, const char **names, size_t n)
{
	size_t cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(&c->a, names[i]), *b = hb_cmp_wl(&c->b, names[i]);

		for (size_t j = 0; a && j < a->n_checks; j++)
			hb_cmp_check_one(c, &cap, names[i], a->checks[j].name);
		for (size_t j = 0; b && j < b->n_checks; j++)
			hb_cmp_check_one(c, &cap, names[i], b->checks[j].name);
	}
}

static void hb_cmp_metrics(struct hb_cmp_ctx *c, const char **names, size_t n,
			   const struct hb_cmp_thresholds *t, const struct hb_cmp_opts *o)
{
	struct hb_cmp_pair *p = c->p;
	size_t total = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(&c->a, names[i]), *b = hb_cmp_wl(&c->b, names[i]);

		total += (a ? a->n_metrics : 0) + (b ? b->n_metrics : 0);
	}
	p->m = hb_cmp_xcalloc(total, sizeof(*p->m));
	if (!p->m)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(&c->a, names[i]), *b = hb_cmp_wl(&c->b, names[i]);
		const struct hb_cmp_workload *sides[2] = { a, b };

		for (int s = 0; s < 2; s++) {
			for (size_t j = 0; sides[s] && j < sides[s]->n_metrics; j++) {
				const char *mn = sides[s]->metrics[j].name;
				const struct hb_cmp_metric *ma = hb_cmp_metric(&c->a, a, mn);
				const struct hb_cmp_metric *mb = hb_cmp_metric(&c->b, b, mn);
				struct hb_cmp_limits lim;

				if (s == 1 && ma)
					continue; /* done from BASE's side */
				if ((s == 0 && ma != &a->metrics[j]) || (s == 1 && mb != &b->metrics[j]))
					continue; /* a repeated name: first one wins */
				hb_cmp_limits_for(t, names[i], mn, &lim);
				p->m[k].workload = names[i];
				hb_cmp_metric_test(ma, mb, &lim, o, &p->m[k]);
				k++;
			}
		}
	}
	p->n_m = k;
	hb_cmp_decide(p->m, p->n_m, o);
	for (size_t i = 0; i < p->n_m; i++) {
		struct hb_cmp_mres *r = &p->m[i];

		if (r->verdict == HB_CMP_WORSE)
			hb_cmp_find(p, HB_CMP_F_METRIC, true, r->workload, r->name,
				    "%s worse by %.1f%% (%s)", r->name, r->worse_pct, r->why);
		else if (r->not_judged)
			hb_cmp_find(p, HB_CMP_F_METRIC, false, r->workload, r->name, "%s %s", r->name,
				    r->why);
	}
}

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

/* Mean of a key over the repetitions of one snapshot label; NAN if absent. */
static double hb_cmp_snap_mean(const struct hb_cmp_runix *x, const struct hb_cmp_workload *w,
			       const char *label, int vm, const char *key)
{
	size_t *reps = w ? hb_cmp_idx_get(&x->lab, w, label, NULL, NULL) : NULL;
	size_t *v = w ? hb_cmp_idx_get(&x->key, w, label, hb_cmp_src[vm], key) : NULL;

	/* Deltas are recorded when non-zero: a repetition without the key is 0. */
	if (v && x->sums[*v].found)
		return x->sums[*v].sum / (double)*reps;
	return reps ? 0 : NAN;
}

static void hb_cmp_snaps(struct hb_cmp_ctx *c, const char **names, size_t n)
{
	struct hb_cmp_pair *p = c->p;
	size_t cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(&c->a, names[i]), *b = hb_cmp_wl(&c->b, names[i]);
		const struct hb_cmp_workload *sides[2] = { a, b };

		for (int s = 0; s < 2; s++)
			for (size_t j = 0; sides[s] && j < sides[s]->n_snaps; j++)
				for (int vm = 0; vm < 2; vm++) {
					const struct hb_cmp_snap *sn = &sides[s]->snaps[j];
					const struct hb_cmp_kv *kv = vm ? sn->vmstat : sn->meminfo;
					size_t nk = vm ? sn->n_vmstat : sn->n_meminfo;

					for (size_t k = 0; k < nk; k++) {
						struct hb_cmp_snaprow row;
						bool added;

						if (!hb_cmp_idx_put(&c->seen, hb_cmp_src[vm], names[i],
								    sn->label, kv[k].key, 0, &added)) {
							c->oom = true;
							return;
						}
						if (!added)
							continue;
						row = (struct hb_cmp_snaprow){
							names[i], sn->label, hb_cmp_src[vm], kv[k].key,
							hb_cmp_snap_mean(&c->a, a, sn->label, vm, kv[k].key),
							hb_cmp_snap_mean(&c->b, b, sn->label, vm, kv[k].key),
							hb_cmp_key_interesting(kv[k].key),
						};
						if (hb_cmp_append((void **)&p->snaps, &p->n_snaps, &cap,
								  sizeof(row), &row))
							c->oom = true;
					}
				}
	}
}

static void hb_cmp_issues(struct hb_cmp_ctx *c)
{
	struct hb_cmp_pair *p = c->p;
	int ra = hb_cmp_verdict_rank(p->a->verdict), rb = hb_cmp_verdict_rank(p->b->verdict);

	for (size_t i = 0; i < p->b->n_issues; i++) {
		const char *kind = p->b->issues[i].kind;
		size_t *na = hb_cmp_idx_get(&c->a.kind, NULL, kind, NULL, NULL);
		size_t *nb = hb_cmp_idx_get(&c->b.kind, NULL, kind, NULL, NULL);
		bool first;

		if (!hb_cmp_idx_put(&c->seen, "issue", kind, NULL, NULL, 0, &first)) {
			c->oom = true;
			return;
		}
		if (!first)
			continue;
		hb_cmp_find(p, HB_CMP_F_ISSUE, *nb > (na ? *na : 0), NULL, kind,
			    "kernel %s: %zu in BASE, %zu in NEW (first: line %ld: %s)", kind,
			    na ? *na : 0, *nb, p->b->issues[i].line, hb_cmp_s(p->b->issues[i].excerpt));
	}
	if (rb > ra)
		hb_cmp_find(p, HB_CMP_F_VERDICT, true, NULL, "verdict",
			    "run verdict %s -> %s%s%s", p->a->verdict, p->b->verdict,
			    p->b->verdict_reason ? ": " : "", hb_cmp_s(p->b->verdict_reason));
	else if (rb < ra)
		hb_cmp_find(p, HB_CMP_F_VERDICT, false, NULL, "verdict", "run verdict %s -> %s",
			    p->a->verdict, p->b->verdict);
}

int hb_cmp_pair_build(const struct hb_cmp_run *a, const struct hb_cmp_run *b,
		      const struct hb_cmp_thresholds *t, const struct hb_cmp_opts *o,
		      struct hb_cmp_pair *p)
{
	struct hb_cmp_ctx c = { .p = p };
	const char **names = NULL;
	size_t n;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	p->a = a;
	p->b = b;
	hb_cmp_env(p);
	if (hb_cmp_runix_build(&c.a, a) || hb_cmp_runix_build(&c.b, b))
		goto out;
	names = hb_cmp_wl_union(&c, &n);
	if (!names)
		goto out;
	hb_cmp_issues(&c);
	hb_cmp_workloads(&c, names, n);
	hb_cmp_checks(&c, names, n);
	hb_cmp_metrics(&c, names, n, t, o);
	hb_cmp_snaps(&c, names, n);
	ret = p->wl && p->m && !c.oom ? 0 : -1;
out:
	free(names);
	hb_cmp_runix_free(&c.a);
	hb_cmp_runix_free(&c.b);
	hb_cmp_idx_free(&c.seen);
	return ret;
}

void hb_cmp_pair_free(struct hb_cmp_pair *p)
{
	free(p->m);
	free(p->wl);
	free(p->checks);
	free(p->snaps);
	free(p->f);
	memset(p, 0, sizeof(*p));
}
