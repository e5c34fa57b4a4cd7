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

static void test_subject(void **state)
{
	(void)state;
	/* mapped asks for present only: PTE-mapped huge pages pass */
	hbt_huge_subject_cases(&hb_wl_mapped, mp_subject, "subject_setup_huge", (size_t)4 << 20, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
