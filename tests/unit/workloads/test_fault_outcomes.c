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

/* fault_subject_write, as hbt_huge_subject_cases calls it */
static bool call(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
		 size_t size)
{
	return fault_subject_write(ctx, a, b, size, why, sizeof(why));
}

static void test_subject(void **state)
{
	(void)state;
	hbt_huge_subject_cases(&hb_wl_fault, call, "subject_huge_write_faults_PmdMapped", (size_t)64 << 20, true);
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
