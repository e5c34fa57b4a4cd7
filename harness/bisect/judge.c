/* bisect/judge.c - the verdict of one bisect step from its result folders:
 * functional (a check or a workload's status in result.json) or performance
 * (a metric against the base's boots, decided by the compare-report rule of
 * cmp_rule.c through hb_cmp_pair_build_groups: no statistic of its own). */
#define _GNU_SOURCE
#include "bisect.h"
#include "compare.h"
#include "util.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool word_ok(const char *s, size_t len, bool workload)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && !(workload && s[i] == '-'))
			return false;
	return true;
}

int hb_bisect_spec_parse(enum hb_bisect_mode mode, const char *arg, struct hb_bisect_spec *s,
			 char *err, size_t errlen)
{
	const char *dot = strchr(arg, '.');
	size_t wl = dot ? (size_t)(dot - arg) : strlen(arg);
	const char *opt = mode == HB_BISECT_CHECK ? "--check" : "--metric";
	const char *want = mode == HB_BISECT_CHECK ? "WORKLOAD or WORKLOAD.CHECK (e.g. fault or "
						     "fault.huge_ShmemPmdMapped_delta_kb)"
						   : "WORKLOAD.METRIC (e.g. fragment.clean_fault_latency)";

	memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->min_effect_pct = NAN;
	if ((mode == HB_BISECT_METRIC && !dot) || !word_ok(arg, wl, true) ||
	    wl >= sizeof(s->workload) ||
	    (dot && (!word_ok(dot + 1, strlen(dot + 1), false) || strlen(dot + 1) >= sizeof(s->name)))) {
		snprintf(err, errlen, "%s '%s': want %s", opt, arg, want);
		return -1;
	}
	memcpy(s->workload, arg, wl);
	if (dot)
		snprintf(s->name, sizeof(s->name), "%s", dot + 1);
	return 0;
}

/* One boot: 1 bad, 0 good, -1 cannot tell (why says). */
static int boot_check(const struct hb_bisect_spec *s, const struct hb_cmp_run *r, char *why,
		      size_t whylen)
{
	bool seen = false;

	for (size_t w = 0; w < r->n_workloads; w++) {
		const struct hb_cmp_workload *wl = &r->workloads[w];

		if (strcmp(wl->name, s->workload))
			continue;
		if (!s->name[0]) {
			if (!strcmp(wl->status, "fail")) {
				snprintf(why, whylen, "workload %s failed: %s", wl->name,
					 wl->reason && wl->reason[0] ? wl->reason : "a check failed");
				return 1;
			}
			if (strcmp(wl->status, "pass")) {
				snprintf(why, whylen, "workload %s: %s", wl->name, wl->status);
				return -1;
			}
			seen = true;
			continue;
		}
		for (size_t c = 0; c < wl->n_checks; c++) {
			const struct hb_cmp_check *ck = &wl->checks[c];

			if (strcmp(ck->name, s->name))
				continue;
			if (!ck->pass) {
				snprintf(why, whylen, "%s.%s failed: expected %s, observed %s",
					 wl->name, ck->name, ck->expected, ck->observed);
				return 1;
			}
			seen = true;
		}
	}
	if (!seen) {
		snprintf(why, whylen, "%s%s%s not in the run (verdict %s: %s)", s->workload,
			 s->name[0] ? "." : "", s->name, r->verdict ? r->verdict : "?",
			 r->verdict_reason ? r->verdict_reason : "");
		return -1;
	}
	snprintf(why, whylen, "%s%s%s passed", s->workload, s->name[0] ? "." : "", s->name);
	return 0;
}

enum hb_bisect_v hb_bisect_judge_check(const struct hb_bisect_spec *s, char *const *groups,
				       size_t n_groups, char *why, size_t whylen)
{
	size_t good = 0, boots = 0;
	char one[512] = "no boot", err[1024];

	for (size_t i = 0; i < n_groups; i++) {
		struct hb_cmp_group *g =
			hb_cmp_group_load_for(groups[i], HB_CMP_USE_RULE, err, sizeof(err));

		if (!g) {
			snprintf(one, sizeof(one), "%s", err);
			continue;
		}
		for (size_t b = 0; b < g->n; b++) {
			int v = boot_check(s, g->boots[b], one, sizeof(one));

			boots++;
			if (v == 1) {
				snprintf(why, whylen, "boot %zu: %s", boots, one);
				hb_cmp_group_free(g);
				return HB_BV_BAD;
			}
			good += v == 0;
		}
		hb_cmp_group_free(g);
	}
	snprintf(why, whylen, "%s%s", good && good == boots ? "every boot: " : "", one);
	return good && good == boots ? HB_BV_GOOD : HB_BV_SKIP;
}

/* Loads every group and joins their boots into one view; NULL with why. */
static struct hb_cmp_group *load_side(char *const *paths, size_t n, struct hb_cmp_group ***own,
				      char *why, size_t whylen)
{
	struct hb_cmp_run **runs = NULL;
	struct hb_cmp_group *view = NULL;
	size_t nr = 0;
	char err[1024];

	*own = calloc(n ? n : 1, sizeof(**own));
	if (!*own)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct hb_cmp_run **more;

		(*own)[i] = hb_cmp_group_load_for(paths[i], HB_CMP_USE_RULE, err, sizeof(err));
		if (!(*own)[i]) {
			snprintf(why, whylen, "%s", err);
			goto out;
		}
		more = realloc(runs, (nr + (*own)[i]->n) * sizeof(*runs));
		if (!more)
			goto out;
		runs = more;
		memcpy(runs + nr, (*own)[i]->boots, (*own)[i]->n * sizeof(*runs));
		nr += (*own)[i]->n;
	}
	view = nr ? hb_cmp_group_view(runs, nr, paths[0]) : NULL;
	if (!nr)
		snprintf(why, whylen, "no boots");
out:
	free(runs);
	return view;
}

static void free_side(struct hb_cmp_group *view, struct hb_cmp_group **own, size_t n)
{
	hb_cmp_group_free(view);
	for (size_t i = 0; own && i < n; i++)
		hb_cmp_group_free(own[i]);
	free(own);
}

/* configs/thresholds.conf as compare-report reads it, then --min-effect for
 * this one metric (the last matching line wins), on either clock: the line
 * sets no min_effect_virtual_pct, so its min_effect_pct holds for both. */
static int thresholds(const struct hb_bisect_spec *s, struct hb_cmp_thresholds *t, char *why,
		      size_t whylen)
{
	char path[PATH_MAX], err[1024];
	struct hb_cmp_rule_line *l;

	hb_cmp_thresholds_default(t);
	snprintf(path, sizeof(path), "%s/configs/thresholds.conf", hb_root());
	if (hb_is_file(path) && hb_cmp_thresholds_load(path, t, err, sizeof(err))) {
		snprintf(why, whylen, "%s", err);
		return -1;
	}
	if (isnan(s->min_effect_pct))
		return 0;
	l = realloc(t->lines, (t->n + 1) * sizeof(*l));
	if (!l)
		return -1;
	t->lines = l;
	l += t->n++;
	memset(l, 0, sizeof(*l));
	snprintf(l->pattern, sizeof(l->pattern), "%s.%s", s->workload, s->name);
	l->lim.min_effect_pct = s->min_effect_pct;
	l->lim.boot_sd_pct = NAN;
	l->lim.min_effect_virtual_pct = NAN;
	l->lim.sd_floor_virtual_pct = NAN;
	return 0;
}

enum hb_bisect_v hb_bisect_judge_metric(const struct hb_bisect_spec *s, char *const *base,
					size_t n_base, char *const *step, size_t n_step,
					char *why, size_t whylen)
{
	struct hb_cmp_group **own_a = NULL, **own_b = NULL, *a = NULL, *b = NULL;
	struct hb_cmp_thresholds t = { 0 };
	struct hb_cmp_pair p = { 0 };
	struct hb_cmp_opts o;
	enum hb_bisect_v v = HB_BV_SKIP;
	char cal[PATH_MAX];
	const struct hb_cmp_mres *m = NULL;
	bool built = false;

	snprintf(why, whylen, "cannot load the runs");
	hb_stats_init();
	hb_cmp_opts_default(&o);
	snprintf(cal, sizeof(cal), "%s/results/calibration", hb_root());
	if (hb_is_dir(cal))
		o.calibration = cal;
	a = load_side(base, n_base, &own_a, why, whylen);
	b = a ? load_side(step, n_step, &own_b, why, whylen) : NULL;
	if (!a || !b || thresholds(s, &t, why, whylen))
		goto out;
	if (hb_cmp_pair_build_groups(a, b, &t, &o, &p)) {
		snprintf(why, whylen, "compare: %s", p.calib_note[0] ? p.calib_note : "out of memory");
		goto out;
	}
	built = true;
	for (size_t i = 0; i < p.n_m && !m; i++)
		if ((!strcmp(p.m[i].workload, s->workload) ||
		     (p.m[i].wl_name && !strcmp(p.m[i].wl_name, s->workload))) &&
		    !strcmp(p.m[i].name, s->name))
			m = &p.m[i];
	if (!m) {
		snprintf(why, whylen, "metric %s.%s is in neither side's result.json", s->workload,
			 s->name);
		goto out;
	}
	switch (m->verdict) {
	case HB_CMP_WORSE:
		v = HB_BV_BAD;
		break;
	case HB_CMP_SAME:
	case HB_CMP_SMALL:
	case HB_CMP_BETTER:
		/* not significant: good unless its center is worse by the effect */
		v = m->worse_pct >= m->min_effect_pct ? HB_BV_UNCERTAIN : HB_BV_GOOD;
		break;
	case HB_CMP_ADVISORY:
	case HB_CMP_UNTESTED:
	case HB_CMP_UNTESTABLE:
		v = HB_BV_UNCERTAIN;
		break;
	default: /* info only, unavailable, missing: nothing to judge */
		v = HB_BV_SKIP;
		break;
	}
	snprintf(why, whylen, "%s.%s %+.1f %% (%s, %zu vs %zu boots, %s clock, min effect %g %%): "
		 "%s%s%s", m->workload, m->name, m->change_pct, m->test ? m->test : "-", m->na, m->nb,
		 p.clock, m->min_effect_pct, hb_cmp_verdict_name(m->verdict), m->why[0] ? ", " : "",
		 m->why);
out:
	if (built)
		hb_cmp_pair_free(&p);
	hb_cmp_thresholds_free(&t);
	free_side(a, own_a, n_base);
	free_side(b, own_b, n_step);
	return v;
}

int hb_bisect_boot_crash(const struct hb_cmp_run *r, char *why, size_t whylen)
{
	const char *v = r->verdict ? r->verdict : "", *reason = r->verdict_reason ? r->verdict_reason : "";

	if (!strcmp(v, "panic") || !strcmp(v, "timeout")) {
		snprintf(why, whylen, "%s: %s", v, reason);
		return 1;
	}
	/* incomplete: the guest stopped early or never spoke (a kernel that does
	 * not boot), unless the run was interrupted (the bisect stops then) */
	if (!strcmp(v, "incomplete") && strncmp(reason, "interrupted", 11)) {
		snprintf(why, whylen, "incomplete: %s", reason);
		return 1;
	}
	if (r->n_issues) {
		snprintf(why, whylen, "kernel %s on the console (line %ld%s%s)%s",
			 r->issues[0].kind ? r->issues[0].kind : "issue", r->issues[0].line,
			 r->issues[0].excerpt && r->issues[0].excerpt[0] ? ": " : "",
			 r->issues[0].excerpt ? r->issues[0].excerpt : "",
			 r->n_issues > 1 ? " and more" : "");
		return 1;
	}
	return 0;
}

/* The first boot of the groups that crashed: 1 (why says which), 0 none. */
static int any_crash(char *const *groups, size_t n, char *why, size_t whylen)
{
	char one[512], err[1024];
	size_t boots = 0;

	for (size_t i = 0; i < n; i++) {
		struct hb_cmp_group *g =
			hb_cmp_group_load_for(groups[i], HB_CMP_USE_RULE, err, sizeof(err));

		for (size_t b = 0; g && b < g->n; b++) {
			boots++;
			if (hb_bisect_boot_crash(g->boots[b], one, sizeof(one))) {
				snprintf(why, whylen, "boot %zu crashed: %s", boots, one);
				hb_cmp_group_free(g);
				return 1;
			}
		}
		hb_cmp_group_free(g);
	}
	return 0;
}

enum hb_bisect_v hb_bisect_judge(const struct hb_bisect_spec *s, bool base, char *const *ref,
				 size_t n_ref, char *const *groups, size_t n_groups, char *why,
				 size_t whylen)
{
	bool crash_bad = s->crash == HB_BISECT_CRASH_BAD;
	enum hb_bisect_v v;

	if (base) {
		if (crash_bad && any_crash(groups, n_groups, why, whylen))
			return HB_BV_BAD;
		snprintf(why, whylen, "the reference of the metric (taken as good)");
		return HB_BV_GOOD;
	}
	if (s->mode == HB_BISECT_METRIC) {
		if (crash_bad && any_crash(groups, n_groups, why, whylen))
			return HB_BV_BAD;
		return hb_bisect_judge_metric(s, ref, n_ref, groups, n_groups, why, whylen);
	}
	v = hb_bisect_judge_check(s, groups, n_groups, why, whylen);
	if (v != HB_BV_BAD && crash_bad && any_crash(groups, n_groups, why, whylen))
		v = HB_BV_BAD;
	return v;
}
