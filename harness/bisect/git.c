/* bisect/git.c - `hugebench bisect TARGET --git PATH --good REF --bad REF`:
 * git bisect driven from here, one typed step at a time (no argv parsed
 * again, no step command): `git bisect start BAD GOOD`, then for the commit
 * git checked out: build it as TARGET's KSRC (a source=ksrc recipe: config
 * and patches from the recipe, the tree from PATH), boot it, judge it with
 * series mode's judge (hb_bisect_judge: the crash rule, then --check, or
 * --metric against the good commit's boots, built and booted first as the
 * reference), and tell git `git bisect good|bad|skip <commit>`. An uncertain
 * metric verdict is booted again (--max-tries) before git hears of it.
 * When git has nothing left to test, the answer comes from its refs:
 * `git rev-list refs/bisect/bad --not refs/bisect/good-*` holds one commit
 * (the first bad) or the exact candidates that skips left. A first bad
 * that is the --bad commit itself, never tested, is built and judged last
 * (good there: nothing in the range is bad).
 *
 * Every step is recorded by commit in steps.json, so a rerun answers known
 * commits without building them; the hidden `hugebench bisect-step` (its
 * options parsed in bisect.c) does one such step for a `git bisect run` of
 * the user's own. Every git call is an argv array; nothing goes through a
 * shell.
 */
#define _GNU_SOURCE
#include "bisect.h"
#include "git_refs.h"
#include "recipe.h"
#include "target.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int load_ksrc_recipe(const char *target, struct hb_recipe *r, char *err, size_t errlen)
{
	char kdir[PATH_MAX];
	struct hb_target t;

	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	if (hb_target_parse(target, kdir, &t, err, errlen))
		return -EINVAL;
	if (t.kind != HB_TARGET_RECIPE || hb_recipe_load(t.path, r, err, errlen)) {
		if (t.kind != HB_TARGET_RECIPE)
			snprintf(err, errlen, "bisect: target %s is not a recipe under kernels/", target);
		return -EINVAL;
	}
	if (r->kind != HB_RECIPE_SOURCE || strcmp(r->source, "ksrc")) {
		snprintf(err, errlen,
			 "bisect --git: recipe %s must be kind=source with source=ksrc (it builds the "
			 "tree at --git PATH; see docs/kernels.md, source=ksrc)",
			 target);
		hb_recipe_free(r);
		return -EINVAL;
	}
	return 0;
}

int hb_bisect_git_tries(json_t *steps, const char *commit, enum hb_bisect_v *last)
{
	json_t *st;
	size_t i;
	int n = 0;

	*last = HB_BV_UNTESTED;
	json_array_foreach(steps, i, st) {
		const char *c = json_string_value(json_object_get(st, "commit"));
		int v = hb_bisect_v_parse(json_string_value(json_object_get(st, "verdict")));

		if (c && !strcmp(c, commit) && v >= 0) {
			*last = (enum hb_bisect_v)v;
			n++;
		}
	}
	return n;
}

/* A step of commit arg, or (arg NULL) of the metric's reference: the steps
 * marked "base". */
static bool step_of_commit(json_t *st, const void *arg)
{
	const char *c = json_string_value(json_object_get(st, "commit"));

	return arg ? c && !strcmp(c, arg) : json_is_true(json_object_get(st, "base"));
}

/* Judges the commit checked out in o->git (base: the reference of the
 * metric), from its record when it has a final verdict, else by building
 * and booting it, again while uncertain and tries are left. *v the verdict
 * (an uncertain one out of tries counts as skip). 0, or -errno with err
 * (stop: a build error that is no skip, or steps.json not writable). */
static int commit_step(const struct hb_bisect_opts *o, json_t *steps, const char *commit,
		       bool base, enum hb_bisect_v *v, char *err, size_t errlen)
{
	char subject[256] = "";
	int tries = hb_bisect_git_tries(steps, commit, v);

	if (*v == HB_BV_GOOD || *v == HB_BV_BAD || *v == HB_BV_SKIP) {
		printf("bisect %s: %.12s %s (recorded)\n", o->target, commit, hb_bisect_v_name(*v));
		return 0;
	}
	GIT1(o->git, subject, "log", "-1", "--format=%s", commit);
	while (tries < o->max_tries) {
		char group[PATH_MAX] = "", why[1024] = "", *ga[64], *gb[64];
		double build_s = 0, t0 = hb_mono_s();
		size_t na = 0, nb = 0;
		struct hb_recipe r;
		bool skip = false;
		json_t *st;
		int rc;

		printf("\n== bisect %s: %.12s %s%s, try %d\n", o->target, commit, subject,
		       base ? " (the good commit: the metric's reference)" : "", tries + 1);
		rc = load_ksrc_recipe(o->target, &r, err, errlen);
		if (rc)
			return rc;
		rc = hb_bisect_build_run(o, &r, o->git, group, sizeof(group), &build_s, &skip, why,
					 sizeof(why));
		hb_recipe_free(&r);
		if (rc) {
			hb_set_err(err, errlen, "%s", why);
			return rc;
		}
		st = json_pack("{s:s, s:o, s:f, s:i, s:i}", "commit", commit, "patch",
			       hb_json_text(subject), "build_s", round(build_s * 10) / 10, "boots",
			       skip ? 0 : o->boots, "try", tries + 1);
		if (!st) {
			hb_set_err(err, errlen, "bisect: out of memory recording %.12s", commit);
			return -ENOMEM;
		}
		if (base)
			json_object_set_new(st, "base", json_true());
		if (skip) {
			*v = HB_BV_SKIP;
		} else {
			json_object_set_new(st, "group", json_string(group));
			json_array_append(steps, st); /* the judge reads every group of it */
			nb = hb_bisect_groups(o, steps, step_of_commit, commit, gb, 64);
			if (!base && o->spec.mode == HB_BISECT_METRIC)
				na = hb_bisect_groups(o, steps, step_of_commit, NULL, ga, 64);
			if (!base && o->spec.mode == HB_BISECT_METRIC && !na) {
				*v = HB_BV_SKIP;
				snprintf(why, sizeof(why), "no reference boots of the good commit "
					 "recorded in %s/steps.json", o->dir);
			} else {
				*v = hb_bisect_judge(&o->spec, base, ga, na, gb, nb, why, sizeof(why));
			}
			hb_bisect_free_strs(ga, na);
			hb_bisect_free_strs(gb, nb);
			json_array_remove(steps, json_array_size(steps) - 1);
		}
		json_object_set_new(st, "verdict", json_string(hb_bisect_v_name(*v)));
		json_object_set_new(st, "why", hb_json_text(why));
		json_object_set_new(st, "step_s", json_real(round((hb_mono_s() - t0) * 10) / 10));
		json_array_append_new(steps, st);
		tries++;
		printf("== bisect %s: %.12s %s: %s (build %.1f s)\n", o->target, commit,
		       hb_bisect_v_name(*v), why, build_s);
		rc = hb_bisect_steps_save(o, steps, err, errlen);
		if (rc)
			return rc;
		if (*v != HB_BV_UNCERTAIN)
			return 0;
	}
	if (*v == HB_BV_UNCERTAIN || *v == HB_BV_UNTESTED)
		*v = HB_BV_SKIP; /* judged max-tries times and still undecided */
	return 0;
}

/* `hugebench bisect-step --dir DIR TARGET <bisect options>`, run by git
 * (bisect.c parses it): o->dir and o->target set. */
int hb_bisect_git_step(struct hb_bisect_opts *o, enum hb_bisect_v *v, char *err, size_t errlen)
{
	char commit[128] = "";
	json_t *steps;
	int rc;

	*v = HB_BV_SKIP;
	if (GIT1(o->git, commit, "rev-parse", "HEAD") || !commit[0]) {
		hb_set_err(err, errlen, "bisect-step: %s: git rev-parse HEAD failed", o->git);
		return -EIO;
	}
	steps = hb_bisect_steps_load(o);
	rc = commit_step(o, steps, commit, false, v, err, errlen);
	json_decref(steps);
	return rc;
}

static const char *verdict_word(enum hb_bisect_v v)
{
	return v == HB_BV_GOOD ? "good" : v == HB_BV_BAD ? "bad" : "skip";
}

/* Stopped by o->max_steps with commits left to test: the answer is the
 * candidates git's refs still hold. */
static void budget_spent(const struct hb_bisect_opts *o, const struct hb_bisect_gstate *g,
			 int steps, struct hb_bisect_answer *a)
{
	char lo[400], hi[400];

	a->answered = true;
	a->outcome = HB_BO_AMBIGUOUS;
	a->budget_spent = true;
	if (!g->n_cands) {
		snprintf(a->line, sizeof(a->line), "budget spent (%d steps): the first bad commit is "
			 "one of %ld (git rev-list %.12s --not <good>)", steps, g->n_total, g->bad);
		return;
	}
	hb_bisect_git_describe(o->git, g->cands[g->n_cands - 1], lo, sizeof(lo));
	hb_bisect_git_describe(o->git, g->cands[0], hi, sizeof(hi));
	snprintf(a->line, sizeof(a->line), "budget spent (%d steps): the first bad commit is one "
		 "of %zu, %s .. %s", steps, g->n_cands, lo, hi);
}

/* The bisect itself, between `git bisect start` and `git bisect reset`:
 * 0 with *a answered, or -errno with err. */
static int drive(const struct hb_bisect_opts *o, const char *good, const char *bad,
		 struct hb_bisect_gstate *g, struct hb_bisect_answer *a, char *err, size_t errlen)
{
	json_t *steps = hb_bisect_steps_load(o);
	enum hb_bisect_v v;
	bool bad_skipped = false;
	int rc = 0, guard = 0;

	if (o->spec.mode == HB_BISECT_METRIC) {
		if (GITQ(o->git, "checkout", "-q", "--detach", good)) {
			hb_set_err(err, errlen, "bisect --git: git checkout %s failed in %s", good,
				   o->git);
			rc = -EIO;
			goto out;
		}
		rc = commit_step(o, steps, good, true, &v, err, errlen);
		if (rc)
			goto out;
		if (v == HB_BV_SKIP) {
			hb_set_err(err, errlen, "bisect --git: the good commit %.12s, the metric's "
				   "reference, did not build or boot (see %s/steps.json)", good, o->dir);
			rc = -EIO;
			goto out;
		}
		if (v == HB_BV_BAD) {
			char d[400];

			a->answered = true;
			a->outcome = HB_BO_BASE_BAD;
			hb_bisect_git_describe(o->git, good, d, sizeof(d));
			snprintf(a->line, sizeof(a->line), "the good commit %s is already bad", d);
			if (hb_bisect_gstate_read(o->git, g))
				goto refs;
			goto out;
		}
	}
	for (;;) {
		char head[64] = "";

		if (hb_bisect_gstate_read(o->git, g))
			goto refs;
		if (!g->n_untested)
			break;
		if (o->max_steps > 0 && (int)json_array_size(steps) >= o->max_steps) {
			budget_spent(o, g, (int)json_array_size(steps), a);
			goto out;
		}
		if (GIT1(o->git, head, "rev-parse", "HEAD") || !hb_bisect_git_testable(g, head)) {
			/* after the reference's checkout, or git left HEAD elsewhere */
			GITQ(o->git, "bisect", "next");
			if (GIT1(o->git, head, "rev-parse", "HEAD") || !hb_bisect_git_testable(g, head) ||
			    ++guard > 3) {
				hb_set_err(err, errlen, "bisect --git: git bisect checked out no commit "
					   "left to test (HEAD %.12s); see git -C %s bisect log", head,
					   o->git);
				rc = -EIO;
				goto out;
			}
		}
		rc = commit_step(o, steps, head, false, &v, err, errlen);
		if (rc)
			goto out;
		/* git exits non-zero when only skipped commits are left: what counts
		 * is that it recorded the verdict (its ref) */
		GITQ(o->git, "bisect", verdict_word(v), head);
		if (!hb_bisect_git_recorded(o->git, head, v)) {
			hb_set_err(err, errlen, "bisect --git: git bisect %s %.12s failed in %s",
				   verdict_word(v), head, o->git);
			rc = -EIO;
			goto out;
		}
	}
	/* the answer rests on --bad, which git takes as bad without a test */
	if (!strcmp(g->bad, bad) && hb_bisect_git_tries(steps, bad, &v) == 0) {
		if (GITQ(o->git, "checkout", "-q", "--detach", bad)) {
			hb_set_err(err, errlen, "bisect --git: git checkout %s failed in %s", bad,
				   o->git);
			rc = -EIO;
			goto out;
		}
		rc = commit_step(o, steps, bad, false, &v, err, errlen);
		if (rc)
			goto out;
		if (v == HB_BV_GOOD) {
			a->answered = true;
			a->outcome = HB_BO_NONE;
			snprintf(a->line, sizeof(a->line),
				 "no bad commit: the bad side %.12s tested good", bad);
			goto out;
		}
		bad_skipped = v == HB_BV_SKIP;
	}
	hb_bisect_git_answer(o->git, g, bad_skipped, a);
	goto out;
refs:
	hb_set_err(err, errlen, "bisect --git: cannot read the bisect's refs in %s", o->git);
	a->answered = false;
	rc = -EIO;
out:
	json_decref(steps);
	return rc;
}

int hb_bisect_git(struct hb_bisect_opts *o, struct hb_bisect_answer *a, char *err, size_t errlen)
{
	char log[PATH_MAX + 32], head[128] = "", good[64] = "", bad[64] = "";
	static struct hb_bisect_gstate g;
	struct hb_recipe r;
	int rc;

	memset(a, 0, sizeof(*a));
	rc = load_ksrc_recipe(o->target, &r, err, errlen);
	if (rc)
		return rc;
	hb_recipe_free(&r);
	snprintf(log, sizeof(log), "%s/.git", o->git);
	if (!hb_is_dir(log) && !hb_is_file(log)) { /* (a file in a linked worktree) */
		hb_set_err(err, errlen, "bisect --git: %s is not the top of a git work tree (no "
			   ".git there)", o->git);
		return -EINVAL;
	}
	if (GIT1(o->git, head, "rev-parse", "--git-dir")) {
		hb_set_err(err, errlen, "bisect --git: %s is not a git work tree", o->git);
		return -EINVAL;
	}
	for (int i = 0; i < 2; i++) {
		const char *ref = i ? o->bad : o->good;
		char spec[512], *sha = i ? bad : good;

		snprintf(spec, sizeof(spec), "%s^{commit}", ref);
		if (ref[0] == '-' ||
		    hb_git(o->git, sha, 64, HB_GIT_ONE_LINE,
			   (const char *const[]){ "rev-parse", "--verify", "-q", spec, NULL })) {
			hb_set_err(err, errlen, "bisect --git: %s is not a commit in %s", ref, o->git);
			return -EINVAL;
		}
	}
	if (!strcmp(good, bad) || GITQ(o->git, "merge-base", "--is-ancestor", good, bad)) {
		hb_set_err(err, errlen, "bisect --git: --good %s must be an ancestor of --bad %s (and "
			   "not the same commit)", o->good, o->bad);
		return -EINVAL;
	}
	if (GITQ(o->git, "bisect", "start", bad, good)) {
		hb_set_err(err, errlen, "bisect --git: git bisect start %s %s failed in %s (a bisect "
			   "in progress? run: git -C %s bisect reset)", o->bad, o->good, o->git,
			   o->git);
		return -EINVAL;
	}
	printf("bisect %s: git bisect in %s (good %.12s, bad %.12s), %s %s%s%s -> %s\n", o->target,
	       o->git, good, bad, o->spec.mode == HB_BISECT_CHECK ? "check" : "metric",
	       o->spec.workload, o->spec.name[0] ? "." : "", o->spec.name, o->dir);
	rc = drive(o, good, bad, &g, a, err, errlen);
	snprintf(log, sizeof(log), "%s/git-bisect.log", o->dir);
	{
		char *const largv[] = { "git", "-C", (char *)o->git, "bisect", "log", NULL };
		static char buf[1 << 16];

		buf[0] = 0;
		hb_spawn_capture(largv, buf, sizeof(buf));
		if (hb_write_text(log, buf))
			hb_errno("bisect: cannot write %s", log);
	}
	GITQ(o->git, "bisect", "reset");
	if (!rc)
		hb_bisect_git_summary(o, a, &g, good, bad, log);
	else
		printf("bisect %s: stopped; the same command resumes from %s\n", o->target, o->dir);
	hb_bisect_gstate_free(&g);
	return rc;
}
