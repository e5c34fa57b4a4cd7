/* helpers_cmp.c - compare-report and table inputs for the unit tests
 * (helpers_cmp.h): documents, run folders and groups written as real
 * folders, generated runs in memory, and compare-report's JSON report. */
#define _GNU_SOURCE
#include "commands.h"
#include "helpers_cmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_randist.h>

#include "util.h"

gsl_rng *hbt_rng;
double hbt_within = 0.05;
int hbt_vcpus = 2;
const char *hbt_host_cpu = "Test CPU";
const char *hbt_clock;

int hbt_rng_setup(const char *tag, unsigned long seed)
{
	if (hbt_tmpdir(tag))
		return -1;
	hbt_rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(hbt_rng, seed);
	return 0;
}

int hbt_rng_teardown(void **state)
{
	gsl_rng_free(hbt_rng);
	hbt_rng = NULL;
	return hbt_teardown(state);
}

/* ---- documents on disk ------------------------------------------------------ */

json_t *hbt_met(const char *name, const char *better, const double *x, size_t n, int reps)
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

json_t *hbt_lat(const char *name, const char *better, double center, double sigma, size_t n,
		int reps)
{
	double *x = malloc(n * sizeof(*x));
	json_t *m;

	assert_non_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = center * exp(gsl_ran_gaussian(hbt_rng, sigma));
	m = hbt_met(name, better, x, n, reps);
	free(x);
	return m;
}

json_t *hbt_chk(const char *name, bool pass)
{
	return json_pack("{s:s, s:s, s:s, s:b, s:i}", "name", name, "expected", "== 1", "observed",
			 pass ? "1" : "0", "pass", pass, "rep", 0);
}

json_t *hbt_wl(const char *name, const char *status, json_t *metrics, json_t *checks)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:o, s:o}", "name", name, "status", status, "reason",
			 "", "reps", 1, "metrics", metrics ? metrics : json_array(), "checks",
			 checks ? checks : json_array());
}

json_t *hbt_doc(const char *target, const char *release, json_t *workloads, const char *verdict)
{
	json_t *d = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:i}, s:s, s:i, s:o, "
			      "s:[], s:s}",
			      "schema", HB_CMP_RESULT_SCHEMA, "run_id", target, "target", "name", target,
			      "kernel_release", release, "environment", "accelerator", "tcg", "host_cpu",
			      hbt_host_cpu, "qemu_version", "7.2", "vcpus", hbt_vcpus, "suite", "quick",
			      "repeat", 1, "workloads", workloads, "kernel_issues", "verdict", verdict);

	if (hbt_clock)
		json_object_set_new(json_object_get(d, "environment"), "clock",
				    json_string(hbt_clock));
	return d;
}

json_t *hbt_doc1(const char *workload, json_t *m)
{
	return hbt_doc("t", "6.12.1", json_pack("[o]", hbt_wl(workload, "pass", json_pack("[o]", m),
							       NULL)), "pass");
}

const char *hbt_write_run(const char *name, json_t *d)
{
	char *dir = hbt_path(name), file[PATH_MAX + 300];

	mkdir(dir, 0755);
	snprintf(file, sizeof(file), "%s/result.json", dir);
	assert_int_equal(json_dump_file(d, file, JSON_INDENT(1)), 0);
	json_decref(d);
	return dir;
}

const char *hbt_write_group(const char *name, json_t **docs, int n)
{
	char *dir = hbt_path(name), sub[PATH_MAX + 300], file[PATH_MAX + 320];
	json_t *runs = json_array(), *g;

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

const char *hbt_boots(const char *name, int n, const char *better, double base, double sd,
		      double factor, const char *release)
{
	json_t *docs[16];

	assert_true(n > 0 && n <= 16);
	for (int k = 0; k < n; k++) {
		double c = base * factor * exp(gsl_ran_gaussian(hbt_rng, sd));

		docs[k] = hbt_doc("t", release, json_pack("[o]", hbt_wl("fault", "pass",
			json_pack("[o]", hbt_lat("f", better, c, hbt_within, 64, 1)), NULL)), "pass");
	}
	return hbt_write_group(name, docs, n);
}

void hbt_results_tree(const char *root, const char *target, const char *const stamps[],
		      size_t n, json_t *doc)
{
	char d[PATH_MAX + 512];

	snprintf(d, sizeof(d), "%s/%s", root, target);
	assert_int_equal(hb_mkdir_p(d), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(d, sizeof(d), "%s/%s/%s", root, target, stamps[i]);
		mkdir(d, 0755);
		strcat(d, "/result.json");
		assert_int_equal(json_dump_file(doc, d, 0), 0);
	}
}

/* ---- compare-report run ----------------------------------------------------- */

int hbt_compare(char **out, ...)
{
	char *argv[24] = { "compare-report", "--thresholds", "/dev/null" };
	int argc = 3;
	const char *a;
	va_list ap;

	va_start(ap, out);
	while ((a = va_arg(ap, const char *)) && argc < 23)
		argv[argc++] = (char *)a;
	va_end(ap);
	return hbt_capture(hb_cmd_compare, argc, argv, out);
}

json_t *hbt_report(const char *a, const char *b, const char *cal, const char *opt, int *rc,
		   json_t **root)
{
	char *out;
	json_error_t je;

	if (opt)
		*rc = hbt_compare(&out, "--calibration", cal, "--format", "json", opt, a, b, NULL);
	else
		*rc = hbt_compare(&out, "--calibration", cal, "--format", "json", a, b, NULL);
	*root = json_loads(out, 0, &je);
	free(out);
	assert_non_null(*root);
	return json_array_get(json_object_get(*root, "comparisons"), 0);
}

json_t *hbt_metric_of(json_t *cmp, const char *workload, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(cmp, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "workload")), workload) &&
		    !strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	return NULL;
}

const char *hbt_verdict_of(json_t *cmp, const char *workload, const char *name)
{
	return json_string_value(json_object_get(hbt_metric_of(cmp, workload, name), "verdict"));
}

int hbt_findings(json_t *cmp, const char *kind, const char *workload, const char *what,
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

double hbt_num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

char *hbt_render(const struct hb_cmp_report *rep,
		 int (*fn)(FILE *, const struct hb_cmp_report *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, rep), 0);
	fclose(f);
	return buf;
}

/* ---- runs and groups in memory ---------------------------------------------- */

json_t *hbt_run_json(const char *better, const char *samples, const char *rep_means)
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

static json_t *gen_metric(gsl_rng *r, const char *name, const char *better, double base,
			  double sigma, size_t per_rep, const struct hbt_gen *g, double boot)
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

json_t *hbt_gen_run(const struct hbt_gen *g)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	json_t *w1, *w2, *ms, *root;
	double boot = 1;
	char name[32];

	gsl_rng_set(r, g->seed);
	boot = exp(gsl_ran_gaussian(r, 0.005)); /* boot-to-boot, shared by the run */
	ms = json_array();
	for (int i = 0; i < HBT_N_LAT; i++) {
		snprintf(name, sizeof(name), "lat%d", i);
		json_array_append_new(ms, gen_metric(r, name, "lower", 1000 * (i + 1), 0.15,
						     g->per_rep, g, boot));
	}
	for (int i = 0; i < HBT_N_SCALAR; i++) {
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

/* A group view over runs that owns them. */
static struct hb_cmp_group *group_of(struct hb_cmp_run **runs, size_t n)
{
	struct hb_cmp_group *g = hb_cmp_group_view(runs, n, "group");

	assert_non_null(g);
	g->owns = true;
	return g;
}

static struct hb_cmp_run *load(json_t *doc, const char *name)
{
	char err[512];
	struct hb_cmp_run *r = hb_cmp_load_json(doc, name, err, sizeof(err));

	if (!r)
		fail_msg("%s: %s", name, err);
	return r;
}

struct hb_cmp_group *hbt_gen_group(const struct hbt_gen *g, int boots)
{
	struct hb_cmp_run *runs[16];

	assert_true(boots > 0 && boots <= 16);
	for (int k = 0; k < boots; k++) {
		struct hbt_gen gk = *g;

		gk.seed = g->seed * 100 + (unsigned long)k;
		runs[k] = load(hbt_gen_run(&gk), "boot.json");
	}
	return group_of(runs, (size_t)boots);
}

struct hb_cmp_group *hbt_boots_of(const char *better, const char *values)
{
	struct hb_cmp_run *runs[64];
	json_error_t je;
	json_t *arr = json_loads(values, JSON_DECODE_ANY, &je), *v;
	size_t i, n = 0;

	assert_non_null(arr);
	if (!json_array_size(arr))
		runs[n++] = load(hbt_run_json(better, "[]", NULL), "boot.json");
	json_array_foreach(arr, i, v) {
		char *one = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17)), buf[128];

		assert_true(i < 64);
		snprintf(buf, sizeof(buf), "[%s]", one);
		free(one);
		runs[n++] = load(hbt_run_json(better, buf, NULL), "boot.json");
	}
	json_decref(arr);
	return group_of(runs, n);
}

void hbt_pair_runs(struct hbt_pair *x, json_t *a, json_t *b, int boot_B)
{
	struct hb_cmp_thresholds th;
	struct hb_cmp_opts o;

	hb_cmp_thresholds_default(&th);
	hb_cmp_opts_default(&o);
	o.boot_B = boot_B;
	x->ga = x->gb = NULL;
	x->a = load(a, "a.json");
	x->b = load(b, "b.json");
	assert_int_equal(hb_cmp_pair_build(x->a, x->b, &th, &o, &x->p), 0);
}

void hbt_pair_groups(struct hbt_pair *x, struct hb_cmp_group *ga, struct hb_cmp_group *gb)
{
	struct hb_cmp_thresholds th;
	struct hb_cmp_opts o;

	hb_cmp_thresholds_default(&th);
	hb_cmp_opts_default(&o);
	x->ga = ga;
	x->gb = gb;
	x->a = ga->boots[0];
	x->b = gb->boots[0];
	assert_int_equal(hb_cmp_pair_build_groups(ga, gb, &th, &o, &x->p), 0);
}

void hbt_pair_free(struct hbt_pair *x)
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

size_t hbt_count_verdict(const struct hb_cmp_pair *p, enum hb_cmp_verdict v, const char **which)
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

const char *hbt_calibrate(const char *dir, const char *folder)
{
	char file[512], err[1024], name[256], *out;
	struct hb_cmp_group *g;
	struct hb_cmp_calib *k;

	snprintf(file, sizeof(file), "%s/group.json", dir);
	g = hb_cmp_group_load(file, err, sizeof(err));
	if (!g)
		fail_msg("%s", err);
	k = hb_cmp_calib_measure(g, err, sizeof(err));
	if (!k)
		fail_msg("%s", err);
	assert_int_equal(hb_cmp_calib_name(g->boots[0], name, sizeof(name)), 0);
	mkdir(hbt_path(folder), 0755);
	snprintf(file, sizeof(file), "%s/%s", folder, name);
	out = hbt_path(file);
	if (hb_cmp_calib_save(k, out, err, sizeof(err)))
		fail_msg("%s", err);
	hb_cmp_calib_free(k);
	hb_cmp_group_free(g);
	return out;
}
