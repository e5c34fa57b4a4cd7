/* compare.c - the `hugebench compare-report BASE NEW [NEW2 ...]` command.
 *
 * Parses options into a struct hb_compare_req (hb_cmd_compare); then
 * hb_compare, which `ab` calls with its two groups, resolves and loads each
 * side (a run group of boots, or one run as a group of one), finds the
 * calibration that matches, refuses sides that are not comparable (exit 3
 * unless --force), builds one comparison per NEW side against BASE, renders
 * it and returns the exit code: 0 no regression, 1 regression, 2 usage,
 * input or output error, 3 not comparable, 4 nothing tested (no metric
 * could be tested: not "no regression"). A reader that stops early
 * (`| head`) does not change the exit code.
 */
#define _DEFAULT_SOURCE
#include "commands.h"
#include "compare.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Relative to the hugebench checkout (hb_root()), not the current folder. */
#define HB_CMP_DEFAULT_THRESHOLDS "configs/thresholds.conf"
#define HB_CMP_DEFAULT_RESULTS "results"
#define HB_CMP_CALIB_DIR "calibration" /* under the results folder */

static const char hb_cmp_usage[] =
	"usage: hugebench compare-report [options] BASE NEW [NEW2 ...]\n"
	"  BASE, NEW: a run group folder (hugebench run --boots N), a result folder,\n"
	"             its result.json, results/<target>, or a target name (its latest\n"
	"             run or group under the results folder)\n"
	"  --format text|markdown|json|html   report format (default text)\n"
	"  --output FILE       write the report to FILE instead of stdout\n"
	"  --thresholds FILE   minimum effects (default: the checkout's "
	HB_CMP_DEFAULT_THRESHOLDS " if present)\n"
	"  --alpha Q           Benjamini-Hochberg false discovery rate (default 0.01)\n"
	"  --suite S           with a target name: latest run of suite S\n"
	"  --results DIR       results folder for target names (default: the checkout's "
	HB_CMP_DEFAULT_RESULTS ")\n"
	"  --calibration FILE|DIR|none  measured boot-to-boot noise (default: the\n"
	"                      results folder's " HB_CMP_CALIB_DIR "/, the file matching host\n"
	"                      CPU, accelerator, clock, suite and kernel family; used only\n"
	"                      when each boot's vCPUs, memory, QEMU version and host kernel\n"
	"                      match the boots it was measured on)\n"
	"  --strict            a metric that vanished or became unavailable is a regression\n"
	"  --unseen-min PCT    with fewer than 3 boots a side: a change with one side\n"
	"                      outside the calibration's span is untestable below PCT %\n"
	"                      (a gross-change screen; off by default: docs/compare.md)\n"
	"  --seed N            accepted for old scripts (the rule has no random part)\n"
	"  --force             compare runs that are not comparable\n"
	"metrics are judged with >= 3 boots per side (Welch on log boot centers), or\n"
	"against a calibration with fewer; otherwise they are advisory\n"
	"exit: 0 no regression, 1 regression, 2 usage, input or output error (e.g. disk\n"
	"      full), 3 not comparable, 4 nothing tested (no regression found, but no\n"
	"      metric could be tested: e.g. 2 + 2 boots without a calibration); when the\n"
	"      reader of stdout stops early (`| head`) the exit code is still the verdict's\n";

static int hb_cmp_usage_err(const char *fmt, const char *arg)
{
	fprintf(stderr, "hugebench compare-report: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see: hugebench compare-report --help)\n");
	return HB_CMP_USAGE;
}

/* "--name value" or "--name=value"; returns the value or NULL. */
static const char *hb_cmp_optval(int argc, char **argv, int *i, const char *name)
{
	size_t l = strlen(name);

	if (strncmp(argv[*i], name, l))
		return NULL;
	if (argv[*i][l] == '=')
		return argv[*i] + l + 1;
	if (argv[*i][l] || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static int hb_cmp_parse(int argc, char **argv, struct hb_compare_req *c)
{
	static const char *const names[] = { "--format", "--output", "--thresholds", "--alpha",
					     "--suite", "--results", "--seed", "--calibration",
					     "--unseen-min", NULL };
	bool dashdash = false;

	hb_compare_req_default(c);
	c->args = calloc((size_t)argc + 1, sizeof(*c->args));
	if (!c->args)
		return HB_CMP_USAGE;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int k;

		if (dashdash || a[0] != '-' || !a[1]) {
			c->args[c->nargs++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = true;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(hb_cmp_usage, stdout);
			return -1;
		}
		if (!strcmp(a, "--force")) {
			c->force = true;
			continue;
		}
		if (!strcmp(a, "--strict")) {
			c->opts.strict = true;
			continue;
		}
		for (k = 0; names[k]; k++)
			if ((v = hb_cmp_optval(argc, argv, &i, names[k])))
				break;
		if (!names[k])
			return hb_cmp_usage_err(strchr(a, '=') || i + 1 < argc
							? "unknown option %s"
							: "unknown option or missing value: %s", a);
		switch (k) {
		case 0: c->format = v; break;
		case 1: c->output = v; break;
		case 2: c->thresholds = v; break;
		case 3: {
			char *end;

			c->opts.alpha = strtod(v, &end);
			if (*end || end == v || !(c->opts.alpha > 0 && c->opts.alpha < 1))
				return hb_cmp_usage_err("--alpha wants a number in (0, 1), not \"%s\"", v);
			break;
		}
		case 4: c->suite = v; break;
		case 5: c->results = v; break;
		case 7: c->calibration = v; break;
		case 8: {
			char *end;

			c->opts.unseen_min_pct = strtod(v, &end);
			if (*end || end == v || !(c->opts.unseen_min_pct >= 1 &&
						  c->opts.unseen_min_pct <= 1000))
				return hb_cmp_usage_err("--unseen-min wants a percentage from 1 to "
							"1000, not \"%s\"", v);
			break;
		}
		default: {
			char *end;

			errno = 0;
			c->opts.seed = strtoull(v, &end, 10);
			/* strtoull takes "-1" as 2^64 - 1 */
			if (*end || end == v || *v == '-' || errno)
				return hb_cmp_usage_err("--seed wants an integer from 0 to 2^64-1, not \"%s\"",
							v);
		}
		}
	}
	if (strcmp(c->format, "text") && strcmp(c->format, "markdown") &&
	    strcmp(c->format, "json") && strcmp(c->format, "html"))
		return hb_cmp_usage_err("--format must be text, markdown, json or html, not \"%s\"",
					c->format);
	if (c->nargs < 2)
		return hb_cmp_usage_err("%s", "needs BASE and at least one NEW run");
	return 0;
}

/* --output must not replace what was read (issue 38: --output
 * A/result.json replaced run A): every group.json and result.json of the
 * sides, the thresholds and the calibration file. true (said on stderr)
 * when it would. */
static bool output_is_input(const struct hb_compare_req *c, struct hb_cmp_group *const *runs,
			    int nruns)
{
	size_t n = 2, k = 0;
	const char **in;
	char err[3 * PATH_MAX];
	bool bad;

	for (int i = 0; i < nruns; i++)
		n += 1 + runs[i]->n;
	if (!(in = calloc(n, sizeof(*in))))
		return true;
	for (int i = 0; i < nruns; i++) {
		in[k++] = runs[i]->path;
		for (size_t j = 0; j < runs[i]->n; j++)
			in[k++] = runs[i]->boots[j]->path;
	}
	in[k++] = c->thresholds;
	in[k++] = c->opts.calibration;
	bad = hb_output_check("--output", c->output, in, k, err, sizeof(err)) != 0;
	if (bad)
		fprintf(stderr, "hugebench compare-report: %s\n", err);
	free(in);
	return bad;
}

/* 0 written, -1 write error (said on stderr), 1 stdout's reader has gone
 * (nothing to say: the exit code stays the verdict's). */
static int hb_cmp_render_to(const struct hb_compare_req *c, const struct hb_cmp_report *r)
{
	FILE *f = stdout;
	int ret, err;

	if (c->output && !(f = fopen(c->output, "w"))) {
		fprintf(stderr, "hugebench compare-report: cannot write %s: %s\n", c->output,
			strerror(errno));
		return -1;
	}
	errno = 0;
	if (!strcmp(c->format, "json"))
		ret = hb_cmp_render_json(f, r);
	else if (!strcmp(c->format, "html"))
		ret = hb_cmp_render_html(f, r);
	else if (!strcmp(c->format, "markdown"))
		ret = hb_cmp_render_markdown(f, r);
	else
		ret = hb_cmp_render_text(f, r);
	if (fflush(f) || ret || ferror(f)) {
		err = errno;
		if (!c->output && (err == EPIPE || hb_cmp_broken_pipe(f)))
			return 1;
		fprintf(stderr, "hugebench compare-report: writing %s: %s\n",
			c->output ? c->output : "stdout", err ? strerror(err) : "write error");
		ret = -1;
	}
	if (c->output && fclose(f) && !ret) {
		fprintf(stderr, "hugebench compare-report: writing %s: %s\n", c->output,
			strerror(errno));
		ret = -1;
	}
	return ret;
}

/* Reports every blocking difference; true when all pairs are comparable. */
static bool hb_cmp_all_comparable(const struct hb_cmp_report *r, bool force)
{
	bool ok = true;

	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct hb_cmp_pair *p = &r->pairs[i];

		for (size_t j = 0; j < p->n_env; j++)
			if (p->env[j].blocks)
				fprintf(stderr, "hugebench compare-report: %s: %s and %s differ in %s: "
						"\"%s\" vs \"%s\"%s\n",
					force ? "warning" : "not comparable", p->a->path, p->b->path,
					p->env[j].field, p->env[j].a, p->env[j].b,
					force ? " (--force)" : "");
		for (size_t j = 0; j < p->n_f; j++)
			if (p->f[j].kind == HB_CMP_F_DIRECTION)
				fprintf(stderr, "hugebench compare-report: %s: %s.%s%s\n",
					force ? "warning" : "not comparable", p->f[j].workload,
					p->f[j].text, force ? " (--force)" : "");
		ok &= p->comparable;
	}
	if (!ok && !force)
		fprintf(stderr, "hugebench compare-report: use --force to compare anyway\n");
	return ok;
}

void hb_compare_req_default(struct hb_compare_req *q)
{
	memset(q, 0, sizeof(*q));
	q->format = "text";
	hb_cmp_opts_default(&q->opts);
}

int hb_cmd_compare(int argc, char **argv)
{
	struct hb_compare_req c;
	int ret = hb_cmp_parse(argc, argv, &c);

	if (!ret)
		ret = hb_compare(&c);
	free(c.args);
	return ret < 0 ? HB_CMP_OK : ret;
}

int hb_compare(const struct hb_compare_req *q)
{
	struct hb_cmp_thresholds th;
	struct hb_cmp_report rep = { 0 };
	struct hb_cmp_group **runs = NULL;
	struct hb_compare_req c = *q;
	char err[1024], dflt_th[4096], dflt_res[4096], dflt_cal[4200];
	enum hb_cmp_outcome out;
	int ret, nruns = 0;

	hb_stats_init();
	hb_cmp_thresholds_default(&th);
	if (!c.thresholds) {
		snprintf(dflt_th, sizeof(dflt_th), "%s/" HB_CMP_DEFAULT_THRESHOLDS, hb_root());
		if (!access(dflt_th, R_OK))
			c.thresholds = dflt_th;
	}
	if (!c.results) {
		snprintf(dflt_res, sizeof(dflt_res), "%s/" HB_CMP_DEFAULT_RESULTS, hb_root());
		c.results = dflt_res;
	}
	if (!c.calibration) {
		struct stat st;

		snprintf(dflt_cal, sizeof(dflt_cal), "%s/" HB_CMP_CALIB_DIR, c.results);
		if (!stat(dflt_cal, &st) && S_ISDIR(st.st_mode))
			c.opts.calibration = dflt_cal;
	} else if (strcmp(c.calibration, "none")) {
		c.opts.calibration = c.calibration;
	}
	if (c.thresholds && hb_cmp_thresholds_load(c.thresholds, &th, err, sizeof(err))) {
		fprintf(stderr, "hugebench compare-report: %s\n", err);
		ret = HB_CMP_USAGE;
		goto out;
	}
	runs = calloc((size_t)c.nargs, sizeof(*runs));
	rep.pairs = calloc((size_t)c.nargs, sizeof(*rep.pairs));
	if (!runs || !rep.pairs) {
		ret = HB_CMP_USAGE;
		goto out;
	}
	for (nruns = 0; nruns < c.nargs; nruns++) {
		runs[nruns] = hb_cmp_group_open(c.args[nruns], c.results, c.suite, HB_CMP_USE_RULE, err,
						  sizeof(err));
		if (!runs[nruns]) {
			fprintf(stderr, "hugebench compare-report: %s\n", err);
			ret = HB_CMP_USAGE;
			goto out;
		}
	}
	if (c.output && output_is_input(&c, runs, nruns)) {
		ret = HB_CMP_USAGE;
		goto out;
	}
	rep.opts = c.opts;
	rep.thresholds_path = c.thresholds;
	rep.forced = c.force;
	for (int i = 1; i < nruns; i++) {
		int b = hb_cmp_pair_build_groups(runs[0], runs[i], &th, &c.opts,
						 &rep.pairs[rep.n_pairs++]);

		if (b == -2) {
			fprintf(stderr, "hugebench compare-report: calibration: %s\n",
				rep.pairs[rep.n_pairs - 1].calib_note);
			ret = HB_CMP_USAGE;
			goto out;
		}
		if (b) {
			fprintf(stderr, "hugebench compare-report: out of memory comparing %s\n",
				runs[i]->path);
			ret = HB_CMP_USAGE;
			goto out;
		}
	}
	if (!hb_cmp_all_comparable(&rep, c.force) && !c.force) {
		ret = HB_CMP_INCOMPARABLE;
		goto out;
	}
	out = hb_cmp_report_outcome(&rep);
	switch (hb_cmp_render_to(&c, &rep)) {
	case 0:
		break;
	case 1:
		fprintf(stderr, "hugebench compare-report: stdout closed early; result: %s\n",
			hb_cmp_outcome_word(out));
		break;
	default:
		ret = HB_CMP_USAGE;
		goto out;
	}
	if (c.output)
		fprintf(stderr, "hugebench compare-report: wrote %s: %s\n", c.output,
			hb_cmp_outcome_word(out));
	/* nothing tested is said on stderr too: an exit code of its own is easy
	 * to miss in a script that only tests for 1 */
	for (size_t i = 0; i < rep.n_pairs; i++)
		if (hb_cmp_pair_outcome(&rep.pairs[i]) == HB_CMP_OUT_NOTHING) {
			char v[1024];

			hb_cmp_pair_verdict(&rep.pairs[i], v, sizeof(v));
			fprintf(stderr, "hugebench compare-report: %s: %s\n", runs[i + 1]->path, v);
		}
	ret = hb_cmp_outcome_exit(out);
out:
	for (size_t i = 0; i < rep.n_pairs; i++)
		hb_cmp_pair_free(&rep.pairs[i]);
	free(rep.pairs);
	for (int i = 0; i < nruns; i++)
		hb_cmp_group_free(runs[i]);
	free(runs);
	hb_cmp_thresholds_free(&th);
	return ret;
}
