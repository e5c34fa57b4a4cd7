/* bisect/git.c - `hugebench bisect TARGET --git PATH --good REF --bad REF`:
 * a wrapper around `git bisect start BAD GOOD` + `git bisect run` in PATH
 * whose step command is `hugebench bisect-step` (hidden; its options are
 * parsed in bisect.c, its work is hb_bisect_git_step here): it builds the
 * checked-out commit as TARGET's KSRC (a source=ksrc recipe: config and
 * patches from the recipe, the tree from PATH), boots it, judges the check
 * and exits 0 good, 1 bad, 125 skip (200 makes git bisect abort). Every
 * step is recorded in the same steps.json as the series mode, keyed by
 * commit, so a rerun answers known commits without building them.
 * Every git and hugebench call is an argv array; nothing goes through a shell.
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

/* git -C path ARGS... with stdout into out (trailing newline cut); its exit code. */
static int git(const char *path, char *out, size_t outlen, const char *a1, const char *a2,
	       const char *a3, const char *a4)
{
	char *argv[] = { "git", "-C", (char *)path, (char *)a1, (char *)a2, (char *)a3, (char *)a4,
			 NULL };
	char buf[4096] = "";
	int rc = hb_spawn_capture(argv, out ? out : buf, out ? outlen : sizeof(buf));

	if (out)
		out[strcspn(out, "\n")] = 0;
	return rc;
}

/* "--name value" when value is set; the new count. */
static int add_opt(char **argv, int n, const char *name, const char *value)
{
	if (value) {
		argv[n++] = (char *)name;
		argv[n++] = (char *)value;
	}
	return n;
}

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

/* `hugebench bisect-step --dir DIR TARGET <bisect options>`, run by git
 * (bisect.c parses it): o->dir and o->target set. */
int hb_bisect_git_step(struct hb_bisect_opts *o)
{
	struct hb_recipe r;
	char commit[128] = "", subject[256] = "", group[PATH_MAX] = "", why[1024] = "", *g[1];
	double build_s = 0, t0 = hb_mono_s();
	enum hb_bisect_v v = HB_BV_SKIP;
	json_t *steps, *st;
	size_t i;
	int rc;

	if (git(o->git, commit, sizeof(commit), "rev-parse", "HEAD", NULL, NULL) || !commit[0]) {
		hb_err("bisect-step: %s: git rev-parse HEAD failed", o->git);
		return HB_BISECT_STEP_ABORT;
	}
	git(o->git, subject, sizeof(subject), "log", "-1", "--format=%s", "HEAD");
	steps = hb_bisect_steps_load(o);
	json_array_foreach(steps, i, st) {
		const char *c = json_string_value(json_object_get(st, "commit"));
		int known = hb_bisect_v_parse(json_string_value(json_object_get(st, "verdict")));

		if (c && !strcmp(c, commit) && known >= HB_BV_GOOD && known <= HB_BV_SKIP) {
			printf("bisect-step: %.12s %s (recorded)\n", commit,
			       hb_bisect_v_name((enum hb_bisect_v)known));
			json_decref(steps);
			return known == HB_BV_GOOD ? 0 : known == HB_BV_BAD ? 1 : 125;
		}
	}
	printf("\n== bisect-step %s: %.12s %s\n", o->target, commit, subject);
	rc = load_ksrc_recipe(o->target, &r, why, sizeof(why));
	if (rc) {
		hb_err("%s", why);
		json_decref(steps);
		return HB_BISECT_STEP_ABORT;
	}
	rc = hb_bisect_build_run(o, &r, o->git, group, sizeof(group), &build_s, why, sizeof(why));
	hb_recipe_free(&r);
	if (rc > 1) {
		json_decref(steps);
		return HB_BISECT_STEP_ABORT;
	}
	if (!rc) {
		if (asprintf(&g[0], "%s/%s", o->dir, group) < 0) {
			json_decref(steps);
			return HB_BISECT_STEP_ABORT;
		}
		v = hb_bisect_judge_check(&o->spec, g, 1, why, sizeof(why));
		free(g[0]);
	}
	st = json_pack("{s:s, s:o, s:f, s:i, s:i, s:s, s:o, s:f}", "commit", commit, "patch",
		       hb_json_text(subject), "build_s", round(build_s * 10) / 10, "boots",
		       rc ? 0 : o->boots,
		       "try", 1, "verdict", hb_bisect_v_name(v), "why", hb_json_text(why), "step_s",
		       round((hb_mono_s() - t0) * 10) / 10);
	if (!st) {
		json_decref(steps);
		return HB_BISECT_STEP_ABORT;
	}
	if (!rc)
		json_object_set_new(st, "group", json_string(group));
	json_array_append_new(steps, st);
	rc = hb_bisect_steps_save(o, steps);
	json_decref(steps);
	printf("== bisect-step %.12s: %s: %s\n", commit, hb_bisect_v_name(v), why);
	if (rc)
		return HB_BISECT_STEP_ABORT;
	return v == HB_BV_GOOD ? 0 : v == HB_BV_BAD ? 1 : 125;
}

static void git_summary(const struct hb_bisect_opts *o, const char *first, const char *log)
{
	char path[PATH_MAX + 16];
	json_t *steps = hb_bisect_steps_load(o), *st;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/summary.md", o->dir);
	f = fopen(path, "w");
	if (!f) {
		hb_errno("bisect: cannot write %s", path);
		json_decref(steps);
		return;
	}
	fprintf(f, "# bisect %s (git %s, good %s, bad %s): %s%s%s\n\n**Result: %s**\n\n", o->target,
		o->git, o->good, o->bad, o->spec.workload, o->spec.name[0] ? "." : "", o->spec.name,
		first[0] ? first : "no first bad commit (see git-bisect.log and the steps)");
	fprintf(f, "`git bisect log`: %s\n\n## Steps (in order)\n\n"
		"| commit | subject | build s | boots | verdict | why | group |\n"
		"|---|---|---:|---:|---|---|---|\n", log);
	json_array_foreach(steps, i, st) {
		fprintf(f, "| %.12s | ", json_string_value(json_object_get(st, "commit")));
		hb_bisect_md_cell(f, json_string_value(json_object_get(st, "patch")));
		hb_bisect_md_step_tail(f, st);
	}
	fclose(f);
	json_decref(steps);
}

int hb_bisect_git(struct hb_bisect_opts *o)
{
	char exe[PATH_MAX], log[PATH_MAX + 32], err[1024], head[128] = "", boots[16], tries[16];
	char *argv[40], *what;
	char first[256] = "";
	struct hb_recipe r;
	ssize_t len;
	int n = 0, rc;

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
	if (git(o->git, head, sizeof(head), "rev-parse", "--git-dir", NULL, NULL)) {
		hb_err("bisect --git: %s is not a git work tree", o->git);
		return HB_EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++) {
		const char *ref = i ? o->bad : o->good;
		char spec[512];

		snprintf(spec, sizeof(spec), "%s^{commit}", ref);
		if (ref[0] == '-' || git(o->git, head, sizeof(head), "rev-parse", "--verify", "-q", spec)) {
			hb_err("bisect --git: %s is not a commit in %s", ref, o->git);
			return HB_EXIT_USAGE;
		}
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0) {
		hb_errno("bisect: cannot find the hugebench binary");
		return HB_EXIT_INFRA;
	}
	exe[len] = 0;
	snprintf(boots, sizeof(boots), "%d", o->boots);
	snprintf(tries, sizeof(tries), "%d", o->max_tries);
	if (git(o->git, NULL, 0, "bisect", "start", o->bad, o->good)) {
		hb_err("bisect --git: git bisect start %s %s failed in %s (a bisect in progress? "
		       "run: git -C %s bisect reset)", o->bad, o->good, o->git, o->git);
		return HB_EXIT_USAGE;
	}
	snprintf(log, sizeof(log), "%s%s%s", o->spec.workload, o->spec.name[0] ? "." : "",
		 o->spec.name);
	what = strdup(log);
	if (!what)
		return HB_EXIT_INFRA;
	{
		const char *const words[] = {
			"git", "-C", o->git, "bisect", "run", exe, "bisect-step", "--dir", o->dir,
			"--git", o->git, "--good", o->good, "--bad", o->bad, "--boots", boots,
			"--max-tries", tries, "--suite", o->suite_arg, "--results", o->results,
			"--check", what,
		};

		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			argv[n++] = (char *)words[i];
	}
	n = add_opt(argv, n, "--vcpus", o->vcpus);
	n = add_opt(argv, n, "--accel", o->accel);
	n = add_opt(argv, n, "--timeout", o->timeout);
	argv[n++] = "--";
	argv[n++] = (char *)o->target;
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s/git-bisect.log", o->dir);
	printf("bisect %s: git bisect run in %s (good %s, bad %s) -> %s\n", o->target, o->git,
	       o->good, o->bad, o->dir);
	{
		struct hb_spawn sp = { .argv = argv };

		rc = hb_run(&sp, NULL, NULL);
	}
	free(what);
	/* after a successful run, refs/bisect/bad is the first bad commit */
	if (rc == 0 && !git(o->git, head, sizeof(head), "rev-parse", "--verify", "-q",
			    "refs/bisect/bad")) {
		char subj[200] = "";

		git(o->git, subj, sizeof(subj), "log", "-1", "--format=%s", head);
		snprintf(first, sizeof(first), "%s (%s)", head, subj);
	}
	{
		char *const largv[] = { "git", "-C", (char *)o->git, "bisect", "log", NULL };
		static char buf[1 << 16];

		buf[0] = 0;
		hb_spawn_capture(largv, buf, sizeof(buf));
		if (hb_write_text(log, buf))
			hb_errno("bisect: cannot write %s", log);
	}
	git(o->git, NULL, 0, "bisect", "reset", NULL, NULL);
	git_summary(o, first, log);
	if (rc != 0 || !first[0]) {
		printf("bisect %s: git bisect run ended with exit %d and no first bad commit; see %s\n",
		       o->target, rc, log);
		return rc == 0 ? HB_EXIT_FAIL : HB_EXIT_INFRA;
	}
	printf("\nbisect %s: first bad commit %s\n%s/summary.md\n", o->target, first, o->dir);
	return 0;
}
