/* test_cmp_hardening.c - compare-report, table and stats on hostile input
 * (issue 9): numeric edge cases never abort and never give a silent
 * verdict, integers out of range and duplicate keys are refused, error
 * lines never echo file contents, names cannot inject markup or terminal
 * controls, write errors and broken pipes keep the right exit code, and
 * the default thresholds and results folder follow the checkout.
 *
 * HB_TEST_FILTER=<glob> runs only the matching tests.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "stats.h"
#include "table.h"

static char g_dir[64];

/* ---- helpers ------------------------------------------------------------------ */

/* A minimal valid run with one workload "w" and one metric "m". `samples`
 * and `reps` (rep_means, may be NULL) are JSON array texts. */
static json_t *run_json(const char *better, const char *samples, const char *rep_means)
{
	char buf[2048];
	json_error_t je;
	json_t *j;

	snprintf(buf, sizeof(buf),
		 "{\"schema\": \"hugebench-result/1\", \"run_id\": \"t/x\", \"suite\": \"quick\","
		 " \"repeat\": 3, \"target\": {\"name\": \"t\"},"
		 " \"environment\": {\"accelerator\": \"tcg\", \"host_cpu\": \"c\"},"
		 " \"verdict\": \"pass\", \"workloads\": [{\"name\": \"w\", \"status\": \"pass\","
		 " \"reps\": 3, \"metrics\": [{\"name\": \"m\", \"unit\": \"ns\", \"better\": \"%s\","
		 " \"samples\": %s%s%s}]}]}",
		 better, samples, rep_means ? ", \"rep_means\": " : "", rep_means ? rep_means : "");
	j = json_loads(buf, 0, &je);
	assert_non_null(j);
	return j;
}

struct pair {
	struct hb_cmp_run *a, *b;
	struct hb_cmp_group *ga, *gb;
	struct hb_cmp_pair p;
};

static void pair_build(struct pair *x, json_t *a, json_t *b)
{
	struct hb_cmp_thresholds th;
	struct hb_cmp_opts o;
	char err[512];

	hb_cmp_thresholds_default(&th);
	hb_cmp_opts_default(&o);
	o.boot_B = 400;
	x->a = hb_cmp_load_json(a, "a.json", err, sizeof(err));
	assert_non_null(x->a);
	x->b = hb_cmp_load_json(b, "b.json", err, sizeof(err));
	assert_non_null(x->b);
	assert_int_equal(hb_cmp_pair_build(x->a, x->b, &th, &o, &x->p), 0);
}

static void pair_free(struct pair *x)
{
	hb_cmp_pair_free(&x->p);
	if (x->ga) {
		hb_cmp_group_free(x->ga);
		hb_cmp_group_free(x->gb);
	} else {
		hb_cmp_run_free(x->a);
		hb_cmp_run_free(x->b);
	}
	x->ga = x->gb = NULL;
}

/* One boot per value of `values` (a JSON array text; "[]" is one boot with
 * no samples): the boot is the unit of the rule. */
static struct hb_cmp_group *boots_of(const char *better, const char *values)
{
	struct hb_cmp_run *runs[64];
	json_error_t je;
	json_t *arr = json_loads(values, JSON_DECODE_ANY, &je), *v;
	struct hb_cmp_group *g;
	size_t i, n = 0;
	char err[512];

	assert_non_null(arr);
	if (!json_array_size(arr)) {
		runs[n] = hb_cmp_load_json(run_json(better, "[]", NULL), "boot.json", err, sizeof(err));
		assert_non_null(runs[n]);
		n++;
	}
	json_array_foreach(arr, i, v) {
		char *one = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)), buf[128];

		assert_true(i < 64);
		snprintf(buf, sizeof(buf), "[%s]", one);
		free(one);
		runs[n] = hb_cmp_load_json(run_json(better, buf, NULL), "boot.json", err, sizeof(err));
		assert_non_null(runs[n]);
		n++;
	}
	json_decref(arr);
	g = hb_cmp_group_view(runs, n, "group");
	assert_non_null(g);
	g->owns = true;
	return g;
}

static void boots_build(struct pair *x, const char *better, const char *a, const char *b)
{
	struct hb_cmp_thresholds th;
	struct hb_cmp_opts o;

	hb_cmp_thresholds_default(&th);
	hb_cmp_opts_default(&o);
	x->ga = boots_of(better, a);
	x->gb = boots_of(better, b);
	x->a = x->ga->boots[0];
	x->b = x->gb->boots[0];
	assert_int_equal(hb_cmp_pair_build_groups(x->ga, x->gb, &th, &o, &x->p), 0);
}

static const struct hb_cmp_mres *metric(const struct pair *x)
{
	assert_int_equal(x->p.n_m, 1);
	return &x->p.m[0];
}

/* The verdict of one metric whose values are a's and b's, one boot per
 * value (the repetition means ra/rb were the unit before the boot was;
 * they no longer change anything). */
static enum hb_cmp_verdict verdict_of(const char *better, const char *a, const char *ra,
				      const char *b, const char *rb, char *why, size_t whylen)
{
	struct pair x = { 0 };
	enum hb_cmp_verdict v;

	(void)ra;
	(void)rb;
	boots_build(&x, better, a, b);
	v = metric(&x)->verdict;
	if (why)
		snprintf(why, whylen, "%s", metric(&x)->why);
	/* a WORSE metric is always a regression finding, and only then */
	assert_int_equal(x.p.n_regressions, v == HB_CMP_WORSE);
	pair_free(&x);
	return v;
}

static char *write_file(const char *name, const char *text)
{
	static char paths[8][200];
	static int k;
	char *p = paths[k++ % 8];
	FILE *f;

	snprintf(p, 200, "%s/%s", g_dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static char *write_json(const char *name, json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(1)), *p = write_file(name, s);

	free(s);
	json_decref(j);
	return p;
}

/* Runs fn(argc, argv) with stdout captured into a malloc'ed string. */
static int capture(int (*fn)(int, char **), int argc, char **argv, char **out)
{
	char path[200];
	FILE *saved = stdout, *f;
	long len;
	int ret;

	snprintf(path, sizeof(path), "%s/stdout.txt", g_dir);
	stdout = fopen(path, "w+");
	assert_non_null(stdout);
	ret = fn(argc, argv);
	fflush(stdout);
	f = stdout;
	stdout = saved;
	len = ftell(f);
	*out = calloc(1, (size_t)len + 1);
	rewind(f);
	assert_int_equal(fread(*out, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return ret;
}

static char *render(const struct hb_cmp_report *rep, int (*fn)(FILE *, const struct hb_cmp_report *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(fn(f, rep), 0);
	fclose(f);
	return buf;
}

/* ---- statistics: GSL must never abort, overflow is handled -------------------- */

static void test_welch_huge_no_abort(void **state)
{
	static const double x[] = { 1e100, -1e100, 2e100 }, y[] = { 1e100, -1e100, 3e100 };
	static const double m[] = { 1.7e308, -1.7e308, 1.79e308 };
	struct hb_stats_test t;
	double lo, hi;

	(void)state;
	/* variance 1e200 squares to inf in Welch-Satterthwaite: df was NaN and
	 * gsl_cdf_tdist_Q aborted the process */
	assert_int_equal(hb_stats_welch(x, 3, y, 3, HB_STATS_GREATER, &t), 0);
	assert_true(isfinite(t.df) && t.df > 0);
	assert_true(t.p > 0.2 && t.p < 0.8);
	assert_int_equal(hb_stats_welch_ci(x, 3, y, 3, 0.95, &lo, &hi), 0);
	assert_true(lo < 0 && hi > 0 && isfinite(lo) && isfinite(hi));
	assert_int_equal(hb_stats_welch(m, 3, m, 3, HB_STATS_TWO_SIDED, &t), 0);
	assert_true(t.p == 1 || (t.p > 0.99 && t.p <= 1));
	/* the same data scaled down: identical t and df */
	{
		double xs[3], ys[3];
		struct hb_stats_test t2;

		for (int i = 0; i < 3; i++) {
			xs[i] = x[i] * 1e-100;
			ys[i] = y[i] * 1e-100;
		}
		hb_stats_welch(x, 3, y, 3, HB_STATS_GREATER, &t);
		hb_stats_welch(xs, 3, ys, 3, HB_STATS_GREATER, &t2);
		assert_true(fabs(t.stat - t2.stat) < 1e-9 && fabs(t.df - t2.df) < 1e-9);
	}
}

static void test_stats_bad_arguments(void **state)
{
	static const double x[] = { 1, 2, INFINITY }, y[] = { 1, NAN, 3 }, z[] = { 1, 2, 3 };
	struct hb_stats_test t;
	double lo, hi;

	(void)state;
	/* GSL's default handler aborted on each of these */
	assert_true(isnan(hb_stats_t_quantile(0.975, NAN)));
	assert_true(isnan(hb_stats_t_quantile(0.975, -1)));
	assert_true(isnan(hb_stats_t_quantile(2, 3)));
	assert_int_equal(hb_stats_welch(x, 3, z, 3, HB_STATS_LESS, &t), -1);
	assert_true(isnan(t.p));
	assert_int_equal(hb_stats_welch(z, 3, y, 3, HB_STATS_LESS, &t), -1);
	assert_true(isnan(t.p));
	assert_int_equal(hb_stats_welch_ci(z, 3, y, 3, 0.95, &lo, &hi), -1);
	assert_true(isnan(lo) && isnan(hi));
	assert_int_equal(hb_stats_mann_whitney(z, 3, y, 3, HB_STATS_LESS, &t), -1);
	assert_true(isnan(t.p));
}

static void test_describe_extremes(void **state)
{
	static const double m[] = { 1.7e308, -1.7e308, 1.79e308 };
	static const double big[] = { 1.7e308, 1.75e308, 1.79e308 };
	static const double den[] = { 5e-324, 1e-323, 1.5e-323 };
	struct hb_stats_desc d;

	(void)state;
	/* GSL's running mean overflowed to -inf on the first step */
	hb_stats_describe(m, 3, &d);
	assert_true(fabs(d.mean / 0.5966666666666667e308 - 1) < 1e-12);
	assert_true(!isnan(d.sd) && d.sd > 1e308); /* 1.99e308: may be inf */
	hb_stats_describe(big, 3, &d);
	assert_true(fabs(d.mean / 1.7466666666666667e308 - 1) < 1e-12);
	assert_true(d.p50 == 1.75e308);
	hb_stats_describe(den, 3, &d);
	assert_true(d.mean == 1e-323 && d.sd == 5e-324);
}

static void test_welch_denormals(void **state)
{
	static const double z[] = { 0, 0, 0 }, d[] = { 1e-320, 1.1e-320, 0.9e-320 };
	struct hb_stats_test t;

	(void)state;
	/* the variance of denormals underflowed to 0: "both constant", p = 0 */
	assert_int_equal(hb_stats_welch(z, 3, d, 3, HB_STATS_GREATER, &t), 0);
	assert_true(isfinite(t.stat) && t.stat > 5 && t.stat < 50);
	assert_true(t.p > 0 && t.p < 0.01);
}

static void test_bootstrap_zero_and_negative_centers(void **state)
{
	static const double z[] = { 0, 0, 0, 0, 0, 0, 0, 0 }, o[] = { 1, 1, 2, 1, 1, 3, 1, 1 };
	static const double n10[] = { -10, -10.2, -9.8, -10.1, -9.9, -10, -10.3, -9.7 };
	double n20[8], lo, hi;

	(void)state;
	/* a center of 0 returned -1: no interval, so 0 -> 1 was never judged */
	assert_int_equal(hb_stats_bootstrap_ratio(z, 8, o, 8, HB_STATS_MEDIAN, 500, 0.99, 1, 0,
						  &lo, &hi), 0);
	assert_true(lo == INFINITY && hi == INFINITY);
	/* negative centers: the relative change keeps its direction
	 * (-10 -> -20 is 100% lower: 1 + (-20 - -10) / |-10| = 0) */
	for (int i = 0; i < 8; i++)
		n20[i] = 2 * n10[i];
	assert_int_equal(hb_stats_bootstrap_ratio(n10, 8, n20, 8, HB_STATS_MEDIAN, 500, 0.99, 1, 0,
						  &lo, &hi), 0);
	assert_true(lo < 0.1 && hi > -0.1 && hi < 0.2);
}

/* ---- the decision rule on the same edge cases ----------------------------------- */

static void test_rule_zero_to_one(void **state)
{
	char why[160];

	(void)state;
	/* was "same" with change +inf% */
	assert_int_equal(verdict_of("lower", "[0, 0, 0]", NULL, "[1, 1, 1]", NULL, why, sizeof(why)),
			 HB_CMP_WORSE);
	assert_int_equal(verdict_of("lower", "[0, 0, 0, 0]", NULL, "[1, 1.1, 0.9, 1]", NULL, NULL, 0),
			 HB_CMP_WORSE);
	assert_int_equal(verdict_of("higher", "[1, 1, 1]", NULL, "[0, 0, 0]", NULL, NULL, 0),
			 HB_CMP_WORSE);
	assert_int_equal(verdict_of("lower", "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]", NULL,
				    "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", NULL, NULL, 0),
			 HB_CMP_WORSE);
	assert_int_equal(verdict_of("lower", "[1, 1, 1]", NULL, "[0, 0, 0]", NULL, NULL, 0),
			 HB_CMP_BETTER);
	assert_int_equal(verdict_of("lower", "[0, 0, 0]", NULL, "[0, 0, 0]", NULL, NULL, 0),
			 HB_CMP_SAME);
	assert_int_equal(verdict_of("lower", "[0, 0, 0]", NULL, "[1e-320, 1.1e-320, 0.9e-320]", NULL,
				    NULL, 0),
			 HB_CMP_WORSE);
}

static void test_rule_negative_values(void **state)
{
	(void)state;
	/* -10 -> -20 with better=lower is an improvement; it was a regression
	 * (ratio 2, "+100%") in REPS mode */
	assert_int_equal(verdict_of("lower", "[-10, -10.1, -9.9]", "[-10, -10.1, -9.9]",
				    "[-20, -20.2, -19.8]", "[-20, -20.2, -19.8]", NULL, 0),
			 HB_CMP_BETTER);
	assert_int_equal(verdict_of("lower", "[-20, -20.2, -19.8]", "[-20, -20.2, -19.8]",
				    "[-10, -10.1, -9.9]", "[-10, -10.1, -9.9]", NULL, 0),
			 HB_CMP_WORSE);
	assert_int_equal(verdict_of("lower", "[-10, -10.1, -9.9]", NULL, "[-20, -20.2, -19.8]", NULL,
				    NULL, 0),
			 HB_CMP_BETTER);
	assert_int_equal(verdict_of("higher", "[-10, -10.1, -9.9]", NULL, "[-20, -20.2, -19.8]", NULL,
				    NULL, 0),
			 HB_CMP_WORSE);
	{
		struct pair x = { 0 };

		boots_build(&x, "lower", "[-10, -10.1, -9.9]", "[-20, -20.2, -19.8]");
		assert_true(fabs(metric(&x)->change_pct - -100) < 1e-9);
		assert_true(metric(&x)->ci_hi < 1);
		pair_free(&x);
	}
}

static void test_rule_huge_and_degenerate(void **state)
{
	char why[160];

	(void)state;
	/* aborted (exit 134) in both modes */
	assert_int_equal(verdict_of("lower", "[1e100, -1e100, 2e100]", NULL, "[1e100, -1e100, 2e100]",
				    NULL, why, sizeof(why)),
			 HB_CMP_SAME);
	assert_int_equal(verdict_of("lower", "[1e100, -1e100, 2e100]", "[1e100, -1e100, 2e100]",
				    "[1e100, -1e100, 3e100]", "[1e100, -1e100, 3e100]", NULL, 0),
			 HB_CMP_SAME);
	assert_int_equal(verdict_of("lower", "[1.7e308, -1.7e308, 1.79e308]", NULL,
				    "[-1.79e308, 1.7e308, -1.7e308]", NULL, NULL, 0),
			 HB_CMP_SAME);
	/* (close to DBL_MAX, and close enough together to be judged: 1.70 to
	 * 1.79 would be a boot sd too large for 3 boots) */
	assert_int_equal(verdict_of("higher", "[1.77e308, 1.78e308, 1.79e308]", NULL,
				    "[1.77e308, 1.78e308, 1.79e308]", NULL, NULL, 0),
			 HB_CMP_SAME);
	/* (boots of 1e-300 and 3e-300 would be too noisy to judge: 1.5e-300
	 * apart is a boot sd of 55%) */
	assert_int_equal(verdict_of("lower", "[1e-300, 1.01e-300, 0.99e-300]", NULL,
				    "[1e300, 1.01e300, 0.99e300]", NULL, NULL, 0),
			 HB_CMP_WORSE);
	assert_int_equal(verdict_of("lower", "[5, 5, 5, 5]", NULL, "[5, 5, 5, 5]", NULL, NULL, 0),
			 HB_CMP_SAME);
	/* one boot per side: shown, never judged */
	assert_int_equal(verdict_of("lower", "[5]", NULL, "[500]", NULL, why, sizeof(why)),
			 HB_CMP_ADVISORY);
	assert_non_null(strstr(why, "too few"));
	assert_int_equal(verdict_of("lower", "[]", NULL, "[]", NULL, NULL, 0), HB_CMP_UNTESTED);
	assert_int_equal(verdict_of("lower", "[5e-324, 1e-323, 0]", NULL, "[5e-324, 1e-323, 0]", NULL,
				    NULL, 0),
			 HB_CMP_SAME);
}

/* Samples the loader would refuse, handed to the rule directly: the metric
 * is not judged, says why, and the report carries a note. */
static void test_rule_nonfinite_not_judged(void **state)
{
	double sa[] = { 1, 2, NAN, 4 }, sb[] = { 1, 2, 3, 4 }, ia[] = { 1, INFINITY, 3 };
	struct hb_cmp_metric a = { .name = "m", .better = HB_CMP_LOWER, .samples = sa, .n = 4 };
	struct hb_cmp_metric b = { .name = "m", .better = HB_CMP_LOWER, .samples = sb, .n = 4 };
	struct hb_cmp_metric c = { .name = "m", .better = HB_CMP_LOWER, .samples = ia, .n = 3 };
	struct hb_cmp_limits lim = { 5, 1 };
	struct hb_cmp_opts o;
	struct hb_cmp_mres r[2] = { { .workload = "w" }, { .workload = "w" } };

	(void)state;
	hb_cmp_opts_default(&o);
	o.boot_B = 200;
	hb_cmp_metric_test(&a, &b, &lim, &o, &r[0]);
	hb_cmp_metric_test(&c, &b, &lim, &o, &r[1]);
	hb_cmp_decide(r, 2, &o);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(r[i].verdict, HB_CMP_UNTESTED);
		assert_non_null(strstr(r[i].why, "not judged"));
	}
}

/* ---- the loader ---------------------------------------------------------------- */

static void expect_load_error(const char *text, const char *want, const char *forbid)
{
	char err[512], *path = write_file("bad.json", text);
	struct hb_cmp_run *r = hb_cmp_load(path, err, sizeof(err));

	if (r)
		fail_msg("loaded: %s", text);
	if (want && !strstr(err, want))
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
	if (forbid && strstr(err, forbid))
		fail_msg("error \"%s\" echoes \"%s\"", err, forbid);
	assert_non_null(strstr(err, path));
}

static void test_load_integers(void **state)
{
	json_t *j;
	char *s, err[512];

	(void)state;
	j = run_json("lower", "[1,2,3]", NULL);
	s = json_dumps(j, 0);
	json_decref(j);
	{
		struct { const char *from, *to, *want; } cases[] = {
			{ "\"reps\": 3", "\"reps\": 1e300", "workloads[0].reps" },
			{ "\"reps\": 3", "\"reps\": -1", "workloads[0].reps" },
			{ "\"reps\": 3", "\"reps\": 2.5", "workloads[0].reps" },
			{ "\"repeat\": 3", "\"repeat\": 1e19", "repeat" },
			{ "\"host_cpu\"", "\"vcpus\": 1e300, \"host_cpu\"", "environment.vcpus" },
			{ "\"host_cpu\"", "\"memory_mb\": -1e300, \"host_cpu\"", "environment.memory_mb" },
			{ "\"verdict\"", "\"kernel_issues\": [{\"kind\": \"W\", \"line\": 1e300}], \"verdict\"",
			  "kernel_issues[0].line" },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			char *p = strstr(s, cases[i].from), buf[2048];

			assert_non_null(p);
			snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(p - s), s, cases[i].to,
				 p + strlen(cases[i].from));
			expect_load_error(buf, cases[i].want, NULL);
		}
	}
	/* an integral real is an integer */
	{
		char *p = strstr(s, "\"reps\": 3"), buf[2048];
		struct hb_cmp_run *r;

		snprintf(buf, sizeof(buf), "%.*s\"reps\": 3.0%s", (int)(p - s), s, p + 9);
		r = hb_cmp_load(write_file("ok.json", buf), err, sizeof(err));
		assert_non_null(r);
		assert_int_equal(r->workloads[0].reps, 3);
		hb_cmp_run_free(r);
	}
	free(s);
}

static void test_load_refuses(void **state)
{
	(void)state;
	/* duplicate keys were accepted (the last one silently won) */
	expect_load_error("{\"schema\": \"a\", \"schema\": \"b\"}", "line 1", NULL);
	/* empty names broke table's row keys and matched each other */
	{
		json_t *j = run_json("lower", "[1,2,3]", NULL);

		json_object_set_new(json_array_get(json_object_get(j, "workloads"), 0), "name",
				    json_string(""));
		{
			char *s = json_dumps(j, 0);

			expect_load_error(s, "workloads[0].name", NULL);
			free(s);
		}
		json_decref(j);
	}
}

static void test_load_no_echo(void **state)
{
	char err[512], secret[200], link[200];
	struct hb_cmp_run *r;

	(void)state;
	/* a file that is not JSON, behind a symlink: jansson's "near '...'" text
	 * carried its first token into the error line */
	snprintf(secret, sizeof(secret), "%s/secret.txt", g_dir);
	snprintf(link, sizeof(link), "%s/result.json", g_dir);
	write_file("secret.txt", "password=hunter2\n");
	unlink(link);
	assert_int_equal(symlink(secret, link), 0);
	r = hb_cmp_load(link, err, sizeof(err));
	assert_null(r);
	assert_null(strstr(err, "password"));
	assert_null(strstr(err, "hunter2"));
	assert_non_null(strstr(err, link));
	assert_non_null(strstr(err, "line 1"));
	/* values of the wrong kind are named by field, not quoted */
	expect_load_error("{\"schema\": \"hugebench-result/1\", \"suite\": \"q\", \"verdict\": \"tok-123\","
			  " \"target\": {\"name\": \"t\"}, \"environment\": {\"accelerator\": \"tcg\"},"
			  " \"workloads\": []}",
			  "verdict", "tok-123");
	expect_load_error("{\"a\": \"tok-456\"", "line 1", "tok-456");
	unlink(link);
}

static void test_load_fifo_does_not_hang(void **state)
{
	char path[200], err[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo.json", g_dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10); /* opening a FIFO for reading blocked until a writer came */
	assert_null(hb_cmp_load(path, err, sizeof(err)));
	alarm(0);
	assert_non_null(strstr(err, path));
	unlink(path);
}

/* ---- output ---------------------------------------------------------------------- */

static json_t *hostile_run(bool fail_check)
{
	json_t *j = run_json("lower", "[1, 2, 3]", NULL);
	json_t *w = json_array_get(json_object_get(j, "workloads"), 0);
	char name[400] = "check ";

	for (int i = 0; i < 150; i++)
		strcat(name, "\xc3\xa9"); /* é: a finding's text is cut inside one */
	json_object_set_new(w, "name", json_string("<script>alert(1)</script>|w\x1b[2J"));
	json_object_set_new(json_array_get(json_object_get(w, "metrics"), 0), "unit",
			    json_string("<script>u</script>"));
	json_object_set_new(w, "checks", json_pack("[{s:s, s:s, s:b}]", "name", name + 6,
						   "observed", "x\x1b]0;t\x07|`[l](javascript:y)`",
						   "pass", !fail_check));
	json_object_set_new(j, "run_id", json_string("<img src=x onerror=alert(2)>\x1b[31m"));
	return j;
}

static void test_render_escapes(void **state)
{
	struct hb_cmp_report rep = { 0 };
	struct pair x;
	char *s;

	(void)state;
	pair_build(&x, hostile_run(false), hostile_run(true));
	rep.pairs = &x.p;
	rep.n_pairs = 1;
	hb_cmp_opts_default(&rep.opts);

	s = render(&rep, hb_cmp_render_markdown);
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "<img"));
	assert_non_null(strstr(s, "\\[l\\](javascript")); /* no link */
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\x07'));
	/* every table row keeps its column count: no raw '|' from a name */
	for (char *line = s, *end; *line; line = end + 1) {
		int bars = 0;
		char *hit;

		end = strchr(line, '\n');
		if (!end)
			break;
		hit = strstr(line, "script");
		if (strncmp(line, "| ", 2) || !hit || hit > end)
			continue;
		for (char *c = line; c < end; c++)
			bars += *c == '|' && (c == line || c[-1] != '\\');
		/* the metrics table has 14 columns since it shows the boot noise */
		if (bars != 5 && bars != 7 && bars != 10 && bars != 15)
			fail_msg("%d bars: %.*s", bars, (int)(end - line), line);
	}
	free(s);

	s = render(&rep, hb_cmp_render_text);
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\x07'));
	free(s);

	s = render(&rep, hb_cmp_render_html);
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "<img"));
	assert_null(strchr(s, '\x1b'));
	free(s);

	/* the check finding's text was cut inside a UTF-8 character and the
	 * JSON report dropped it */
	s = render(&rep, hb_cmp_render_json);
	{
		json_error_t je;
		json_t *j = json_loads(s, 0, &je), *f;

		assert_non_null(j);
		f = json_object_get(json_array_get(json_object_get(j, "comparisons"), 0), "findings");
		assert_int_equal(json_array_size(f), x.p.n_f);
		assert_true(x.p.n_regressions >= 1);
		json_decref(j);
	}
	free(s);
	pair_free(&x);
}

/* ---- the command lines ---------------------------------------------------------------- */

static char *regression_pair(char **b)
{
	static char pa[200], pb[200];

	json_t *bad = run_json("lower", "[9, 9, 9]", "[9, 9, 9]");

	/* a functional regression (one boot per side judges no metric) */
	json_object_set_new(bad, "verdict", json_string("fail"));
	snprintf(pa, sizeof(pa), "%s", write_json("reg_a.json", run_json("lower", "[0, 0, 0]", "[0, 0, 0]")));
	snprintf(pb, sizeof(pb), "%s", write_json("reg_b.json", bad));
	*b = pb;
	return pa;
}

static void test_broken_pipe_keeps_verdict(void **state)
{
	char *b, *a = regression_pair(&b);
	char *argv[] = { "compare-report", "--thresholds", "/dev/null", a, b };
	int fds[2];
	FILE *saved = stdout;
	int ret;

	(void)state;
	signal(SIGPIPE, SIG_IGN); /* as main() does */
	assert_int_equal(pipe(fds), 0);
	close(fds[0]); /* the reader (`head`) is gone */
	stdout = fdopen(fds[1], "w");
	ret = hb_compare_main(5, argv);
	fclose(stdout);
	stdout = saved;
	/* was 2: the regression was hidden */
	assert_int_equal(ret, HB_CMP_REGRESSION);
}

static void test_write_errors(void **state)
{
	char *b, *a = regression_pair(&b);
	char *argv1[] = { "compare-report", "--thresholds", "/dev/null", "--output", "/dev/full", a, b };
	char *argv2[] = { "table", a };
	FILE *saved = stdout;
	int ret;

	(void)state;
	assert_int_equal(hb_compare_main(7, argv1), HB_CMP_USAGE);
	stdout = fopen("/dev/full", "w");
	ret = hb_cmd_table(2, argv2);
	fclose(stdout);
	stdout = saved;
	/* table exited 0 */
	assert_int_equal(ret, 2);
}

static void test_table_validates_like_compare(void **state)
{
	json_t *j = run_json("lower", "[1, 2, 3]", NULL);
	char *argv[] = { "table", NULL }, *out;

	(void)state;
	json_object_set_new(json_array_get(json_object_get(j, "workloads"), 0), "reps",
			    json_real(1e300));
	argv[1] = write_json("t_reps.json", j);
	assert_int_equal(capture(hb_cmd_table, 2, argv, &out), 2);
	free(out);
	j = run_json("lower", "[1, 2, 3]", NULL);
	json_object_del(j, "schema");
	argv[1] = write_json("t_schema.json", j);
	assert_int_equal(capture(hb_cmd_table, 2, argv, &out), 2);
	free(out);
}

static void test_table_names_with_blanks(void **state)
{
	json_t *j = run_json("lower", "[1, 2, 3]", NULL);
	json_t *w = json_array_get(json_object_get(j, "workloads"), 0);
	char *argv[] = { "table", NULL, NULL }, *out;

	(void)state;
	json_object_set_new(w, "name", json_string("fa ult|x"));
	json_object_set_new(json_array_get(json_object_get(w, "metrics"), 0), "name",
			    json_string("write fault"));
	json_object_set_new(w, "checks", json_pack("[{s:s, s:s, s:b}]", "name", "huge <b>kb</b>",
						   "observed", "7", "pass", 1));
	argv[1] = write_json("t_blank.json", json_incref(j));
	argv[2] = argv[1];
	json_decref(j);
	assert_int_equal(capture(hb_cmd_table, 3, argv, &out), 0);
	/* sscanf("%127s") cut the names at the blank: every cell was "—" */
	assert_non_null(strstr(out, "| fa ult\\|x.write fault | 2 ns (n=3) | 2 ns (n=3) |"));
	assert_non_null(strstr(out, "| fa ult\\|x.huge &lt;b>kb&lt;/b> | ✓ 7 | ✓ 7 |"));
	free(out);
}

static void test_defaults_follow_checkout(void **state)
{
	char root[200], d[300], cwd[4096];
	char *argv[] = { "compare-report", "--format", "json", "tgt", "tgt" }, *out;
	json_t *j;
	json_error_t je;

	(void)state;
	snprintf(root, sizeof(root), "%s/root", g_dir);
	mkdir(root, 0755);
	snprintf(d, sizeof(d), "%s/configs", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/configs/thresholds.conf", root);
	{
		FILE *f = fopen(d, "w");

		fputs("* min_effect_pct=7\n", f);
		fclose(f);
	}
	snprintf(d, sizeof(d), "%s/results", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/results/tgt", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/results/tgt/20261203T000000Z-quick", root);
	mkdir(d, 0755);
	strcat(d, "/result.json");
	{
		json_t *doc = run_json("lower", "[1, 2, 3]", NULL);

		json_dump_file(doc, d, 0);
		json_decref(doc); /* was leaked (LeakSanitizer in make sanitize) */
	}
	/* hb_root() is HUGEBENCH_ROOT (set in setup()); the current folder is
	 * elsewhere */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(capture(hb_compare_main, 5, argv, &out), HB_CMP_OK);
	assert_int_equal(chdir(cwd), 0);
	j = json_loads(out, 0, &je);
	assert_non_null(j);
	snprintf(d, sizeof(d), "%s/configs/thresholds.conf", root);
	assert_string_equal(json_string_value(json_object_get(j, "thresholds")), d);
	json_decref(j);
	free(out);
}

static void test_options_and_thresholds(void **state)
{
	struct hb_cmp_thresholds t;
	char err[512], line[700];
	char *good = write_json("opt.json", run_json("lower", "[1, 2, 3]", NULL));
	char *argv[] = { "compare-report", "--thresholds", "/dev/null", "--seed", "-1", good, good };
	struct hb_cmp_limits l;

	(void)state;
	/* --seed -1 wrapped to 2^64 - 1 */
	assert_int_equal(hb_compare_main(7, argv), HB_CMP_USAGE);
	/* "nan" passed the range check and left the setting silently unset */
	assert_int_equal(hb_cmp_thresholds_load(write_file("th1.conf", "* min_effect_pct=nan boot_sd_pct=1\n"),
						&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "th1.conf:1:"));
	/* a line longer than the buffer was read as two lines */
	snprintf(line, sizeof(line), "*%600s min_effect_pct=3\n", "");
	assert_int_equal(hb_cmp_thresholds_load(write_file("th2.conf", line), &t, err, sizeof(err)), 0);
	hb_cmp_limits_for(&t, "w", "m", &l);
	assert_true(l.min_effect_pct == 3);
	hb_cmp_thresholds_free(&t);
	/* patterns see the whole "workload.metric", however long */
	{
		char name[400], pat[64];

		memset(name, 'w', sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		snprintf(pat, sizeof(pat), "*.lat min_effect_pct=9\n");
		assert_int_equal(hb_cmp_thresholds_load(write_file("th3.conf", pat), &t, err, sizeof(err)), 0);
		hb_cmp_limits_for(&t, name, "lat", &l);
		assert_true(l.min_effect_pct == 9);
		hb_cmp_thresholds_free(&t);
	}
}

static int setup(void **state)
{
	(void)state;
	char root[128];

	snprintf(g_dir, sizeof(g_dir), "/tmp/hb-test-cmphard-XXXXXX");
	if (!mkdtemp(g_dir))
		return -1;
	/* before anything calls hb_root(), which keeps its first answer */
	snprintf(root, sizeof(root), "%s/root", g_dir);
	return setenv("HUGEBENCH_ROOT", root, 1);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_welch_huge_no_abort),
		cmocka_unit_test(test_stats_bad_arguments),
		cmocka_unit_test(test_describe_extremes),
		cmocka_unit_test(test_welch_denormals),
		cmocka_unit_test(test_bootstrap_zero_and_negative_centers),
		cmocka_unit_test(test_rule_zero_to_one),
		cmocka_unit_test(test_rule_negative_values),
		cmocka_unit_test(test_rule_huge_and_degenerate),
		cmocka_unit_test(test_rule_nonfinite_not_judged),
		cmocka_unit_test(test_load_integers),
		cmocka_unit_test(test_load_refuses),
		cmocka_unit_test(test_load_no_echo),
		cmocka_unit_test(test_load_fifo_does_not_hang),
		cmocka_unit_test(test_render_escapes),
		cmocka_unit_test(test_broken_pipe_keeps_verdict),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_table_validates_like_compare),
		cmocka_unit_test(test_table_names_with_blanks),
		cmocka_unit_test(test_defaults_follow_checkout),
		cmocka_unit_test(test_options_and_thresholds),
	};

	if (getenv("HB_TEST_FILTER"))
		cmocka_set_test_filter(getenv("HB_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
