/* cmp_report.c - pair a BASE run with a NEW run for compare-report.
 *
 * Builds everything the renderers show: environment differences (and
 * whether the runs are comparable at all), workload status and skip reasons
 * side by side, checks, kernel issues and verdicts, meminfo/vmstat deltas by
 * snapshot label, and the per-metric statistics of cmp_rule.c. Functional
 * regressions (a check that passed and now fails, pass -> fail/error, a new
 * kernel WARNING/panic, a worse run verdict) count whatever the statistics.
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
	snprintf(e->a, sizeof(e->a), "%s", hb_cmp_s(a));
	snprintf(e->b, sizeof(e->b), "%s", hb_cmp_s(b));
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
	va_list ap;

	snprintf(f.workload, sizeof(f.workload), "%s", workload ? workload : "");
	snprintf(f.what, sizeof(f.what), "%s", what ? what : "");
	va_start(ap, fmt);
	vsnprintf(f.text, sizeof(f.text), fmt, ap);
	va_end(ap);
	if (!hb_cmp_append((void **)&p->f, &p->n_f, &p->f_cap, sizeof(f), &f) && regression)
		p->n_regressions++;
}

static const struct hb_cmp_workload *hb_cmp_wl(const struct hb_cmp_run *r, const char *name)
{
	for (size_t i = 0; i < r->n_workloads; i++)
		if (!strcmp(r->workloads[i].name, name))
			return &r->workloads[i];
	return NULL;
}

static const struct hb_cmp_metric *hb_cmp_metric(const struct hb_cmp_workload *w,
						 const char *name)
{
	for (size_t i = 0; w && i < w->n_metrics; i++)
		if (!strcmp(w->metrics[i].name, name))
			return &w->metrics[i];
	return NULL;
}

/* Workload names of a then b (b-only appended), without repeats. */
static const char **hb_cmp_wl_union(const struct hb_cmp_pair *p, size_t *n)
{
	const char **names = hb_cmp_xcalloc(p->a->n_workloads + p->b->n_workloads, sizeof(*names));

	*n = 0;
	if (!names)
		return NULL;
	for (size_t i = 0; i < p->a->n_workloads; i++)
		if (&p->a->workloads[i] == hb_cmp_wl(p->a, p->a->workloads[i].name))
			names[(*n)++] = p->a->workloads[i].name;
	for (size_t i = 0; i < p->b->n_workloads; i++)
		if (!hb_cmp_wl(p->a, p->b->workloads[i].name) &&
		    &p->b->workloads[i] == hb_cmp_wl(p->b, p->b->workloads[i].name))
			names[(*n)++] = p->b->workloads[i].name;
	return names;
}

static void hb_cmp_workloads(struct hb_cmp_pair *p, const char **names, size_t n)
{
	p->wl = hb_cmp_xcalloc(n, sizeof(*p->wl));
	if (!p->wl)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(p->a, names[i]), *b = hb_cmp_wl(p->b, names[i]);
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
static int hb_cmp_check_state(const struct hb_cmp_workload *w, const char *name, char *obs,
			      size_t len, const char **expected)
{
	int st = -1;

	for (size_t i = 0; w && i < w->n_checks; i++) {
		const struct hb_cmp_check *c = &w->checks[i];

		if (strcmp(c->name, name))
			continue;
		if (st == -1 || (st == 1 && !c->pass))
			snprintf(obs, len, "%s", hb_cmp_s(c->observed));
		if (!*expected && c->expected)
			*expected = c->expected;
		st = st == -1 ? c->pass : (st && c->pass);
	}
	return st;
}

static void hb_cmp_check_one(struct hb_cmp_pair *p, size_t *cap, const char *wname,
			     const char *cname)
{
	const struct hb_cmp_workload *a = hb_cmp_wl(p->a, wname), *b = hb_cmp_wl(p->b, wname);
	struct hb_cmp_checkrow row = { .workload = wname, .name = cname };

	for (size_t i = 0; i < p->n_checks; i++)
		if (!strcmp(p->checks[i].workload, wname) && !strcmp(p->checks[i].name, cname))
			return;
	row.pass_a = hb_cmp_check_state(a, cname, row.observed_a, sizeof(row.observed_a),
					&row.expected);
	row.pass_b = hb_cmp_check_state(b, cname, row.observed_b, sizeof(row.observed_b),
					&row.expected);
	if (row.pass_a == -1)
		snprintf(row.observed_a, sizeof(row.observed_a), "-");
	if (row.pass_b == -1)
		snprintf(row.observed_b, sizeof(row.observed_b), "-");
	hb_cmp_append((void **)&p->checks, &p->n_checks, cap, sizeof(row), &row);
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

static void hb_cmp_checks(struct hb_cmp_pair *p, const char **names, size_t n)
{
	size_t cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(p->a, names[i]), *b = hb_cmp_wl(p->b, names[i]);

		for (size_t j = 0; a && j < a->n_checks; j++)
			hb_cmp_check_one(p, &cap, names[i], a->checks[j].name);
		for (size_t j = 0; b && j < b->n_checks; j++)
			hb_cmp_check_one(p, &cap, names[i], b->checks[j].name);
	}
}

static void hb_cmp_metrics(struct hb_cmp_pair *p, const char **names, size_t n,
			   const struct hb_cmp_thresholds *t, const struct hb_cmp_opts *o)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(p->a, names[i]), *b = hb_cmp_wl(p->b, names[i]);

		total += (a ? a->n_metrics : 0) + (b ? b->n_metrics : 0);
	}
	p->m = hb_cmp_xcalloc(total, sizeof(*p->m));
	if (!p->m)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(p->a, names[i]), *b = hb_cmp_wl(p->b, names[i]);
		const struct hb_cmp_workload *sides[2] = { a, b };

		for (int s = 0; s < 2; s++) {
			for (size_t j = 0; sides[s] && j < sides[s]->n_metrics; j++) {
				const char *mn = sides[s]->metrics[j].name;
				const struct hb_cmp_metric *ma = hb_cmp_metric(a, mn);
				const struct hb_cmp_metric *mb = hb_cmp_metric(b, mn);

				if (s == 1 && ma)
					continue; /* done from BASE's side */
				if ((s == 0 && ma != &a->metrics[j]) || (s == 1 && mb != &b->metrics[j]))
					continue; /* a repeated name: first one wins */
				struct hb_cmp_limits lim;

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
static double hb_cmp_snap_mean(const struct hb_cmp_workload *w, const char *label, bool vm,
			       const char *key)
{
	double sum = 0;
	size_t reps = 0, found = 0;

	for (size_t i = 0; w && i < w->n_snaps; i++) {
		const struct hb_cmp_snap *s = &w->snaps[i];
		const struct hb_cmp_kv *kv = vm ? s->vmstat : s->meminfo;
		size_t n = vm ? s->n_vmstat : s->n_meminfo;

		if (strcmp(s->label, label))
			continue;
		reps++;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(kv[j].key, key)) {
				sum += kv[j].val;
				found++;
			}
	}
	/* Deltas are recorded when non-zero: a repetition without the key is 0. */
	return found ? sum / (double)reps : (reps ? 0 : NAN);
}

static bool hb_cmp_snap_seen(const struct hb_cmp_pair *p, const char *w, const char *label,
			     const char *src, const char *key)
{
	for (size_t i = 0; i < p->n_snaps; i++) {
		const struct hb_cmp_snaprow *r = &p->snaps[i];

		if (!strcmp(r->workload, w) && !strcmp(r->label, label) && r->source == src &&
		    !strcmp(r->key, key))
			return true;
	}
	return false;
}

static void hb_cmp_snaps(struct hb_cmp_pair *p, const char **names, size_t n)
{
	static const char *const src[2] = { "meminfo_kb", "vmstat" };
	size_t cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct hb_cmp_workload *a = hb_cmp_wl(p->a, names[i]), *b = hb_cmp_wl(p->b, names[i]);
		const struct hb_cmp_workload *sides[2] = { a, b };

		for (int s = 0; s < 2; s++)
			for (size_t j = 0; sides[s] && j < sides[s]->n_snaps; j++)
				for (int vm = 0; vm < 2; vm++) {
					const struct hb_cmp_snap *sn = &sides[s]->snaps[j];
					const struct hb_cmp_kv *kv = vm ? sn->vmstat : sn->meminfo;
					size_t nk = vm ? sn->n_vmstat : sn->n_meminfo;

					for (size_t k = 0; k < nk; k++) {
						struct hb_cmp_snaprow row = {
							names[i], sn->label, src[vm], kv[k].key,
							hb_cmp_snap_mean(a, sn->label, vm, kv[k].key),
							hb_cmp_snap_mean(b, sn->label, vm, kv[k].key),
							hb_cmp_key_interesting(kv[k].key),
						};

						if (hb_cmp_snap_seen(p, names[i], sn->label, src[vm], kv[k].key))
							continue;
						hb_cmp_append((void **)&p->snaps, &p->n_snaps, &cap,
							      sizeof(row), &row);
					}
				}
	}
}

static void hb_cmp_issues(struct hb_cmp_pair *p)
{
	int ra = hb_cmp_verdict_rank(p->a->verdict), rb = hb_cmp_verdict_rank(p->b->verdict);

	for (size_t i = 0; i < p->b->n_issues; i++) {
		const char *kind = p->b->issues[i].kind;
		size_t na = 0, nb = 0;
		bool first = true;

		for (size_t j = 0; j < p->b->n_issues; j++) {
			if (!strcmp(p->b->issues[j].kind, kind)) {
				first &= j >= i;
				nb++;
			}
		}
		if (!first)
			continue;
		for (size_t j = 0; j < p->a->n_issues; j++)
			na += !strcmp(p->a->issues[j].kind, kind);
		hb_cmp_find(p, HB_CMP_F_ISSUE, nb > na, NULL, kind,
			    "kernel %s: %zu in BASE, %zu in NEW (first: line %ld: %s)", kind, na, nb,
			    p->b->issues[i].line, hb_cmp_s(p->b->issues[i].excerpt));
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
	const char **names;
	size_t n;

	memset(p, 0, sizeof(*p));
	p->a = a;
	p->b = b;
	hb_cmp_env(p);
	names = hb_cmp_wl_union(p, &n);
	if (!names)
		return -1;
	hb_cmp_issues(p);
	hb_cmp_workloads(p, names, n);
	hb_cmp_checks(p, names, n);
	hb_cmp_metrics(p, names, n, t, o);
	hb_cmp_snaps(p, names, n);
	free(names);
	return p->wl && p->m ? 0 : -1;
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
