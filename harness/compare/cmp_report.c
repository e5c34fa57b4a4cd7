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
 * every boot (cmp_functional.c; docs/compare.md has the numbers):
 *  - at every boot count, as rates (hb_cmp_rate_regression): the share
 *    of boots failing a check, with a workload fail/error or missing, or
 *    with a verdict of fail or worse (error or worse, ...) rose by
 *    Fisher's exact test at alpha, or it failed in every NEW boot and no
 *    BASE boot; a check failing in some but not all boots of a side is a
 *    "flaky" note; a NEW boot that panicked when no BASE boot did is a
 *    regression even once;
 *  - always deterministically: a kernel issue kind seen more often in one
 *    NEW boot than in any BASE boot (a kernel WARNING, BUG or panic is
 *    never noise).
 * A metric that vanished or became unavailable in NEW is a finding (a
 * regression with --strict). Not comparable: sides (or boots of a side)
 * that differ in accelerator, suite, clock (virtual or wall) or, on the wall
 * clock, host CPU (the virtual clock counts guest instructions, which the
 * host CPU does not change: docs/compare.md, "Across host CPUs"), or
 * that disagree on a metric's `better` or unit. Every lookup goes through
 * a hash index, so the cost stays linear in the size of the files.
 */
#define _DEFAULT_SOURCE
#include "cmp_pair.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* Every boot of both sides ran on the virtual clock. */
static bool hb_cmp_both_virtual(const struct hb_cmp_pair *p)
{
	for (int s = 0; s < 2; s++) {
		const struct hb_cmp_group *g = hb_cmp_g(p, s);

		for (size_t i = 0; i < g->n; i++)
			if (!hb_cmp_clock_virtual(g->boots[i]))
				return false;
	}
	return true;
}

/* The fields that make runs not comparable must agree inside a group too;
 * a host CPU that differs blocks only when cpu_blocks (the wall clock). */
static void hb_cmp_env_group(struct hb_cmp_pair *p, int s, bool cpu_blocks)
{
	static const char *const fields[2][5] = {
		{ "BASE boots: schema", "BASE boots: suite", "BASE boots: accelerator",
		  "BASE boots: host CPU", "BASE boots: clock" },
		{ "NEW boots: schema", "NEW boots: suite", "NEW boots: accelerator",
		  "NEW boots: host CPU", "NEW boots: clock" },
	};
	const struct hb_cmp_group *g = hb_cmp_g(p, s);
	bool shown[5] = { false };
	const bool blocks[5] = { true, true, true, cpu_blocks, true };

	for (size_t i = 1; i < g->n; i++) {
		const struct hb_cmp_run *r0 = g->boots[0], *r = g->boots[i];
		const char *v0[5] = { r0->schema, r0->suite, r0->accelerator, r0->host_cpu, r0->clock };
		const char *v[5] = { r->schema, r->suite, r->accelerator, r->host_cpu, r->clock };

		for (int f = 0; f < 5; f++)
			if (!shown[f] && v0[f] && v[f] && strcmp(v0[f], v[f])) {
				shown[f] = true;
				hb_cmp_env_str(p, fields[s][f], v0[f], v[f], blocks[f]);
			}
	}
}

static void hb_cmp_env(struct hb_cmp_pair *p)
{
	const struct hb_cmp_run *a = p->a, *b = p->b;
	const char *pmu[] = { "-", "no", "yes" };
	char na[32], nb[32];
	/* host CPU: shown, blocking only on the wall clock */
	const bool cpu_blocks = !hb_cmp_both_virtual(p);

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
	/* virtual time counts instructions, wall time includes the host's
	 * load: the same kernel measures differently (a missing field: wall) */
	hb_cmp_env_str(p, "clock", a->clock, b->clock, true);
	hb_cmp_env_str(p, "QEMU version", a->qemu_version, b->qemu_version, false);
	hb_cmp_env_long(p, "vCPUs", a->vcpus, b->vcpus);
	hb_cmp_env_long(p, "memory MB", a->memory_mb, b->memory_mb);
	hb_cmp_env_str(p, "nested virt", a->nested_virt, b->nested_virt, false);
	hb_cmp_env_str(p, "PMU", pmu[a->pmu + 1], pmu[b->pmu + 1], false);
	hb_cmp_env_str(p, "host kernel", a->host_kernel, b->host_kernel, false);
	hb_cmp_env_str(p, "host CPU", a->host_cpu, b->host_cpu, cpu_blocks);
	hb_cmp_env_str(p, "verdict", a->verdict, b->verdict, false);
	hb_cmp_env_group(p, 0, cpu_blocks);
	hb_cmp_env_group(p, 1, cpu_blocks);
}


void hb_cmp_find(struct hb_cmp_pair *p, enum hb_cmp_fkind kind, bool regression,
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
void hb_cmp_of_boots(char *buf, size_t len, size_t k, size_t n)
{
	if (n > 1)
		snprintf(buf, len, " (in %zu of %zu boots)", k, n);
	else
		buf[0] = 0;
}

/* ---- per-side indexes (over every boot of the side) ------------------------------- */

const char *const hb_cmp_src[2] = { "meminfo_kb", "vmstat" };

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

const struct hb_cmp_metric *hb_cmp_metric(const struct hb_cmp_sideix *x,
						 const struct hb_cmp_workload *w, const char *name)
{
	size_t *v = w ? hb_cmp_idx_get(&x->met, w, name, NULL, NULL) : NULL;

	return v ? &w->metrics[*v] : NULL;
}


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

/* ---- the pair ------------------------------------------------------------------------ */

/* The rules of compare-report, in the order they append their findings (the
 * order every report lists them in). Each gets the whole context -- the pair, the
 * per-side indexes, the workload keys, thresholds, options, calibration --
 * so a new rule is one row here and one function (declared in cmp_pair.h). */
static const struct hb_cmp_finder hb_cmp_finders[] = {
	{ "kernel issues and run verdicts", hb_cmp_issues },
	{ "workload status", hb_cmp_workloads },
	{ "checks", hb_cmp_checks },
	{ "metrics", hb_cmp_metrics },
	{ "meminfo/vmstat snapshots", hb_cmp_snaps },
};

/* "virtual" when every boot of both sides ran on the virtual clock (QEMU
 * -icount: the virtual clock's minimum effect applies), "wall" when every
 * one ran on the wall clock, "mixed" otherwise (not comparable: --force). */
static const char *hb_cmp_pair_clock(const struct hb_cmp_pair *p)
{
	size_t virt = 0, n = p->ga->n + p->gb->n;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < hb_cmp_g(p, s)->n; i++)
			virt += !strcmp(hb_cmp_g(p, s)->boots[i]->clock, "virtual");
	return virt == n ? "virtual" : virt ? "mixed" : "wall";
}

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
	/* one functional rule at every boot count (monotone in failing NEW boots) */
	p->rates = true;
	hb_cmp_env(p);
	p->clock = hb_cmp_pair_clock(p);
	if (hb_cmp_calib_find(o->calibration, a, b, &p->calib, p->calib_note,
			      sizeof(p->calib_note)))
		return -2;
	if (hb_cmp_sideix_build(&c.x[0], a) || hb_cmp_sideix_build(&c.x[1], b) || hb_cmp_wkeys(&c))
		goto out;
	for (size_t i = 0; i < sizeof(hb_cmp_finders) / sizeof(hb_cmp_finders[0]); i++)
		hb_cmp_finders[i].find(&c);
	ret = c.oom ? -1 : 0;
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


/* ---- the outcome: regression, nothing tested, or none ---------------------------------- */

enum hb_cmp_outcome hb_cmp_pair_outcome(const struct hb_cmp_pair *p)
{
	if (p->n_regressions)
		return HB_CMP_OUT_REGRESSION;
	/* metrics to judge and none tested: saying "no regression" would claim
	 * what was not looked at (issue 34) */
	if (p->n_judgeable && p->n_untested >= p->n_judgeable)
		return HB_CMP_OUT_NOTHING;
	return HB_CMP_OUT_OK;
}

enum hb_cmp_outcome hb_cmp_report_outcome(const struct hb_cmp_report *r)
{
	enum hb_cmp_outcome o = HB_CMP_OUT_OK;

	for (size_t i = 0; i < r->n_pairs; i++) {
		enum hb_cmp_outcome x = hb_cmp_pair_outcome(&r->pairs[i]);

		if (x == HB_CMP_OUT_REGRESSION)
			return x;
		if (x == HB_CMP_OUT_NOTHING)
			o = x;
	}
	return o;
}

int hb_cmp_outcome_exit(enum hb_cmp_outcome o)
{
	return o == HB_CMP_OUT_REGRESSION ? HB_CMP_REGRESSION
	       : o == HB_CMP_OUT_NOTHING  ? HB_CMP_NOTHING_TESTED
					  : HB_CMP_OK;
}

const char *hb_cmp_outcome_word(enum hb_cmp_outcome o)
{
	return o == HB_CMP_OUT_REGRESSION ? "!! REGRESSION"
	       : o == HB_CMP_OUT_NOTHING  ? "nothing tested"
					  : "no regression";
}

/* Append to buf (snprintf-style, never past len). */
static void hb_cmp_cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

/* Why the untested metrics were not tested, in a few words. */
static void hb_cmp_untested_why(const struct hb_cmp_pair *p, char *buf, size_t len)
{
	size_t adv = 0, unt = 0, other = 0, kinds[HB_CMP_UNTESTABLE_KINDS] = { 0 }, nk = 0;
	const struct hb_cmp_mres *first_adv = NULL;
	static const char *const kind_txt[HB_CMP_UNTESTABLE_KINDS] = {
		[HB_CMP_UNT_NOISIER] = "the boots vary more than the calibration says",
		[HB_CMP_UNT_CEILING] = "the calibrated sd is above the ceiling",
		[HB_CMP_UNT_UNSEEN] = "neither side sits where the calibration's boots did",
		[HB_CMP_UNT_SPAN] = "a change within the span of the calibration's own boots",
		[HB_CMP_UNT_ONE_UNSEEN] = ("one side where the calibration's boots never were, a "
					   "change below the minimum for that"),
	};

	for (size_t i = 0; i < p->n_m; i++) {
		const struct hb_cmp_mres *m = &p->m[i];

		if (m->verdict == HB_CMP_ADVISORY) {
			adv++;
			if (!first_adv)
				first_adv = m;
		} else if (m->verdict == HB_CMP_UNTESTABLE) {
			unt++;
			nk += !kinds[m->untestable]++;
		} else if (m->verdict == HB_CMP_UNTESTED) {
			other++;
		}
	}
	buf[0] = 0;
	if (adv)
		hb_cmp_cat(buf, len, "%zu advisory: %zu vs %zu boots without a calibration, "
			   ">= %d a side or hugebench calibrate", adv, first_adv->na, first_adv->nb,
			   HB_CMP_MIN_BOOTS);
	if (unt) {
		/* "1 untestable: why", or "3 untestable (2: why; 1: why)" */
		hb_cmp_cat(buf, len, "%s%zu untestable%s", buf[0] ? "; " : "", unt, nk > 1 ? " (" : ": ");
		for (size_t k = 0, said = 0; k < HB_CMP_UNTESTABLE_KINDS; k++) {
			if (!kinds[k])
				continue;
			if (nk > 1)
				hb_cmp_cat(buf, len, "%s%zu: ", said++ ? "; " : "", kinds[k]);
			hb_cmp_cat(buf, len, "%s", kind_txt[k]);
		}
		if (nk > 1)
			hb_cmp_cat(buf, len, ")");
	}
	if (other)
		hb_cmp_cat(buf, len, "%s%zu with too few values or not numbers", buf[0] ? "; " : "",
			   other);
}

void hb_cmp_pair_verdict(const struct hb_cmp_pair *p, char *buf, size_t len)
{
	enum hb_cmp_outcome o = hb_cmp_pair_outcome(p);
	char why[512];
	size_t shown = 0;

	buf[0] = 0;
	if (o == HB_CMP_OUT_REGRESSION) {
		hb_cmp_cat(buf, len, "REGRESSION (%zu regression%s)", p->n_regressions,
			   p->n_regressions == 1 ? "" : "s");
		return;
	}
	hb_cmp_untested_why(p, why, sizeof(why));
	if (o == HB_CMP_OUT_NOTHING) {
		hb_cmp_cat(buf, len, "nothing tested: none of the %zu metrics could be tested (%s), "
			   "not 'no regression'", p->n_judgeable, why);
		return;
	}
	if (!p->n_judgeable) {
		hb_cmp_cat(buf, len, "no regression (no metric to judge: functional findings only)");
		return;
	}
	/* tested: judged same, small, worse or better; a metric made untestable
	 * after BH (a change within the calibration's span) was in the BH
	 * family but is not tested (issue 34: "1 of 1 metrics tested; 1 not
	 * tested", exit 0, when it was the only one) */
	hb_cmp_cat(buf, len, "no regression (%zu of %zu metrics tested",
		   p->n_judgeable - p->n_untested, p->n_judgeable);
	if (p->n_untested) {
		hb_cmp_cat(buf, len, "; %zu not tested (%s):", p->n_untested, why);
		for (size_t i = 0; i < p->n_m && shown < 4; i++) {
			const struct hb_cmp_mres *m = &p->m[i];

			if (m->verdict != HB_CMP_ADVISORY && m->verdict != HB_CMP_UNTESTABLE &&
			    m->verdict != HB_CMP_UNTESTED)
				continue;
			if (m->better == HB_CMP_INFO)
				continue;
			hb_cmp_cat(buf, len, "%s %s.%s", shown ? "," : "", m->workload, m->name);
			shown++;
		}
		if (p->n_untested > shown)
			hb_cmp_cat(buf, len, ", ...");
	}
	if (p->n_small) {
		shown = 0;
		hb_cmp_cat(buf, len, "; %zu certain change%s below the minimum effect:", p->n_small,
			   p->n_small == 1 ? "" : "s");
		for (size_t i = 0; i < p->n_m && shown < 4; i++) {
			const struct hb_cmp_mres *m = &p->m[i];

			if (m->verdict != HB_CMP_SMALL || !(m->worse_pct > 0))
				continue;
			hb_cmp_cat(buf, len, "%s %s.%s %+.2f%%", shown ? "," : "", m->workload, m->name,
				   m->change_pct);
			shown++;
		}
		if (p->n_small > shown)
			hb_cmp_cat(buf, len, ", ...");
	}
	if (p->n_blind) {
		/* judged "same", but a 3x change would have been too (issue 34) */
		shown = 0;
		for (size_t i = 0; i < p->n_m && shown < 4; i++) {
			const struct hb_cmp_mres *m = &p->m[i];

			if (!hb_cmp_blind_to_3x(m))
				continue;
			if (!shown)
				hb_cmp_cat(buf, len, "; %zu could not show a 3x change with %zu + %zu "
					   "boots (calibrate or add boots):", p->n_blind, m->na,
					   m->nb);
			hb_cmp_cat(buf, len, "%s %s.%s", shown ? "," : "", m->workload, m->name);
			shown++;
		}
		if (p->n_blind > shown)
			hb_cmp_cat(buf, len, ", ...");
	}
	hb_cmp_cat(buf, len, ")");
}
