/* test_mapped_outcomes.c - the mapped workload's subject check (wl_mapped.h, issue 25) on
 * snapshots: huge pages allocated (thp_file_alloc) but not present in the
 * page cache, or present but not mapped as asked, fail; present and mapped
 * pass. The check asks the kernel for the outcome, never for the attempt. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "hb.h"
#include "wl_mapped.h"

extern const struct hb_workload hb_wl_mapped;

/* {ShmemHugePages, ShmemPmdMapped} after, from 0/0; thp_file_alloc +n each time. */
static bool subject(long long huge_kb, long long pmd_kb, bool *check_pass)
{
	struct hb_snap a, b;
	struct hbt_cap c;
	char spec[160];
	bool ok;

	hbt_snap(&a, "ShmemHugePages=0 ShmemPmdMapped=0 vm.thp_file_alloc=0");
	snprintf(spec, sizeof(spec), "ShmemHugePages=%lld ShmemPmdMapped=%lld vm.thp_file_alloc=%lld",
		 huge_kb, pmd_kb, (long long)((4UL << 20) >> 21));
	hbt_snap(&b, spec);
	hbt_cap_open(&c, &hb_wl_mapped);
	ok = mp_subject(c.ctx, &a, &b, (size_t)(4 << 20));
	*check_pass = hbt_cap_check_pass(&c, "subject_setup_huge");
	assert_non_null(strstr(hbt_cap_check_observed(&c, "subject_setup_huge"), "attempts: thp_file_alloc"));
	assert_int_equal(hb_ctx_status(c.ctx), ok ? HB_PASS : HB_FAIL);
	hbt_cap_close(&c);
	return ok;
}

static void test_subject(void **state)
{
	long long kb = (long long)((4UL << 20) >> 10);
	bool p;

	(void)state;
	assert_false(subject(0, 0, &p));
	assert_false(p);
	assert_false(subject(kb - 2048, kb, &p));
	assert_true(subject(kb, kb, &p));
	assert_true(p);
	/* mapped asks for present only: PTE-mapped huge pages pass */
	assert_true(subject(kb, 0, &p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
