/* expect_itest.c - expectations that can fail on the kernel being written
 * (issue 36), on real guests.
 *
 * make test: debian-7.2's knobs rows with shmem_enabled=within_size show
 * the memfd cell as the known bug it is (present, the run green); on
 * minimal-6.1, kselftest's split_huge_page_test stops on its known bug
 * ("No THP is allocated" with four THPs faulted in) and the workload passes
 * naming it.
 *
 * Long (make expect-newer): minimal-7.2 booted as 7.3 (minimal-7.3-raised)
 * passes knobs and mthp, every table check judged by the 7.2 rules; the
 * same with a planted change to a per-size rule (minimal-7.3-planted:
 * per-size within_size ignored) fails the checks it moves, with the basis
 * "per the 7.2 rules, newest verified; Linux 7.3 not read"; `hugebench
 * accept` writes those disagreements as proposed entries with their
 * observed values and a citation placeholder, and the same kernel then
 * passes with them. minimal-7.2-memfd-fix (the proposed fix of the memfd
 * known bug) shows it "fixed". The external suite on minimal-6.1 in full
 * (the make bench TARGET=minimal-6.1 SUITE=external of the issue) is
 * green. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect_itest.h"
#include "itest.h"

#define NEWEST_73 "per the 7.2 rules, newest verified; Linux 7.3 not read"

static json_t *must_check(json_t *w, const char *name)
{
	json_t *c = hb_itest_check(w, name);

	if (!c)
		fail_msg("%s has no check %s", hb_itest_str(w, "name"), name);
	return c;
}

/* The known bug of the memfd within_size cell, present on 7.2.13. */
void test_known_bug_memfd_debian_7_2(void **state)
{
	static const char suite[] = "knobs shmem_enabled=within_size tmpfs=0\n";
	struct hb_itest_run r;
	json_t *w, *c, *kb;

	(void)state;
	hb_itest_run_suite_text("debian-7.2", "knobs-within-size", suite, NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	assert_non_null(strstr(hb_itest_str(r.result, "verdict_reason"),
			       "known bug(s) present: memfd-within-size-pmd-past-isize"));
	w = hb_itest_workload(r.result, "knobs");
	c = must_check(w, "knobs_within_size_memfd_nomadv");
	assert_true(json_is_true(json_object_get(c, "pass")));
	assert_string_equal(hb_itest_str(c, "observed"), "e0=huge e1=huge");
	kb = json_object_get(c, "known_bug");
	assert_non_null(kb);
	assert_string_equal(hb_itest_str(kb, "state"), "present");
	assert_non_null(strstr(hb_itest_str(kb, "ref"), "docs/findings.md"));
	/* a verified table: no expectation of another kind here */
	assert_null(json_object_get(r.result, "unverified_expectations"));
	assert_null(json_object_get(r.result, "newest_table_expectations"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r.result, "known_bugs"),
							    "present")),
			 1);
	hb_itest_run_free(&r);
}

/* Between two verified tables: debian-6.19 refuses MADV_COLLAPSE at never
 * where 6.12 and 7.2 force it (docs/findings.md), an unverified
 * expectation. Without --strict that run passes, its verdict line counting
 * the disagreements (test_mthp_debian_6_19, the whole mthp suite); with
 * --strict the same disagreement fails it (one boot, mthp's khugepaged
 * part only). */
void test_strict_debian_6_19(void **state)
{
	static const char suite[] = "mthp boot=0 policy=0 swap=0 split=0 race=0 write=0 "
				    "integrity=0\n";
	const char *strict[] = { "--strict", NULL };
	struct hb_itest_run r;
	json_t *w, *c, *u;

	(void)state;
	hb_itest_run_suite_text("debian-6.19", "mthp-khugepaged", suite, strict, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 1);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "fail");
	assert_non_null(strstr(hb_itest_str(r.result, "verdict_reason"), "--strict: failed"));
	w = hb_itest_workload(r.result, "mthp");
	assert_string_equal(hb_itest_str(w, "status"), "fail");
	assert_non_null(strstr(hb_itest_str(w, "reason"), "failed by --strict"));
	c = must_check(w, "collapse_memfd_never_call");
	assert_false(json_is_true(json_object_get(c, "pass")));
	assert_string_equal(hb_itest_str(c, "expectation"), "unverified");
	/* at least the two collapse checks (khugepaged_shmem_alone_orders
	 * too when khugepaged did not scan in time, seen once in this subset) */
	u = json_object_get(r.result, "unverified_expectations");
	assert_true(json_is_true(json_object_get(u, "strict")));
	assert_true(json_integer_value(json_object_get(u, "disagree")) >= 2);
	hb_itest_run_free(&r);
}

/* The fix docs/findings.md proposes, built on minimal-7.2 (long: a
 * seeded one-patch build): the memfd cell shows the known bug "fixed", the
 * madvised memfd keeps its PMD folio, the run is green. */
void test_expect_known_bug_fixed(void **state)
{
	static const char suite[] = "knobs shmem_enabled=within_size tmpfs=0\n";
	struct hb_itest_run r;
	json_t *w, *c;

	(void)state;
	hb_itest_run_suite_text("minimal-7.2-memfd-fix", "knobs-within-size", suite, NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	assert_non_null(strstr(hb_itest_str(r.result, "verdict_reason"),
			       "known bug(s) fixed: memfd-within-size-pmd-past-isize"));
	w = hb_itest_workload(r.result, "knobs");
	c = must_check(w, "knobs_within_size_memfd_nomadv");
	assert_true(json_is_true(json_object_get(c, "pass")));
	assert_string_equal(hb_itest_str(c, "observed"), "e0=huge e1=small");
	assert_string_equal(hb_itest_str(json_object_get(c, "known_bug"), "state"), "fixed");
	c = must_check(w, "knobs_within_size_memfd_madv");
	assert_true(json_is_true(json_object_get(c, "pass")));
	assert_string_equal(hb_itest_str(c, "observed"), "e0=huge e1=huge");
	hb_itest_run_free(&r);
}

/* kselftest's split_huge_page_test of 6.1 on minimal-6.1: its known bug. */
static void assert_kst_known_bug(struct hb_itest_run *r)
{
	json_t *w, *c, *kb;

	assert_non_null(r->result);
	w = hb_itest_workload(r->result, "kselftest");
	assert_non_null(w);
	assert_string_equal(hb_itest_str(w, "status"), "pass");
	c = must_check(w, "split_huge_page.thp_allocated");
	assert_true(json_is_true(json_object_get(c, "pass")));
	kb = json_object_get(c, "known_bug");
	assert_non_null(kb);
	assert_string_equal(hb_itest_str(kb, "id"), "kselftest-6.1-split-huge-page-one-thp");
	assert_string_equal(hb_itest_str(kb, "state"), "present");
	/* the bug's signature: more than the one THP the test demands */
	assert_non_null(strstr(hb_itest_str(c, "observed"), "No THP is allocated"));
	assert_non_null(strstr(hb_itest_str(c, "observed"), "thp_fault_alloc +"));
	/* the test stops before its split: no subject to judge */
	assert_null(hb_itest_check(w, "split_huge_page.subject_split"));
	assert_non_null(strstr(hb_itest_str(r->result, "verdict_reason"),
			       "known bug(s) present: kselftest-6.1-split-huge-page-one-thp"));
}

/* The same program alone (make test: seconds). */
void test_external_known_bug_minimal_6_1(void **state)
{
	static const char suite[] = "kselftest tests=split_huge_page limit_s=120 timeout_s=600\n";
	struct hb_itest_run r;

	(void)state;
	hb_itest_run_suite_text("minimal-6.1", "kst-split", suite, NULL, &r);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	assert_kst_known_bug(&r);
	hb_itest_run_free(&r);
}

/* The shipped external suite on the stock minimal-6.1 (long): green, and
 * the known bug named. */
void test_external_known_bug_suite_minimal_6_1(void **state)
{
	struct hb_itest_run r;
	json_t *w;
	size_t i;

	(void)state;
	hb_itest_run_suite("minimal-6.1", "external", NULL, &r);
	assert_kst_known_bug(&r);
	json_array_foreach(json_object_get(r.result, "workloads"), i, w)
		if (strcmp(hb_itest_str(w, "status"), "pass"))
			fail_msg("%s: %s (%s)", hb_itest_str(w, "name"), hb_itest_str(w, "status"),
				 hb_itest_str(w, "reason"));
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	hb_itest_run_free(&r);
}

/* Every failed check of the run: its workload.check names, all with the
 * newest table's basis. */
static int failed_checks(json_t *result, json_t *names)
{
	json_t *w, *c;
	size_t i, j;
	int n = 0;

	json_array_foreach(json_object_get(result, "workloads"), i, w)
		json_array_foreach(json_object_get(w, "checks"), j, c) {
			char full[256];

			if (json_is_true(json_object_get(c, "pass")))
				continue;
			snprintf(full, sizeof(full), "%s.%s", hb_itest_str(w, "name"),
				 hb_itest_str(c, "name"));
			if (strcmp(hb_itest_str(c, "basis"), NEWEST_73) ||
			    strcmp(hb_itest_str(c, "expectation"), "newest"))
				fail_msg("%s failed without the newest table's basis: %s", full,
					 hb_itest_str(c, "basis"));
			json_array_append_new(names, json_string(full));
			n++;
		}
	return n;
}

static bool has_name(json_t *names, const char *want)
{
	json_t *v;
	size_t i;

	json_array_foreach(names, i, v)
		if (!strcmp(json_string_value(v), want))
			return true;
	return false;
}

/* The "Done when" of issue 36. */
void test_expect_newer_planted(void **state)
{
	static const char suite[] = "knobs tmpfs=0\nmthp timeout_s=900\n";
	struct hb_itest_run r;
	struct hb_itest_out o;
	char accepted[4200], *accept_argv[] = { "accept", NULL, "--out", accepted, NULL };
	const char *extra[] = { "--accepted", accepted, NULL };
	json_t *names = json_array(), *doc, *e;
	json_error_t je;
	size_t i;
	int n;

	(void)state;
	snprintf(accepted, sizeof(accepted), "%s/accepted-%d.json", hb_itest_results_dir(),
		 (int)getpid());
	unlink(accepted);

	/* the unchanged 7.2 tree booted as 7.3: green by the 7.2 rules */
	hb_itest_run_suite_text("minimal-7.3-raised", "expect-newer", suite, NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(strncmp(hb_itest_str(json_object_get(r.result, "target"),
					      "kernel_release"), "7.3.", 4), 0);
	assert_int_equal(failed_checks(r.result, names), 0);
	assert_int_equal(r.exit_code, 0);
	assert_true(json_integer_value(json_object_get(
			    json_object_get(r.result, "newest_table_expectations"), "checks")) > 100);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(r.result, "newest_table_expectations"), "disagree")),
			 0);
	assert_true(json_is_true(json_object_get(
		must_check(hb_itest_workload(r.result, "mthp"), "ps_64kB-within_size_anon_nomadv_orders"),
		"pass")));
	hb_itest_run_free(&r);

	/* the planted per-size change: the checks it moves fail, hard */
	hb_itest_run_suite_text("minimal-7.3-planted", "expect-newer", suite, NULL, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 1);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "fail");
	n = failed_checks(r.result, names);
	printf("planted: %d checks failed, e.g. %s\n", n, json_string_value(json_array_get(names, 0)));
	assert_true(n > 0);
	assert_true(has_name(names, "mthp.ps_64kB-within_size_anon_nomadv_orders"));
	assert_true(has_name(names, "knobs.knobs_ps-within_size_always_memfd_nomadv"));
	/* only the rule that was planted moved */
	json_array_foreach(names, i, e)
		if (!strstr(json_string_value(e), "within_size"))
			fail_msg("%s moved, but the planted change is per-size within_size",
				 json_string_value(e));
	assert_string_equal(hb_itest_str(hb_itest_workload(r.result, "mthp"), "status"), "fail");
	assert_string_equal(hb_itest_str(hb_itest_workload(r.result, "knobs"), "status"), "fail");

	/* the reviewed step: proposed entries with the observed values */
	accept_argv[1] = r.dir;
	hb_itest_hugebench(accept_argv, &o);
	assert_int_equal(o.exit_code, 0);
	assert_non_null(strstr(o.out, "proposed in"));
	hb_itest_out_free(&o);
	hb_itest_run_free(&r);
	doc = json_load_file(accepted, 0, &je);
	assert_non_null(doc);
	assert_string_equal(hb_itest_str(doc, "schema"), "hugebench-accepted/1");
	assert_int_equal((int)json_array_size(json_object_get(doc, "entries")), n);
	json_array_foreach(json_object_get(doc, "entries"), i, e) {
		char full[256];

		assert_string_equal(hb_itest_str(e, "kernel"), "7.3");
		assert_non_null(strstr(hb_itest_str(e, "cite"), "TODO"));
		assert_true(strlen(hb_itest_str(e, "observed")) > 0);
		assert_true(strlen(hb_itest_str(e, "table_expected")) > 0);
		snprintf(full, sizeof(full), "%s.%s", hb_itest_str(e, "workload"),
			 hb_itest_str(e, "check"));
		assert_true(has_name(names, full));
	}
	json_decref(doc);

	/* the same kernel with the accepted entries: green */
	hb_itest_run_suite_text("minimal-7.3-planted", "expect-newer", suite, extra, &r);
	assert_non_null(r.result);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(hb_itest_str(r.result, "verdict"), "pass");
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(r.result, "accepted_expectations"), "checks")),
			 n);
	assert_non_null(strstr(hb_itest_str(r.result, "verdict_reason"), "without a citation"));
	hb_itest_run_free(&r);
	json_decref(names);
}
