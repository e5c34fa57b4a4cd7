/* test_load.c - compare-report's reader of result.json
 * (harness/compare/cmp_load.c): a broken file is one line naming the file
 * and the field (truncated JSON with line and column, a missing field, a
 * wrong type); integers out of range and duplicate keys are refused (issue
 * 9); error lines never echo file contents; a FIFO does not hang it; a
 * metric name twice in one workload is refused and environment.clock is
 * virtual or wall (absent: wall; issue 19); memory stays in proportion:
 * a file denser than one JSON value per 4 bytes is refused before it is
 * parsed, and so is one that would not fit beside what is held under
 * HUGEBENCH_COMPARE_MEM_MB (issue 38: 4.1 GB for a 100 MB file). */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int setup(void **state)
{
	(void)state;
	return hbt_tmpdir("cmpload");
}

static void test_broken_files(void **state)
{
	char path[200], err[512], *json;
	const char *folder;
	struct hbt_gen ga = { .seed = 61, .reps = 3, .per_rep = 16 };
	json_t *root = hbt_gen_run(&ga);
	struct hb_cmp_run *r;
	FILE *f;

	(void)state;
	/* truncated: invalid JSON, named with jansson's line and column */
	json = json_dumps(root, JSON_INDENT(1));
	snprintf(path, sizeof(path), "%s/trunc.json", hbt_dir);
	f = fopen(path, "w");
	fwrite(json, 1, strlen(json) / 2, f);
	fclose(f);
	r = hb_cmp_load(path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "line"));
	assert_non_null(strstr(err, "column"));
	folder = hbt_write_run("t_ok", hbt_gen_run(&ga));
	assert_int_equal(hbt_compare(NULL, folder, path, NULL), HB_CMP_USAGE);
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

static void expect_load_error(const char *text, const char *want, const char *forbid)
{
	char err[512], *path = hbt_write_tmp("bad.json", text);
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
	j = hbt_run_json("lower", "[1,2,3]", NULL);
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
		r = hb_cmp_load(hbt_write_tmp("ok.json", buf), err, sizeof(err));
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
		json_t *j = hbt_run_json("lower", "[1,2,3]", NULL);

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

/* A metric name twice in one workload: which one would be compared? It
 * was the first silently (the index kept the first entry). Refused, one
 * line naming the file, the workload and the metric. environment.clock is
 * virtual or wall; absent it is wall (results written before the field). */
static void test_load_duplicate_metric_and_clock(void **state)
{
	json_t *j = hbt_run_json("lower", "[1,2,3]", NULL), *ms, *env;
	struct hb_cmp_run *r;
	char *s, err[512];

	(void)state;
	r = hb_cmp_load_json(json_deep_copy(j), "a.json", err, sizeof(err));
	assert_non_null(r);
	assert_string_equal(r->clock, "wall");
	hb_cmp_run_free(r);
	env = json_object_get(j, "environment");
	json_object_set_new(env, "clock", json_string("virtual"));
	r = hb_cmp_load_json(json_deep_copy(j), "a.json", err, sizeof(err));
	assert_non_null(r);
	assert_string_equal(r->clock, "virtual");
	hb_cmp_run_free(r);
	json_object_set_new(env, "clock", json_string("icount"));
	s = json_dumps(j, 0);
	expect_load_error(s, "environment.clock: not one of virtual|wall", NULL);
	free(s);
	json_object_set_new(env, "clock", json_string("wall"));
	ms = json_object_get(json_array_get(json_object_get(j, "workloads"), 0), "metrics");
	json_array_append_new(ms, json_pack("{s:s, s:s, s:s, s:[i]}", "name", "other", "unit", "ns",
					    "better", "lower", "samples", 1));
	json_array_append(ms, json_array_get(ms, 0));
	s = json_dumps(j, 0);
	expect_load_error(s, "workloads[0].metrics[2].name: workload \"w\" has metric \"m\" twice "
			  "(also metrics[0])", NULL);
	free(s);
	/* through the command: exit 2 */
	{
		const char *ok = hbt_write_run("dup_ok", hbt_run_json("lower", "[1,2,3]", NULL));
		const char *dup = hbt_write_run("dup_bad", json_deep_copy(j));

		assert_int_equal(hbt_compare(NULL, ok, dup, NULL), HB_CMP_USAGE);
	}
	json_decref(j);
}

static void test_load_no_echo(void **state)
{
	char err[512], secret[200], link[200];
	struct hb_cmp_run *r;

	(void)state;
	/* a file that is not JSON, behind a symlink: jansson's "near '...'" text
	 * carried its first token into the error line */
	snprintf(secret, sizeof(secret), "%s/secret.txt", hbt_dir);
	snprintf(link, sizeof(link), "%s/result.json", hbt_dir);
	hbt_write_tmp("secret.txt", "password=hunter2\n");
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
	/* issue 23: another schema version is refused, not read as ours */
	expect_load_error("{\"schema\": \"hugebench-result/2\", \"suite\": \"q\", \"verdict\": \"pass\","
			  " \"target\": {\"name\": \"t\"}, \"environment\": {\"accelerator\": \"tcg\"},"
			  " \"workloads\": []}",
			  "schema: not hugebench-result/1", NULL);
	unlink(link);
}

static void test_load_fifo_does_not_hang(void **state)
{
	char path[200], err[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo.json", hbt_dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10); /* opening a FIFO for reading blocked until a writer came */
	assert_null(hb_cmp_load(path, err, sizeof(err)));
	alarm(0);
	assert_non_null(strstr(err, path));
	unlink(path);
}

/* A well-formed run whose samples are a dense array of zeros: refused
 * unparsed, quickly, in a line naming the density; the same run written as
 * hugebench writes it (reals, indented) loads. A budget of 1 MB refuses a
 * run that needs more; a bad budget is one line. */
static void test_load_out_of_proportion(void **state)
{
	size_t n = 200000;
	json_t *j = hbt_run_json("lower", "[0]", NULL), *dense = json_array(), *reals = json_array();
	json_t *m = json_array_get(json_object_get(json_array_get(json_object_get(j, "workloads"),
								  0), "metrics"), 0);
	char *text, err[512], *path;
	struct hb_cmp_run *r;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(dense, json_integer(0));
		json_array_append_new(reals, json_real(0));
	}
	json_object_set_new(m, "samples", dense);
	text = json_dumps(j, JSON_COMPACT);
	path = hbt_write_tmp("dense.json", text);
	free(text);
	r = hb_cmp_load(path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "more than one per 4 bytes"));
	/* as hugebench writes it: 0.0 as a real, one per line */
	json_object_set_new(m, "samples", reals);
	text = json_dumps(j, JSON_INDENT(1));
	json_decref(j);
	path = hbt_write_tmp("real.json", text);
	free(text);
	r = hb_cmp_load(path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(r->workloads[0].metrics[0].n, n);
	hb_cmp_run_free(r);
	setenv("HUGEBENCH_COMPARE_MEM_MB", "1", 1);
	r = hb_cmp_load(path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "over the limit of 1 MB (HUGEBENCH_COMPARE_MEM_MB"));
	setenv("HUGEBENCH_COMPARE_MEM_MB", "1x", 1);
	r = hb_cmp_load(path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "HUGEBENCH_COMPARE_MEM_MB: not a number"));
	unsetenv("HUGEBENCH_COMPARE_MEM_MB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broken_files),
		cmocka_unit_test(test_load_integers),
		cmocka_unit_test(test_load_refuses),
		cmocka_unit_test(test_load_duplicate_metric_and_clock),
		cmocka_unit_test(test_load_no_echo),
		cmocka_unit_test(test_load_fifo_does_not_hang),
		cmocka_unit_test(test_load_out_of_proportion),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
