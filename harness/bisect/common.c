/* bisect/common.c - what `hugebench bisect` (bisect.c, bisect/git.c) and the
 * hidden `hugebench bisect-step` share: the options, steps.json of the bisect
 * folder, and one step's build + boots (hb_recipe_build, then hb_run_main as
 * `hugebench run --target <bzImage> --boots N`, into the folder's runs/).
 */
#define _GNU_SOURCE
#include "bisect.h"
#include "recipe.h"
#include "run.h"
#include "util.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(FILE *to)
{
	fprintf(to,
		"usage: hugebench bisect TARGET --check WORKLOAD[.CHECK] [options]\n"
		"       hugebench bisect TARGET --metric WORKLOAD.METRIC [--min-effect PCT] [options]\n"
		"       hugebench bisect TARGET --git PATH --good REF --bad REF --check ... [options]\n"
		"TARGET: a source recipe with patches/series (git mode: a source=ksrc recipe).\n"
		"options: --boots N (per step; default 1 for --check, 3 for --metric)\n"
		"         --max-tries N (judgements of an uncertain step, each with N more boots; 3)\n"
		"         --suite NAME|FILE (default: the workload's line of configs/smoke.suite or\n"
		"         configs/boots.suite, else the workload alone) --results DIR\n"
		"         --vcpus N --accel auto|tcg|kvm --timeout SECONDS (passed to run)\n"
		"Writes results/bisect-<target>-<key>/ (steps.json, summary.md); run it again to\n"
		"resume. Exit 0 first bad patch found, 1 none found, 2 usage, 3 infrastructure.\n");
	return HB_EXIT_USAGE;
}

static const struct option lo[] = {
	{ "check", required_argument, 0, 'c' },	   { "metric", required_argument, 0, 'm' },
	{ "min-effect", required_argument, 0, 'e' }, { "boots", required_argument, 0, 'B' },
	{ "max-tries", required_argument, 0, 'T' },  { "suite", required_argument, 0, 's' },
	{ "results", required_argument, 0, 'r' },    { "vcpus", required_argument, 0, 'v' },
	{ "accel", required_argument, 0, 'a' },	   { "timeout", required_argument, 0, 't' },
	{ "git", required_argument, 0, 'g' },	   { "good", required_argument, 0, 'G' },
	{ "bad", required_argument, 0, 'b' },	   { "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 }
};

int hb_bisect_parse(int argc, char **argv, struct hb_bisect_opts *o, const struct option *extra,
		 int (*more)(int ch, struct hb_bisect_opts *o))
{
	struct option all[32];
	const char *check = NULL, *metric = NULL, *min_effect = NULL;
	char err[512];
	int ch, n = 0, boots = 0;

	memset(o, 0, sizeof(*o));
	o->max_tries = 3;
	for (int i = 0; lo[i].name; i++)
		all[n++] = lo[i];
	for (int i = 0; extra && extra[i].name; i++)
		all[n++] = extra[i];
	all[n] = (struct option){ 0, 0, 0, 0 };
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", all, NULL)) != -1) {
		int bad = 0;
		double d;

		switch (ch) {
		case 'c': check = optarg; break;
		case 'm': metric = optarg; break;
		case 'e': min_effect = optarg; break;
		case 'B': bad = hb_parse_int("--boots", optarg, 1, 50, &boots); break;
		case 'T': bad = hb_parse_int("--max-tries", optarg, 1, 10, &o->max_tries); break;
		case 's': o->suite = optarg; break;
		case 'r': o->results = optarg; break;
		case 'v': o->vcpus = optarg; bad = hb_parse_double("--vcpus", optarg, 1, 64, &d); break;
		case 'a': o->accel = optarg; break;
		case 't': o->timeout = optarg; bad = hb_parse_double("--timeout", optarg, 1, 86400, &d); break;
		case 'g': o->git = optarg; break;
		case 'G': o->good = optarg; break;
		case 'b': o->bad = optarg; break;
		case 'h': usage(stdout); return -1;
		default:
			if (more && ch >= 0x100 && !more(ch, o))
				break;
			return usage(stderr);
		}
		if (bad)
			return HB_EXIT_USAGE;
	}
	if (!check == !metric) {
		hb_err("bisect: give one of --check WORKLOAD[.CHECK] or --metric WORKLOAD.METRIC");
		return HB_EXIT_USAGE;
	}
	if (hb_bisect_spec_parse(check ? HB_BISECT_CHECK : HB_BISECT_METRIC, check ? check : metric,
				 &o->spec, err, sizeof(err))) {
		hb_err("bisect: %s", err);
		return HB_EXIT_USAGE;
	}
	if (min_effect) {
		if (check) {
			hb_err("bisect: --min-effect is for --metric; a check passes or fails");
			return HB_EXIT_USAGE;
		}
		if (hb_parse_double("--min-effect", min_effect, 0.1, 1000, &o->spec.min_effect_pct))
			return HB_EXIT_USAGE;
	}
	o->boots = boots ? boots : check ? 1 : 3;
	if (metric && o->boots < 3)
		hb_info("bisect: --metric with %d boots per step: the rule needs a calibration "
			"(hugebench calibrate) below 3", o->boots);
	if (!o->results) {
		static char rdir[PATH_MAX];

		snprintf(rdir, sizeof(rdir), "%s/results", hb_root());
		o->results = rdir;
	}
	return 0;
}

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

int hb_bisect_steps_save(const struct hb_bisect_opts *o, json_t *steps)
{
	char path[PATH_MAX + 16], *text;
	json_t *root = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:O}", "schema",
				 "hugebench-bisect/1", "target", o->target, "mode",
				 o->spec.mode == HB_BISECT_CHECK ? "check" : "metric", "what", "",
				 "boots", o->boots, "max_tries", o->max_tries, "steps", steps);
	int rc;

	if (!root)
		return -1;
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
	if (rc)
		hb_errno("bisect: cannot write %s", path);
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
			char *group, size_t glen, double *build_s, char *why, size_t whylen)
{
	struct hb_kernel_build b;
	char err[1024], runs[PATH_MAX], gdir[PATH_MAX], boots[16];
	char *argv[20];
	double t0 = hb_mono_s();
	int rc, n = 0;

	rc = hb_recipe_build(r, hb_cache_dir(), ksrc, &b, err, sizeof(err));
	*build_s = hb_mono_s() - t0;
	if (rc) {
		snprintf(why, whylen, "%s", err);
		if (rc == HB_EXIT_USAGE && skippable(err))
			return 1;
		hb_err("bisect: %s", err);
		return rc;
	}
	snprintf(runs, sizeof(runs), "%s/runs", o->dir);
	snprintf(boots, sizeof(boots), "%d", o->boots);
	argv[n++] = "run";
	argv[n++] = "--target";
	argv[n++] = b.bzimage;
	argv[n++] = "--suite";
	argv[n++] = (char *)o->suite_arg;
	argv[n++] = "--boots";
	argv[n++] = boots;
	argv[n++] = "--results";
	argv[n++] = runs;
	if (o->vcpus) {
		argv[n++] = "--vcpus";
		argv[n++] = (char *)o->vcpus;
	}
	if (o->accel) {
		argv[n++] = "--accel";
		argv[n++] = (char *)o->accel;
	}
	if (o->timeout) {
		argv[n++] = "--timeout";
		argv[n++] = (char *)o->timeout;
	}
	argv[n] = NULL;
	gdir[0] = 0;
	rc = hb_run_main(n, argv, true, gdir, sizeof(gdir));
	if (hb_interrupted) {
		hb_err("bisect: interrupted; the same command resumes from %s", o->dir);
		return HB_EXIT_INFRA;
	}
	if (!gdir[0] || rc == HB_EXIT_USAGE) {
		hb_err("bisect: hugebench run of %s failed before booting (exit %d)", b.bzimage, rc);
		return rc > 1 ? rc : HB_EXIT_INFRA;
	}
	/* relative to the bisect folder, which may move */
	snprintf(group, glen, "%s/group.json", gdir + strlen(o->dir) + 1);
	return 0;
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
