/* test_output.c - nothing is written over an input (issue 38):
 * `compare-report --output A/result.json A B` replaced the run it had read,
 * and `calibrate --from G --output G/group.json` the group it measured.
 * Both now refuse, with one line and exit 2, an output that is one of the
 * files read (device and inode, through a link too) or a result.json or
 * group.json in the folder of one; the input stays as it was. */
#define _GNU_SOURCE
#include "helpers.h"
#include "helpers_cmp.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "compare.h"
#include "sysinfo.h"
#include "util.h"

static int setup(void **state)
{
	char root[PATH_MAX + 8];

	(void)state;
	if (hbt_rng_setup("output", 38))
		return -1;
	snprintf(root, sizeof(root), "%s/root", hbt_dir);
	return setenv("HUGEBENCH_ROOT", root, 1);
}

/* path's bytes are still `want` */
static void unchanged(const char *path, const char *want)
{
	char *now = hb_slurp(path, NULL);

	assert_non_null(now);
	assert_string_equal(now, want);
	free(now);
}

static void test_compare_output_not_input(void **state)
{
	struct hbt_gen ga = { .seed = 1, .reps = 3, .per_rep = 16 };
	struct hbt_gen gb = { .seed = 2, .reps = 3, .per_rep = 16 };
	char a[PATH_MAX], b[PATH_MAX], ra[PATH_MAX + 16], rb[PATH_MAX + 16], ga_json[PATH_MAX + 16];
	char link[PATH_MAX], *before_a, *before_b;

	(void)state;
	snprintf(a, sizeof(a), "%s", hbt_write_run("o_a", hbt_gen_run(&ga)));
	snprintf(b, sizeof(b), "%s", hbt_write_run("o_b", hbt_gen_run(&gb)));
	snprintf(ra, sizeof(ra), "%s/result.json", a);
	snprintf(rb, sizeof(rb), "%s/result.json", b);
	snprintf(ga_json, sizeof(ga_json), "%s/group.json", a);
	before_a = hb_slurp(ra, NULL);
	before_b = hb_slurp(rb, NULL);
	assert_non_null(before_a);
	assert_non_null(before_b);
	/* the run A itself: was 0, and A/result.json was the report */
	assert_int_equal(hbt_compare(NULL, "--output", ra, a, b, NULL), HB_CMP_USAGE);
	unchanged(ra, before_a);
	/* B's, through a link */
	snprintf(link, sizeof(link), "%s", hbt_path("link.json"));
	assert_int_equal(symlink(rb, link), 0);
	assert_int_equal(hbt_compare(NULL, "--format", "json", "--output", link, a, b, NULL),
			 HB_CMP_USAGE);
	unchanged(rb, before_b);
	/* a group.json into run A's folder would make it another run */
	assert_int_equal(hbt_compare(NULL, "--output", ga_json, a, b, NULL), HB_CMP_USAGE);
	assert_false(hb_is_file(ga_json));
	/* any file of run A's folder (issue 38, third audit: the guest's
	 * stream.jsonl was replaced by the report), also through a link */
	{
		char st[PATH_MAX + 16], slink[PATH_MAX];

		snprintf(st, sizeof(st), "%s/stream.jsonl", a);
		assert_int_equal(hb_write_text(st, "{\"guest\":1}\n"), 0);
		assert_int_equal(hbt_compare(NULL, "--output", st, a, b, NULL), HB_CMP_USAGE);
		unchanged(st, "{\"guest\":1}\n");
		snprintf(slink, sizeof(slink), "%s", hbt_path("slink.txt"));
		assert_int_equal(symlink(st, slink), 0);
		assert_int_equal(hbt_compare(NULL, "--output", slink, a, b, NULL), HB_CMP_USAGE);
		unchanged(st, "{\"guest\":1}\n");
	}
	/* the thresholds file read */
	{
		const char *th = hbt_write_tmp("th.conf", "# none\n");

		assert_int_equal(hbt_compare(NULL, "--thresholds", th, "--output", th, a, b, NULL),
				 HB_CMP_USAGE);
		unchanged(th, "# none\n");
	}
	/* anywhere else is fine, even a report beside the runs (one run a side
	 * without a calibration tests no metric: written, and exit 4) */
	assert_int_equal(hbt_compare(NULL, "--output", hbt_path("report.txt"), a, b, NULL),
			 HB_CMP_NOTHING_TESTED);
	assert_true(hb_is_file(hbt_path("report.txt")));
	free(before_a);
	free(before_b);
}

static void test_calibrate_output_not_input(void **state)
{
	const char *g = hbt_boots("o_cal", 5, "lower", 1000, 0.01, 1, "6.12.1");
	char gj[PATH_MAX + 16], b1[PATH_MAX + 32], *before, *b1_before;
	char *argv[] = { "calibrate", "--from", (char *)g, "--output", gj, NULL };

	(void)state;
	snprintf(gj, sizeof(gj), "%s/group.json", g);
	snprintf(b1, sizeof(b1), "%s/boot-1/result.json", g);
	before = hb_slurp(gj, NULL);
	b1_before = hb_slurp(b1, NULL);
	assert_non_null(before);
	assert_non_null(b1_before);
	assert_int_equal(hbt_capture(hb_cmd_calibrate, 5, argv, NULL), HB_EXIT_USAGE);
	unchanged(gj, before);
	argv[4] = b1;
	assert_int_equal(hbt_capture(hb_cmd_calibrate, 5, argv, NULL), HB_EXIT_USAGE);
	unchanged(b1, b1_before);
	/* a boot's console.log is not the calibration's to replace */
	{
		char con[PATH_MAX + 32];

		snprintf(con, sizeof(con), "%s/boot-2/console.log", g);
		assert_int_equal(hb_write_text(con, "Linux version 6.12.1\n"), 0);
		argv[4] = con;
		assert_int_equal(hbt_capture(hb_cmd_calibrate, 5, argv, NULL), HB_EXIT_USAGE);
		unchanged(con, "Linux version 6.12.1\n");
	}
	argv[4] = hbt_path("cal.json");
	assert_int_equal(hbt_capture(hb_cmd_calibrate, 5, argv, NULL), 0);
	assert_true(hb_is_file(hbt_path("cal.json")));
	free(before);
	free(b1_before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_output_not_input),
		cmocka_unit_test(test_calibrate_output_not_input),
	};

	return cmocka_run_group_tests(tests, setup, hbt_rng_teardown);
}
