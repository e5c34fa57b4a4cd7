/* test_unmap_outcomes.c - the unmap workload's subject check (wl_unmap.h, issue 25) on
 * snapshots: huge pages allocated (thp_file_alloc) but not present in the
 * page cache, or present but not mapped as asked, fail; present and mapped
 * pass. The check asks the kernel for the outcome, never for the attempt. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "hb.h"
#include "wl_unmap.h"



static void test_subject(void **state)
{
	(void)state;
	hbt_huge_subject_cases(&hb_wl_unmap, um_subject, "subject_setup_huge_PmdMapped", (size_t)8 << 20, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
