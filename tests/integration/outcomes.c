/* outcomes.c - integration test of issue 25 ("no green from an attempt"):
 * a kernel whose shmem collapse fails after the huge page is allocated
 * (kernels/minimal-6.1-collapse-fail: collapse_file() returns SCAN_FAIL
 * right after alloc_charge_hpage()) must fail recover on the checks that ask
 * for the outcome -- collapse_madvise (MADV_COLLAPSE returns EINVAL on a
 * kernel the feature table says has it), subject_madv_collapse and
 * subject_khugepaged_collapse (no ShmemHugePages back, no pages_collapsed,
 * however many thp_collapse_alloc) -- and nothing may call MADV_COLLAPSE
 * "not supported". Its base, minimal-6.1, passes the same suite. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "itest.h"
#include "outcomes.h"

/* recover alone, short: 8 MiB, khugepaged given 20 s of guest time */
#define OUTCOMES_SUITE "recover size_mb=8 wait_s=20\n"

static bool check_pass(json_t *w, const char *name)
{
	json_t *c = hb_itest_check(w, name);

	if (!c)
		fail_msg("recover has no check %s", name);
	return json_is_true(json_object_get(c, "pass"));
}

static const char *check_observed(json_t *w, const char *name)
{
	return hb_itest_str(hb_itest_check(w, name), "observed");
}

/* No note or reason of the run says MADV_COLLAPSE is not supported. */
static void assert_never_unsupported(json_t *w)
{
	json_t *ev;
	size_t i;

	json_array_foreach(json_object_get(w, "events"), i, ev) {
		const char *t = hb_itest_str(ev, "text");

		if (strstr(t, "not supported") || strstr(t, "not run"))
			fail_msg("recover says: %s", t);
	}
	assert_null(strstr(hb_itest_str(w, "reason"), "not supported"));
}

void test_outcomes_collapse_fail(void **state)
{
	struct hb_itest_run good, bad;
	json_t *w, *m;

	(void)state;
	hb_itest_run_suite_text("minimal-6.1-collapse-fail", "outcomes", OUTCOMES_SUITE, NULL,
				&bad);
	assert_non_null(bad.result);
	assert_int_equal(bad.exit_code, 1);
	assert_string_equal(hb_itest_str(bad.result, "verdict"), "fail");
	assert_string_equal(hb_itest_str(json_object_get(bad.result, "target"), "kind"), "source");
	w = hb_itest_workload(bad.result, "recover");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "fail");
	/* the file started huge: the kernel allocates at fault time */
	assert_true(check_pass(w, "subject_initial_huge_PmdMapped"));
	/* MADV_COLLAPSE exists on 6.1: EINVAL from it is a failure, named */
	assert_false(check_pass(w, "collapse_madvise"));
	assert_non_null(strstr(check_observed(w, "collapse_madvise"), "EINVAL"));
	assert_non_null(strstr(check_observed(w, "collapse_madvise"), "kfeatures row madv_collapse"));
	assert_false(check_pass(w, "subject_madv_collapse"));
	/* khugepaged allocated for its collapses and collapsed nothing */
	assert_false(check_pass(w, "subject_khugepaged_collapse"));
	assert_non_null(strstr(check_observed(w, "subject_khugepaged_collapse"),
			       "pages_collapsed +0"));
	m = hb_itest_metric(w, "madv_collapse_time");
	assert_non_null(m);
	assert_non_null(strstr(hb_itest_str(m, "unavailable"), "subject absent"));
	assert_never_unsupported(w);

	hb_itest_run_suite_text("minimal-6.1", "outcomes", OUTCOMES_SUITE, NULL, &good);
	assert_non_null(good.result);
	assert_int_equal(good.exit_code, 0);
	w = hb_itest_workload(good.result, "recover");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "pass");
	assert_true(check_pass(w, "collapse_madvise"));
	assert_true(check_pass(w, "subject_madv_collapse"));
	assert_true(check_pass(w, "subject_khugepaged_collapse"));
	/* kernels built here read host time from the RTC (base.config) */
	hb_itest_assert_host_clock(good.result);
	hb_itest_run_free(&good);
	hb_itest_run_free(&bad);
}

/* Issue 35: the console scanner as an oracle on a real kernel. On
 * minimal-6.1-warn-series (patch 2 of 3 WARNs at the first huge tmpfs
 * allocation, mm/shmem.c) a suite of selftest then fault passes every check,
 * and the run is still a kernel-warning (exit 1) whose reason and
 * kernel_issues name the report and fault, not selftest: the workload the
 * guest announced on the console last before the report. */
void test_kernel_report_names_workload(void **state)
{
	struct hb_itest_run r;
	json_t *is;

	(void)state;
	hb_itest_run_suite_text("minimal-6.1-warn-series", "kreport",
				"selftest mode=ok\nfault size_mb=8\n", NULL, &r);
	assert_non_null(r.result);
	assert_string_equal(hb_itest_str(hb_itest_workload(r.result, "selftest"), "status"), "pass");
	assert_string_equal(hb_itest_str(hb_itest_workload(r.result, "fault"), "status"), "pass");
	assert_string_equal(hb_itest_str(r.result, "verdict"), "kernel-warning");
	assert_int_equal(r.exit_code, 1);
	is = json_array_get(json_object_get(r.result, "kernel_issues"), 0);
	assert_non_null(is);
	assert_string_equal(hb_itest_str(is, "kind"), "WARNING");
	assert_non_null(strstr(hb_itest_str(is, "report"), "at mm/shmem.c:"));
	assert_non_null(strstr(hb_itest_str(is, "report"), "shmem_alloc_hugefolio"));
	assert_string_equal(hb_itest_str(is, "workload"), "fault (2/2, rep 0)");
	if (!strstr(hb_itest_str(r.result, "verdict_reason"), "WARNING during fault (2/2, rep 0)"))
		fail_msg("verdict_reason: %s", hb_itest_str(r.result, "verdict_reason"));
	hb_itest_run_free(&r);
}
