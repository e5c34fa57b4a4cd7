/* test_cli.c - the compare-report command (harness/compare.c,
 * hb_cmd_compare()): exit codes (0 same, 1 regression, 2 usage or input,
 * 3 not comparable), a broken pipe or a full disk keeps the right code
 * (issue 9), and the default thresholds and results folder follow the
 * checkout (HUGEBENCH_ROOT), not the current folder.
 *
 * HB_TEST_FILTER=<glob> runs only the matching tests.
 */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"

static int setup(void **state)
{
	char root[PATH_MAX + 8];

	(void)state;
	if (hbt_tmpdir("cmpcli"))
		return -1;
	/* before anything calls hb_root(), which keeps its first answer */
	snprintf(root, sizeof(root), "%s/root", hbt_dir);
	return setenv("HUGEBENCH_ROOT", root, 1);
}

static void test_exit_codes(void **state)
{
	struct hbt_gen ga = { .seed = 51, .reps = 3, .per_rep = 16 };
	struct hbt_gen gb = { .seed = 52, .reps = 3, .per_rep = 16 };
	struct hbt_gen gk = { .seed = 52, .reps = 3, .per_rep = 16, .accel = "kvm" };
	char *a = (char *)hbt_write_run("e_a", hbt_gen_run(&ga));
	char *b = (char *)hbt_write_run("e_b", hbt_gen_run(&gb));
	char *k = (char *)hbt_write_run("e_k", hbt_gen_run(&gk));
	char *argv1[] = { "compare-report", a };
	char *argv2[] = { "compare-report", "--format", "pdf", a, b };

	(void)state;
	/* one run a side, no calibration: nothing tested (4, issue 34) */
	assert_int_equal(hbt_compare(NULL, a, b, NULL), HB_CMP_NOTHING_TESTED);
	assert_int_equal(hbt_compare(NULL, a, k, NULL), HB_CMP_INCOMPARABLE);
	assert_int_equal(hbt_compare(NULL, "--force", a, k, NULL), HB_CMP_NOTHING_TESTED);
	assert_int_equal(hb_cmd_compare(2, argv1), HB_CMP_USAGE);
	assert_int_equal(hb_cmd_compare(5, argv2), HB_CMP_USAGE);
	assert_int_equal(hbt_compare(NULL, a, "no-such-target-or-file", NULL), HB_CMP_USAGE);
}

static char *regression_pair(char **b)
{
	static char pa[200], pb[200];

	json_t *bad = hbt_run_json("lower", "[9, 9, 9]", "[9, 9, 9]");

	/* a functional regression (one boot per side judges no metric) */
	json_object_set_new(bad, "verdict", json_string("fail"));
	snprintf(pa, sizeof(pa), "%s", hbt_write_json("reg_a.json", hbt_run_json("lower", "[0, 0, 0]", "[0, 0, 0]")));
	snprintf(pb, sizeof(pb), "%s", hbt_write_json("reg_b.json", bad));
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
	ret = hb_cmd_compare(5, argv);
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
	assert_int_equal(hb_cmd_compare(7, argv1), HB_CMP_USAGE);
	stdout = fopen("/dev/full", "w");
	ret = hb_cmd_table(2, argv2);
	fclose(stdout);
	stdout = saved;
	/* table exited 0 */
	assert_int_equal(ret, 2);
}

static void test_defaults_follow_checkout(void **state)
{
	char root[200], d[300], cwd[4096];
	char *argv[] = { "compare-report", "--format", "json", "tgt", "tgt" }, *out;
	json_t *j;
	json_error_t je;

	(void)state;
	snprintf(root, sizeof(root), "%s/root", hbt_dir);
	mkdir(root, 0755);
	snprintf(d, sizeof(d), "%s/configs", root);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/configs/thresholds.conf", root);
	hbt_write(d, "* min_effect_pct=7\n");
	snprintf(d, sizeof(d), "%s/results", root);
	{
		static const char *const stamp[] = { "20261203T000000Z-quick" };
		json_t *doc = hbt_run_json("lower", "[1, 2, 3]", NULL);

		hbt_results_tree(d, "tgt", stamp, 1, doc);
		json_decref(doc); /* was leaked (LeakSanitizer in make sanitize) */
	}
	/* hb_root() is HUGEBENCH_ROOT (set in setup()); the current folder is
	 * elsewhere */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir("/"), 0);
	/* one run a side: nothing tested (issue 34) */
	assert_int_equal(hbt_capture(hb_cmd_compare, 5, argv, &out), HB_CMP_NOTHING_TESTED);
	assert_int_equal(chdir(cwd), 0);
	j = json_loads(out, 0, &je);
	assert_non_null(j);
	snprintf(d, sizeof(d), "%s/configs/thresholds.conf", root);
	assert_string_equal(json_string_value(json_object_get(j, "thresholds")), d);
	json_decref(j);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_broken_pipe_keeps_verdict),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_defaults_follow_checkout),
	};

	if (getenv("HB_TEST_FILTER"))
		cmocka_set_test_filter(getenv("HB_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
