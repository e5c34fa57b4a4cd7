/* test_kselftest_outcomes.c - the kselftest wrapper's subjects
 * (kst_subject(), issue 25): a khugepaged program must have collapsed --
 * pages_collapsed, or a huge shmem page seen -- not merely allocated for a
 * collapse (thp_collapse_alloc); split_huge_page must have split one. */
#define _GNU_SOURCE
#include "helpers.h"

#include <string.h>

#include "wl_external.h"

static bool judge(const char *test, struct kst_outcome o)
{
	struct hbt_cap c;
	bool ok;

	hbt_cap_open(&c, &hb_wl_kselftest);
	ok = kst_subject(c.ctx, test, &o);
	assert_int_equal(hb_ctx_status(c.ctx), ok ? HB_PASS : HB_FAIL);
	hbt_cap_close(&c);
	return ok;
}

static void test_subject(void **state)
{
	(void)state;
	/* the collapse-fail kernel: thousands of attempts, no collapse */
	assert_false(judge("khugepaged-shmem", (struct kst_outcome){ .collapse_alloc = 5016 }));
	assert_true(judge("khugepaged-shmem", (struct kst_outcome){ .pages_collapsed = 3 }));
	assert_true(judge("khugepaged-file",
			  (struct kst_outcome){ .peak = { .huge_kb = 2048 } }));
	assert_false(judge("split_huge_page",
			   (struct kst_outcome){ .peak = { .anon_kb = 8192 } }));
	assert_true(judge("split_huge_page", (struct kst_outcome){ .split_page = 1 }));
	/* transhuge-stress (its own pagemap count) and gup_longterm: no subject here */
	assert_true(judge("transhuge-stress", (struct kst_outcome){ 0 }));
	assert_true(judge("gup_longterm", (struct kst_outcome){ 0 }));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
