/* test_compare.c - compare-report on synthetic result.json files.
 *
 * Runs are generated here (seeded lognormal latencies and scalar metrics,
 * hugebench-result/1 layout, one boot effect per run) and grouped into
 * sides of several boots: A/A gives no regression, a 20% shift is found on
 * that metric and no other, one boot per side is advisory only, check and
 * workload flips and new kernel warnings are regressions, different
 * accelerators exit 3, broken files exit 2 naming file and field, and every
 * format renders. The rules added with the boot as the unit are tested in
 * test_boots.c.
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

static char g_dir[64];

struct gen {
	unsigned long seed;
	int reps;
	size_t per_rep;	   /* latency samples per repetition */
	const char *accel;
	const char *shift_metric; /* multiply this metric by shift */
	double shift;
	bool fail_check;
	const char *status2; /* status of workload "mix" */
	bool warning;
};

#define N_LAT 8
#define N_SCALAR 8

static json_t *gen_metric(gsl_rng *r, const char *name, const char *better, double base,
			  double sigma, size_t per_rep, const struct gen *g, double boot)
{
	json_t *m = json_pack("{s:s, s:s, s:s}", "name", name, "unit", "ns", "better", better);
	json_t *s = json_array(), *rm = json_array();
	double mult = g->shift_metric && !strcmp(g->shift_metric, name) ? g->shift : 1;

	for (int rep = 0; rep < g->reps; rep++) {
		double rep_eff = exp(gsl_ran_gaussian(r, 0.01)) * boot, sum = 0;

		for (size_t i = 0; i < per_rep; i++) {
			double v = base * mult * rep_eff * exp(gsl_ran_gaussian(r, sigma));

			sum += v;
			json_array_append_new(s, json_real(v));
		}
		json_array_append_new(rm, json_real(sum / (double)per_rep));
	}
	json_object_set_new(m, "samples", s);
	json_object_set_new(m, "rep_means", rm);
	return m;
}

static json_t *gen_run(const struct gen *g)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	json_t *w1, *w2, *ms, *root;
	double boot = 1;
	char name[32];

	gsl_rng_set(r, g->seed);
	boot = exp(gsl_ran_gaussian(r, 0.005)); /* boot-to-boot, shared by the run */
	ms = json_array();
	for (int i = 0; i < N_LAT; i++) {
		snprintf(name, sizeof(name), "lat%d", i);
		json_array_append_new(ms, gen_metric(r, name, "lower", 1000 * (i + 1), 0.15,
						     g->per_rep, g, boot));
	}
	for (int i = 0; i < N_SCALAR; i++) {
		snprintf(name, sizeof(name), "tput%d", i);
		json_array_append_new(ms, gen_metric(r, name, "higher", 500, 0.02, 1, g, boot));
	}
	json_array_append_new(ms, gen_metric(r, "info0", "info", 10, 0.5, 1, g, boot));
	json_array_append_new(ms, json_pack("{s:s, s:s, s:s, s:s}", "name", "dtlb", "unit", "count",
					    "better", "lower", "unavailable", "no PMU"));
	w1 = json_pack("{s:s, s:s, s:s, s:i, s:o, s:[{s:s, s:s, s:s, s:b, s:i}],"
		       " s:[{s:s, s:i, s:{s:i, s:i}, s:{s:i}}]}",
		       "name", "fault", "status", g->fail_check ? "fail" : "pass", "reason", "",
		       "reps", g->reps, "metrics", ms, "checks", "name", "huge_pmd_mapped",
		       "expected", "== 65536", "observed", g->fail_check ? "0" : "65536", "pass",
		       !g->fail_check, "rep", 0, "snapshots", "label", "huge", "rep", 0,
		       "meminfo_kb", "ShmemPmdMapped", g->fail_check ? 0 : 65536, "Shmem", 65536,
		       "vmstat", "thp_file_alloc", g->fail_check ? 0 : 32);
	w2 = json_pack("{s:s, s:s, s:s, s:[]}", "name", "mix", "status",
		       g->status2 ? g->status2 : "skip", "reason",
		       g->status2 ? "" : "needs 6.11 per-size knobs", "metrics");
	root = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:i, s:i},"
			 " s:s, s:i, s:[o, o], s:o, s:s}",
			 "schema", HB_CMP_RESULT_SCHEMA, "run_id", "t/20261203T000000Z-quick",
			 "target", "name", "t", "kernel_release", "6.12.0", "cmdline", "console=ttyS0",
			 "environment", "accelerator", g->accel ? g->accel : "tcg", "qemu_version",
			 "7.2.22", "vcpus", 2, "memory_mb", 2048, "suite", "quick", "repeat", g->reps,
			 "workloads", w1, w2, "kernel_issues",
			 g->warning ? json_pack("[{s:s, s:i, s:s}]", "kind", "WARNING", "line", 412,
						"excerpt", "WARNING: CPU: 0 PID: 1 at mm/shmem.c")
				    : json_array(),
			 "verdict", g->fail_check ? "fail" : (g->warning ? "kernel-warning" : "pass"));
	gsl_rng_free(r);
	assert_non_null(root);
	return root;
}

/* Writes the run to <g_dir>/<name>/result.json and returns the folder. */
static char *write_run(const char *name, const struct gen *g)
{
	static char paths[16][160];
	static int k;
	char *dir = paths[k++ % 16], file[200];
	json_t *root = gen_run(g);

	snprintf(dir, 160, "%s/%s", g_dir, name);
	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/result.json", dir);
	assert_int_equal(json_dump_file(root, file, JSON_INDENT(1)), 0);
	json_decref(root);
	return dir;
}

static int run_cmd(const char *a, const char *b, const char *extra1, const char *extra2)
{
	char *argv[8] = { "compare-report", "--thresholds", "/dev/null" };
	int argc = 3;

	if (extra1)
		argv[argc++] = (char *)extra1;
	if (extra2)
		argv[argc++] = (char *)extra2;
	argv[argc++] = (char *)a;
	argv[argc++] = (char *)b;
	{
		FILE *saved = stdout;
		int ret;

		stdout = fopen("/dev/null", "w");
		ret = hb_compare_main(argc, argv);
		fclose(stdout);
		stdout = saved;
		return ret;
	}
}

/* Compare two generated runs in memory. */
static void pair_of(const struct gen *ga, const struct gen *gb, struct hb_cmp_run **a,
		    struct hb_cmp_run **b, struct hb_cmp_pair *p)
{
	struct hb_cmp_thresholds th;
	struct hb_cmp_opts o;
	char err[256];

	hb_cmp_thresholds_default(&th);
	hb_cmp_opts_default(&o);
	o.boot_B = 500;
	*a = hb_cmp_load_json(gen_run(ga), "a.json", err, sizeof(err));
	*b = hb_cmp_load_json(gen_run(gb), "b.json", err, sizeof(err));
	assert_non_null(*a);
	assert_non_null(*b);
	assert_int_equal(hb_cmp_pair_build(*a, *b, &th, &o, p), 0);
}

/* A side of `boots` boots: gen_run with seeds derived from g->seed. */
static struct hb_cmp_group *gen_group(const struct gen *g, int boots)
{
	struct hb_cmp_run *runs[16];
	struct hb_cmp_group *grp;
	char err[256];

	assert_true(boots > 0 && boots <= 16);
	for (int k = 0; k < boots; k++) {
		struct gen gk = *g;

		gk.seed = g->seed * 100 + (unsigned long)k;
		runs[k] = hb_cmp_load_json(gen_run(&gk), "boot.json", err, sizeof(err));
		assert_non_null(runs[k]);
	}
	grp = hb_cmp_group_view(runs, (size_t)boots, "group");
	assert_non_null(grp);
	grp->owns = true;
	return grp;
}

/* Compare two generated groups in memory. */
static void groups_of(const struct gen *ga, int na, const struct gen *gb, int nb,
		      struct hb_cmp_group **a, struct hb_cmp_group **b, struct hb_cmp_pair *p)
{
	struct hb_cmp_thresholds th;
	struct hb_cmp_opts o;

	hb_cmp_thresholds_default(&th);
	hb_cmp_opts_default(&o);
	*a = gen_group(ga, na);
	*b = gen_group(gb, nb);
	assert_int_equal(hb_cmp_pair_build_groups(*a, *b, &th, &o, p), 0);
}

static void free_groups(struct hb_cmp_group *a, struct hb_cmp_group *b, struct hb_cmp_pair *p)
{
	hb_cmp_pair_free(p);
	hb_cmp_group_free(a);
	hb_cmp_group_free(b);
}

static size_t count_verdict(const struct hb_cmp_pair *p, enum hb_cmp_verdict v,
			    const char **which)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_m; i++)
		if (p->m[i].verdict == v) {
			n++;
			if (which)
				*which = p->m[i].name;
		}
	return n;
}

static void free_pair(struct hb_cmp_run *a, struct hb_cmp_run *b, struct hb_cmp_pair *p)
{
	hb_cmp_pair_free(p);
	hb_cmp_run_free(a);
	hb_cmp_run_free(b);
}

static void test_aa_no_regression(void **state)
{
	(void)state;
	for (unsigned long s = 1; s <= 6; s++) {
		struct gen ga = { .seed = s, .reps = 3, .per_rep = 128 };
		struct gen gb = { .seed = s + 1000, .reps = 3, .per_rep = 128 };
		struct hb_cmp_group *a, *b;
		struct hb_cmp_pair p;

		groups_of(&ga, 5, &gb, 5, &a, &b, &p);
		assert_int_equal(p.n_regressions, 0);
		assert_int_equal(count_verdict(&p, HB_CMP_WORSE, NULL), 0);
		assert_int_equal(count_verdict(&p, HB_CMP_INFO_ONLY, NULL), 1);
		assert_int_equal(count_verdict(&p, HB_CMP_UNAVAILABLE, NULL), 1);
		assert_int_equal(p.m[0].mode, HB_CMP_MODE_BOOTS);
		assert_int_equal(p.m[0].na, 5);
		assert_true(p.m[0].distribution);
		assert_true(p.comparable);
		free_groups(a, b, &p);
	}
}

static void test_shift_found_on_that_metric_only(void **state)
{
	static const char *const targets[] = { "lat3", "tput5" };

	(void)state;
	for (size_t t = 0; t < 2; t++) {
		struct gen ga = { .seed = 11, .reps = 3, .per_rep = 128 };
		struct gen gb = { .seed = 12, .reps = 3, .per_rep = 128, .shift_metric = targets[t],
				  .shift = t ? 0.8 : 1.2 }; /* tput: higher is better */
		struct hb_cmp_group *a, *b;
		struct hb_cmp_pair p;
		const char *which = NULL;

		groups_of(&ga, 5, &gb, 5, &a, &b, &p);
		assert_int_equal(count_verdict(&p, HB_CMP_WORSE, &which), 1);
		assert_string_equal(which, targets[t]);
		assert_int_equal(p.n_regressions, 1);
		for (size_t i = 0; i < p.n_m; i++)
			if (!strcmp(p.m[i].name, targets[t]))
				assert_true(p.m[i].worse_pct > 15 && p.m[i].worse_pct < 25);
		free_groups(a, b, &p);
	}
}

static void test_improvement_is_not_regression(void **state)
{
	struct gen ga = { .seed = 21, .reps = 3, .per_rep = 128 };
	struct gen gb = { .seed = 22, .reps = 3, .per_rep = 128, .shift_metric = "lat1", .shift = 0.7 };
	struct hb_cmp_group *a, *b;
	struct hb_cmp_pair p;
	const char *which = NULL;

	(void)state;
	groups_of(&ga, 5, &gb, 5, &a, &b, &p);
	assert_int_equal(p.n_regressions, 0);
	assert_int_equal(count_verdict(&p, HB_CMP_BETTER, &which), 1);
	assert_string_equal(which, "lat1");
	free_groups(a, b, &p);
}

static void test_one_boot_is_advisory(void **state)
{
	/* One boot per side (this was "samples mode", which tested the samples
	 * of one boot and flagged A/A pairs): every metric is advisory, the
	 * change is shown, the within-boot p-value is descriptive only. */
	struct gen ga = { .seed = 31, .reps = 1, .per_rep = 400 };
	struct gen gb = { .seed = 32, .reps = 1, .per_rep = 400 };
	struct gen gc = { .seed = 33, .reps = 1, .per_rep = 400, .shift_metric = "lat0", .shift = 1.3 };
	struct hb_cmp_run *a, *b;
	struct hb_cmp_pair p;

	(void)state;
	pair_of(&ga, &gb, &a, &b, &p);
	assert_int_equal(p.m[0].mode, HB_CMP_MODE_ADVISORY);
	assert_int_equal(count_verdict(&p, HB_CMP_WORSE, NULL), 0);
	assert_int_equal(count_verdict(&p, HB_CMP_ADVISORY, NULL), N_LAT + N_SCALAR);
	free_pair(a, b, &p);
	pair_of(&ga, &gc, &a, &b, &p);
	assert_int_equal(count_verdict(&p, HB_CMP_WORSE, NULL), 0);
	assert_int_equal(p.n_regressions, 0);
	assert_int_equal(p.m[0].verdict, HB_CMP_ADVISORY);
	assert_true(p.m[0].change_pct > 20);
	assert_true(p.m[0].p_within < 1e-6); /* shown, never judged */
	assert_true(isnan(p.m[0].q_worse));
	free_pair(a, b, &p);
}

static void test_functional_regressions(void **state)
{
	struct gen ga = { .seed = 41, .reps = 3, .per_rep = 16 };
	struct gen gb = { .seed = 42, .reps = 3, .per_rep = 16, .fail_check = true };
	struct gen gw = { .seed = 42, .reps = 3, .per_rep = 16, .warning = true };
	struct gen ge = { .seed = 42, .reps = 3, .per_rep = 16, .status2 = "error" };
	struct hb_cmp_run *a, *b;
	struct hb_cmp_pair p;
	bool check = false, wl = false, issue = false, verdict = false;

	(void)state;
	pair_of(&ga, &gb, &a, &b, &p);
	for (size_t i = 0; i < p.n_f; i++) {
		check |= p.f[i].kind == HB_CMP_F_CHECK && p.f[i].regression &&
			 !strcmp(p.f[i].what, "huge_pmd_mapped");
		wl |= p.f[i].kind == HB_CMP_F_WORKLOAD && p.f[i].regression;
		verdict |= p.f[i].kind == HB_CMP_F_VERDICT && p.f[i].regression;
	}
	assert_true(check && wl && verdict);
	/* snapshots side by side by label */
	for (size_t i = 0; i < p.n_snaps; i++)
		if (!strcmp(p.snaps[i].key, "ShmemPmdMapped")) {
			assert_string_equal(p.snaps[i].label, "huge");
			assert_true(p.snaps[i].a == 65536 && p.snaps[i].b == 0);
		}
	free_pair(a, b, &p);

	pair_of(&ga, &gw, &a, &b, &p);
	for (size_t i = 0; i < p.n_f; i++)
		issue |= p.f[i].kind == HB_CMP_F_ISSUE && p.f[i].regression;
	assert_true(issue);
	free_pair(a, b, &p);

	/* skip -> error is a regression; the skip reasons are kept */
	pair_of(&ga, &ge, &a, &b, &p);
	assert_true(p.n_regressions >= 1);
	assert_string_equal(p.wl[1].status_a, "skip");
	assert_string_equal(p.wl[1].reason_a, "needs 6.11 per-size knobs");
	assert_true(p.wl[1].regression);
	free_pair(a, b, &p);

	assert_int_equal(run_cmd(write_run("f_a", &ga), write_run("f_b", &gb), NULL, NULL),
			 HB_CMP_REGRESSION);
}

static void test_exit_codes(void **state)
{
	struct gen ga = { .seed = 51, .reps = 3, .per_rep = 16 };
	struct gen gb = { .seed = 52, .reps = 3, .per_rep = 16 };
	struct gen gk = { .seed = 52, .reps = 3, .per_rep = 16, .accel = "kvm" };
	char *a = write_run("e_a", &ga), *b = write_run("e_b", &gb), *k = write_run("e_k", &gk);
	char *argv1[] = { "compare-report", a };
	char *argv2[] = { "compare-report", "--format", "pdf", a, b };

	(void)state;
	assert_int_equal(run_cmd(a, b, NULL, NULL), HB_CMP_OK);
	assert_int_equal(run_cmd(a, k, NULL, NULL), HB_CMP_INCOMPARABLE);
	assert_int_equal(run_cmd(a, k, "--force", NULL), HB_CMP_OK);
	assert_int_equal(hb_compare_main(2, argv1), HB_CMP_USAGE);
	assert_int_equal(hb_compare_main(5, argv2), HB_CMP_USAGE);
	assert_int_equal(run_cmd(a, "no-such-target-or-file", NULL, NULL), HB_CMP_USAGE);
}

static void test_broken_files(void **state)
{
	char path[200], err[512], *json, *folder;
	struct gen ga = { .seed = 61, .reps = 3, .per_rep = 16 };
	json_t *root = gen_run(&ga);
	struct hb_cmp_run *r;
	FILE *f;

	(void)state;
	/* truncated: invalid JSON, named with jansson's line and column */
	json = json_dumps(root, JSON_INDENT(1));
	snprintf(path, sizeof(path), "%s/trunc.json", g_dir);
	f = fopen(path, "w");
	fwrite(json, 1, strlen(json) / 2, f);
	fclose(f);
	r = hb_cmp_load(path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "line"));
	assert_non_null(strstr(err, "column"));
	folder = write_run("t_ok", &ga);
	assert_int_equal(run_cmd(folder, path, NULL, NULL), HB_CMP_USAGE);
	free(json);

	/* well-formed but a field is missing or of the wrong type */
	json_object_del(json_array_get(json_object_get(json_array_get(json_object_get(root,
		"workloads"), 0), "metrics"), 2), "better");
	r = hb_cmp_load_json(json_deep_copy(root), "x/result.json", err, sizeof(err));
	assert_null(r);
	assert_string_equal(err, "x/result.json: workloads[0].metrics[2].better: missing");
	json_object_set_new(root, "workloads", json_string("oops"));
	r = hb_cmp_load_json(root, "y.json", err, sizeof(err));
	assert_null(r);
	assert_string_equal(err, "y.json: workloads: expected an array");
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

static void test_formats(void **state)
{
	struct gen ga = { .seed = 71, .reps = 3, .per_rep = 128 };
	struct gen gb = { .seed = 72, .reps = 3, .per_rep = 128, .shift_metric = "lat2", .shift = 1.25 };
	struct hb_cmp_report rep = { 0 };
	struct hb_cmp_group *a, *b;
	struct hb_cmp_pair p;
	json_error_t je;
	json_t *j;
	char *s;

	(void)state;
	groups_of(&ga, 4, &gb, 4, &a, &b, &p);
	rep.pairs = &p;
	rep.n_pairs = 1;
	hb_cmp_opts_default(&rep.opts);

	s = render(&rep, hb_cmp_render_json);
	j = json_loads(s, 0, &je);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), HB_CMP_SCHEMA);
	assert_string_equal(json_string_value(json_object_get(j, "result")), "regression");
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j,
		"comparisons"), 0), "metrics")), p.n_m);
	json_decref(j);
	free(s);

	s = render(&rep, hb_cmp_render_html);
	assert_non_null(strstr(s, "<svg"));
	assert_non_null(strstr(s, "<polyline")); /* a CDF */
	assert_non_null(strstr(s, "REGRESSION"));
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "http://cdn"));
	free(s);

	s = render(&rep, hb_cmp_render_markdown);
	assert_non_null(strstr(s, "| --- |"));
	assert_non_null(strstr(s, "| fault.lat2 |"));
	free(s);

	s = render(&rep, hb_cmp_render_text);
	assert_non_null(strstr(s, "!! REGRESSION"));
	assert_non_null(strstr(s, "fault.lat2"));
	assert_non_null(strstr(s, "boots: 4 BASE, 4 NEW"));
	free(s);
	free_groups(a, b, &p);
}

static void test_thresholds(void **state)
{
	struct hb_cmp_thresholds t;
	char path[200], err[256];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/th.conf", g_dir);
	f = fopen(path, "w");
	fputs("# comment\n*  min_effect_pct=4\nfault.*fault*  min_effect_pct=10 # latency\n"
	      "\nfault.write_fault_small min_effect_pct=2.5\nfault.* boot_sd_pct=3\n", f);
	fclose(f);
	assert_int_equal(hb_cmp_thresholds_load(path, &t, err, sizeof(err)), 0);
	{
		struct hb_cmp_limits l;

		hb_cmp_limits_for(&t, "fault", "write_fault_small", &l);
		assert_true(l.min_effect_pct == 2.5 && l.boot_sd_pct == 3);
		hb_cmp_limits_for(&t, "mix", "x", &l);
		/* boot_sd_pct has no built-in value any more: it is a fallback
		 * calibration, set only where a line sets it */
		assert_true(l.min_effect_pct == 4 && isnan(l.boot_sd_pct));
	}
	assert_true(hb_cmp_min_effect(&t, "mix", "x") == 4);
	assert_true(hb_cmp_min_effect(&t, "fault", "write_fault_huge") == 10);
	assert_true(hb_cmp_min_effect(&t, "fault", "write_fault_small") == 2.5);
	hb_cmp_thresholds_free(&t);
	f = fopen(path, "w");
	fputs("*  min_effect=4\n", f);
	fclose(f);
	assert_int_equal(hb_cmp_thresholds_load(path, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "th.conf:1:"));
}

static void test_resolve_latest(void **state)
{
	struct gen g = { .seed = 81, .reps = 3, .per_rep = 8 };
	char results[128], d[256], err[256], *p;
	json_t *root = gen_run(&g);
	const char *names[] = { "20261201T000000Z-quick", "20261202T000000Z-full",
				"20261203T000000Z-quick" };

	(void)state;
	snprintf(results, sizeof(results), "%s/results", g_dir);
	mkdir(results, 0755);
	snprintf(d, sizeof(d), "%s/tgt", results);
	mkdir(d, 0755);
	for (int i = 0; i < 3; i++) {
		snprintf(d, sizeof(d), "%s/tgt/%s", results, names[i]);
		mkdir(d, 0755);
		strcat(d, "/result.json");
		json_dump_file(root, d, 0);
	}
	json_decref(root);
	p = hb_cmp_resolve("tgt", results, NULL, err, sizeof(err));
	assert_non_null(strstr(p, "20261203T000000Z-quick/result.json"));
	free(p);
	p = hb_cmp_resolve("tgt", results, "full", err, sizeof(err));
	assert_non_null(strstr(p, "20261202T000000Z-full/result.json"));
	free(p);
	assert_null(hb_cmp_resolve("nope", results, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "nope"));
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof(g_dir), "/tmp/hb-test-compare-XXXXXX");
	return mkdtemp(g_dir) ? 0 : -1;
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
		cmocka_unit_test(test_aa_no_regression),
		cmocka_unit_test(test_shift_found_on_that_metric_only),
		cmocka_unit_test(test_improvement_is_not_regression),
		cmocka_unit_test(test_one_boot_is_advisory),
		cmocka_unit_test(test_functional_regressions),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_broken_files),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_resolve_latest),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
