/* test_fault_outcomes.c - the fault workload's subject check (wl_fault.h, issue 25) on
 * snapshots: huge pages allocated (thp_file_alloc) but not present in the
 * page cache, or present but not mapped as asked, fail; present and mapped
 * pass. The check asks the kernel for the outcome, never for the attempt. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "hb.h"
#include "wl_fault.h"

static char why[256];

/* {ShmemHugePages, ShmemPmdMapped} after, from 0/0; thp_file_alloc +n each time. */
static bool subject(long long huge_kb, long long pmd_kb, bool *check_pass)
{
	struct hb_snap a, b;
	struct hbt_cap c;
	char spec[160];
	bool ok;

	hbt_snap(&a, "ShmemHugePages=0 ShmemPmdMapped=0 vm.thp_file_alloc=0");
	snprintf(spec, sizeof(spec), "ShmemHugePages=%lld ShmemPmdMapped=%lld vm.thp_file_alloc=%lld",
		 huge_kb, pmd_kb, (long long)((64UL << 20) >> 21));
	hbt_snap(&b, spec);
	hbt_cap_open(&c, &hb_wl_fault);
	ok = fault_subject_write(c.ctx, &a, &b, (size_t)(64 << 20), why, sizeof(why));
	*check_pass = hbt_cap_check_pass(&c, "subject_huge_write_faults_PmdMapped");
	assert_non_null(strstr(hbt_cap_check_observed(&c, "subject_huge_write_faults_PmdMapped"), "attempts: thp_file_alloc"));
	assert_int_equal(hb_ctx_status(c.ctx), ok ? HB_PASS : HB_FAIL);
	hbt_cap_close(&c);
	return ok;
}

static void test_subject(void **state)
{
	long long kb = (long long)((64UL << 20) >> 10);
	bool p;

	(void)state;
	assert_false(subject(0, 0, &p));
	assert_false(p);
	assert_false(subject(kb - 2048, kb, &p));
	assert_true(subject(kb, kb, &p));
	assert_true(p);
	assert_false(subject(kb, 0, &p));
}

/* The read pass asks for the PMD mapping only (the pages are there). */
static void test_read_subject(void **state)
{
	struct hb_snap a, b;
	struct hbt_cap c;

	(void)state;
	hbt_snap(&a, "ShmemHugePages=65536 ShmemPmdMapped=0");
	hbt_snap(&b, "ShmemHugePages=65536 ShmemPmdMapped=0");
	hbt_cap_open(&c, &hb_wl_fault);
	assert_false(fault_subject_read(c.ctx, &a, &b, 64 << 20, why, sizeof(why)));
	assert_non_null(strstr(why, "subject_private_read_faults_PmdMapped failed"));
	hbt_cap_close(&c);
	hbt_snap(&b, "ShmemHugePages=65536 ShmemPmdMapped=65536");
	hbt_cap_open(&c, &hb_wl_fault);
	assert_true(fault_subject_read(c.ctx, &a, &b, 64 << 20, why, sizeof(why)));
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_read_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
