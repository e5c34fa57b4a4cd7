/* bisect/common.c - what `hugebench bisect` (bisect.c, bisect/git.c) and the
 * hidden `hugebench bisect-step` share: steps.json of the bisect folder,
 * and one step's build + boots (hb_recipe_build, then hb_run_group as
 * `hugebench run --target <bzImage> --boots N` would, into the folder's
 * runs/). Their options are parsed in bisect.c.
 */
#define _GNU_SOURCE
#include "bisect.h"
#include "recipe.h"
#include "run.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

json_t *hb_bisect_steps_load(const struct hb_bisect_opts *o)
{
	char path[PATH_MAX + 16];
	json_t *root, *steps;

	snprintf(path, sizeof(path), "%s/steps.json", o->dir);
	root = hb_is_file(path) ? json_load_file(path, JSON_REJECT_DUPLICATES, NULL) : NULL;
	steps = json_object_get(root, "steps");
	steps = json_is_array(steps) ? json_incref(steps) : json_array();
	json_decref(root);
	return steps;
}

int hb_bisect_steps_save(const struct hb_bisect_opts *o, json_t *steps, char *err, size_t errlen)
{
	char path[PATH_MAX + 16], *text;
	json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:O}", "schema",
				 "hugebench-bisect/1", "target", o->target, "mode",
				 o->spec.mode == HB_BISECT_CHECK ? "check" : "metric", "what", "",
				 "boots", o->boots, "max_tries", o->max_tries, "steps", steps);
	int rc;

	if (!root) {
		hb_set_err(err, errlen, "bisect: out of memory recording the steps of %s", o->dir);
		return -ENOMEM;
	}
	json_object_set_new(root, "what",
			    json_sprintf("%s%s%s", o->spec.workload, o->spec.name[0] ? "." : "",
					 o->spec.name));
	if (!isnan(o->spec.min_effect_pct))
		json_object_set_new(root, "min_effect_pct", json_real(o->spec.min_effect_pct));
	if (o->git)
		json_object_set_new(root, "git", json_pack("{s:s, s:s, s:s}", "path", o->git, "good",
							   o->good, "bad", o->bad));
	snprintf(path, sizeof(path), "%s/steps.json", o->dir);
	text = json_dumps(root, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(6));
	rc = text ? hb_write_text(path, text) : -1;
	if (rc) {
		hb_set_err(err, errlen, "bisect: cannot write %s: %s", path,
			   strerror(text ? errno : ENOMEM));
		rc = text ? -EIO : -ENOMEM;
	}
	free(text);
	json_decref(root);
	return rc;
}

/* A build error that `git bisect skip` would skip: the patch or the code. */
static bool skippable(const char *err)
{
	return strstr(err, "does not apply") || strstr(err, "compile failed") ||
	       strstr(err, "failed to apply");
}

int hb_bisect_build_run(const struct hb_bisect_opts *o, struct hb_recipe *r, const char *ksrc,
			char *group, size_t glen, double *build_s, bool *skip, char *why,
			size_t whylen)
{
	struct hb_kernel_build b;
	char err[1024], runs[PATH_MAX], gdir[PATH_MAX];
	struct run_opts ro;
	double t0 = hb_mono_s();
	int rc;

	if (hb_cache_ensure()) {
		snprintf(why, whylen, "bisect: cannot create the cache %s: %s", hb_cache_dir(),
			 strerror(errno));
		*build_s = 0;
		*skip = false;
		group[0] = 0;
		return -EIO;
	}
	rc = hb_recipe_build(r, hb_cache_dir(), ksrc, &b, err, sizeof(err));
	*build_s = hb_mono_s() - t0;
	*skip = rc == -EINVAL && skippable(err);
	group[0] = 0;
	if (rc) {
		snprintf(why, whylen, *skip ? "%s" : "bisect: %s", err);
		return *skip ? 0 : rc;
	}
	snprintf(runs, sizeof(runs), "%s/runs", o->dir);
	hb_run_opts_default(&ro);
	ro.target = b.bzimage;
	ro.suite = o->suite_arg;
	ro.boots = o->boots;
	ro.results = runs;
	if (o->vcpus) {
		ro.vcpus = o->vcpus_n;
		ro.vcpus_given = true;
	}
	if (o->accel)
		ro.accel = o->accel;
	if (o->timeout)
		ro.timeout_s = o->timeout_s;
	gdir[0] = 0;
	rc = hb_run_opts_check(&ro);
	if (!rc)
		rc = hb_run_group(&ro, true, gdir, sizeof(gdir));
	if (hb_interrupted) {
		snprintf(why, whylen, "bisect: interrupted; the same command resumes from %s", o->dir);
		return -EINTR;
	}
	if (!gdir[0] || rc == HB_EXIT_USAGE) {
		snprintf(why, whylen, "bisect: hugebench run of %s failed before booting (exit %d)",
			 b.bzimage, rc);
		return rc > 1 ? hb_exit_errno(rc) : -EIO;
	}
	/* relative to the bisect folder, which may move */
	snprintf(group, glen, "%s/group.json", gdir + strlen(o->dir) + 1);
	return 0;
}

void hb_bisect_totals(json_t *steps, struct hb_bisect_answer *a)
{
	json_t *st;
	size_t i;

	a->steps = a->builds = a->boots = 0;
	a->wall_s = a->build_s = 0;
	json_array_foreach(steps, i, st) {
		a->steps++;
		a->boots += (int)json_integer_value(json_object_get(st, "boots"));
		a->builds += json_integer_value(json_object_get(st, "try")) == 1;
		a->wall_s += json_number_value(json_object_get(st, "step_s"));
		a->build_s += json_number_value(json_object_get(st, "build_s"));
	}
}

/* s as one markdown table cell: | escaped, line ends as blanks. */
void hb_bisect_md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
	fputs(" | ", f);
}

void hb_bisect_md_step_tail(FILE *f, json_t *st)
{
	const char *group = json_string_value(json_object_get(st, "group"));

	fprintf(f, "%.1f | %lld | ", json_number_value(json_object_get(st, "build_s")),
		json_integer_value(json_object_get(st, "boots")));
	hb_bisect_md_cell(f, json_string_value(json_object_get(st, "verdict")));
	hb_bisect_md_cell(f, json_string_value(json_object_get(st, "why")));
	hb_bisect_md_cell(f, group ? group : "-");
	fputc('\n', f);
}

int hb_bisect_answer_write(const struct hb_bisect_opts *o, enum hb_bisect_outcome oc,
			   const char *line, json_t *first_bad, json_t *candidates)
{
	char path[PATH_MAX + 16], *text;
	json_t *root = json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:o}", "schema",
				 "hugebench-bisect-answer/1", "target", o->target, "outcome",
				 hb_bisect_outcome_name(oc), "exit_code", hb_bisect_exit_code(oc),
				 "answer", hb_json_text(line), "first_bad",
				 first_bad ? first_bad : json_null(), "candidates",
				 candidates ? candidates : json_array());
	int rc;

	if (!root)
		return -1;
	snprintf(path, sizeof(path), "%s/answer.json", o->dir);
	text = json_dumps(root, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	rc = text ? hb_write_text(path, text) : -1;
	if (rc)
		hb_errno("bisect: cannot write %s", path);
	free(text);
	json_decref(root);
	return rc;
}

size_t hb_bisect_groups(const struct hb_bisect_opts *o, json_t *steps,
			bool (*match)(json_t *step, const void *arg), const void *arg, char **out,
			size_t max)
{
	size_t i, n = 0;
	json_t *st;

	json_array_foreach(steps, i, st) {
		const char *g = json_string_value(json_object_get(st, "group"));

		if (!g || n >= max || !match(st, arg))
			continue;
		if (asprintf(&out[n], "%s/%s", o->dir, g) < 0)
			break;
		n++;
	}
	return n;
}

void hb_bisect_free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

/* The command's exit code for an answer (docs/exit-codes.md): a table of the
 * answer, here because answer.json and summary.md record it too; only
 * hb_cmd_bisect returns it. */
int hb_bisect_exit_code(enum hb_bisect_outcome oc)
{
	switch (oc) {
	case HB_BO_FOUND: return HB_EXIT_OK;
	case HB_BO_NONE: return HB_EXIT_FAIL;
	case HB_BO_AMBIGUOUS: return HB_BISECT_EXIT_AMBIGUOUS;
	case HB_BO_BASE_BAD: return HB_BISECT_EXIT_BASE_BAD;
	}
	return HB_EXIT_INFRA;
}
