/* bisect_itest.c - integration test of `hugebench bisect` (issue 14) on real
 * builds and guests. Registered in test_guests.c's list.
 *
 * kernels/minimal-6.1-series is minimal-6.1 plus five patches: four
 * comment-only ones in mm/ and, 3rd, the PMD-mapping regression of
 * minimal-6.1-regress. `hugebench bisect minimal-6.1-series --check fault`
 * must name that patch after at most ceil(log2(5 + 1)) = 3 builds (the
 * search tests k = 2, then k = 3: two), and the same command again must
 * resume from steps.json without building or booting anything.
 *
 * Cost: the first build of the recipe's tree ~4 min (cold, once per cache);
 * then each step an incremental build (~15 s, or a cache hit) and one smoke
 * boot (~15 s under TCG). Each run of the test uses a new results folder, so
 * the steps are judged again, but the kernels come from the cache.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bisect_itest.h"
#include "itest.h"

#define BAD_PATCH "0003-mm-do-not-map-file-THP-by-PMD-past-EOF.patch"

void test_bisect_bad_input(void **state)
{
	static char *const cases[][6] = {
		{ "bisect", "no-such-recipe", "--check", "fault", NULL },
		{ "bisect", "minimal-6.1", "--check", "fault", NULL },	      /* no series */
		{ "bisect", "minimal-6.1-series", "--metric", "fault", NULL }, /* no .METRIC */
		{ "bisect", "minimal-6.1-series", NULL },
	};
	static const char *const want[] = { "unknown target", "nothing to bisect",
					    "want WORKLOAD.METRIC", "give one of --check" };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hb_itest_out o;

		hb_itest_hugebench(cases[i], &o);
		assert_int_equal(o.exit_code, 2);
		assert_int_equal(hb_itest_lines(o.err), 1);
		assert_non_null(strstr(o.err, want[i]));
		hb_itest_out_free(&o);
	}
}

/* The bisect folder: the line "... <dir>/summary.md" of the output. */
static void bisect_dir(const char *out, char *dir, size_t len)
{
	const char *p = strstr(out, "/summary.md");
	const char *b = p;

	dir[0] = 0;
	if (!p)
		return;
	while (b > out && b[-1] != ' ' && b[-1] != '\n')
		b--;
	snprintf(dir, len, "%.*s", (int)(p - b), b);
}

void test_bisect_series_check(void **state)
{
	char results[512], dir[1024], path[1200], stamp[32];
	char *argv[] = { "bisect", "minimal-6.1-series", "--check", "fault", "--results", results,
			 NULL };
	struct hb_itest_out o;
	json_t *root, *steps, *st;
	size_t i, n_steps;
	int builds = 0;
	double t0, wall;
	time_t now = time(NULL);

	(void)state;
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", gmtime(&now));
	snprintf(results, sizeof(results), "%s/bisect-%s", hb_itest_results_dir(), stamp);
	mkdir(hb_itest_results_dir(), 0755);
	t0 = hb_itest_now();
	hb_itest_hugebench(argv, &o);
	wall = hb_itest_now() - t0;
	print_message("bisect minimal-6.1-series --check fault: %.0f s wall\n", wall);
	if (o.exit_code != 0)
		fprintf(stderr, "%s\n%s\n", o.out, o.err);
	assert_int_equal(o.exit_code, 0);
	assert_non_null(strstr(o.out, "first bad patch: 3/5 " BAD_PATCH));
	bisect_dir(o.out, dir, sizeof(dir));
	assert_true(dir[0]);
	hb_itest_out_free(&o);

	snprintf(path, sizeof(path), "%s/steps.json", dir);
	root = json_load_file(path, 0, NULL);
	assert_non_null(root);
	steps = json_object_get(root, "steps");
	n_steps = json_array_size(steps);
	json_array_foreach(steps, i, st) {
		builds += json_integer_value(json_object_get(st, "try")) == 1;
		assert_true(json_object_get(st, "build_s") != NULL);
		assert_non_null(json_string_value(json_object_get(st, "group")));
	}
	/* k = 2 good, k = 3 bad: about log2(N + 1) builds */
	assert_int_equal(builds, 2);
	assert_true(builds <= (int)ceil(log2(5 + 1)));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(steps, 0), "k")), 2);
	assert_string_equal(hb_itest_str(json_array_get(steps, 0), "verdict"), "good");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(steps, 1), "k")), 3);
	assert_string_equal(hb_itest_str(json_array_get(steps, 1), "verdict"), "bad");
	assert_string_equal(hb_itest_str(json_array_get(steps, 1), "patch"), BAD_PATCH);
	json_decref(root);
	snprintf(path, sizeof(path), "%s/summary.md", dir);
	{
		char *md = hb_itest_slurp(path);

		assert_non_null(strstr(md, "first bad patch: 3/5 " BAD_PATCH));
		assert_non_null(strstr(md, "## Evidence"));
		free(md);
	}

	/* the same command again: resumed from steps.json, nothing built or booted */
	t0 = hb_itest_now();
	hb_itest_hugebench(argv, &o);
	wall = hb_itest_now() - t0;
	assert_int_equal(o.exit_code, 0);
	assert_non_null(strstr(o.out, "resuming"));
	assert_non_null(strstr(o.out, "first bad patch: 3/5 " BAD_PATCH));
	assert_null(strstr(o.out, "== bisect minimal-6.1-series: k="));
	assert_true(wall < 30);
	hb_itest_out_free(&o);
	snprintf(path, sizeof(path), "%s/steps.json", dir);
	root = json_load_file(path, 0, NULL);
	assert_int_equal(json_array_size(json_object_get(root, "steps")), n_steps);
	json_decref(root);
}
