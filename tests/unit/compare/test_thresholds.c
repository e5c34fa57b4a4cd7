/* test_thresholds.c - compare-report's thresholds file and options
 * (harness/compare/cmp_thresholds.c, hb_cmd_compare()): patterns over
 * "workload.metric", the most specific line wins, comments, and values
 * that are refused naming file:line (nan, an unknown key); a line longer
 * than the reader's buffer is one line; --seed -1 is refused. A minimum
 * effect per clock: min_effect_virtual_pct on the virtual clock, set too by
 * a line that sets only min_effect_pct, and where each came from. */
#define _GNU_SOURCE
#include "commands.h"
#include "helpers_cmp.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

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
	      "\nfault.write_fault_small min_effect_pct=2.5\nfault.* boot_sd_pct=3\n"
	      "unmap.dontneed_refault_ns sd_floor_virtual_pct=15.8\n", f);
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
		assert_true(isnan(l.sd_floor_virtual_pct));
		/* a line of only a floor: the other settings from the lines before */
		hb_cmp_limits_for(&t, "unmap", "dontneed_refault_ns", &l);
		assert_true(l.sd_floor_virtual_pct == 15.8 && l.min_effect_pct == 4 &&
			    isnan(l.boot_sd_pct));
	}
	assert_true(hb_cmp_min_effect(&t, "mix", "x", false) == 4);
	assert_true(hb_cmp_min_effect(&t, "fault", "write_fault_huge", false) == 10);
	assert_true(hb_cmp_min_effect(&t, "fault", "write_fault_small", false) == 2.5);
	/* no line sets min_effect_virtual_pct: each min_effect_pct holds on
	 * both clocks */
	assert_true(hb_cmp_min_effect(&t, "mix", "x", true) == 4);
	assert_true(hb_cmp_min_effect(&t, "fault", "write_fault_small", true) == 2.5);
	hb_cmp_thresholds_free(&t);
	f = fopen(path, "w");
	fputs("*  min_effect=4\n", f);
	fclose(f);
	assert_int_equal(hb_cmp_thresholds_load(path, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "th.conf:1:"));
	/* issue 38: a pattern fnmatch never matches was accepted */
	{
		static const char *const bad[] = { "[", "fault/[abc", "x[!]", "a\\" };
		static const char *const good[] = { "fault/[abc]*", "[]x]", "[!a]", "a\\[" };
		char line[128];

		for (size_t i = 0; i < HBT_N_OF(bad); i++) {
			snprintf(line, sizeof(line), "# c\n%s min_effect_pct=4\n", bad[i]);
			assert_int_equal(hb_cmp_thresholds_load(hbt_write_tmp("glob.conf", line), &t, err,
								sizeof(err)), -1);
			if (!strstr(err, "glob.conf:2: pattern") || !strstr(err, "not a valid glob"))
				fail_msg("%s: %s", bad[i], err);
		}
		for (size_t i = 0; i < HBT_N_OF(good); i++) {
			snprintf(line, sizeof(line), "%s min_effect_pct=4\n", good[i]);
			if (hb_cmp_thresholds_load(hbt_write_tmp("glob.conf", line), &t, err, sizeof(err)))
				fail_msg("%s: %s", good[i], err);
			hb_cmp_thresholds_free(&t);
		}
	}
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
	assert_int_equal(hb_cmd_compare(7, argv), HB_CMP_USAGE);
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

/* min_effect_pct for the wall clock, min_effect_virtual_pct for the
 * virtual one; the last line that sets a key wins, and a line that sets
 * only min_effect_pct sets both (stress-ng's 25 % is not undone by the
 * general 0.5 %); the source of each is reported. */
static void test_min_effect_per_clock(void **state)
{
	struct hb_cmp_thresholds t;
	struct hb_cmp_limits l;
	const char *src;
	char err[512], path[PATH_MAX];

	(void)state;
	/* built in: 5 % wall, 0.5 % virtual */
	hb_cmp_thresholds_default(&t);
	hb_cmp_limits_for(&t, "fault", "f", &l);
	assert_false(l.virtual_clock);
	assert_true(hb_cmp_limits_min_effect(&l, &src) == 5);
	assert_string_equal(src, "default:wall");
	l.virtual_clock = true;
	assert_true(hb_cmp_limits_min_effect(&l, &src) == 0.5);
	assert_string_equal(src, "default:virtual");
	/* limits made by hand have no source */
	l.src_virtual = NULL;
	hb_cmp_limits_min_effect(&l, &src);
	assert_string_equal(src, "-");

	assert_int_equal(hb_cmp_thresholds_load(
		hbt_write_tmp("clk.conf", "* min_effect_pct=5 min_effect_virtual_pct=0.5\n"
					  "stress-ng.* min_effect_pct=25\n"
					  "fault.* min_effect_virtual_pct=1\n"
					  "fault.huge min_effect_pct=8\n"), &t, err, sizeof(err)), 0);
	hb_cmp_limits_for(&t, "mix", "x", &l);
	assert_true(l.min_effect_pct == 5 && l.min_effect_virtual_pct == 0.5);
	assert_string_equal(l.src_wall, "thresholds:wall");
	assert_string_equal(l.src_virtual, "thresholds:virtual");
	hb_cmp_limits_for(&t, "stress-ng", "bogo_ops", &l);
	assert_true(l.min_effect_pct == 25 && l.min_effect_virtual_pct == 25);
	assert_string_equal(l.src_virtual, "thresholds:both");
	/* a line that sets only the virtual one leaves the wall one */
	hb_cmp_limits_for(&t, "fault", "small", &l);
	assert_true(l.min_effect_pct == 5 && l.min_effect_virtual_pct == 1);
	assert_true(hb_cmp_min_effect(&t, "fault", "huge", true) == 8);
	assert_true(hb_cmp_min_effect(&t, "fault", "huge", false) == 8);
	hb_cmp_thresholds_free(&t);
	/* the key is checked like the others */
	assert_int_equal(hb_cmp_thresholds_load(hbt_write_tmp("clk2.conf",
							      "* min_effect_virtual_pct=-1\n"),
						&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "clk2.conf:1: min_effect_virtual_pct wants a number"));
	assert_int_equal(hb_cmp_thresholds_load(hbt_write_tmp("clk3.conf",
							      "* min_effect_virt=1\n"),
						&t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "min_effect_virtual_pct=N"));
	/* the shipped file: 5 % and 0.5 %, stress-ng 25 % on both clocks */
	snprintf(path, sizeof(path), "%s/configs/thresholds.conf", hb_root());
	assert_int_equal(hb_cmp_thresholds_load(path, &t, err, sizeof(err)), 0);
	assert_true(hb_cmp_min_effect(&t, "fault", "write_fault_huge", false) == 5);
	assert_true(hb_cmp_min_effect(&t, "fault", "write_fault_huge", true) == 0.5);
	assert_true(hb_cmp_min_effect(&t, "stress-ng", "x", false) == 25);
	assert_true(hb_cmp_min_effect(&t, "stress-ng", "x", true) == 25);
	hb_cmp_thresholds_free(&t);
}

/* Under sudo a thresholds file that is not the sudo user's is never
 * quoted (third audit of issue 38: `sudo hugebench compare-report
 * --thresholds /etc/shadow` showed 24 bytes of its first line); the
 * user's own file still gets its short escaped excerpt. */
static void test_thresholds_not_yours(void **state)
{
	const char *p = hbt_write_tmp("secret.conf", "root:$6$hashhashhashhashhash:19000::\n");
	struct hb_cmp_thresholds t;
	char err[512];

	(void)state;
	if (geteuid() != 0)
		skip(); /* the sudo case needs root */
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_int_equal(hb_cmp_thresholds_load(p, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "root:$6$hash"));
	setenv("SUDO_UID", "12345", 1);
	setenv("SUDO_GID", "12345", 1);
	assert_int_equal(hb_cmp_thresholds_load(p, &t, err, sizeof(err)), -1);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_non_null(strstr(err, "secret.conf:1: not a thresholds line (the file is not yours"));
	assert_null(strstr(err, "hash"));
	assert_null(strstr(err, "root"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_min_effect_per_clock),
		cmocka_unit_test(test_options_and_thresholds),
		cmocka_unit_test(test_thresholds_not_yours),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
