/* source_itest.c - integration tests of kernels built from source recipes (issue 6):
 * minimal-6.1 passes the quick suite, minimal-6.1-regress fails it where PMD
 * mapping is checked and nowhere else, and a patch that does not apply is
 * one line naming it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "itest.h"
#include "source_itest.h"

/* ---- kernels built from source (issue 6) --------------------------------- */

/* The workloads whose checks look at PMD mapping; the regression patch must be
 * flagged there and nowhere else (knobs, pressure, fragment look at
 * allocation, swap and compaction, which the patch leaves alone). */
static bool affected_by_pmd_patch(const char *workload)
{
	static const char *const ws[] = { "fault", "access", "truncate", "unmap", "mlock",
					  "mapped", "recover", "kvm-map" };

	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		if (strcmp(ws[i], workload) == 0)
			return true;
	return false;
}

/* minimal-6.1 and minimal-6.1-regress are built here (cold ~4 min, the second
 * incrementally), pass/fail the quick suite, and compare-report catches the
 * regression on exactly the checks and metrics the patch affects. */
void test_source_regression_caught(void **state)
{
	struct hb_itest_run good, bad;
	int rc;
	json_t *rep, *pair, *f;
	size_t i;
	int pmd_checks = 0, kvm_checks = 0;

	(void)state;
	hb_itest_run_suite("minimal-6.1", "quick", NULL, &good);
	assert_non_null(good.result);
	assert_int_equal(good.exit_code, 0);
	assert_string_equal(hb_itest_str(good.result, "verdict"), "pass");
	assert_string_equal(hb_itest_str(json_object_get(good.result, "target"), "kind"), "source");
	assert_true(hb_itest_file_size(good.dir, "build.log") > 0);

	hb_itest_run_suite("minimal-6.1-regress", "quick", NULL, &bad);
	assert_non_null(bad.result);
	assert_int_equal(bad.exit_code, 1);
	assert_string_equal(hb_itest_str(bad.result, "verdict"), "fail");
	/* allocation still works: only the mapping level regressed */
	assert_true(json_is_true(json_object_get(
		hb_itest_check(hb_itest_workload(bad.result, "fault"), "huge_ShmemHugePages_delta_kb"),
		"pass")));

	pair = hb_itest_compare_json(good.dir, bad.dir, &rc, &rep);
	assert_int_equal(rc, 1);
	json_array_foreach(json_object_get(pair, "findings"), i, f) {
		const char *kind = hb_itest_str(f, "kind"), *wl = hb_itest_str(f, "workload");
		const char *what = hb_itest_str(f, "what");

		if (!json_is_true(json_object_get(f, "regression")) || strcmp(kind, "verdict") == 0)
			continue;
		if (!affected_by_pmd_patch(wl))
			fail_msg("regression flagged in unrelated workload %s: %s %s", wl, kind, what);
		if (strcmp(kind, "check") == 0) {
			if (!strstr(what, "PmdMapped") && !strstr(what, "pages_2m") &&
			    !strstr(what, "pages_4k"))
				fail_msg("check %s.%s flagged: not about the mapping level", wl, what);
			pmd_checks += strstr(what, "PmdMapped") != NULL;
			kvm_checks += strstr(what, "pages_2m") != NULL;
		}
	}
	assert_true(pmd_checks >= 7); /* one or more per PMD-looking workload */
	assert_true(kvm_checks >= 1);
	json_decref(rep);
	hb_itest_run_free(&good);
	hb_itest_run_free(&bad);
}

/* A patch that does not apply: exit 2, one line naming the patch and hunk,
 * and nothing booted. */
void test_source_bad_patch(void **state)
{
	char dir[256], path[300];
	char *argv[] = { "kernel", "--target", dir + strlen("kernels/"), NULL };
	struct hb_itest_out o;
	const char *last;

	(void)state;
	snprintf(dir, sizeof(dir), "kernels/zz-test-badpatch-%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/patches", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/recipe", dir);
	hb_itest_write(path, "kind=source\nbase=minimal-6.1\n");
	snprintf(path, sizeof(path), "%s/patches/series", dir);
	hb_itest_write(path, "0001-wrong-context.patch\n");
	snprintf(path, sizeof(path), "%s/patches/0001-wrong-context.patch", dir);
	hb_itest_write(path, "--- a/mm/shmem.c\n+++ b/mm/shmem.c\n@@ -10,3 +10,3 @@\n"
		       " this context line is not in shmem.c\n-nor is this one\n+replacement\n"
		       " end of context\n");
	hb_itest_hugebench(argv, &o);
	{
		char tree[300];
		char *rm[] = { "/bin/rm", "-rf", dir, tree, NULL };

		/* the recipe and the source tree the build prepared for it */
		snprintf(tree, sizeof(tree), ".cache/trees/%s", dir + strlen("kernels/"));
		hb_itest_spawn_to(rm, "/dev/null");
	}
	assert_int_equal(o.exit_code, 2);
	/* progress lines come first; the error is the last line */
	last = o.err + strlen(o.err);
	if (last > o.err)
		last--;
	while (last > o.err && last[-1] != '\n')
		last--;
	assert_non_null(strstr(last, "0001-wrong-context.patch"));
	assert_non_null(strstr(last, "does not apply"));
	assert_non_null(strstr(last, "Hunk #1 FAILED"));
	hb_itest_out_free(&o);
}
