/* autobisect.c - the nightly's auto-bisect (issue 22): when a target whose
 * kernel is a source recipe with a series of its own shows a new regression
 * against its base or baseline (compare-report exit 1), and its matrix line
 * has bisect-budget=N, the series is bisected with the series-mode bisect
 * (hb_bisect_series: a typed call, no command line rebuilt) in at most N
 * steps, under <night>/<target>/bisect/, its output in
 * <night>/<target>/bisect.log. What is bisected: the first check that
 * regressed (failed here, passed on the base side), else the largest metric
 * regression (with at least 3 boots a step). A culprit is then verified as
 * LKP does, by reverting it on top of the bad side: the series without that
 * patch is built and booted, and judged as a step; good again = verified.
 * The answer becomes the target's culprit and one "bisect" case, which
 * summary.md, junit.xml and kcidb.json report.
 * A git range (git=PATH good=REV bad=REV on the matrix line, gitrange.c)
 * is bisected the same way with the git-mode bisect (hb_bisect_git_range,
 * the same judge, at most N steps) in the night's scratch worktree of the
 * bad commit (<night>/<target>/src-bad, removed by nightly.c afterwards;
 * the user's tree is never checked out), and its culprit verified as LKP
 * does: `git revert --no-edit CULPRIT` on top of the bad commit there,
 * built, booted and judged as a step; a revert that conflicts leaves it
 * unverified, and says so. */
#define _GNU_SOURCE
#include "bisect.h"
#include "compare.h"
#include "nightly.h"
#include "recipe.h"
#include "sysinfo.h"
#include "target.h"
#include "util.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void hb_patch_subject(const char *path, char *out, size_t len)
{
	char *text = hb_slurp(path, NULL), *p, *e;
	size_t o = 0;

	out[0] = 0;
	if (!text)
		return;
	p = !strncmp(text, "Subject:", 8) ? text : strstr(text, "\nSubject:");
	if (p) {
		p += *p == '\n' ? 9 : 8;
		p += strspn(p, " \t");
		if (*p == '[' && (e = strchr(p, ']')) && !memchr(p, '\n', (size_t)(e - p)))
			p = e + 1 + strspn(e + 1, " \t");
		/* the header may go on over continuation lines (RFC 5322 folding) */
		for (; *p && o + 1 < len; p++) {
			if (*p == '\n') {
				if (p[1] != ' ' && p[1] != '\t')
					break;
				out[o++] = ' ';
				p += strspn(p + 1, " \t");
				continue;
			}
			out[o++] = (unsigned char)*p < ' ' ? ' ' : *p;
		}
		out[o] = 0;
	}
	free(text);
}

/* "fault#2.x" -> "fault.x": the judge looks at every instance of the workload */
static void strip_instance(char *name)
{
	char *hash = strchr(name, '#');

	if (hash && strchr(hash, '.'))
		memmove(hash, strchr(hash, '.'), strlen(strchr(hash, '.')) + 1);
}

int hb_night_bisect_pick(const struct hb_ntarget *t, struct hb_bisect_spec *spec, int *boots,
			 char *crash, size_t crash_len)
{
	const struct hb_ncase *worst = NULL;
	char name[192], err[256];

	crash[0] = 0;
	for (size_t j = 0; j < t->n; j++) {
		const struct hb_ncase *c = &t->cases[j];

		if (c->kind != HB_NK_CHECK || c->status != HB_NS_FAIL ||
		    !(strstr(c->message, "(regression: passed on the base side)") ||
		      (c->has_counts && c->base_ran && !c->base_failed && c->new_failed)))
			continue;
		snprintf(name, sizeof(name), "%s", c->name);
		strip_instance(name);
		if (!hb_bisect_spec_parse(HB_BISECT_CHECK, name, spec, err, sizeof(err))) {
			*boots = t->boots;
			return 0;
		}
	}
	for (size_t j = 0; j < t->n; j++) {
		const struct hb_ncase *c = &t->cases[j];

		if (c->kind == HB_NK_METRIC && c->status == HB_NS_FAIL && c->judged &&
		    (!worst || fabs(c->change_pct) > fabs(worst->change_pct)))
			worst = c;
	}
	if (worst) {
		snprintf(name, sizeof(name), "%s", worst->name);
		strip_instance(name);
		if (!hb_bisect_spec_parse(HB_BISECT_METRIC, name, spec, err, sizeof(err))) {
			*boots = t->boots < 3 ? 3 : t->boots;
			return 0;
		}
	}
	/* A boot that panicked, hung or warned (collect.c: a failed boot case)
	 * where the compared side ran clean: bisect whether a kernel runs a
	 * check the compared side passed, without a crash -- the crash rule
	 * (HB_BISECT_CRASH_BAD) makes a crashing step bad, as LKP does. */
	if (!t->base_clean_check[0])
		return -1;
	for (size_t j = 0; j < t->n; j++) {
		const struct hb_ncase *c = &t->cases[j];

		if (c->kind != HB_NK_BOOT || c->status != HB_NS_FAIL)
			continue;
		snprintf(name, sizeof(name), "%s", t->base_clean_check);
		strip_instance(name);
		if (hb_bisect_spec_parse(HB_BISECT_CHECK, name, spec, err, sizeof(err)))
			return -1;
		spec->crash = HB_BISECT_CRASH_BAD;
		snprintf(crash, crash_len, "%s", c->message);
		*boots = t->boots;
		return 0;
	}
	return -1;
}

/* The reference steps of a metric's judge: a series' prefix 0 (no patch
 * of it), a git range's good commit (marked "base"). */
static bool series_ref(json_t *st, const void *arg)
{
	(void)arg;
	return json_integer_value(json_object_get(st, "k")) == 0;
}

static bool git_ref(json_t *st, const void *arg)
{
	(void)arg;
	return json_is_true(json_object_get(st, "base"));
}

/* The revert's boots (group, relative to o->dir) judged as a step is, by
 * the bisect's own judge: the crash rule too (a revert that still warns is
 * not good again), a metric against the reference steps (ref). Sets
 * cu->verified and counts the boots; the verdict, why says on what. */
static enum hb_bisect_v judge_revert(const struct hb_bisect_opts *o, const char *group,
				     bool (*ref)(json_t *st, const void *arg),
				     struct hb_nculprit *cu, char *why, size_t len)
{
	char *gp, *refs[64];
	enum hb_bisect_v v;
	size_t nr = 0;

	cu->boots += o->boots;
	if (asprintf(&gp, "%s/%s", o->dir, group) < 0) {
		snprintf(why, len, "out of memory");
		return HB_BV_SKIP;
	}
	if (o->spec.mode == HB_BISECT_METRIC) {
		json_t *steps = hb_bisect_steps_load(o);

		nr = hb_bisect_groups(o, steps, ref, NULL, refs, 64);
		json_decref(steps);
	}
	v = hb_bisect_judge(&o->spec, false, refs, nr, &gp, 1, why, len);
	hb_bisect_free_strs(refs, nr);
	free(gp);
	cu->verified = v == HB_BV_GOOD;
	return v;
}

static const char *revert_word(enum hb_bisect_v v)
{
	return v == HB_BV_GOOD ? "good again" : v == HB_BV_BAD ? "still bad" : hb_bisect_v_name(v);
}

/* Revert the culprit on top of the bad side: build the whole series but
 * that patch, boot it, judge it as a step. Good again: verified. */
static void verify(const struct hb_bisect_opts *o, const struct hb_bisect_answer *a,
		   struct hb_nculprit *cu)
{
	char kdir[PATH_MAX], err[1024], group[PATH_MAX] = "", why[1024] = "";
	struct hb_target tg;
	struct hb_recipe r;
	enum hb_bisect_v v;
	size_t first, idx;
	double build_s = 0;
	bool skip = false;
	char *drop;
	int rc;

	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	if (hb_target_parse(o->target, kdir, &tg, err, sizeof(err)) ||
	    hb_recipe_load(tg.path, &r, err, sizeof(err))) {
		snprintf(cu->verify, sizeof(cu->verify), "not verified: %s", err);
		return;
	}
	first = r.n_patches - (size_t)a->n;
	idx = first + (size_t)a->first_bad - 1;
	hb_patch_subject(r.patches[idx], cu->subject, sizeof(cu->subject));
	printf("\n== nightly auto-bisect %s: verify: the series without patch %d/%d (%s)\n",
	       o->target, a->first_bad, a->n, a->patch);
	drop = r.patches[idx];
	memmove(&r.patches[idx], &r.patches[idx + 1], (r.n_patches - idx - 1) * sizeof(char *));
	r.n_patches--;
	rc = hb_bisect_build_run(o, &r, NULL, group, sizeof(group), &build_s, &skip, why,
				 sizeof(why));
	memmove(&r.patches[idx + 1], &r.patches[idx], (r.n_patches - idx) * sizeof(char *));
	r.patches[idx] = drop;
	r.n_patches++;
	hb_recipe_free(&r);
	cu->builds++;
	if (rc || skip) {
		snprintf(cu->verify, sizeof(cu->verify), "not verified: the series without patch %d %s: %s",
			 a->first_bad, skip ? "does not build" : "did not boot", why);
		return;
	}
	v = judge_revert(o, group, series_ref, cu, why, sizeof(why));
	snprintf(cu->verify, sizeof(cu->verify), "%s: with patch %d reverted on top of the series, %s "
		 "is %s (%s; %s)", cu->verified ? "verified" : "not verified", a->first_bad,
		 cu->crash[0] ? "the kernel" : cu->what, revert_word(v), why, group);
	printf("== nightly auto-bisect %s: %s\n", o->target, cu->verify);
}

/* A git range's culprit: `git revert --no-edit` of it on top of the bad
 * commit in the scratch worktree o->git, built, booted and judged as a
 * step (hb_bisect_judge, the bisect's own judge). */
static void verify_git(const struct hb_bisect_opts *o, struct hb_nculprit *cu)
{
	char kdir[PATH_MAX], err[1024], group[PATH_MAX] = "", why[1024] = "", head[48] = "";
	struct hb_target tg;
	struct hb_recipe r;
	enum hb_bisect_v v;
	double build_s = 0;
	bool skip = false;
	int rc;

	printf("\n== nightly auto-bisect %s: verify: git revert --no-edit %.12s on top of %.12s\n",
	       o->target, cu->commit, o->bad);
	if (HB_NGIT(o->git, NULL, 0, "checkout", "-q", "--detach", o->bad) ||
	    HB_NGIT(o->git, NULL, 0, "-c", "user.name=hugebench nightly", "-c",
		    "user.email=hugebench@localhost", "revert", "--no-edit", cu->commit)) {
		HB_NGIT(o->git, NULL, 0, "revert", "--abort");
		cu->revert_conflicts = true;
		snprintf(cu->verify, sizeof(cu->verify), "unverified: revert conflicts (git revert "
			 "--no-edit %.12s on top of %.12s did not apply)", cu->commit, o->bad);
		printf("== nightly auto-bisect %s: %s\n", o->target, cu->verify);
		return;
	}
	HB_NGIT(o->git, head, sizeof(head), "rev-parse", "HEAD");
	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	if (hb_target_parse(o->target, kdir, &tg, err, sizeof(err)) ||
	    hb_recipe_load(tg.path, &r, err, sizeof(err))) {
		snprintf(cu->verify, sizeof(cu->verify), "not verified: %s", err);
		return;
	}
	rc = hb_bisect_build_run(o, &r, o->git, group, sizeof(group), &build_s, &skip, why,
				 sizeof(why));
	hb_recipe_free(&r);
	cu->builds++;
	if (rc || skip) {
		snprintf(cu->verify, sizeof(cu->verify), "not verified: %.12s with %.12s reverted "
			 "%s: %s", o->bad, cu->commit, skip ? "does not build" : "did not boot", why);
		return;
	}
	v = judge_revert(o, group, git_ref, cu, why, sizeof(why));
	snprintf(cu->verify, sizeof(cu->verify), "%s: with %.12s reverted on top of %.12s (%.12s), "
		 "%s is %s (%s; %s)", cu->verified ? "verified" : "not verified", cu->commit, o->bad,
		 head, cu->crash[0] ? "the kernel" : cu->what, revert_word(v), why, group);
	printf("== nightly auto-bisect %s: %s\n", o->target, cu->verify);
}

/* Runs fn's output into log (stdout and stderr, children too). */
static int redirect(const char *log, int saved[2])
{
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	fflush(stdout);
	fflush(stderr);
	saved[0] = saved[1] = -1;
	if (fd < 0)
		return -1;
	saved[0] = dup(1);
	saved[1] = dup(2);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	return 0;
}

static void restore(int saved[2])
{
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < 2; i++)
		if (saved[i] >= 0) {
			dup2(saved[i], i + 1);
			close(saved[i]);
		}
}

void hb_night_autobisect(struct hb_ntarget *t, const struct hb_mrow *row)
{
	struct hb_nculprit *cu = &t->culprit;
	struct hb_bisect_opts o;
	struct hb_bisect_answer a;
	char results[PATH_MAX], log[PATH_MAX], tmo[32], err[1024], wt[PATH_MAX];
	struct hb_ncase *c;
	int saved[2], boots = 1, rc;
	double t0 = hb_mono_s();

	if (!row->bisect_budget || (t->n_patches < 1 && !row->git[0]) ||
	    t->compare_exit != HB_CMP_REGRESSION || hb_interrupted)
		return;
	memset(&o, 0, sizeof(o));
	memset(&a, 0, sizeof(a));
	cu->tried = true;
	cu->budget = row->bisect_budget;
	if (hb_night_bisect_pick(t, &o.spec, &boots, cu->crash, sizeof(cu->crash))) {
		snprintf(cu->result, sizeof(cu->result), "not bisected: the regression is neither a "
			 "check, a metric nor a crash the compared side ran without (a verdict, or "
			 "no check passed there); see compare.md");
		hb_night_add_case(t, HB_NK_BISECT, "bisect", HB_NS_SKIP, "%s", cu->result);
		return;
	}
	cu->metric = o.spec.mode == HB_BISECT_METRIC;
	snprintf(cu->what, sizeof(cu->what), "%s%s%s", o.spec.workload, o.spec.name[0] ? "." : "",
		 o.spec.name);
	snprintf(results, sizeof(results), "%s/bisect", t->dir);
	snprintf(log, sizeof(log), "%s/bisect.log", t->dir);
	o.target = t->name;
	o.suite = row->suite;
	o.results = results;
	o.boots = boots;
	o.max_tries = 3;
	o.max_steps = row->bisect_budget;
	if (row->timeout_s > 0) {
		snprintf(tmo, sizeof(tmo), "%g", row->timeout_s);
		o.timeout = tmo;
		o.timeout_s = row->timeout_s;
	}
	if (row->git[0]) {
		/* the bad side's scratch worktree (nightly.c), never the user's tree */
		snprintf(wt, sizeof(wt), "%s/src-bad", t->dir);
		o.git = wt;
		o.good = row->good_sha;
		o.bad = row->bad_sha;
	}
	snprintf(cu->reproduce, sizeof(cu->reproduce), "hugebench bisect %s%s%s%s%s%s%s --%s %s "
		 "--suite %s --boots %d%s%s", t->name, o.git ? " --git " : "", o.git ? row->git : "",
		 o.git ? " --good " : "", o.git ? row->good_sha : "", o.git ? " --bad " : "",
		 o.git ? row->bad_sha : "", cu->metric ? "metric" : "check", cu->what, row->suite,
		 boots, o.timeout ? " --timeout " : "", o.timeout ? tmo : "");
	if (o.git)
		printf("nightly: %s: new %s%s: bisecting %.12s..%.12s of %s, each step judged on %s%s "
		       "(at most %d steps; log %s)\n", t->name, cu->crash[0] ? "crash: " : "regression "
		       "of ", cu->crash[0] ? cu->crash : cu->what, o.good, o.bad, row->git, cu->what,
		       cu->crash[0] ? " with the crash rule" : "", row->bisect_budget, log);
	else if (cu->crash[0])
		printf("nightly: %s: new crash (%s): bisecting its series of %d patches, each step "
		       "judged on %s with the crash rule (at most %d steps; log %s)\n", t->name,
		       cu->crash, t->n_patches, cu->what, row->bisect_budget, log);
	else
		printf("nightly: %s: new regression of %s: bisecting its series of %d patches (at "
		       "most %d steps; log %s)\n", t->name, cu->what, t->n_patches,
		       row->bisect_budget, log);
	if (hb_mkdir_p(results) || redirect(log, saved)) {
		snprintf(cu->result, sizeof(cu->result), "not bisected: cannot create %s or %s",
			 results, log);
		hb_night_add_case(t, HB_NK_BISECT, "bisect", HB_NS_ERROR, "%s", cu->result);
		return;
	}
	rc = o.git ? hb_bisect_git_range(&o, &a, err, sizeof(err))
		   : hb_bisect_series(&o, &a, err, sizeof(err));
	snprintf(cu->dir, sizeof(cu->dir), "%s", o.dir);
	cu->steps = a.steps;
	cu->builds = a.builds;
	cu->boots = a.boots;
	cu->n = a.n;
	if (!rc && a.outcome == HB_BO_FOUND && o.git) {
		char num[32] = "", range[96];

		cu->found = true;
		snprintf(cu->commit, sizeof(cu->commit), "%s", a.commit);
		HB_NGIT(row->git, cu->subject, sizeof(cu->subject), "log", "-1", "--format=%s",
			a.commit);
		snprintf(range, sizeof(range), "%s..%s", o.good, o.bad);
		HB_NGIT(row->git, num, sizeof(num), "rev-list", "--count", range);
		cu->n = atoi(num);
		snprintf(range, sizeof(range), "%s..%s", o.good, a.commit);
		HB_NGIT(row->git, num, sizeof(num), "rev-list", "--count", range);
		cu->index = atoi(num);
		snprintf(cu->patch, sizeof(cu->patch), "%.12s", a.commit);
		verify_git(&o, cu);
	} else if (!rc && a.outcome == HB_BO_FOUND) {
		cu->found = true;
		cu->index = a.first_bad;
		snprintf(cu->patch, sizeof(cu->patch), "%s", a.patch);
		verify(&o, &a, cu);
	}
	restore(saved);
	cu->time_s = hb_mono_s() - t0;
	if (rc)
		snprintf(cu->result, sizeof(cu->result), "the bisect could not run: %s; see %s/bisect.log",
			 err[0] ? err : strerror(-rc), t->name);
	else if (cu->found && o.git)
		snprintf(cu->result, sizeof(cu->result), "first bad commit %s (\"%s\"), commit %d of "
			 "%d in %.12s..%.12s", cu->commit, cu->subject, cu->index, cu->n, o.good, o.bad);
	else if (!cu->found && o.git && a.outcome != HB_BO_FOUND)
		snprintf(cu->result, sizeof(cu->result), "%s", a.line);
	else if (cu->found)
		snprintf(cu->result, sizeof(cu->result), "first bad patch %d/%d %s%s%s%s", cu->index, cu->n,
			 cu->patch, cu->subject[0] ? " (\"" : "", cu->subject, cu->subject[0] ? "\")" : "");
	else if (a.outcome == HB_BO_NONE)
		snprintf(cu->result, sizeof(cu->result), "no bad patch: the whole series tested good "
			 "(a flaky regression?)");
	else if (a.outcome == HB_BO_BASE_BAD)
		snprintf(cu->result, sizeof(cu->result), "the base, without any patch of the series, is "
			 "already bad");
	else
		snprintf(cu->result, sizeof(cu->result), "%s: the first bad patch is one of %d..%d of %d",
			 a.budget_spent ? "budget spent" : "ambiguous (skipped steps)", a.lo + 1, a.hi, a.n);
	if (cu->found)
		c = hb_night_add_case(t, HB_NK_BISECT, "bisect", HB_NS_FAIL, "%s; %s", cu->result,
				      cu->verify);
	else
		c = hb_night_add_case(t, HB_NK_BISECT, "bisect", rc ? HB_NS_ERROR : HB_NS_SKIP,
				      "not found: %s", cu->result);
	if (c) {
		c->has_value = true;
		c->value = cu->time_s;
		snprintf(c->unit, sizeof(c->unit), "s");
	}
	printf("nightly: %s: bisect of %s: %s%s%s (%d steps, %d builds, %d boots, %.0f s)\n", t->name,
	       cu->what, cu->result, cu->found ? "; " : "", cu->found ? cu->verify : "", cu->steps,
	       cu->builds, cu->boots, cu->time_s);
	fflush(stdout);
}
