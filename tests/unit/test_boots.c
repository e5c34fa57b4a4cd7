/* test_boots.c - compare-report with the boot as the unit (issue 11), on
 * synthetic run groups written as real folders (group.json + boot-K/).
 *
 * Regression tests that failed before the boot became the unit (checked
 * against the previous compare-report): one boot per side with thousands
 * of samples (or repetitions) no longer flags an A/A pair; the second
 * instance of a workload listed twice is compared; a metric that vanished
 * or became unavailable is a finding (--strict: a regression); sides that
 * disagree on a metric's `better` are not comparable (exit 3); a dropped
 * sample no longer switches the center from median to mean.
 * Then the rules: group folders as sides, Welch on >= 3 boots, calibrated
 * z-test with fewer, advisory otherwise, the too-noisy rule, symmetric
 * log thresholds, functional regressions over every boot, calibration
 * files, table on groups.
 *
 * HB_TEST_FILTER=<glob> runs only the matching tests.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "compare.h"
#include "table.h"

static char g_dir[64];
static gsl_rng *g_rng;
static double g_within = 0.05; /* log sd of the samples of one boot */
static int g_vcpus = 2;	       /* environment.vcpus of the runs made */

/* ---- building result files ------------------------------------------------------- */

/* A metric from values split into `reps` equal repetitions (rep_means). */
static json_t *met(const char *name, const char *better, const double *x, size_t n, int reps)
{
	json_t *s = json_array(), *rm = json_array();
	size_t per = reps > 0 ? n / (size_t)reps : n;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(s, json_real(x[i]));
	for (int r = 0; r < reps && per; r++) {
		double sum = 0;

		for (size_t i = 0; i < per; i++)
			sum += x[(size_t)r * per + i];
		json_array_append_new(rm, json_real(sum / (double)per));
	}
	return json_pack("{s:s, s:s, s:s, s:o, s:o}", "name", name, "unit", "ns", "better", better,
			 "samples", s, "rep_means", rm);
}

/* n lognormal samples around `center`, log sd `sigma`. */
static json_t *lat(const char *name, const char *better, double center, double sigma, size_t n,
		   int reps)
{
	double *x = malloc(n * sizeof(*x));
	json_t *m;

	for (size_t i = 0; i < n; i++)
		x[i] = center * exp(gsl_ran_gaussian(g_rng, sigma));
	m = met(name, better, x, n, reps);
	free(x);
	return m;
}

static json_t *chk(const char *name, bool pass)
{
	return json_pack("{s:s, s:s, s:s, s:b, s:i}", "name", name, "expected", "== 1", "observed",
			 pass ? "1" : "0", "pass", pass, "rep", 0);
}

static json_t *wl(const char *name, const char *status, json_t *metrics, json_t *checks)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:o, s:o}", "name", name, "status", status, "reason",
			 "", "reps", 1, "metrics", metrics ? metrics : json_array(), "checks",
			 checks ? checks : json_array());
}

static json_t *doc(const char *target, const char *release, json_t *workloads, const char *verdict)
{
	return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:i}, s:s, s:i, s:o, s:[], s:s}",
			 "schema", HB_CMP_RESULT_SCHEMA, "run_id", target, "target", "name", target,
			 "kernel_release", release, "environment", "accelerator", "tcg", "host_cpu",
			 "Test CPU", "qemu_version", "7.2", "vcpus", g_vcpus, "suite", "quick", "repeat", 1,
			 "workloads", workloads, "kernel_issues", "verdict", verdict);
}

/* <g_dir>/<name>/result.json; returns the folder. */
static const char *write_run(const char *name, json_t *d)
{
	static char paths[32][256];
	static int k;
	char *dir = paths[k++ % 32], file[300];

	snprintf(dir, 256, "%s/%s", g_dir, name);
	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/result.json", dir);
	assert_int_equal(json_dump_file(d, file, JSON_INDENT(1)), 0);
	json_decref(d);
	return dir;
}

/* <g_dir>/<name>/group.json and boot-K/result.json for each document. */
static const char *write_group(const char *name, json_t **docs, int n)
{
	static char paths[32][256];
	static int k;
	char *dir = paths[k++ % 32], sub[300], file[320];
	json_t *runs = json_array(), *g;

	snprintf(dir, 256, "%s/%s", g_dir, name);
	mkdir(dir, 0755);
	for (int i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/boot-%d", dir, i + 1);
		mkdir(sub, 0755);
		snprintf(file, sizeof(file), "%s/result.json", sub);
		json_object_set_new(docs[i], "group", json_string(name));
		assert_int_equal(json_dump_file(docs[i], file, JSON_INDENT(1)), 0);
		json_decref(docs[i]);
		snprintf(sub, sizeof(sub), "boot-%d", i + 1);
		json_array_append_new(runs, json_pack("{s:i, s:s, s:s}", "boot", i + 1, "dir", sub,
						      "verdict", "pass"));
	}
	g = json_pack("{s:s, s:s, s:s, s:s, s:i, s:o}", "schema", HB_CMP_GROUP_SCHEMA, "group_id",
		      name, "target", "t", "suite", "quick", "boots", n, "runs", runs);
	snprintf(file, sizeof(file), "%s/group.json", dir);
	assert_int_equal(json_dump_file(g, file, JSON_INDENT(1)), 0);
	json_decref(g);
	return dir;
}

/* compare-report ARGS... (NULL-terminated, after --thresholds /dev/null)
 * with stdout captured into *out (when out is not NULL); the exit code. */
static int compare(char **out, ...)
{
	char *argv[24] = { "compare-report", "--thresholds", "/dev/null" }, path[200];
	int argc = 3, ret;
	FILE *saved = stdout, *f;
	const char *a;
	va_list ap;
	long len;

	va_start(ap, out);
	while ((a = va_arg(ap, const char *)) && argc < 23)
		argv[argc++] = (char *)a;
	va_end(ap);
	snprintf(path, sizeof(path), "%s/stdout.txt", g_dir);
	stdout = fopen(path, "w+");
	assert_non_null(stdout);
	ret = hb_compare_main(argc, argv);
	fflush(stdout);
	f = stdout;
	stdout = saved;
	len = ftell(f);
	rewind(f);
	if (out) {
		*out = calloc(1, (size_t)len + 1);
		assert_int_equal(fread(*out, 1, (size_t)len, f), (size_t)len);
	}
	fclose(f);
	return ret;
}

/* The JSON report's first comparison, no calibration (the caller frees
 * *root); opt: one more option or NULL. */
static json_t *report(const char *a, const char *b, const char *opt, int *rc, json_t **root)
{
	char *out;
	json_error_t je;

	if (opt)
		*rc = compare(&out, "--calibration", "none", "--format", "json", opt, a, b, NULL);
	else
		*rc = compare(&out, "--calibration", "none", "--format", "json", a, b, NULL);
	*root = json_loads(out, 0, &je);
	free(out);
	assert_non_null(*root);
	return json_array_get(json_object_get(*root, "comparisons"), 0);
}

static json_t *metric_of(json_t *cmp, const char *workload, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(cmp, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "workload")), workload) &&
		    !strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	return NULL;
}

static int findings(json_t *cmp, const char *kind, const char *workload, const char *what,
		    bool regression)
{
	json_t *f;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(cmp, "findings"), i, f)
		if (!strcmp(json_string_value(json_object_get(f, "kind")), kind) &&
		    (!workload || !strcmp(json_string_value(json_object_get(f, "workload")), workload)) &&
		    (!what || strstr(json_string_value(json_object_get(f, "what")), what)) &&
		    json_is_true(json_object_get(f, "regression")) == regression)
			n++;
	return n;
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* ---- regressions that failed before ---------------------------------------------------- */

/* One boot per side, 16384 samples each (and one with 5 repetitions of
 * 3000): the second boot runs 12 % slower, as boots of one kernel do here.
 * Before: flagged (Mann-Whitney q ~ 1e-300, interval beyond 5 %; in reps
 * mode Welch on 5 repetition medians with a 1 % boot term). Now: advisory. */
static void test_aa_pseudo_replication(void **state)
{
	json_t *root, *cmp;
	int rc;

	(void)state;
	for (int reps = 1; reps <= 5; reps += 4) {
		size_t n = reps == 1 ? 16384 : 15000;
		const char *a = write_run(reps == 1 ? "pr_a1" : "pr_a5",
					  doc("t", "6.12.1", json_pack("[o]", wl("fault", "pass",
						json_pack("[o]", lat("f", "lower", 1000, 0.3, n, reps)),
						NULL)), "pass"));
		const char *b = write_run(reps == 1 ? "pr_b1" : "pr_b5",
					  doc("t", "6.12.1", json_pack("[o]", wl("fault", "pass",
						json_pack("[o]", lat("f", "lower", 1120, 0.3, n, reps)),
						NULL)), "pass"));
		json_t *m;

		cmp = report(a, b, NULL, &rc, &root);
		assert_int_equal(rc, HB_CMP_OK);
		m = metric_of(cmp, "fault", "f");
		assert_non_null(m);
		assert_string_equal(json_string_value(json_object_get(m, "verdict")), "advisory");
		assert_true(num(m, "change_pct") > 8);
		/* descriptive only: never adjusted, never a verdict */
		assert_true(isnan(num(m, "q_worse")));
		json_decref(root);
	}
}

/* full lists fragment twice: the second instance going pass -> fail was
 * not compared (by name, first instance only). */
static void test_workload_listed_twice(void **state)
{
	json_t *root, *cmp;
	int rc;
	const char *a = write_run("twice_a", doc("t", "6.12.1", json_pack("[o, o, o]",
		wl("fragment", "pass", NULL, json_pack("[o]", chk("huge", true))),
		wl("other", "fail", NULL, json_pack("[o]", chk("x", false))),
		wl("fragment", "pass", NULL, json_pack("[o]", chk("huge", true)))), "fail"));
	const char *b = write_run("twice_b", doc("t", "6.12.1", json_pack("[o, o, o]",
		wl("fragment", "pass", NULL, json_pack("[o]", chk("huge", true))),
		wl("other", "fail", NULL, json_pack("[o]", chk("x", false))),
		wl("fragment", "fail", NULL, json_pack("[o]", chk("huge", false)))), "fail"));

	(void)state;
	cmp = report(a, b, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_int_equal(findings(cmp, "check", "fragment#2", "huge", true), 1);
	assert_int_equal(findings(cmp, "workload", "fragment#2", NULL, true), 1);
	assert_int_equal(findings(cmp, "check", "fragment", "huge", true), 0);
	json_decref(root);
}

/* A metric gone from NEW, or newly unavailable, was silently not judged. */
static void test_vanished_metric(void **state)
{
	double x[] = { 10, 11, 12 };
	json_t *root, *cmp, *na = json_pack("{s:s, s:s, s:s, s:s}", "name", "tlb", "unit", "count",
					     "better", "lower", "unavailable", "no PMU");
	const char *a = write_run("van_a", doc("t", "6.12.1", json_pack("[o]", wl("access", "pass",
		json_pack("[o, o, o]", met("seq", "lower", x, 3, 1), met("rand", "lower", x, 3, 1),
			  met("tlb", "lower", x, 3, 1)), NULL)), "pass"));
	const char *b = write_run("van_b", doc("t", "6.12.1", json_pack("[o]", wl("access", "pass",
		json_pack("[o, o]", met("seq", "lower", x, 3, 1), na), NULL)), "pass"));
	int rc;

	(void)state;
	cmp = report(a, b, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_OK);
	assert_int_equal(findings(cmp, "metric", "access", "rand", false), 1);
	assert_int_equal(findings(cmp, "metric", "access", "tlb", false), 1);
	json_decref(root);
	cmp = report(a, b, "--strict", &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_int_equal(findings(cmp, "metric", "access", "rand", true), 1);
	assert_int_equal(findings(cmp, "metric", "access", "tlb", true), 1);
	json_decref(root);
}

/* BASE says lower is better, NEW higher: the direction was BASE's alone. */
static void test_direction_disagreement(void **state)
{
	double x[] = { 10, 11, 12 };
	const char *a = write_run("dir_a", doc("t", "6.12.1", json_pack("[o]", wl("knobs", "pass",
		json_pack("[o]", met("cells", "lower", x, 3, 1)), NULL)), "pass"));
	const char *b = write_run("dir_b", doc("t", "6.12.1", json_pack("[o]", wl("knobs", "pass",
		json_pack("[o]", met("cells", "higher", x, 3, 1)), NULL)), "pass"));
	char *out;

	(void)state;
	assert_int_equal(compare(NULL, a, b, NULL), HB_CMP_INCOMPARABLE);
	assert_int_equal(compare(&out, "--force", a, b, NULL), HB_CMP_OK);
	assert_non_null(strstr(out, "better=lower in BASE, higher in NEW"));
	free(out);
}

/* 5 repetitions of 32 skewed samples; NEW is the same boot with one sample
 * dropped (a NaN the guest left out). Before: NEW's center fell back to the
 * repetition means (the count was no longer divisible) while BASE used
 * medians: "+13 % REGRESSION" from one missing sample. */
static void test_dropped_sample(void **state)
{
	double x[160];
	json_t *root, *cmp, *m;
	const char *a, *b;
	int rc;

	(void)state;
	for (int i = 0; i < 160; i++)
		x[i] = 1000 * exp(gsl_ran_gaussian(g_rng, 0.5));
	a = write_run("nan_a", doc("t", "6.12.1", json_pack("[o]", wl("fault", "pass",
		json_pack("[o]", met("f", "lower", x, 160, 5)), NULL)), "pass"));
	{
		json_t *mm = met("f", "lower", x, 160, 5);

		json_array_remove(json_object_get(mm, "samples"), 77);
		b = write_run("nan_b", doc("t", "6.12.1", json_pack("[o]", wl("fault", "pass",
			json_pack("[o]", mm), NULL)), "pass"));
	}
	cmp = report(a, b, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_OK);
	m = metric_of(cmp, "fault", "f");
	assert_true(fabs(num(m, "change_pct")) < 2);
	json_decref(root);
}

/* The same in groups of 5 boots: one sample missing in one NEW boot leaves
 * the verdict and (almost) the change as they were. */
static void test_dropped_sample_groups(void **state)
{
	json_t *docs[5], *docs2[5], *root, *cmp;
	double x[5][160], c1, c2;
	const char *a, *b, *b2;
	const char *v1, *v2;
	int rc;

	(void)state;
	for (int k = 0; k < 5; k++) {
		for (int i = 0; i < 160; i++)
			x[k][i] = 1000 * exp(gsl_ran_gaussian(g_rng, 0.3));
		docs[k] = doc("t", "6.12.1", json_pack("[o]", wl("fault", "pass",
			json_pack("[o]", lat("f", "lower", 1000, 0.3, 160, 5)), NULL)), "pass");
	}
	a = write_group("nang_a", docs, 5);
	for (int k = 0; k < 5; k++) {
		json_t *mm = met("f", "lower", x[k], 160, 5);

		docs[k] = doc("t", "6.12.1", json_pack("[o]", wl("fault", "pass",
			json_pack("[o]", mm), NULL)), "pass");
		docs2[k] = json_deep_copy(docs[k]);
	}
	b = write_group("nang_b", docs, 5);
	json_array_remove(json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(docs2[2], "workloads"), 0), "metrics"), 0), "samples"), 5);
	b2 = write_group("nang_b2", docs2, 5);
	cmp = report(a, b, NULL, &rc, &root);
	v1 = strdup(json_string_value(json_object_get(metric_of(cmp, "fault", "f"), "verdict")));
	c1 = num(metric_of(cmp, "fault", "f"), "change_pct");
	json_decref(root);
	cmp = report(a, b2, NULL, &rc, &root);
	v2 = json_string_value(json_object_get(metric_of(cmp, "fault", "f"), "verdict"));
	c2 = num(metric_of(cmp, "fault", "f"), "change_pct");
	assert_string_equal(v1, v2);
	assert_true(fabs(c1 - c2) < 1);
	free((char *)v1);
	json_decref(root);
}

/* ---- the rules ---------------------------------------------------------------------------- */

/* n boots of one metric "f" (higher or lower better), each boot's center
 * at base * factor * boot effect (log sd sd), 64 samples per boot. */
static const char *boots(const char *name, int n, const char *better, double base, double sd,
			 double factor, const char *release)
{
	json_t *docs[16];

	for (int k = 0; k < n; k++) {
		double c = base * factor * exp(gsl_ran_gaussian(g_rng, sd));

		docs[k] = doc("t", release, json_pack("[o]", wl("fault", "pass",
			json_pack("[o]", lat("f", better, c, g_within, 64, 1)), NULL)), "pass");
	}
	return write_group(name, docs, n);
}

/* Group folders, a target whose latest entry is a group, results/<target>. */
static void test_group_as_side(void **state)
{
	char results[200], tdir[256], link[300], *out;
	const char *a = boots("side_a", 4, "lower", 1000, 0.01, 1, "6.12.1");
	json_t *root, *cmp;
	int rc;

	(void)state;
	cmp = report(a, a, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_OK);
	assert_int_equal(num(cmp, "base_boots"), 4);
	assert_string_equal(json_string_value(json_object_get(metric_of(cmp, "fault", "f"), "mode")),
			    "boots");
	json_decref(root);
	/* results/<target>/<stamp>-quick holding a group, by target name */
	snprintf(results, sizeof(results), "%s/results", g_dir);
	mkdir(results, 0755);
	snprintf(tdir, sizeof(tdir), "%s/tgt", results);
	mkdir(tdir, 0755);
	snprintf(link, sizeof(link), "%s/20261203T000000Z-quick", tdir);
	assert_int_equal(rename(a, link), 0);
	rc = compare(&out, "--results", results, "--calibration", "none", "tgt", tdir, NULL);
	assert_int_equal(rc, HB_CMP_OK);
	assert_non_null(strstr(out, "boots: 4 BASE, 4 NEW"));
	free(out);
	assert_int_equal(rename(link, a), 0);
}

/* A broken group.json or boot is one line naming file and field: exit 2. */
static void test_group_refused(void **state)
{
	const char *a = boots("bad_g", 3, "lower", 1000, 0.01, 1, "6.12.1");
	char path[300], err[512];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/group.json", a);
	f = fopen(path, "w");
	fputs("{\"schema\": \"hugebench-group/1\", \"runs\": [{\"dir\": \"../../etc\"}]}", f);
	fclose(f);
	assert_null(hb_cmp_group_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "runs[0].dir: not a plain folder name"));
	assert_int_equal(compare(NULL, a, a, NULL), HB_CMP_USAGE);
	f = fopen(path, "w");
	fputs("{\"schema\": \"hugebench-group/1\", \"runs\": [{\"dir\": \"boot-9\"}]}", f);
	fclose(f);
	assert_null(hb_cmp_group_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "boot-9/result.json: cannot open"));
	f = fopen(path, "w");
	fputs("{\"schema\": \"hugebench-group/1\", \"runs\": []}", f);
	fclose(f);
	assert_null(hb_cmp_group_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "runs: empty"));
}

/* >= 3 boots per side: a 20 % shift is found; the same groups A/A are not. */
static void test_welch_on_boots(void **state)
{
	const char *a = boots("w_a", 5, "lower", 1000, 0.01, 1, "6.12.1");
	const char *b = boots("w_b", 5, "lower", 1000, 0.01, 1.2, "6.12.1");
	json_t *root, *cmp, *m;
	int rc;

	(void)state;
	cmp = report(a, b, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	m = metric_of(cmp, "fault", "f");
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "regression");
	assert_string_equal(json_string_value(json_object_get(m, "test")), "welch(log boot centers)");
	assert_int_equal(json_array_size(json_object_get(m, "base_centers")), 5);
	json_decref(root);
}

/* Symmetric on the log scale: 1/1.05 (-4.76 %) is the threshold of a
 * higher-is-better metric, +5 % of a lower-is-better one. */
static void test_symmetric_threshold(void **state)
{
	const char *h0, *h1, *l0, *l1;
	json_t *root, *cmp;
	int rc;

	(void)state;
	g_within = 0.001;
	h0 = boots("sym_h0", 6, "higher", 1000, 0.001, 1, "6.12.1");
	h1 = boots("sym_h1", 6, "higher", 1000, 0.001, 0.951, "6.12.1");
	l0 = boots("sym_l0", 6, "lower", 1000, 0.001, 1, "6.12.1");
	l1 = boots("sym_l1", 6, "lower", 1000, 0.001, 1.049, "6.12.1");
	g_within = 0.05;
	/* -4.9 %: beyond log(1.05) in the worse direction (was: 4.9 < 5, same) */
	cmp = report(h0, h1, NULL, &rc, &root);
	assert_string_equal(json_string_value(json_object_get(metric_of(cmp, "fault", "f"),
							      "verdict")), "regression");
	json_decref(root);
	/* +4.9 %: short of it */
	cmp = report(l0, l1, NULL, &rc, &root);
	assert_string_equal(json_string_value(json_object_get(metric_of(cmp, "fault", "f"),
							      "verdict")), "same");
	json_decref(root);
}

/* A metric whose boot sd hides the minimum effect is listed, not judged,
 * and a change far beyond the noise is still noted for a human. */
static void test_too_noisy(void **state)
{
	const char *a = boots("nz_a", 4, "lower", 1000, 0.3, 1, "6.12.1");
	const char *b = boots("nz_b", 4, "lower", 1000, 0.3, 1, "6.12.1");
	const char *c = boots("nz_c", 4, "lower", 1000, 0.3, 20, "6.12.1");
	json_t *root, *cmp, *m;
	int rc;

	(void)state;
	cmp = report(a, b, NULL, &rc, &root);
	m = metric_of(cmp, "fault", "f");
	assert_int_equal(rc, HB_CMP_OK);
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "too_noisy");
	assert_true(num(m, "detectable_pct") > 5);
	assert_string_equal(json_string_value(json_object_get(m, "boot_sd_source")), "measured");
	json_decref(root);
	cmp = report(a, c, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_OK);
	assert_int_equal(findings(cmp, "metric", "fault", "f", false), 1);
	json_decref(root);
}

/* Fewer than 3 boots: judged against a matching calibration (z-test),
 * advisory without one, and the calibration must match host, accelerator,
 * suite and kernel family. */
static void test_calibration(void **state)
{
	const char *cal, *a, *b, *c, *d;
	char caldir[200], file[300], name[256], err[512], *out;
	struct hb_cmp_group *g;
	struct hb_cmp_calib *k, *k2;
	json_t *root, *cmp, *m;
	int rc;

	(void)state;
	g_within = 0.01;
	cal = boots("cal_g", 8, "lower", 1000, 0.005, 1, "6.12.1");
	a = boots("cal_a", 1, "lower", 1000, 0.005, 1, "6.12.1");
	b = boots("cal_b", 1, "lower", 1000, 0.005, 1.3, "6.12.7");
	c = boots("cal_c", 1, "lower", 1000, 0.005, 1.3, "6.1.0");
	g_vcpus = 1;
	d = boots("cal_d", 1, "lower", 1000, 0.005, 1.3, "6.12.7");
	g_vcpus = 2;
	g_within = 0.05;
	snprintf(caldir, sizeof(caldir), "%s/calibration", g_dir);
	mkdir(caldir, 0755);
	snprintf(file, sizeof(file), "%s/group.json", cal);
	g = hb_cmp_group_load(file, err, sizeof(err));
	assert_non_null(g);
	k = hb_cmp_calib_measure(g, err, sizeof(err));
	assert_non_null(k);
	assert_int_equal(hb_cmp_calib_name(g->boots[0], name, sizeof(name)), 0);
	assert_non_null(strstr(name, "-tcg-quick-6.12.json"));
	snprintf(file, sizeof(file), "%s/%s", caldir, name);
	assert_int_equal(hb_cmp_calib_save(k, file, err, sizeof(err)), 0);
	k2 = hb_cmp_calib_load(file, err, sizeof(err));
	assert_non_null(k2);
	assert_true(fabs(hb_cmp_calib_sd(k2, "fault", "f", NULL) - hb_cmp_calib_sd(k, "fault", "f", NULL)) < 1e-6);
	assert_true(hb_cmp_calib_sd(k2, "fault", "f", NULL) > 0.001 && hb_cmp_calib_sd(k2, "fault", "f", NULL) < 0.02);
	assert_true(isnan(hb_cmp_calib_sd(k2, "fault#2", "f", NULL)));
	hb_cmp_calib_free(k);
	hb_cmp_calib_free(k2);
	hb_cmp_group_free(g);

	/* 1 vs 1 boot, +30 %, same family (6.12): judged by the calibration */
	rc = compare(&out, "--calibration", caldir, "--format", "json", a, b, NULL);
	root = json_loads(out, 0, NULL);
	free(out);
	cmp = json_array_get(json_object_get(root, "comparisons"), 0);
	m = metric_of(cmp, "fault", "f");
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_string_equal(json_string_value(json_object_get(m, "mode")), "calibrated");
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "regression");
	assert_non_null(strstr(json_string_value(json_object_get(cmp, "calibration_note")), name));
	json_decref(root);
	/* another family (6.1 vs 6.12): none matches, advisory */
	rc = compare(&out, "--calibration", caldir, "--format", "json", a, c, NULL);
	root = json_loads(out, 0, NULL);
	free(out);
	cmp = json_array_get(json_object_get(root, "comparisons"), 0);
	assert_int_equal(rc, HB_CMP_OK);
	assert_string_equal(json_string_value(json_object_get(metric_of(cmp, "fault", "f"), "verdict")),
			    "advisory");
	assert_non_null(strstr(json_string_value(json_object_get(cmp, "calibration_note")),
			       "kernel family"));
	json_decref(root);
	/* measured with 2 vCPUs, NEW has 1: another noise, none */
	rc = compare(&out, "--calibration", caldir, "--format", "json", a, d, NULL);
	root = json_loads(out, 0, NULL);
	free(out);
	cmp = json_array_get(json_object_get(root, "comparisons"), 0);
	assert_int_equal(rc, HB_CMP_OK);
	assert_non_null(strstr(json_string_value(json_object_get(cmp, "calibration_note")),
			       "measured with 2 vCPUs"));
	json_decref(root);
	/* a broken calibration file is an input error */
	{
		FILE *f = fopen(file, "w");

		fputs("{\"schema\": \"hugebench-calibration/1\"", f);
		fclose(f);
	}
	assert_int_equal(compare(NULL, "--calibration", caldir, a, b, NULL), HB_CMP_USAGE);
	unlink(file);
	assert_int_equal(compare(NULL, "--calibration", caldir, a, b, NULL), HB_CMP_OK);
}

/* Over every boot: a check failing in one NEW boot that passed in every
 * BASE boot is a regression; one failing in a BASE boot too is not. */
static void test_functional_over_boots(void **state)
{
	json_t *da[4], *db[4], *dc[4], *root, *cmp;
	const char *a, *b, *c;
	int rc;

	(void)state;
	for (int k = 0; k < 4; k++) {
		da[k] = doc("t", "6.12.1", json_pack("[o]", wl("fault", "pass", NULL,
			json_pack("[o]", chk("pmd", k != 2)))), "pass");
		db[k] = doc("t", "6.12.1", json_pack("[o]", wl("fault", "pass", NULL,
			json_pack("[o]", chk("pmd", k != 1)))), "pass");
		dc[k] = doc("t", "6.12.1", json_pack("[o]", wl("fault", "pass", NULL,
			json_pack("[o]", chk("pmd", true)))), "pass");
	}
	a = write_group("fn_a", da, 4); /* fails in boot 3 */
	b = write_group("fn_b", db, 4); /* fails in boot 2 */
	c = write_group("fn_c", dc, 4); /* never fails */
	cmp = report(c, b, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_int_equal(findings(cmp, "check", "fault", "pmd", true), 1);
	json_decref(root);
	cmp = report(a, b, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_OK);
	assert_int_equal(findings(cmp, "check", "fault", "pmd", false), 1);
	json_decref(root);
}

/* table takes a group as one column. */
static void test_table_group(void **state)
{
	const char *a = boots("tbl_g", 3, "lower", 1000, 0.01, 1, "6.12.1");
	char *argv[] = { "table", (char *)a }, path[200];
	FILE *saved = stdout, *f;
	char buf[8192] = "";

	(void)state;
	snprintf(path, sizeof(path), "%s/table.txt", g_dir);
	stdout = fopen(path, "w+");
	assert_int_equal(hb_cmd_table(2, argv), 0);
	fflush(stdout);
	f = stdout;
	stdout = saved;
	rewind(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) > 0);
	fclose(f);
	assert_non_null(strstr(buf, "t (3 boots)"));
	assert_non_null(strstr(buf, "(3 boots) |"));
}

static void test_kernel_family(void **state)
{
	char f[32];

	(void)state;
	hb_cmp_kernel_family("6.12.118+deb12-cloud-amd64", f, sizeof(f));
	assert_string_equal(f, "6.12");
	hb_cmp_kernel_family("6.1.192-hb-minimal-6.1-delay-alloc", f, sizeof(f));
	assert_string_equal(f, "6.1");
	hb_cmp_kernel_family("3.19.0", f, sizeof(f));
	assert_string_equal(f, "3.19");
	hb_cmp_kernel_family("linux", f, sizeof(f));
	assert_string_equal(f, "unknown");
	hb_cmp_kernel_family(NULL, f, sizeof(f));
	assert_string_equal(f, "unknown");
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof(g_dir), "/tmp/hb-test-boots-XXXXXX");
	if (!mkdtemp(g_dir))
		return -1;
	g_rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g_rng, 11);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	gsl_rng_free(g_rng);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_pseudo_replication),
		cmocka_unit_test(test_workload_listed_twice),
		cmocka_unit_test(test_vanished_metric),
		cmocka_unit_test(test_direction_disagreement),
		cmocka_unit_test(test_dropped_sample),
		cmocka_unit_test(test_dropped_sample_groups),
		cmocka_unit_test(test_group_as_side),
		cmocka_unit_test(test_group_refused),
		cmocka_unit_test(test_welch_on_boots),
		cmocka_unit_test(test_symmetric_threshold),
		cmocka_unit_test(test_too_noisy),
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_functional_over_boots),
		cmocka_unit_test(test_table_group),
		cmocka_unit_test(test_kernel_family),
	};

	if (getenv("HB_TEST_FILTER"))
		cmocka_set_test_filter(getenv("HB_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
