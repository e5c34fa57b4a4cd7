/* test_thresholds.c - compare-report's thresholds file and options
 * (harness/compare/cmp_util.c, hb_compare_main()): patterns over
 * "workload.metric", the most specific line wins, comments, and values
 * that are refused naming file:line (nan, an unknown key); a line longer
 * than the reader's buffer is one line; --seed -1 is refused. */
#define _GNU_SOURCE
#include "helpers_cmp.h"

#include <math.h>
#include <string.h>

static int setup(void **state)
{
	(void)state;
	return hbt_tmpdir("cmpth");
}

static void test_thresholds(void **state)
{
	struct hb_cmp_thresholds t;
	char path[200], err[256];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/th.conf", hbt_dir);
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

static void test_options_and_thresholds(void **state)
{
	struct hb_cmp_thresholds t;
	char err[512], line[700];
	char *good = hbt_write_json("opt.json", hbt_run_json("lower", "[1, 2, 3]", NULL));
	char *argv[] = { "compare-report", "--thresholds", "/dev/null", "--seed", "-1", good, good };
	struct hb_cmp_limits l;

	(void)state;
	/* --seed -1 wrapped to 2^64 - 1 */
	assert_int_equal(hb_compare_main(7, argv), HB_CMP_USAGE);
	/* "nan" passed the range check and left the setting silently unset */
	assert_int_equal(hb_cmp_thresholds_load(hbt_write_tmp("th1.conf", "* min_effect_pct=nan boot_sd_pct=1\n"),
						&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "th1.conf:1:"));
	/* a line longer than the buffer was read as two lines */
	snprintf(line, sizeof(line), "*%600s min_effect_pct=3\n", "");
	assert_int_equal(hb_cmp_thresholds_load(hbt_write_tmp("th2.conf", line), &t, err, sizeof(err)), 0);
	hb_cmp_limits_for(&t, "w", "m", &l);
	assert_true(l.min_effect_pct == 3);
	hb_cmp_thresholds_free(&t);
	/* patterns see the whole "workload.metric", however long */
	{
		char name[400], pat[64];

		memset(name, 'w', sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		snprintf(pat, sizeof(pat), "*.lat min_effect_pct=9\n");
		assert_int_equal(hb_cmp_thresholds_load(hbt_write_tmp("th3.conf", pat), &t, err, sizeof(err)), 0);
		hb_cmp_limits_for(&t, name, "lat", &l);
		assert_true(l.min_effect_pct == 9);
		hb_cmp_thresholds_free(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_options_and_thresholds),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
