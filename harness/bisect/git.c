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
#include "recipe.h"
#include "target.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* git -C path args... (NULL-ended, at most 12) with stdout into out
 * (trailing newline cut when one line is wanted); its exit code. */
static int gitv(const char *path, char *out, size_t outlen, bool one_line,
		const char *const *args)
{
	char *argv[16] = { "git", "-C", (char *)path };
	char buf[4096] = "";
	int n = 3, rc;

	for (; *args && n < 15; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	rc = hb_spawn_capture(argv, out ? out : buf, out ? outlen : sizeof(buf));
	if (out && one_line)
		out[strcspn(out, "\n")] = 0;
	return rc;
}

#define GIT1(path, out, ...)                                                                       \
	gitv(path, out, sizeof(out), true, (const char *const[]){ __VA_ARGS__, NULL })
#define GITQ(path, ...) gitv(path, NULL, 0, true, (const char *const[]){ __VA_ARGS__, NULL })

static int load_ksrc_recipe(const char *target, struct hb_recipe *r, char *err, size_t errlen)
{
	char kdir[PATH_MAX];
	struct hb_target t;

	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	if (hb_target_parse(target, kdir, &t, err, errlen))
		return HB_EXIT_USAGE;
	if (t.kind != HB_TARGET_RECIPE || hb_recipe_load(t.path, r, err, errlen)) {
		if (t.kind != HB_TARGET_RECIPE)
			snprintf(err, errlen, "bisect: target %s is not a recipe under kernels/", target);
		return HB_EXIT_USAGE;
	}
	if (r->kind != HB_RECIPE_SOURCE || strcmp(r->source, "ksrc")) {
		snprintf(err, errlen,
			 "bisect --git: recipe %s must be kind=source with source=ksrc (it builds the "
			 "tree at --git PATH; see docs/kernels.md, source=ksrc)",
			 target);
		hb_recipe_free(r);
		return HB_EXIT_USAGE;
	}
	return 0;
}

/* The recorded steps of commit: how many, the last one's verdict. */
static int tries_of(json_t *steps, const char *commit, enum hb_bisect_v *last)
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

/* Absolute paths of the run groups recorded for commit (or, base: of the
 * reference, the steps marked "base"). */
static size_t groups_of(const struct hb_bisect_opts *o, json_t *steps, const char *commit,
			bool base, char **out, size_t max)
{
	size_t i, n = 0;
	json_t *st;

	json_array_foreach(steps, i, st) {
		const char *c = json_string_value(json_object_get(st, "commit"));
		const char *g = json_string_value(json_object_get(st, "group"));

		if (!g || n >= max || (base ? !json_is_true(json_object_get(st, "base"))
					    : (!c || strcmp(c, commit))))
			continue;
		if (asprintf(&out[n], "%s/%s", o->dir, g) < 0)
			break;
		n++;
	}
	return n;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

/* Judges the commit checked out in o->git (base: the reference of the
 * metric), from its record when it has a final verdict, else by building
 * and booting it, again while uncertain and tries are left. *v the verdict
 * (an uncertain one out of tries counts as skip). 0, or an exit code >= 2
 * (stop: a build error that is no skip, or steps.json not writable). */
static int commit_step(const struct hb_bisect_opts *o, json_t *steps, const char *commit,
		       bool base, enum hb_bisect_v *v)
{
	char subject[256] = "";
	int tries = tries_of(steps, commit, v);

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
		json_t *st;
		int rc;

		printf("\n== bisect %s: %.12s %s%s, try %d\n", o->target, commit, subject,
		       base ? " (the good commit: the metric's reference)" : "", tries + 1);
		rc = load_ksrc_recipe(o->target, &r, why, sizeof(why));
		if (rc) {
			hb_err("%s", why);
			return rc;
		}
		rc = hb_bisect_build_run(o, &r, o->git, group, sizeof(group), &build_s, why,
					 sizeof(why));
		hb_recipe_free(&r);
		if (rc > 1)
			return rc;
		st = json_pack("{s:s, s:o, s:f, s:i, s:i}", "commit", commit, "patch",
			       hb_json_text(subject), "build_s", round(build_s * 10) / 10, "boots",
			       rc ? 0 : o->boots, "try", tries + 1);
		if (!st)
			return HB_EXIT_INFRA;
		if (base)
			json_object_set_new(st, "base", json_true());
		if (rc) {
			*v = HB_BV_SKIP;
		} else {
			json_object_set_new(st, "group", json_string(group));
			json_array_append(steps, st); /* the judge reads every group of it */
			nb = groups_of(o, steps, commit, false, gb, 64);
			if (!base && o->spec.mode == HB_BISECT_METRIC)
				na = groups_of(o, steps, NULL, true, ga, 64);
			if (!base && o->spec.mode == HB_BISECT_METRIC && !na) {
				*v = HB_BV_SKIP;
				snprintf(why, sizeof(why), "no reference boots of the good commit "
					 "recorded in %s/steps.json", o->dir);
			} else {
				*v = hb_bisect_judge(&o->spec, base, ga, na, gb, nb, why, sizeof(why));
			}
			free_strs(ga, na);
			free_strs(gb, nb);
			json_array_remove(steps, json_array_size(steps) - 1);
		}
		json_object_set_new(st, "verdict", json_string(hb_bisect_v_name(*v)));
		json_object_set_new(st, "why", hb_json_text(why));
		json_object_set_new(st, "step_s", json_real(round((hb_mono_s() - t0) * 10) / 10));
		json_array_append_new(steps, st);
		tries++;
		printf("== bisect %s: %.12s %s: %s (build %.1f s)\n", o->target, commit,
		       hb_bisect_v_name(*v), why, build_s);
		if (hb_bisect_steps_save(o, steps))
			return HB_EXIT_INFRA;
		if (*v != HB_BV_UNCERTAIN)
			return 0;
	}
	if (*v == HB_BV_UNCERTAIN || *v == HB_BV_UNTESTED)
		*v = HB_BV_SKIP; /* judged max-tries times and still undecided */
	return 0;
}

/* `hugebench bisect-step --dir DIR TARGET <bisect options>`, run by git
 * (bisect.c parses it): o->dir and o->target set. */
int hb_bisect_git_step(struct hb_bisect_opts *o)
{
	char commit[128] = "";
	enum hb_bisect_v v = HB_BV_SKIP;
	json_t *steps;
	int rc;

	if (GIT1(o->git, commit, "rev-parse", "HEAD") || !commit[0]) {
		hb_err("bisect-step: %s: git rev-parse HEAD failed", o->git);
		return HB_BISECT_STEP_ABORT;
	}
	steps = hb_bisect_steps_load(o);
	rc = commit_step(o, steps, commit, false, &v);
	json_decref(steps);
	if (rc)
		return HB_BISECT_STEP_ABORT;
	return v == HB_BV_GOOD ? 0 : v == HB_BV_BAD ? 1 : 125;
}

/* ---- the drive ------------------------------------------------------------ */

#define HB_GIT_LIST_MAX 4096 /* candidates listed; a larger range is only counted */

struct gstate {
	char bad[64];	   /* refs/bisect/bad */
	long n_total;	   /* rev-list bad --not goods: the candidates */
	char *cands[HB_GIT_LIST_MAX]; /* those, newest first, when n_total fits */
	size_t n_cands;
	long n_untested;   /* of those: neither bad nor skipped */
	char goods[1 << 16], skips[1 << 16]; /* refs/bisect/good-*, skip-*: one a line */
};

static void gstate_free(struct gstate *g)
{
	free_strs(g->cands, g->n_cands);
	g->n_cands = 0;
}

static bool in_text(const char *text, const char *sha)
{
	const char *p = text;
	size_t l = strlen(sha);

	while ((p = strstr(p, sha))) {
		if ((p == text || p[-1] == '\n') && (p[l] == '\n' || !p[l]))
			return true;
		p += l;
	}
	return false;
}

/* git rev-list [--count] bad --not goods... into out; its exit code. */
static int rev_list(const char *path, const struct gstate *g, bool count, char *out, size_t len)
{
	static char goods[sizeof(g->goods)];
	char *argv[8 + 1024], *save = NULL;
	size_t n = 0;

	snprintf(goods, sizeof(goods), "%s", g->goods);
	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = (char *)path;
	argv[n++] = "rev-list";
	if (count)
		argv[n++] = "--count";
	argv[n++] = (char *)g->bad;
	argv[n++] = "--not";
	for (char *l = strtok_r(goods, "\n", &save); l && n < 8 + 1023; l = strtok_r(NULL, "\n", &save))
		argv[n++] = l;
	argv[n] = NULL;
	return hb_spawn_capture(argv, out, len);
}

/* Where git's bisect stands, from its refs. 0, or -1 (git failed). */
static int gstate_read(const char *path, struct gstate *g)
{
	static char list[HB_GIT_LIST_MAX * 41 + 64];
	char num[32] = "", *save = NULL;
	long skipped = 0;

	gstate_free(g);
	if (GIT1(path, g->bad, "rev-parse", "--verify", "-q", "refs/bisect/bad") ||
	    gitv(path, g->goods, sizeof(g->goods), false,
		 (const char *const[]){ "for-each-ref", "--format=%(objectname)",
					"refs/bisect/good-*", NULL }) ||
	    gitv(path, g->skips, sizeof(g->skips), false,
		 (const char *const[]){ "for-each-ref", "--format=%(objectname)",
					"refs/bisect/skip-*", NULL }) ||
	    rev_list(path, g, true, num, sizeof(num)))
		return -1;
	g->n_total = strtol(num, NULL, 10);
	if (g->n_total < 1)
		return -1;
	if (g->n_total > HB_GIT_LIST_MAX) {
		/* far from the end: only how many (every skip counted in) */
		for (const char *p = g->skips; *p; p++)
			skipped += *p == '\n';
		g->n_untested = g->n_total - 1 - skipped;
		if (g->n_untested < 1)
			g->n_untested = 1;
		return 0;
	}
	if (rev_list(path, g, false, list, sizeof(list)))
		return -1;
	g->n_untested = 0;
	for (char *l = strtok_r(list, "\n", &save); l && g->n_cands < HB_GIT_LIST_MAX;
	     l = strtok_r(NULL, "\n", &save)) {
		g->cands[g->n_cands] = strdup(l);
		if (!g->cands[g->n_cands])
			return -1;
		if (strcmp(l, g->bad) && !in_text(g->skips, l))
			g->n_untested++;
		g->n_cands++;
	}
	return g->n_cands ? 0 : -1;
}

/* May sha be tested next: neither judged nor outside the candidates? */
static bool testable(const struct gstate *g, const char *sha)
{
	bool listed = !g->n_cands;

	for (size_t i = 0; i < g->n_cands && !listed; i++)
		listed = !strcmp(g->cands[i], sha);
	return listed && strcmp(sha, g->bad) && !in_text(g->goods, sha) && !in_text(g->skips, sha);
}

struct answer {
	enum hb_bisect_outcome oc;
	char line[2048];
};

/* "<sha12> <subject>" of commit. */
static void describe(const char *path, const char *sha, char *out, size_t len)
{
	char subj[256] = "";

	GIT1(path, subj, "log", "-1", "--format=%s", sha);
	snprintf(out, len, "%.12s (%s)", sha, subj);
}

static void git_summary(const struct hb_bisect_opts *o, const struct answer *a,
			const struct gstate *g, const char *good, const char *bad, const char *log)
{
	char path[PATH_MAX + 16], d[400];
	json_t *steps = hb_bisect_steps_load(o), *st, *first = NULL, *cands = json_array();
	double build = 0, wall = 0;
	int builds = 0, boots = 0;
	size_t i;
	FILE *f;

	json_array_foreach(steps, i, st) {
		build += json_number_value(json_object_get(st, "build_s"));
		wall += json_number_value(json_object_get(st, "step_s"));
		boots += (int)json_integer_value(json_object_get(st, "boots"));
		builds += json_integer_value(json_object_get(st, "try")) == 1;
	}
	if (a->oc == HB_BO_FOUND) {
		char subj[256] = "";

		GIT1(o->git, subj, "log", "-1", "--format=%s", g->bad);
		first = json_pack("{s:s, s:o}", "commit", g->bad, "subject", hb_json_text(subj));
	}
	/* oldest first, as a range reads */
	for (size_t k = g->n_cands; a->oc == HB_BO_AMBIGUOUS && k-- > 0;) {
		char subj[256] = "";
		enum hb_bisect_v v;

		tries_of(steps, g->cands[k], &v);
		GIT1(o->git, subj, "log", "-1", "--format=%s", g->cands[k]);
		json_array_append_new(cands, json_pack("{s:s, s:o, s:s}", "commit", g->cands[k],
						       "subject", hb_json_text(subj), "verdict",
						       hb_bisect_v_name(v)));
	}
	hb_bisect_answer_write(o, a->oc, a->line, first, json_incref(cands));
	printf("\nbisect %s: %s (exit %d)\n%d builds, %d boots, %.0f s (%.0f s building); "
	       "%s/summary.md\n", o->target, a->line, hb_bisect_exit_code(a->oc), builds, boots,
	       wall, build, o->dir);
	snprintf(path, sizeof(path), "%s/summary.md", o->dir);
	f = fopen(path, "w");
	if (!f) {
		hb_errno("bisect: cannot write %s", path);
		json_decref(cands);
		json_decref(steps);
		return;
	}
	fprintf(f, "# bisect %s (git %s, good %s, bad %s): %s%s%s\n\n**Result: %s** (exit %d)\n\n",
		o->target, o->git, o->good, o->bad, o->spec.workload, o->spec.name[0] ? "." : "",
		o->spec.name, a->line, hb_bisect_exit_code(a->oc));
	fprintf(f, "Mode: %s; %d boots per step (up to %d tries of an uncertain one); suite `%s`; "
		"a boot that crashed, hung or warned is %s.\n%d builds, %d boots, %.0f s wall "
		"(%.0f s building). `git bisect log`: %s\n\n",
		o->spec.mode == HB_BISECT_CHECK ? "functional (--check)"
						: "performance (--metric, compare-report rule "
						  "against the good commit's boots)",
		o->boots, o->max_tries, o->suite_arg,
		o->spec.crash == HB_BISECT_CRASH_BAD ? "bad (--crash bad)" : "not judged (--crash skip)",
		builds, boots, wall, build, log);
	describe(o->git, good, d, sizeof(d));
	fprintf(f, "Good (%s): %s. ", o->good, d);
	describe(o->git, bad, d, sizeof(d));
	fprintf(f, "Bad (%s): %s.\n\n", o->bad, d);
	if (json_array_size(cands)) {
		json_t *c;

		fprintf(f, "## Candidates (oldest first)\n\n| commit | subject | verdict |\n"
			"|---|---|---|\n");
		json_array_foreach(cands, i, c) {
			fprintf(f, "| %s | ", json_string_value(json_object_get(c, "commit")));
			hb_bisect_md_cell(f, json_string_value(json_object_get(c, "subject")));
			hb_bisect_md_cell(f, json_string_value(json_object_get(c, "verdict")));
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	fprintf(f, "## Steps (in order)\n\n"
		"| commit | subject | try | build s | boots | verdict | why | group |\n"
		"|---|---|---:|---:|---:|---|---|---|\n");
	json_array_foreach(steps, i, st) {
		fprintf(f, "| %.12s%s | ", json_string_value(json_object_get(st, "commit")),
			json_is_true(json_object_get(st, "base")) ? " (reference)" : "");
		hb_bisect_md_cell(f, json_string_value(json_object_get(st, "patch")));
		fprintf(f, "%lld | ", json_integer_value(json_object_get(st, "try")));
		hb_bisect_md_step_tail(f, st);
	}
	fclose(f);
	json_decref(cands);
	json_decref(steps);
}

/* The answer from git's refs once nothing is left to test; bad_skipped:
 * refs/bisect/bad could not be judged itself. */
static void answer_of(const char *path, const struct gstate *g, bool bad_skipped,
		      struct answer *a)
{
	char d[400];

	if (g->n_cands == 1 && !bad_skipped) {
		a->oc = HB_BO_FOUND;
		describe(path, g->bad, d, sizeof(d));
		snprintf(a->line, sizeof(a->line), "first bad commit: %s", d);
		return;
	}
	a->oc = HB_BO_AMBIGUOUS;
	{
		char lo[400], hi[400];

		describe(path, g->cands[g->n_cands - 1], lo, sizeof(lo));
		describe(path, g->cands[0], hi, sizeof(hi));
		if (g->n_cands == 1)
			snprintf(a->line, sizeof(a->line),
				 "ambiguous (skipped commits): the first bad commit, if any, is %s, "
				 "which could not be judged", hi);
		else
			snprintf(a->line, sizeof(a->line),
				 "ambiguous (skipped commits): the first bad commit is one of %zu, "
				 "%s .. %s (git rev-list %.12s --not <good>)", g->n_cands, lo, hi,
				 g->bad);
	}
}

static const char *verdict_word(enum hb_bisect_v v)
{
	return v == HB_BV_GOOD ? "good" : v == HB_BV_BAD ? "bad" : "skip";
}

/* Did git record verdict v of sha (refs/bisect/bad, good-<sha>, skip-<sha>)? */
static bool recorded(const char *path, const char *sha, enum hb_bisect_v v)
{
	char ref[128], got[64] = "";

	if (v == HB_BV_BAD)
		snprintf(ref, sizeof(ref), "refs/bisect/bad");
	else
		snprintf(ref, sizeof(ref), "refs/bisect/%s-%s", v == HB_BV_GOOD ? "good" : "skip", sha);
	return !GIT1(path, got, "rev-parse", "--verify", "-q", ref) && !strcmp(got, sha);
}

/* The bisect itself, between `git bisect start` and `git bisect reset`. */
static int drive(const struct hb_bisect_opts *o, const char *good, const char *bad,
		 struct gstate *g, struct answer *a)
{
	json_t *steps = hb_bisect_steps_load(o);
	enum hb_bisect_v v;
	bool bad_skipped = false;
	int rc = 0, guard = 0;

	if (o->spec.mode == HB_BISECT_METRIC) {
		if (GITQ(o->git, "checkout", "-q", "--detach", good)) {
			hb_err("bisect --git: git checkout %s failed in %s", good, o->git);
			rc = HB_EXIT_INFRA;
			goto out;
		}
		rc = commit_step(o, steps, good, true, &v);
		if (rc)
			goto out;
		if (v == HB_BV_SKIP) {
			hb_err("bisect --git: the good commit %.12s, the metric's reference, did not "
			       "build or boot (see %s/steps.json)", good, o->dir);
			rc = HB_EXIT_INFRA;
			goto out;
		}
		if (v == HB_BV_BAD) {
			char d[400];

			a->oc = HB_BO_BASE_BAD;
			describe(o->git, good, d, sizeof(d));
			snprintf(a->line, sizeof(a->line), "the good commit %s is already bad", d);
			if (gstate_read(o->git, g))
				rc = HB_EXIT_INFRA;
			goto out;
		}
	}
	for (;;) {
		char head[64] = "";

		if (gstate_read(o->git, g)) {
			hb_err("bisect --git: cannot read the bisect's refs in %s", o->git);
			rc = HB_EXIT_INFRA;
			goto out;
		}
		if (!g->n_untested)
			break;
		if (GIT1(o->git, head, "rev-parse", "HEAD") || !testable(g, head)) {
			/* after the reference's checkout, or git left HEAD elsewhere */
			GITQ(o->git, "bisect", "next");
			if (GIT1(o->git, head, "rev-parse", "HEAD") || !testable(g, head) ||
			    ++guard > 3) {
				hb_err("bisect --git: git bisect checked out no commit left to test "
				       "(HEAD %.12s); see git -C %s bisect log", head, o->git);
				rc = HB_EXIT_INFRA;
				goto out;
			}
		}
		rc = commit_step(o, steps, head, false, &v);
		if (rc)
			goto out;
		/* git exits non-zero when only skipped commits are left: what counts
		 * is that it recorded the verdict (its ref) */
		GITQ(o->git, "bisect", verdict_word(v), head);
		if (!recorded(o->git, head, v)) {
			hb_err("bisect --git: git bisect %s %.12s failed in %s", verdict_word(v), head,
			       o->git);
			rc = HB_EXIT_INFRA;
			goto out;
		}
	}
	/* the answer rests on --bad, which git takes as bad without a test */
	if (!strcmp(g->bad, bad) && tries_of(steps, bad, &v) == 0) {
		if (GITQ(o->git, "checkout", "-q", "--detach", bad)) {
			rc = HB_EXIT_INFRA;
			goto out;
		}
		rc = commit_step(o, steps, bad, false, &v);
		if (rc)
			goto out;
		if (v == HB_BV_GOOD) {
			a->oc = HB_BO_NONE;
			snprintf(a->line, sizeof(a->line),
				 "no bad commit: the bad side %.12s tested good", bad);
			goto out;
		}
		bad_skipped = v == HB_BV_SKIP;
	}
	answer_of(o->git, g, bad_skipped, a);
out:
	json_decref(steps);
	return rc;
}

int hb_bisect_git(struct hb_bisect_opts *o)
{
	char log[PATH_MAX + 32], err[1024], head[128] = "", good[64] = "", bad[64] = "";
	struct answer a = { .oc = HB_BO_NONE };
	static struct gstate g;
	struct hb_recipe r;
	int rc;

	rc = load_ksrc_recipe(o->target, &r, err, sizeof(err));
	if (rc) {
		hb_err("%s", err);
		return rc;
	}
	hb_recipe_free(&r);
	snprintf(log, sizeof(log), "%s/.git", o->git);
	if (!hb_is_dir(log) && !hb_is_file(log)) { /* (a file in a linked worktree) */
		hb_err("bisect --git: %s is not the top of a git work tree (no .git there)", o->git);
		return HB_EXIT_USAGE;
	}
	if (GIT1(o->git, head, "rev-parse", "--git-dir")) {
		hb_err("bisect --git: %s is not a git work tree", o->git);
		return HB_EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++) {
		const char *ref = i ? o->bad : o->good;
		char spec[512], *sha = i ? bad : good;

		snprintf(spec, sizeof(spec), "%s^{commit}", ref);
		if (ref[0] == '-' || gitv(o->git, sha, 64, true,
					  (const char *const[]){ "rev-parse", "--verify", "-q",
								 spec, NULL })) {
			hb_err("bisect --git: %s is not a commit in %s", ref, o->git);
			return HB_EXIT_USAGE;
		}
	}
	if (!strcmp(good, bad) || GITQ(o->git, "merge-base", "--is-ancestor", good, bad)) {
		hb_err("bisect --git: --good %s must be an ancestor of --bad %s (and not the same "
		       "commit)", o->good, o->bad);
		return HB_EXIT_USAGE;
	}
	if (GITQ(o->git, "bisect", "start", bad, good)) {
		hb_err("bisect --git: git bisect start %s %s failed in %s (a bisect in progress? "
		       "run: git -C %s bisect reset)", o->bad, o->good, o->git, o->git);
		return HB_EXIT_USAGE;
	}
	printf("bisect %s: git bisect in %s (good %.12s, bad %.12s), %s %s%s%s -> %s\n", o->target,
	       o->git, good, bad, o->spec.mode == HB_BISECT_CHECK ? "check" : "metric",
	       o->spec.workload, o->spec.name[0] ? "." : "", o->spec.name, o->dir);
	rc = drive(o, good, bad, &g, &a);
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
		git_summary(o, &a, &g, good, bad, log);
	else
		printf("bisect %s: stopped (exit %d); the same command resumes from %s\n", o->target,
		       rc, o->dir);
	gstate_free(&g);
	return rc ? rc : hb_bisect_exit_code(a.oc);
}
