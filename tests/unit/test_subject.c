/* test_subject.c - unit tests for the subject-present helpers (issue 15):
 * hb_check_huge_subject() fails when the snapshots show no huge page or no
 * PMD mapping, hb_metric_subject() turns a metric whose subject is absent
 * into "unavailable" with the reason, hb_param_given() records only what the
 * suite line gave, and the fragment workload's clean-phase threshold.
 *
 * Events go to a temporary file and are read back as JSON lines. Nothing
 * here writes a kernel knob (shmem_enabled= is exercised by the guest test
 * test_subject_absent in tests/integration/test_guests.c). wl_fragment.c is
 * compiled in for its static clean_subject(). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "wl_fragment.c"

struct cap {
	struct hb_ctx *ctx;
	int fd;
};

static void cap_open(struct cap *c)
{
	char path[] = "/tmp/hb-test-subject-XXXXXX";

	c->fd = mkstemp(path);
	assert_true(c->fd >= 0);
	unlink(path);
	c->ctx = hb_ctx_new(&hb_wl_fragment, 0, c->fd);
}

/* The n-th event (0-based) of kind ev, or NULL; caller decrefs. */
static json_t *cap_event(struct cap *c, const char *ev, int n)
{
	static char buf[1 << 16];
	ssize_t len = pread(c->fd, buf, sizeof(buf) - 1, 0);
	char *save = NULL, *line;

	assert_true(len >= 0);
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL);

		assert_non_null(j);
		if (strcmp(json_string_value(json_object_get(j, "ev")), ev) == 0 && n-- == 0)
			return j;
		json_decref(j);
	}
	return NULL;
}

static void cap_close(struct cap *c)
{
	hb_ctx_free(c->ctx);
	close(c->fd);
}

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

/* 16 MiB faulted huge and PMD-mapped: the subject is there. */
static void test_huge_subject_present(void **state)
{
	struct hb_snap a, b;
	struct cap c;
	char why[256] = "";
	json_t *ev;

	(void)state;
	cap_open(&c);
	snap_set(&a, 2048, 0, 100);
	snap_set(&b, 2048 + 16384, 16384, 108);
	assert_true(hb_check_huge_subject(c.ctx, "subject_x", &a, &b, 8, 16384, why, sizeof(why)));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	assert_string_equal(why, "");
	ev = cap_event(&c, "check", 0);
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "name")), "subject_x");
	assert_true(json_is_true(json_object_get(ev, "pass")));
	json_decref(ev);
	cap_close(&c);
}

/* What shmem_enabled=deny looks like: the file is there, no huge page. */
static void test_huge_subject_absent(void **state)
{
	struct hb_snap a, b;
	struct cap c;
	char why[256] = "";
	json_t *ev;

	(void)state;
	cap_open(&c);
	snap_set(&a, 0, 0, 5);
	snap_set(&b, 0, 0, 5);
	assert_false(hb_check_huge_subject(c.ctx, "subject_x", &a, &b, 8, 16384, why,
					   sizeof(why)));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	assert_non_null(strstr(why, "subject_x failed"));
	assert_non_null(strstr(why, "thp_file_alloc +0 of 8"));
	ev = cap_event(&c, "check", 0);
	assert_false(json_is_true(json_object_get(ev, "pass")));
	assert_non_null(strstr(json_string_value(json_object_get(ev, "observed")),
			       "thp_file_alloc +0, ShmemPmdMapped +0 kB"));
	json_decref(ev);
	cap_close(&c);
}

/* Huge pages allocated but mapped by PTEs (minimal-6.1-regress): a check
 * that asks for PMD mappings fails, one that does not passes. */
static void test_huge_subject_no_pmd(void **state)
{
	struct hb_snap a, b;
	struct cap c;

	(void)state;
	cap_open(&c);
	snap_set(&a, 0, 0, 0);
	snap_set(&b, 16384, 0, 8);
	assert_true(hb_check_huge_subject(c.ctx, "alloc_only", &a, &b, 8, 0, NULL, 0));
	assert_false(hb_check_huge_subject(c.ctx, "with_pmd", &a, &b, 8, 16384, NULL, 0));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	cap_close(&c);
}

static void test_metric_subject(void **state)
{
	double v[2] = { 1.5, 2.5 };
	struct cap c;
	json_t *ev;

	(void)state;
	cap_open(&c);
	hb_metric_subject(c.ctx, "present", "ns", HB_LOWER, v, 2, NULL);
	hb_metric_subject(c.ctx, "absent", "ns", HB_LOWER, v, 2, "no huge page");
	ev = cap_event(&c, "metric", 0);
	assert_int_equal(json_array_size(json_object_get(ev, "samples")), 2);
	assert_null(json_object_get(ev, "unavailable"));
	json_decref(ev);
	ev = cap_event(&c, "metric", 1);
	assert_null(json_object_get(ev, "samples"));
	assert_string_equal(json_string_value(json_object_get(ev, "unavailable")),
			    "subject absent: no huge page");
	json_decref(ev);
	/* an unavailable metric is not a failure by itself */
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	cap_close(&c);
}

/* Only a given key is returned and recorded; not given, nothing is written
 * (hb_apply_shmem_enabled() leaves the host's knob alone here). The key must
 * be in the workload's table (params.h): it used to be any key. */
static void test_param_given(void **state)
{
	struct cap c;
	json_t *ev;

	(void)state;
	cap_open(&c);
	assert_null(hb_param_given(c.ctx, "shmem_enabled"));
	assert_int_equal(hb_apply_shmem_enabled(c.ctx), 0);
	hb_ctx_set_param(c.ctx, "madv", "1");
	assert_string_equal(hb_param_given(c.ctx, "madv"), "1");
	hb_ctx_finish(c.ctx);
	ev = cap_event(&c, "workload_end", 0);
	assert_null(json_object_get(json_object_get(ev, "params"), "shmem_enabled"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "params"),
							      "madv")),
			    "1");
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	json_decref(ev);
	cap_close(&c);
}

/* fragment: rate 0 (no huge page) and 0.4 fail clean_min_pct=50; 1.0 and
 * exactly 0.5 pass. */
static void test_fragment_clean_threshold(void **state)
{
	static const struct {
		double rate;
		bool pass;
	} cases[] = { { 0.0, false }, { 0.4, false }, { 0.5, true }, { 1.0, true } };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cap c;
		char why[256] = "";

		cap_open(&c);
		assert_int_equal(clean_subject(c.ctx, cases[i].rate, 50, 32, why, sizeof(why)),
				 cases[i].pass);
		assert_int_equal(hb_ctx_status(c.ctx), cases[i].pass ? HB_PASS : HB_FAIL);
		assert_int_equal(why[0] != 0, !cases[i].pass);
		cap_close(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_huge_subject_present),
		cmocka_unit_test(test_huge_subject_absent),
		cmocka_unit_test(test_huge_subject_no_pmd),
		cmocka_unit_test(test_metric_subject),
		cmocka_unit_test(test_param_given),
		cmocka_unit_test(test_fragment_clean_threshold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
