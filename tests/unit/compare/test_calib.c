/* test_calib.c - compare-report's calibration (harness/compare/cmp_calib.c):
 * with fewer than 3 boots a side a metric is judged against a matching
 * calibration file (a t-test with its df), advisory without one; the
 * calibration must match host, accelerator, clock, vCPUs, suite and kernel
 * family; a broken file is an input error. The clock, QEMU, host kernel,
 * floor and bimodal guard: test_calib_env.c. */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int setup(void **state)
{
	(void)state;
	return hbt_rng_setup("calib", 11);
}

/* Fewer than 3 boots: judged against a matching calibration (t-test),
 * advisory without one, and the calibration must match host, accelerator,
 * suite and kernel family. */
static void test_calibration(void **state)
{
	const char *cal, *a, *b, *c, *d;
	char caldir[200], file[300], name[256], err[512];
	struct hb_cmp_group *g;
	struct hb_cmp_calib *k, *k2;
	json_t *root, *cmp, *m;
	int rc;

	(void)state;
	hbt_within = 0.01;
	cal = hbt_boots("cal_g", 8, "lower", 1000, 0.005, 1, "6.12.1");
	a = hbt_boots("cal_a", 1, "lower", 1000, 0.005, 1, "6.12.1");
	b = hbt_boots("cal_b", 1, "lower", 1000, 0.005, 1.3, "6.12.7");
	c = hbt_boots("cal_c", 1, "lower", 1000, 0.005, 1.3, "6.1.0");
	hbt_vcpus = 1;
	d = hbt_boots("cal_d", 1, "lower", 1000, 0.005, 1.3, "6.12.7");
	hbt_vcpus = 2;
	hbt_within = 0.05;
	snprintf(caldir, sizeof(caldir), "%s/calibration", hbt_dir);
	mkdir(caldir, 0755);
	snprintf(file, sizeof(file), "%s/group.json", cal);
	g = hb_cmp_group_load(file, err, sizeof(err));
	assert_non_null(g);
	k = hb_cmp_calib_measure(g, err, sizeof(err));
	assert_non_null(k);
	assert_int_equal(hb_cmp_calib_name(g->boots[0], name, sizeof(name)), 0);
	assert_non_null(strstr(name, "-tcg-wall-quick-6.12.json"));
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
	cmp = hbt_report(a, b, caldir, NULL, &rc, &root);
	m = hbt_metric_of(cmp, "fault", "f");
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_string_equal(json_string_value(json_object_get(m, "mode")), "calibrated");
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "regression");
	assert_non_null(strstr(json_string_value(json_object_get(cmp, "calibration_note")), name));
	/* 8 boots judging 1 + 1 alone: said */
	assert_non_null(strstr(json_string_value(json_object_get(cmp, "calibration_note")),
			       "warning: 8 boots: with fewer than 3 boots a side it alone judges"));
	json_decref(root);
	/* another family (6.1 vs 6.12): none matches, advisory */
	cmp = hbt_report(a, c, caldir, NULL, &rc, &root);
	/* its only metric advisory: nothing tested (issue 34; was exit 0) */
	assert_int_equal(rc, HB_CMP_NOTHING_TESTED);
	assert_string_equal(hbt_verdict_of(cmp, "fault", "f"),
			    "advisory");
	assert_non_null(strstr(json_string_value(json_object_get(cmp, "calibration_note")),
			       "kernel family"));
	json_decref(root);
	/* measured with 2 vCPUs, NEW has 1: another noise, none */
	cmp = hbt_report(a, d, caldir, NULL, &rc, &root);
	/* none used, one boot a side: nothing tested (issue 34) */
	assert_int_equal(rc, HB_CMP_NOTHING_TESTED);
	assert_non_null(strstr(json_string_value(json_object_get(cmp, "calibration_note")),
			       "measured with vCPUs 2 "));
	json_decref(root);
	/* a broken calibration file is an input error */
	{
		FILE *f = fopen(file, "w");

		fputs("{\"schema\": \"hugebench-calibration/2\"", f);
		fclose(f);
	}
	assert_int_equal(hbt_compare(NULL, "--calibration", caldir, a, b, NULL), HB_CMP_USAGE);
	unlink(file);
	/* no file: none used, one boot a side: nothing tested (issue 34) */
	assert_int_equal(hbt_compare(NULL, "--calibration", caldir, a, b, NULL),
			 HB_CMP_NOTHING_TESTED);
}

/* The calibration key of a suite named with '-' (configs/real-bugs-races.suite,
 * configs/boots-itest.suite): accepted, the suite whole in the name; a word
 * that would reach outside the calibration folder or a clock with '-' is not. */
static void test_calib_name_words(void **state)
{
	struct hb_cmp_run r = { .suite = "boots-itest", .accelerator = "tcg", .clock = "virtual",
				.host_cpu = "Test CPU", .kernel_release = "6.12.118+deb12-cloud-amd64" };
	char name[256];

	(void)state;
	assert_int_equal(hb_cmp_calib_name(&r, name, sizeof(name)), 0);
	assert_non_null(strstr(name, "-tcg-virtual-boots-itest-6.12.json"));
	r.suite = "../quick";
	assert_int_equal(hb_cmp_calib_name(&r, name, sizeof(name)), -1);
	r.suite = "quick";
	r.clock = "vir-tual";
	assert_int_equal(hb_cmp_calib_name(&r, name, sizeof(name)), -1);
}

/* The "host CPU" row of a comparison's environment. */
static json_t *env_row(json_t *cmp, const char *field)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(cmp, "environment"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "field")), field))
			return e;
	return NULL;
}

/* Groups of fault.f on the given clock: 8 calibration boots and 1 BASE boot
 * on an Intel Xeon host, 1 NEW boot 30 % slower on an AMD EPYC host; the
 * calibration measured into the folder <tag>_calib. Its file's path. */
static const char *xcpu_groups(const char *clock, const char *tag, const char **a, const char **b)
{
	char n[64];
	const char *cal;

	hbt_clock = clock;
	hbt_host_cpu = "Intel(R) Xeon(R) Processor";
	snprintf(n, sizeof(n), "%s_cal", tag);
	cal = hbt_boots(n, 8, "lower", 1000, 0.005, 1, "6.12.1");
	snprintf(n, sizeof(n), "%s_a", tag);
	*a = hbt_boots(n, 1, "lower", 1000, 0.005, 1, "6.12.1");
	hbt_host_cpu = "AMD EPYC";
	snprintf(n, sizeof(n), "%s_b", tag);
	*b = hbt_boots(n, 1, "lower", 1000, 0.005, 1.3, "6.12.1");
	snprintf(n, sizeof(n), "%s_calib", tag);
	return hbt_calibrate(cal, n);
}

/* The virtual clock counts the guest instructions of TCG's -cpu max, and
 * 30 boots on an AMD EPYC host matched 30 on an Intel Xeon host metric by
 * metric: a calibration measured on one host CPU is used for boots of
 * another (said in its note), a file of the former per-CPU name is still
 * found, and BASE and NEW of two host CPUs are comparable. On the wall
 * clock neither (docs/compare.md, "Across host CPUs"). */
static void test_calib_across_cpus(void **state)
{
	const char *a, *b, *path, *note;
	char dir[PATH_MAX + 40], old[PATH_MAX + 300], name[256];
	struct hb_cmp_run r = { .suite = "quick", .accelerator = "tcg", .clock = "wall",
				.host_cpu = "Intel(R) Xeon(R) Processor", .kernel_release = "6.12.1" };
	json_t *root, *cmp, *e;
	int rc;

	(void)state;
	hbt_within = 0.01;
	path = xcpu_groups("virtual", "xcpu", &a, &b);
	assert_non_null(strstr(path, "/anycpu-tcg-virtual-quick-6.12.json"));
	snprintf(dir, sizeof(dir), "%s/xcpu_calib", hbt_dir);
	/* BASE on the Xeon, NEW on the EPYC, +30 %: comparable, judged with
	 * the Xeon's calibration */
	cmp = hbt_report(a, b, dir, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_true(json_is_true(json_object_get(cmp, "comparable")));
	assert_string_equal(json_string_value(json_object_get(hbt_metric_of(cmp, "fault", "f"),
							       "mode")), "calibrated");
	note = json_string_value(json_object_get(cmp, "calibration_note"));
	assert_non_null(strstr(note, "measured on host CPU Intel(R) Xeon(R) Processor, these boots "
				     "ran on AMD EPYC: used"));
	e = env_row(cmp, "host CPU");
	assert_non_null(e);
	assert_true(json_is_true(json_object_get(e, "differs")));
	assert_false(json_is_true(json_object_get(e, "blocks")));
	json_decref(root);
	/* a virtual-clock file made before, under the Xeon's per-CPU name */
	assert_int_equal(hb_cmp_calib_name(&r, name, sizeof(name)), 0);
	*strstr(name, "-wall-") = 0;
	snprintf(old, sizeof(old), "%s/%s-virtual-quick-6.12.json", dir, name);
	assert_int_equal(rename(path, old), 0);
	cmp = hbt_report(a, b, dir, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_REGRESSION);
	assert_non_null(strstr(json_string_value(json_object_get(cmp, "calibration_note")), old));
	json_decref(root);

	/* the wall clock: the host's speed is in every number */
	path = xcpu_groups(NULL, "xcpu_w", &a, &b);
	assert_null(strstr(path, "anycpu"));
	assert_int_equal(hbt_compare(NULL, "--calibration", path, a, b, NULL), HB_CMP_INCOMPARABLE);
	/* NEW alone on the EPYC against its own kind: the Xeon's file is not used */
	cmp = hbt_report(b, b, path, NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_NOTHING_TESTED);
	assert_non_null(strstr(json_string_value(json_object_get(cmp, "calibration_note")),
			       "is for Intel(R) Xeon(R) Processor"));
	json_decref(root);
	hbt_host_cpu = "Test CPU";
	hbt_within = 0.05;
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


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_kernel_family),
		cmocka_unit_test(test_calib_name_words),
		cmocka_unit_test(test_calib_across_cpus),
	};

	return cmocka_run_group_tests(tests, setup, hbt_rng_teardown);
}
