/* test_kvm_map_outcomes.c - the kvm-map workload's judging
 * (workloads/kvm_map_judge.c, issue 25): the subject is KVM's 2 MiB
 * stage-2 mappings (an outcome), hugetlbfs is there or not by the kernel
 * feature table, and an errno from a call the kernel has (MADV_HUGEPAGE,
 * nr_hugepages, mounting hugetlbfs) is a failed check naming it -- it used
 * to be a note, or a skip of the backing. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "kvm_map.h"

/* kvm_map_judge.c alone is linked: a context needs a workload. */
static const struct hb_workload wl = { .name = "kvm-map" };

static void test_subject(void **state)
{
	char absent[256] = "";
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &wl);
	assert_false(kvm_map_subject_judge(c.ctx, "huge", 0, 8207, "tmpfs mount huge=always",
					   absent, sizeof(absent)));
	assert_false(hbt_cap_check_pass(&c, "subject_huge_pages_2m"));
	assert_non_null(strstr(absent, "no 2 MiB stage-2 mapping"));
	hbt_cap_close(&c);
	hbt_cap_open(&c, &wl);
	assert_true(kvm_map_subject_judge(c.ctx, "memfd", 16, 15, "shmem_enabled=always", absent,
					  sizeof(absent)));
	assert_true(hbt_cap_check_pass(&c, "subject_memfd_pages_2m"));
	hbt_cap_close(&c);
}

static void test_hugetlb(void **state)
{
	struct hbt_cap c;

	(void)state;
	/* CONFIG_HUGETLBFS off: the backing skipped with a note citing the row */
	hbt_cap_open(&c, &wl);
	assert_int_equal(kvm_map_hugetlb_judge(c.ctx, 6012, HB_KF_CFG_OFF, false), 1);
	assert_non_null(strstr(hbt_cap_notes(&c), "kfeatures row hugetlbfs"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
	/* on: the 2 MiB size must be there */
	hbt_cap_open(&c, &wl);
	assert_int_equal(kvm_map_hugetlb_judge(c.ctx, 6001, HB_KF_CFG_ON, false), -1);
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);
	hbt_cap_open(&c, &wl);
	assert_int_equal(kvm_map_hugetlb_judge(c.ctx, 6001, HB_KF_CFG_UNKNOWN, true), 0);
	hbt_cap_close(&c);
}

static void test_calls(void **state)
{
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &wl);
	assert_false(kvm_map_call_judge(c.ctx, "anon_thp", "madv_hugepage",
					"madvise(MADV_HUGEPAGE)", EINVAL));
	assert_non_null(strstr(hbt_cap_check_observed(&c, "anon_thp_madv_hugepage"), "EINVAL"));
	assert_false(kvm_map_call_judge(c.ctx, "hugetlb", "nr_hugepages_set",
					"write 17 to /proc/sys/vm/nr_hugepages", EACCES));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);
	hbt_cap_open(&c, &wl);
	assert_true(kvm_map_call_judge(c.ctx, "memfd", "madv_hugepage", "madvise(MADV_HUGEPAGE)",
				       0));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_hugetlb),
		cmocka_unit_test(test_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
