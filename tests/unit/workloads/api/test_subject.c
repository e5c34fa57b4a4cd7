/* test_subject.c - the subject-present helpers of the workload API
 * (workloads/api/hb_util.c, hb_core.c; issue 15): hb_check_huge_subject()
 * fails when the snapshots show no huge page or no PMD mapping,
 * hb_metric_subject() turns a metric whose subject is absent into
 * "unavailable" with the reason, and hb_param_given() records only what
 * the suite line gave.
 *
 * Events go to a temporary file and are read back as JSON lines, on a
 * context of the fragment workload (it takes madv=). Nothing here writes a
 * kernel knob (shmem_enabled= is exercised by the guest test
 * test_subject_absent in tests/integration/test_guests.c). */
#define _GNU_SOURCE
#include "helpers.h"

#include <string.h>

#include "wl_fragment.h"

static void snap_set(struct hb_snap *s, long long huge_kb, long long pmd_kb, long long alloc)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->meminfo[0].key, sizeof(s->meminfo[0].key), "ShmemHugePages");
	s->meminfo[0].val = huge_kb;
	snprintf(s->meminfo[1].key, sizeof(s->meminfo[1].key), "ShmemPmdMapped");
	s->meminfo[1].val = pmd_kb;
	s->n_meminfo = 2;
	snprintf(s->vmstat[0].key, sizeof(s->vmstat[0].key), "thp_file_alloc");
	s->vmstat[0].val = alloc;
	s->n_vmstat = 1;
}

/* hb_check_huge_subject("subject_x", 8 huge pages, 16 MiB PMD-mapped)
 * between snapshots {huge, pmd, alloc} a and b: its answer, its reason and
 * its first check event. */
struct subject {
	struct hbt_cap c;
	bool ok;
	char why[256];
	json_t *ev;
};

static void subject_x(struct subject *s, const long long a[3], const long long b[3])
{
	struct hb_snap sa, sb;

	hbt_cap_open(&s->c, &hb_wl_fragment);
	snap_set(&sa, a[0], a[1], a[2]);
	snap_set(&sb, b[0], b[1], b[2]);
	s->why[0] = 0;
	s->ok = hb_check_huge_subject(s->c.ctx, "subject_x", &sa, &sb, 8, 16384, s->why,
				      sizeof(s->why));
	s->ev = hbt_cap_event(&s->c, "check", 0);
	assert_non_null(s->ev);
}

static void subject_done(struct subject *s)
{
	json_decref(s->ev);
	hbt_cap_close(&s->c);
}

/* 16 MiB faulted huge and PMD-mapped: the subject is there. */
static void test_huge_subject_present(void **state)
{
	struct subject s;

	(void)state;
	subject_x(&s, (const long long[]){ 2048, 0, 100 },
		  (const long long[]){ 2048 + 16384, 16384, 108 });
	assert_true(s.ok);
	assert_int_equal(hb_ctx_status(s.c.ctx), HB_PASS);
	assert_string_equal(s.why, "");
	assert_string_equal(json_string_value(json_object_get(s.ev, "name")), "subject_x");
	assert_true(json_is_true(json_object_get(s.ev, "pass")));
	subject_done(&s);
}

/* What shmem_enabled=deny looks like: the file is there, no huge page. */
static void test_huge_subject_absent(void **state)
{
	struct subject s;

	(void)state;
	subject_x(&s, (const long long[]){ 0, 0, 5 }, (const long long[]){ 0, 0, 5 });
	assert_false(s.ok);
	assert_int_equal(hb_ctx_status(s.c.ctx), HB_FAIL);
	assert_non_null(strstr(s.why, "subject_x failed"));
	assert_non_null(strstr(s.why, "ShmemHugePages +0 of 16384 kB"));
	assert_false(json_is_true(json_object_get(s.ev, "pass")));
	assert_non_null(strstr(json_string_value(json_object_get(s.ev, "observed")),
			       "ShmemHugePages +0 kB, ShmemPmdMapped +0 kB"));
	subject_done(&s);
}

/* Issue 25: thp_file_alloc grew by one per extent, but no huge page is in
 * the page cache (each was dropped again, e.g. its memcg charge failed):
 * an attempt is not a huge page, the subject fails. */
static void test_huge_subject_attempt_only(void **state)
{
	struct subject s;

	(void)state;
	subject_x(&s, (const long long[]){ 0, 0, 100 }, (const long long[]){ 0, 0, 108 });
	assert_false(s.ok);
	assert_int_equal(hb_ctx_status(s.c.ctx), HB_FAIL);
	assert_non_null(strstr(json_string_value(json_object_get(s.ev, "observed")),
			       "attempts: thp_file_alloc +8"));
	subject_done(&s);
}

/* Issue 25: a skip after a failed check leaves the workload failed, with
 * the failed check's reason; a skip alone still skips. */
static void test_skip_keeps_failure(void **state)
{
	struct hbt_cap c;
	json_t *ev;

	(void)state;
	hbt_cap_open(&c, &hb_wl_fragment);
	hb_check(c.ctx, "broken", false, "0", "EINVAL");
	hb_skip(c.ctx, "this part cannot run here");
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hb_ctx_finish(c.ctx);
	ev = hbt_cap_event(&c, "workload_end", 0);
	assert_non_null(strstr(json_string_value(json_object_get(ev, "reason")), "check broken"));
	json_decref(ev);
	hbt_cap_close(&c);

	hbt_cap_open(&c, &hb_wl_fragment);
	hb_skip(c.ctx, "this part cannot run here");
	assert_int_equal(hb_ctx_status(c.ctx), HB_SKIP);
	hbt_cap_close(&c);
}

/* Huge pages allocated but mapped by PTEs (minimal-6.1-regress): a check
 * that asks for PMD mappings fails, one that does not passes. */
static void test_huge_subject_no_pmd(void **state)
{
	struct hb_snap a, b;
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_fragment);
	snap_set(&a, 0, 0, 0);
	snap_set(&b, 16384, 0, 8);
	assert_true(hb_check_huge_subject(c.ctx, "alloc_only", &a, &b, 8, 0, NULL, 0));
	assert_false(hb_check_huge_subject(c.ctx, "with_pmd", &a, &b, 8, 16384, NULL, 0));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);
}

static void test_metric_subject(void **state)
{
	double v[2] = { 1.5, 2.5 };
	struct hbt_cap c;
	json_t *ev;

	(void)state;
	hbt_cap_open(&c, &hb_wl_fragment);
	hb_metric_subject(c.ctx, "present", "ns", HB_LOWER, v, 2, NULL);
	hb_metric_subject(c.ctx, "absent", "ns", HB_LOWER, v, 2, "no huge page");
	ev = hbt_cap_event(&c, "metric", 0);
	assert_int_equal(json_array_size(json_object_get(ev, "samples")), 2);
	assert_null(json_object_get(ev, "unavailable"));
	json_decref(ev);
	ev = hbt_cap_event(&c, "metric", 1);
	assert_null(json_object_get(ev, "samples"));
	assert_string_equal(json_string_value(json_object_get(ev, "unavailable")),
			    "subject absent: no huge page");
	json_decref(ev);
	/* an unavailable metric is not a failure by itself */
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
}

/* Only a given key is returned and recorded; not given, nothing is written
 * (hb_apply_shmem_enabled() leaves the host's knob alone here). The key must
 * be in the workload's table (params.h): it used to be any key. */
static void test_param_given(void **state)
{
	struct hbt_cap c;
	json_t *ev;

	(void)state;
	hbt_cap_open(&c, &hb_wl_fragment);
	assert_null(hb_param_given(c.ctx, "shmem_enabled"));
	assert_int_equal(hb_apply_shmem_enabled(c.ctx), 0);
	hb_ctx_set_param(c.ctx, "madv", "1");
	assert_string_equal(hb_param_given(c.ctx, "madv"), "1");
	hb_ctx_finish(c.ctx);
	ev = hbt_cap_event(&c, "workload_end", 0);
	assert_null(json_object_get(json_object_get(ev, "params"), "shmem_enabled"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "params"),
							      "madv")),
			    "1");
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	json_decref(ev);
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_subject_present),
		cmocka_unit_test(test_huge_subject_absent),
		cmocka_unit_test(test_huge_subject_attempt_only),
		cmocka_unit_test(test_skip_keeps_failure),
		cmocka_unit_test(test_huge_subject_no_pmd),
		cmocka_unit_test(test_metric_subject),
		cmocka_unit_test(test_param_given),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
