/* test_stressng_outcomes.c - the stress-ng wrapper's subject
 * (sng_subject(), issue 25): bogo ops count what stress-ng tried; where the
 * suite asks for huge pages, the kernel must have shown them while the
 * stressor ran (peak ShmemHugePages or AnonHugePages), else a failed check. */
#define _GNU_SOURCE
#include "helpers.h"

#include <string.h>

#include "wl_external.h"

static void test_counter(void **state)
{
	(void)state;
	assert_string_equal(sng_subject_counter("shm", "always", "never", "never"),
			    "ShmemHugePages");
	assert_string_equal(sng_subject_counter("tmpfs", "always", "never", "never"),
			    "ShmemHugePages");
	assert_null(sng_subject_counter("mmap", "never", "always", "always"));
	assert_null(sng_subject_counter("memfd", "always", "never", "always"));
	assert_string_equal(sng_subject_counter("memfd", "never", "always", "never"),
			    "ShmemHugePages");
	assert_string_equal(sng_subject_counter("shm-sysv", "never", "force", "never"),
			    "ShmemHugePages");
	/* vm reads its buffer in first: the huge zero page, then small pages */
	assert_null(sng_subject_counter("vm", "always", "always", "always"));
}

static void test_subject(void **state)
{
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_stress_ng);
	/* 5 s of bogo ops, no huge page ever present */
	assert_false(sng_subject(c.ctx, "tmpfs", "always", "always", "always",
				 &(struct hb_ext_peak){ .huge_kb = 0, .anon_kb = 65536 }));
	assert_false(hbt_cap_check_pass(&c, "tmpfs.subject_huge"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);
	hbt_cap_open(&c, &hb_wl_stress_ng);
	assert_true(sng_subject(c.ctx, "shm", "always", "never", "never",
				&(struct hb_ext_peak){ .huge_kb = 16384 }));
	/* no subject asked: no check */
	assert_true(sng_subject(c.ctx, "memfd", "always", "never", "never",
				&(struct hb_ext_peak){ 0 }));
	assert_null(hbt_cap_named(&c, "check", "memfd.subject_huge"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter),
		cmocka_unit_test(test_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
