/* test_sides.c - what compare-report takes as a side
 * (harness/compare/cmp_group.c, cmp_load.c): a run folder, a group folder
 * (group.json + boot-K/), a target name resolved to its latest entry in
 * results/<target>/ (optionally of one suite); a broken group.json or boot
 * is one line naming file and field (exit 2). */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int setup(void **state)
{
	(void)state;
	return hbt_rng_setup("sides", 11);
}

/* Group folders, a target whose latest entry is a group, results/<target>. */
static void test_group_as_side(void **state)
{
	char results[200], tdir[256], link[300], *out;
	const char *a = hbt_boots("side_a", 4, "lower", 1000, 0.01, 1, "6.12.1");
	json_t *root, *cmp;
	int rc;

	(void)state;
	cmp = hbt_report(a, a, "none", NULL, &rc, &root);
	assert_int_equal(rc, HB_CMP_OK);
	assert_int_equal(hbt_num(cmp, "base_boots"), 4);
	assert_string_equal(json_string_value(json_object_get(hbt_metric_of(cmp, "fault", "f"), "mode")),
			    "boots");
	json_decref(root);
	/* results/<target>/<stamp>-quick holding a group, by target name */
	snprintf(results, sizeof(results), "%s/results", hbt_dir);
	mkdir(results, 0755);
	snprintf(tdir, sizeof(tdir), "%s/tgt", results);
	mkdir(tdir, 0755);
	snprintf(link, sizeof(link), "%s/20261203T000000Z-quick", tdir);
	assert_int_equal(rename(a, link), 0);
	rc = hbt_compare(&out, "--results", results, "--calibration", "none", "tgt", tdir, NULL);
	assert_int_equal(rc, HB_CMP_OK);
	assert_non_null(strstr(out, "boots: 4 BASE, 4 NEW"));
	free(out);
	assert_int_equal(rename(link, a), 0);
}

/* A broken group.json or boot is one line naming file and field: exit 2. */
static void test_group_refused(void **state)
{
	const char *a = hbt_boots("bad_g", 3, "lower", 1000, 0.01, 1, "6.12.1");
	char path[300], err[512];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/group.json", a);
	f = fopen(path, "w");
	fputs("{\"schema\": \"hugebench-group/1\", \"runs\": [{\"dir\": \"../../etc\"}]}", f);
	fclose(f);
	assert_null(hb_cmp_group_load(path, err, sizeof(err)));
	assert_non_null(strstr(err, "runs[0].dir: not a plain folder name"));
	assert_int_equal(hbt_compare(NULL, a, a, NULL), HB_CMP_USAGE);
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

/* Issue 38: one group could hold boots of different kernels (another
 * target, release or image), judged as the noise of one: refused, one line
 * naming the boot (exit 2). */
static void test_group_one_kernel(void **state)
{
	json_t *docs[3];
	const char *g;
	char path[300], err[1024];

	(void)state;
	docs[0] = hbt_doc1("fault", hbt_met("f", "lower", (double[]){ 1, 2, 3 }, 3, 1));
	docs[1] = hbt_doc1("fault", hbt_met("f", "lower", (double[]){ 1, 2, 3 }, 3, 1));
	docs[2] = hbt_doc1("fault", hbt_met("f", "lower", (double[]){ 1, 2, 3 }, 3, 1));
	json_object_set_new(json_object_get(docs[2], "target"), "kernel_release",
			    json_string("7.2.0-other"));
	g = hbt_write_group("mixed_kernels", docs, 3);
	snprintf(path, sizeof(path), "%s/group.json", g);
	assert_null(hb_cmp_group_load(path, err, sizeof(err)));
	if (!strstr(err, "runs[2]: ") || !strstr(err, "(7.2.0-other)") ||
	    !strstr(err, "a group holds boots of one kernel"))
		fail_msg("%s", err);
	assert_int_equal(hbt_compare(NULL, g, g, NULL), HB_CMP_USAGE);
	/* the same target and release, another image: the line says what
	 * differs (third audit: it named the same kernel twice) */
	docs[0] = hbt_doc1("fault", hbt_met("f", "lower", (double[]){ 1, 2, 3 }, 3, 1));
	docs[1] = hbt_doc1("fault", hbt_met("f", "lower", (double[]){ 1, 2, 3 }, 3, 1));
	json_object_set_new(json_object_get(docs[0], "target"), "image_sha256",
			    json_string("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	json_object_set_new(json_object_get(docs[1], "target"), "image_sha256",
			    json_string("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"));
	g = hbt_write_group("mixed_images", docs, 2);
	snprintf(path, sizeof(path), "%s/group.json", g);
	assert_null(hb_cmp_group_load(path, err, sizeof(err)));
	if (!strstr(err, "runs[1]: ") || !strstr(err, "image_sha256 bbbbbbbbbbbb") ||
	    !strstr(err, "aaaaaaaaaaaa") || !strstr(err, "a group holds boots of one kernel"))
		fail_msg("%s", err);
	/* the same kernel throughout: a group */
	docs[0] = hbt_doc1("fault", hbt_met("f", "lower", (double[]){ 1, 2, 3 }, 3, 1));
	docs[1] = hbt_doc1("fault", hbt_met("f", "lower", (double[]){ 1, 2, 3 }, 3, 1));
	g = hbt_write_group("one_kernel", docs, 2);
	snprintf(path, sizeof(path), "%s/group.json", g);
	{
		struct hb_cmp_group *ok = hb_cmp_group_load(path, err, sizeof(err));

		if (!ok)
			fail_msg("%s", err);
		hb_cmp_group_free(ok);
	}
}

/* Issue 23: the check that no boot folder is listed twice was O(n^2) (25 s
 * for 20 000 boots); issue 38: a group of 100 000 boots took 48 s to read.
 * 100 000 boots are refused at once, before any boot's file is read, and
 * 1000 (the most a group may list) with the last one a repeat of the first
 * are refused on the repeat. */
static double group_load_secs(int n, int repeat_first, char *err, size_t errlen)
{
	char path[PATH_MAX];
	json_t *runs = json_array();
	struct timespec t0, t1;

	for (int k = 1; k < n; k++) {
		char d[32];

		snprintf(d, sizeof(d), "boot-%d", k);
		json_array_append_new(runs, json_pack("{s:i, s:s}", "boot", k, "dir", d));
	}
	json_array_append_new(runs, json_pack("{s:i, s:s}", "boot", n, "dir",
					      repeat_first ? "boot-1" : "boot-last"));
	snprintf(path, sizeof(path), "%s",
		 hbt_write_json("many-group.json",
				json_pack("{s:s, s:o}", "schema", "hugebench-group/1", "runs", runs)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_null(hb_cmp_group_load(path, err, errlen));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static void test_group_many_boots(void **state)
{
	char err[512];

	(void)state;
	/* here: well under 1 s each; with the O(n^2) check or reading every
	 * boot first: minutes */
	assert_true(group_load_secs(100000, 0, err, sizeof(err)) < 10);
	assert_non_null(strstr(err, "runs: more than 1000 boots"));
	assert_true(group_load_secs(1000, 1, err, sizeof(err)) < 10);
	assert_non_null(strstr(err, "runs[999].dir: the same boot folder twice"));
}

static void test_resolve_latest(void **state)
{
	struct hbt_gen g = { .seed = 81, .reps = 3, .per_rep = 8 };
	char results[128], err[256], *p;
	json_t *root = hbt_gen_run(&g);
	static const char *const names[] = { "20261201T000000Z-quick", "20261202T000000Z-full",
				"20261203T000000Z-quick" };

	(void)state;
	snprintf(results, sizeof(results), "%s/results", hbt_dir);
	hbt_results_tree(results, "tgt", names, 3, root);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_as_side),
		cmocka_unit_test(test_group_refused),
		cmocka_unit_test(test_group_one_kernel),
		cmocka_unit_test(test_group_many_boots),
		cmocka_unit_test(test_resolve_latest),
	};

	return cmocka_run_group_tests(tests, setup, hbt_rng_teardown);
}
