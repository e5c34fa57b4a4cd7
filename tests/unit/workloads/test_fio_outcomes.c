/* test_fio_outcomes.c - the fio wrapper's subject (fio_subject(), issue
 * 25): on huge=always a job's file must have been huge pages -- present
 * while fio ran or after it, not allocated -- and an mmap job's file
 * PMD-mapped while it ran; other modes have no subject. */
#define _GNU_SOURCE
#include "helpers.h"

#include <string.h>

#include "wl_external.h"

static bool judge(const char *mode, const char *job, struct hb_ext_peak p, long long after,
		  const char *failing)
{
	char why[256];
	struct hbt_cap c;
	bool ok;

	hbt_cap_open(&c, &hb_wl_fio);
	ok = fio_subject(c.ctx, "x", mode, job, &p, after, why, sizeof(why));
	if (failing) {
		assert_false(hbt_cap_check_pass(&c, failing));
		assert_non_null(strstr(why, failing));
	}
	assert_int_equal(hb_ctx_status(c.ctx), ok ? HB_PASS : HB_FAIL);
	hbt_cap_close(&c);
	return ok;
}

static void test_subject(void **state)
{
	(void)state;
	/* nothing seen: the psync job fails on presence */
	assert_false(judge("always", "seq-write-psync", (struct hb_ext_peak){ 0 }, 0,
			   "x.subject_huge"));
	/* the file stayed huge after fio (psync: no mapping asked) */
	assert_true(judge("always", "seq-write-psync", (struct hb_ext_peak){ 0 }, 65536, NULL));
	/* mmap job: huge but mapped by PTEs (minimal-6.1-regress) */
	assert_false(judge("always", "rand-write-mmap",
			   (struct hb_ext_peak){ .huge_kb = 65536, .pmd_kb = 0 }, 65536,
			   "x.subject_pmd_mapped"));
	assert_true(judge("always", "rand-write-mmap",
			  (struct hb_ext_peak){ .huge_kb = 65536, .pmd_kb = 32768 }, 65536, NULL));
	/* huge=never: no subject */
	assert_true(judge("never", "rand-write-mmap", (struct hb_ext_peak){ 0 }, 0, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
