/* bisect.c - `hugebench bisect TARGET`: find the first patch of a source
 * recipe's series that makes a check fail (--check) or a metric worse
 * (--metric, against the boots of the base, k = 0). Each step builds the
 * recipe with only the first k patches of its own series (incrementally, in
 * the recipe's cached tree), boots it, runs the suite and judges the result
 * (bisect/judge.c); bisect/search.c picks the next k. Every step goes to
 * results/bisect-<target>-<key12>/steps.json as it ends, and summary.md
 * names the answer; the same command again resumes from that folder (the
 * key is a hash of the target's series and the options). --git PATH goes to
 * bisect/git.c instead, whose steps are the hidden `bisect-step` command;
 * the options of both commands are parsed here, steps.json and one step's
 * build and boots are in bisect/common.c.
 */
#define _GNU_SOURCE
#include "commands.h"
#include "bisect.h"
#include "boot.h"
#include "recipe.h"
#include "target.h"
#include "sysinfo.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(FILE *to)
{
	fprintf(to,
		"usage: hugebench bisect TARGET --check WORKLOAD[.CHECK] [options]\n"
		"       hugebench bisect TARGET --metric WORKLOAD.METRIC [--min-effect PCT] [options]\n"
		"       hugebench bisect TARGET --git PATH --good REF --bad REF --check|--metric ...\n"
		"TARGET: a source recipe with patches/series (git mode: a source=ksrc recipe).\n"
		"options: --boots N (per step; default 1 for --check, 3 for --metric)\n"
		"         --max-tries N (judgements of an uncertain step, each with N more boots; 3)\n"
		"         --crash bad|skip (a boot that panicked, hung, timed out or logged a kernel\n"
		"         BUG/WARNING/Oops makes its step bad; skip: judge the check or metric alone)\n"
		"         --suite NAME|FILE (default: the workload's line of configs/smoke.suite or\n"
		"         configs/boots.suite, else the workload alone) --results DIR\n"
		"         --vcpus N --accel auto|tcg|kvm --timeout SECONDS (passed to run)\n"
		"Writes results/bisect-<target>-<key>/ (steps.json, summary.md, answer.json);\n"
		"run it again to resume. Exit 0 first bad patch or commit found, 1 none (the bad\n"
		"side is good), 2 usage, 3 infrastructure, 4 ambiguous (a candidate range:\n"
		"skipped steps), 5 the good side (base, --good) is already bad.\n");
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
	{ "crash", required_argument, 0, 'C' },	   { 0, 0, 0, 0 }
};

/* Options common to bisect and bisect-step; bisect-step's --dir DIR into
 * *dir (NULL: bisect, which has no --dir). Positional words are left from
 * optind. 0, -1 (help printed) or an exit code, with one line said. */
static int parse(int argc, char **argv, struct hb_bisect_opts *o, const char **dir)
{
	struct option all[sizeof(lo) / sizeof(lo[0]) + 1];
	const char *check = NULL, *metric = NULL, *min_effect = NULL, *crash = NULL;
	char err[512];
	int ch, n = 0, boots = 0;

	memset(o, 0, sizeof(*o));
	o->max_tries = 3;
	for (int i = 0; lo[i].name; i++)
		all[n++] = lo[i];
	if (dir)
		all[n++] = (struct option){ "dir", required_argument, 0, 'd' };
	all[n] = (struct option){ 0, 0, 0, 0 };
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", all, NULL)) != -1) {
		int bad = 0;

		switch (ch) {
		case 'c': check = optarg; break;
		case 'm': metric = optarg; break;
		case 'e': min_effect = optarg; break;
		case 'B': bad = hb_parse_int("--boots", optarg, 1, 50, &boots); break;
		case 'T': bad = hb_parse_int("--max-tries", optarg, 1, 10, &o->max_tries); break;
		case 's': o->suite = optarg; break;
		case 'r': o->results = optarg; break;
		case 'v': o->vcpus = optarg; bad = hb_parse_int("--vcpus", optarg, 1, 64, &o->vcpus_n); break;
		case 'a': o->accel = optarg; break;
		case 't':
			o->timeout = optarg;
			bad = hb_parse_double("--timeout", optarg, 1, 86400, &o->timeout_s);
			break;
		case 'g': o->git = optarg; break;
		case 'G': o->good = optarg; break;
		case 'b': o->bad = optarg; break;
		case 'd': *dir = optarg; break;
		case 'C': crash = optarg; break;
		case 'h': usage(stdout); return -1;
		default: return usage(stderr);
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
	if (crash && strcmp(crash, "bad") && strcmp(crash, "skip")) {
		hb_err("bisect: --crash '%s': want bad (the default) or skip", crash);
		return HB_EXIT_USAGE;
	}
	o->spec.crash = crash && !strcmp(crash, "skip") ? HB_BISECT_CRASH_SKIP : HB_BISECT_CRASH_BAD;
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

/* The suite: --suite, else one line for the workload (bisect.suite in the
 * bisect folder), taken from a small shipped suite when it has one. 0, or
 * -errno with err ("" when the suite's check said why). */
static int pick_suite(struct hb_bisect_opts *o, char *err, size_t errlen)
{
	static const char *const from[] = { "smoke", "boots" };
	char path[PATH_MAX + 16], line[512] = "", spath[PATH_MAX], sname[64], *text = NULL;
	int rc;

	if (o->suite) {
		snprintf(o->suite_arg, sizeof(o->suite_arg), "%s", o->suite);
	} else {
		for (size_t i = 0; i < 2 && !line[0]; i++) {
			char *t, *save = NULL;

			snprintf(path, sizeof(path), "%s/configs/%s.suite", hb_root(), from[i]);
			t = hb_slurp(path, NULL);
			for (char *l = t ? strtok_r(t, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
				if (!strncmp(l, o->spec.workload, strlen(o->spec.workload)) &&
				    (l[strlen(o->spec.workload)] == ' ' || !l[strlen(o->spec.workload)])) {
					snprintf(line, sizeof(line), "%s", l);
					break;
				}
			free(t);
		}
		if (!line[0])
			snprintf(line, sizeof(line), "%s", o->spec.workload);
		snprintf(o->suite_arg, sizeof(o->suite_arg), "%s/bisect.suite", o->dir);
		snprintf(path, sizeof(path), "# hugebench bisect: what --%s %s needs\n%s\n",
			 o->spec.mode == HB_BISECT_CHECK ? "check" : "metric", o->spec.workload, line);
		if (hb_write_text(o->suite_arg, path)) {
			hb_set_err(err, errlen, "bisect: cannot write %s: %s", o->suite_arg,
				   strerror(errno));
			return -EIO;
		}
	}
	/* checked against the workloads' parameter tables now, not after a build */
	rc = hb_exit_errno(hb_boot_load_suite(o->suite_arg, spath, sizeof(spath), sname,
					      sizeof(sname), &text, NULL));
	if (!rc && !strstr(text, o->spec.workload)) {
		hb_set_err(err, errlen, "bisect: suite %s has no %s line; --suite must run the "
			   "workload judged", o->suite_arg, o->spec.workload);
		rc = -EINVAL;
	}
	free(text);
	return rc;
}

/* results/bisect-<target>-<key12>: the key covers everything a verdict
 * depends on, so the same command finds its folder again. 0, or -errno
 * with err. */
static int make_dir(struct hb_bisect_opts *o, const struct hb_recipe *r, char *err, size_t errlen)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[32];
	char buf[8192], hex[65];
	unsigned len = 0;

	if (!ctx) {
		hb_set_err(err, errlen, "bisect: out of memory");
		return -ENOMEM;
	}
	snprintf(buf, sizeof(buf),
		 "hugebench-bisect/2\ntarget %s\nmode %d %s %s %g crash %d\nboots %d %d\n"
		 "suite %s\nrun %s %s %s\ngit %s %s %s\n",
		 o->target, (int)o->spec.mode, o->spec.workload, o->spec.name,
		 o->spec.min_effect_pct, (int)o->spec.crash, o->boots, o->max_tries,
		 o->suite ? o->suite : "-",
		 o->vcpus ? o->vcpus : "-", o->accel ? o->accel : "-", o->timeout ? o->timeout : "-",
		 o->git ? o->git : "-", o->good ? o->good : "-", o->bad ? o->bad : "-");
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	EVP_DigestUpdate(ctx, buf, strlen(buf));
	for (size_t i = 0; r && i < r->n_patches; i++) {
		if (hb_sha256_file(r->patches[i], hex)) {
			hb_set_err(err, errlen, "bisect: cannot read %s: %s", r->patches[i],
				   strerror(errno));
			EVP_MD_CTX_free(ctx);
			return -EINVAL;
		}
		EVP_DigestUpdate(ctx, hex, 64);
	}
	EVP_DigestFinal_ex(ctx, md, &len);
	EVP_MD_CTX_free(ctx);
	hb_hex(md, 6, hex);
	snprintf(o->dir, sizeof(o->dir), "%s/bisect-%s-%.12s", o->results, o->target, hex);
	if (hb_mkdir_p(o->dir)) {
		hb_set_err(err, errlen, "bisect: cannot create %s: %s", o->dir, strerror(errno));
		return -EIO;
	}
	return 0;
}

/* ---- series mode ------------------------------------------------------------ */

struct series {
	struct hb_recipe r;
	size_t first; /* index of the first own patch (base recipes' come before) */
	int n;	      /* own patches: k in [0, n] */
	enum hb_bisect_v v[1024];
	int tries[1024];
};

static const char *patch_name(const struct series *s, int k)
{
	const char *p;

	if (k <= 0)
		return "(base: no patch of the series)";
	p = strrchr(s->r.patches[s->first + (size_t)k - 1], '/');
	return p ? p + 1 : s->r.patches[s->first + (size_t)k - 1];
}

/* A step of prefix *(const int *)arg. */
static bool step_of_k(json_t *st, const void *arg)
{
	return json_integer_value(json_object_get(st, "k")) == *(const int *)arg;
}

/* Build, boot and judge prefix k once more; the step is appended to steps.
 * 0, or -errno with err. */
static int step(const struct hb_bisect_opts *o, struct series *s, json_t *steps, int k, bool base,
		char *err, size_t errlen)
{
	char group[PATH_MAX] = "", why[1024] = "", *ga[64], *gb[64];
	size_t full = s->r.n_patches, na = 0, nb;
	double build_s = 0, t0 = hb_mono_s();
	enum hb_bisect_v v;
	bool skip = false;
	json_t *st;
	int rc;

	printf("\n== bisect %s: k=%d of %d (%s), try %d\n", o->target, k, s->n, patch_name(s, k),
	       s->tries[k] + 1);
	s->r.n_patches = s->first + (size_t)k;
	rc = hb_bisect_build_run(o, &s->r, NULL, group, sizeof(group), &build_s, &skip, why,
				 sizeof(why));
	s->r.n_patches = full;
	if (rc) {
		hb_set_err(err, errlen, "%s", why);
		return rc;
	}
	st = json_pack("{s:i, s:s, s:f, s:i, s:i}", "k", k, "patch", patch_name(s, k), "build_s",
		       round(build_s * 10) / 10, "boots", skip ? 0 : o->boots, "try",
		       s->tries[k] + 1);
	if (!st) {
		hb_set_err(err, errlen, "bisect: out of memory recording k=%d", k);
		return -ENOMEM;
	}
	if (skip) {
		v = HB_BV_SKIP;
	} else {
		json_object_set_new(st, "group", json_string(group));
		json_array_append(steps, st); /* the judge reads every group of k */
		nb = hb_bisect_groups(o, steps, step_of_k, &k, gb, 64);
		na = base || o->spec.mode == HB_BISECT_CHECK
			     ? 0
			     : hb_bisect_groups(o, steps, step_of_k, &(const int){ 0 }, ga, 64);
		v = hb_bisect_judge(&o->spec, base, ga, na, gb, nb, why, sizeof(why));
		hb_bisect_free_strs(ga, na);
		hb_bisect_free_strs(gb, nb);
		json_array_remove(steps, json_array_size(steps) - 1);
	}
	json_object_set_new(st, "verdict", json_string(hb_bisect_v_name(v)));
	json_object_set_new(st, "why", hb_json_text(why));
	json_object_set_new(st, "step_s", json_real(round((hb_mono_s() - t0) * 10) / 10));
	json_array_append_new(steps, st);
	s->v[k] = v;
	s->tries[k]++;
	printf("== bisect %s: k=%d %s: %s (build %.1f s)\n", o->target, k, hb_bisect_v_name(v), why,
	       build_s);
	return hb_bisect_steps_save(o, steps, err, errlen);
}

/* The latest step of k (its verdict and why). */
static json_t *last_of(json_t *steps, int k)
{
	json_t *st, *last = NULL;
	size_t i;

	json_array_foreach(steps, i, st)
		if (json_integer_value(json_object_get(st, "k")) == k)
			last = st;
	return last;
}

/* The answer into a (line, totals), summary.md and answer.json. */
static void summary(const struct hb_bisect_opts *o, const struct series *s, json_t *steps,
		    const struct hb_bisect_next *nx, struct hb_bisect_answer *a)
{
	char path[PATH_MAX + 16], *res = a->line;
	size_t i, len = sizeof(a->line);
	json_t *st;
	FILE *f;

	hb_bisect_totals(steps, a);
	switch (nx->outcome) {
	case HB_BO_FOUND:
		snprintf(res, len, "first bad patch: %d/%d %s", nx->first_bad, s->n,
			 patch_name(s, nx->first_bad));
		break;
	case HB_BO_NONE:
		snprintf(res, len, "no bad patch: the whole series (k=%d) is good", s->n);
		break;
	case HB_BO_BASE_BAD:
		snprintf(res, len, "the base (k=0, no patch) is already bad");
		break;
	default:
		snprintf(res, len, "%s: the first bad patch is one of "
			 "%d..%d (%s .. %s)", a->budget_spent ? "budget of steps spent" :
			 "ambiguous (skipped steps)", nx->lo + 1, nx->hi, patch_name(s, nx->lo + 1),
			 patch_name(s, nx->hi));
	}
	{
		json_t *first = NULL, *cands = json_array();

		if (nx->outcome == HB_BO_FOUND)
			first = json_pack("{s:i, s:s}", "k", nx->first_bad, "patch",
					  patch_name(s, nx->first_bad));
		for (int k = nx->lo + 1; nx->outcome == HB_BO_AMBIGUOUS && k <= nx->hi; k++)
			json_array_append_new(cands, json_pack("{s:i, s:s, s:s}", "k", k, "patch",
							       patch_name(s, k), "verdict",
							       hb_bisect_v_name(s->v[k])));
		hb_bisect_answer_write(o, nx->outcome, res, first, cands);
	}
	snprintf(path, sizeof(path), "%s/summary.md", o->dir);
	f = fopen(path, "w");
	if (!f) {
		hb_errno("bisect: cannot write %s", path);
		return;
	}
	fprintf(f, "# bisect %s: %s%s%s\n\n**Result: %s** (exit %d)\n\n", o->target,
		o->spec.workload, o->spec.name[0] ? "." : "", o->spec.name, res,
		hb_bisect_exit_code(nx->outcome));
	fprintf(f, "Mode: %s; %d boots per step (up to %d tries of an uncertain one); suite `%s`; "
		"a boot that crashed, hung or warned is %s.\n"
		"%d builds, %d boots, %.0f s wall (%.0f s building).\n\n",
		o->spec.mode == HB_BISECT_CHECK ? "functional (--check)" : "performance (--metric, "
		"compare-report rule against k=0)", o->boots, o->max_tries, o->suite_arg,
		o->spec.crash == HB_BISECT_CRASH_BAD ? "bad (--crash bad)" : "not judged (--crash skip)",
		a->builds, a->boots, a->wall_s, a->build_s);
	if (nx->outcome == HB_BO_FOUND) {
		json_t *bad = last_of(steps, nx->first_bad), *good = last_of(steps, nx->lo);

		fprintf(f, "## Evidence\n\n- k=%d (%s) **bad**: %s (`%s`)\n", nx->first_bad,
			patch_name(s, nx->first_bad),
			json_string_value(json_object_get(bad, "why")),
			json_string_value(json_object_get(bad, "group")));
		if (good)
			fprintf(f, "- k=%d (%s) good: %s (`%s`)\n", nx->lo, patch_name(s, nx->lo),
				json_string_value(json_object_get(good, "why")),
				json_string_value(json_object_get(good, "group")));
		else
			fprintf(f, "- k=%d (the base) taken as good (not built)\n", nx->lo);
		fprintf(f, "\n");
	}
	fprintf(f, "## Series\n\n| k | patch | verdict |\n|---:|---|---|\n");
	for (int k = 0; k <= s->n; k++)
		fprintf(f, "| %d | %s | %s |\n", k, patch_name(s, k), hb_bisect_v_name(s->v[k]));
	fprintf(f, "\n## Steps (in order)\n\n| k | try | build s | boots | verdict | why | group |\n"
		"|---:|---:|---:|---:|---|---|---|\n");
	json_array_foreach(steps, i, st) {
		fprintf(f, "| %lld | %lld | ", json_integer_value(json_object_get(st, "k")),
			json_integer_value(json_object_get(st, "try")));
		hb_bisect_md_step_tail(f, st);
	}
	fclose(f);
}

/* The recipe, with its own series counted apart from its base's. 0, or
 * -errno with err. */
static int load_series(struct hb_bisect_opts *o, struct series *s, char *err, size_t errlen)
{
	char kdir[PATH_MAX];
	struct hb_target t;
	int rc;

	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	rc = hb_target_parse(o->target, kdir, &t, err, errlen);
	if (rc)
		return rc;
	if (t.kind != HB_TARGET_RECIPE) {
		hb_set_err(err, errlen, "bisect: target %s is not a recipe under kernels/", o->target);
		return -EINVAL;
	}
	if (hb_recipe_load(t.path, &s->r, err, errlen))
		return -EINVAL;
	rc = -EINVAL;
	if (s->r.kind != HB_RECIPE_SOURCE) {
		hb_set_err(err, errlen, "bisect: recipe %s is kind=debian: bisect needs a source "
			   "recipe with patches/series (kind=source)", o->target);
		goto bad;
	}
	if (s->r.base[0]) {
		struct hb_recipe b;

		snprintf(kdir, sizeof(kdir), "%s/%s", s->r.kernels_dir, s->r.base);
		if (hb_recipe_load(kdir, &b, err, errlen))
			goto bad;
		s->first = b.n_patches;
		hb_recipe_free(&b);
	}
	s->n = (int)(s->r.n_patches - s->first);
	if (!o->git && s->n < 1) {
		hb_set_err(err, errlen, "bisect: recipe %s has no patches of its own in "
			   "%s/patches/series: nothing to bisect (list the series there, or use "
			   "--git PATH --good REF --bad REF)", o->target, s->r.dir);
		goto bad;
	}
	if (s->n >= 1023) {
		hb_set_err(err, errlen, "bisect: recipe %s has %d patches; at most 1022", o->target,
			   s->n);
		goto bad;
	}
	return 0;
bad:
	hb_recipe_free(&s->r);
	return rc;
}

/* Stopped by max_steps: what the verdicts so far leave (last good below
 * the first bad). */
static void budget_range(const struct series *s, struct hb_bisect_next *nx)
{
	nx->action = HB_BA_DONE;
	nx->outcome = HB_BO_AMBIGUOUS;
	nx->first_bad = -1;
	nx->hi = s->n;
	for (int k = 1; k <= s->n; k++)
		if (s->v[k] == HB_BV_BAD) {
			nx->hi = k;
			break;
		}
	nx->lo = 0;
	for (int k = 0; k < nx->hi; k++)
		if (s->v[k] == HB_BV_GOOD)
			nx->lo = k;
}

/* The search, from the steps recorded to the answer in *a: 0, or -errno
 * with err. */
static int run_series(struct hb_bisect_opts *o, struct series *s, struct hb_bisect_answer *a,
		      char *err, size_t errlen)
{
	json_t *steps = hb_bisect_steps_load(o), *st;
	struct hb_bisect_next nx;
	size_t i;
	int rc = 0;

	json_array_foreach(steps, i, st) {
		json_int_t k = json_integer_value(json_object_get(st, "k"));
		int v = hb_bisect_v_parse(json_string_value(json_object_get(st, "verdict")));

		if (k < 0 || k > s->n || v < 0)
			continue;
		s->v[k] = (enum hb_bisect_v)v;
		s->tries[k]++;
	}
	if (json_array_size(steps))
		printf("bisect %s: resuming from %s (%zu steps recorded)\n", o->target, o->dir,
		       json_array_size(steps));
	else
		printf("bisect %s: %d patches, %s %s%s%s -> %s\n", o->target, s->n,
		       o->spec.mode == HB_BISECT_CHECK ? "check" : "metric", o->spec.workload,
		       o->spec.name[0] ? "." : "", o->spec.name, o->dir);
	/* performance: the base's boots are the reference of every step */
	if (o->spec.mode == HB_BISECT_METRIC && s->v[0] != HB_BV_GOOD && s->v[0] != HB_BV_BAD) {
		rc = step(o, s, steps, 0, true, err, errlen);
		if (!rc && s->v[0] == HB_BV_SKIP) {
			hb_set_err(err, errlen, "bisect: the base (k=0), the metric's reference, did "
				   "not build or boot: %s",
				   json_string_value(json_object_get(last_of(steps, 0), "why")));
			rc = -EIO;
		}
	}
	while (!rc) {
		if (hb_bisect_next(s->v, s->tries, s->n, o->max_tries, &nx)) {
			/* (not the user's input: load_series and the parse above vouch for it) */
			hb_set_err(err, errlen, "bisect: the search refused the verdicts of %s",
				   o->dir);
			rc = -EIO;
			break;
		}
		if (nx.action == HB_BA_DONE)
			break;
		if (o->max_steps > 0 && (int)json_array_size(steps) >= o->max_steps) {
			a->budget_spent = true;
			budget_range(s, &nx);
			break;
		}
		rc = step(o, s, steps, nx.k, false, err, errlen);
	}
	if (!rc) {
		summary(o, s, steps, &nx, a);
		a->answered = true;
		a->outcome = nx.outcome;
		a->n = s->n;
		a->first_bad = nx.outcome == HB_BO_FOUND ? nx.first_bad : -1;
		a->lo = nx.lo;
		a->hi = nx.hi;
		if (nx.outcome == HB_BO_FOUND)
			snprintf(a->patch, sizeof(a->patch), "%s", patch_name(s, nx.first_bad));
	}
	json_decref(steps);
	return rc;
}

/* A parsed bisect of o->target: series mode, or git mode (--git). 0 with
 * *a answered, or -errno with err. */
static int bisect_target(struct hb_bisect_opts *o, struct hb_bisect_answer *a, char *err,
			 size_t errlen)
{
	static struct series s;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(a, 0, sizeof(*a));
	hb_set_err(err, errlen, "%s", "");
	rc = load_series(o, &s, err, errlen);
	if (rc)
		return rc;
	rc = make_dir(o, o->git ? NULL : &s.r, err, errlen);
	if (!rc)
		rc = pick_suite(o, err, errlen);
	if (!rc)
		rc = o->git ? hb_bisect_git(o, a, err, errlen) : run_series(o, &s, a, err, errlen);
	/* bad input leaves no folder behind */
	if (rc && o->dir[0]) {
		char p[PATH_MAX + 32];

		snprintf(p, sizeof(p), "%s/steps.json", o->dir);
		if (!hb_is_file(p)) {
			snprintf(p, sizeof(p), "%s/bisect.suite", o->dir);
			unlink(p);
			rmdir(o->dir);
		}
	}
	hb_recipe_free(&s.r);
	if (!rc && !a->answered) {
		hb_set_err(err, errlen, "bisect %s: the search ended without an answer", o->target);
		rc = -EIO;
	}
	return rc;
}

int hb_bisect_series(struct hb_bisect_opts *o, struct hb_bisect_answer *a, char *err,
		     size_t errlen)
{
	if (o->git || !o->target || !o->results || o->boots < 1 || o->max_tries < 1) {
		memset(a, 0, sizeof(*a));
		hb_set_err(err, errlen, "bisect: hb_bisect_series needs a target, results, boots "
			   "and max_tries, and no git");
		return -EINVAL;
	}
	return bisect_target(o, a, err, errlen);
}

int hb_bisect_git_range(struct hb_bisect_opts *o, struct hb_bisect_answer *a, char *err,
			size_t errlen)
{
	if (!o->git || !o->good || !o->bad || !o->target || !o->results || o->boots < 1 ||
	    o->max_tries < 1) {
		memset(a, 0, sizeof(*a));
		hb_set_err(err, errlen, "bisect: hb_bisect_git_range needs a target, results, boots, "
			   "max_tries, git, good and bad");
		return -EINVAL;
	}
	return bisect_target(o, a, err, errlen);
}

/* ---- the commands ------------------------------------------------------------ */

int hb_cmd_bisect(int argc, char **argv)
{
	struct hb_bisect_opts o;
	struct hb_bisect_answer a;
	char err[2048];
	int rc = parse(argc, argv, &o, NULL);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (optind != argc - 1) {
		hb_err("bisect: give exactly one TARGET (a source recipe under kernels/); see "
		       "hugebench bisect --help");
		return HB_EXIT_USAGE;
	}
	o.target = argv[optind];
	if (!o.git != !o.good || !o.git != !o.bad) {
		hb_err("bisect: --git PATH needs --good REF and --bad REF (and they need --git)");
		return HB_EXIT_USAGE;
	}
	rc = bisect_target(&o, &a, err, sizeof(err));
	if (rc) {
		if (err[0])
			hb_err("%s", err);
		return hb_exit_code(rc);
	}
	rc = hb_bisect_exit_code(a.outcome);
	printf("\nbisect %s: %s (exit %d)\n%d builds, %d boots, %.0f s (%.0f s building); "
	       "%s/summary.md\n", o.target, a.line, rc, a.builds, a.boots, a.wall_s, a.build_s,
	       o.dir);
	return rc;
}

int hb_cmd_bisect_step(int argc, char **argv)
{
	struct hb_bisect_opts o;
	const char *dir = NULL;
	enum hb_bisect_v v;
	char err[2048] = "";
	int rc = parse(argc, argv, &o, &dir);

	if (rc)
		return rc < 0 ? 0 : HB_BISECT_STEP_ABORT;
	if (!dir || !o.git || optind != argc - 1) {
		hb_err("bisect-step: needs --dir DIR --git PATH --check|--metric ... TARGET (git "
		       "bisect run calls it; use hugebench bisect --git)");
		return HB_BISECT_STEP_ABORT;
	}
	o.target = argv[optind];
	snprintf(o.dir, sizeof(o.dir), "%s", dir);
	snprintf(o.suite_arg, sizeof(o.suite_arg), "%s", o.suite ? o.suite : "smoke");
	if (hb_bisect_git_step(&o, &v, err, sizeof(err))) {
		if (err[0])
			hb_err("%s", err);
		return HB_BISECT_STEP_ABORT;
	}
	return v == HB_BV_GOOD ? 0 : v == HB_BV_BAD ? 1 : 125;
}
