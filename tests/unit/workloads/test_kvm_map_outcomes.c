/* test_kvm_map_outcomes.c - the kvm-map workload's judging
 * (workloads/kvm_map_judge.c, issue 25): the subject is KVM's 2 MiB
 * stage-2 mappings (an outcome), hugetlbfs is there or not by the kernel
 * feature table, and an errno from a call the kernel has (MADV_HUGEPAGE,
 * nr_hugepages, mounting hugetlbfs) is a failed check naming it -- it used
 * to be a note, or a skip of the backing. The gmem backing (issue 21): the
 * table decides whether it runs, KVM's caps must then agree, and what KVM
 * maps guest_memfd with is data per kernel version. */
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

/* 6.12 (guest_memfd only for private-memory VMs, caps 0): skipped with a
 * note citing the row and the caps seen; 7.2 with MMAP|INIT_SHARED runs;
 * 7.2 without them is a failed check, never a skip. */
static void test_gmem_judge(void **state)
{
	const struct kvm_vm_gmem_caps none = { 0, 0, 1 }, good = { 1, 3, 1 },
				      mmap_only = { 1, 1, 1 }, failed = { 1, -1, 1 },
				      no_region2 = { 1, 3, 0 };
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &wl);
	assert_int_equal(kvm_map_gmem_judge(c.ctx, 6012, HB_KF_CFG_UNKNOWN, &none), 1);
	assert_non_null(strstr(hbt_cap_notes(&c), "gmem backing skipped"));
	assert_non_null(strstr(hbt_cap_notes(&c), "kfeatures row kvm_gmem_mmap"));
	assert_non_null(strstr(hbt_cap_notes(&c), "not in Linux 6.12"));
	assert_non_null(strstr(hbt_cap_notes(&c), "KVM_CAP_GUEST_MEMFD 0,"));
	assert_null(hbt_cap_named(&c, "check", "gmem_caps"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
	/* a 7.x built without it, per /proc/config.gz */
	hbt_cap_open(&c, &wl);
	assert_int_equal(kvm_map_gmem_judge(c.ctx, 7002, HB_KF_CFG_OFF, &none), 1);
	assert_non_null(strstr(hbt_cap_notes(&c), "CONFIG_KVM_GUEST_MEMFD is off"));
	hbt_cap_close(&c);
	hbt_cap_open(&c, &wl);
	assert_int_equal(kvm_map_gmem_judge(c.ctx, 7002, HB_KF_CFG_UNKNOWN, &good), 0);
	assert_true(hbt_cap_check_pass(&c, "gmem_caps"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
	for (int i = 0; i < 4; i++) {
		const struct kvm_vm_gmem_caps *bad[] = { &none, &mmap_only, &failed, &no_region2 };

		hbt_cap_open(&c, &wl);
		assert_int_equal(kvm_map_gmem_judge(c.ctx, 7002, HB_KF_CFG_ON, bad[i]), -1);
		assert_false(hbt_cap_check_pass(&c, "gmem_caps"));
		assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
		hbt_cap_close(&c);
	}
}

/* 4 KiB only wherever asked; verified on 7.2 (no basis), unverified before
 * it, the 7.2 rule (hard) after it; the basis names the version. */
static void test_gmem_expect(void **state)
{
	char why[160], basis[256];
	const char *b = "x";

	(void)state;
	assert_false(kvm_map_gmem_expect(7002, why, sizeof(why), basis, sizeof(basis), &b));
	assert_null(b);
	assert_non_null(strstr(why, "order-0"));
	assert_false(kvm_map_gmem_expect(6018, why, sizeof(why), basis, sizeof(basis), &b));
	assert_ptr_equal(b, basis);
	assert_non_null(strstr(basis, "extrapolated"));
	assert_non_null(strstr(basis, "Linux 6.18"));
	assert_false(kvm_map_gmem_expect(7003, why, sizeof(why), basis, sizeof(basis), &b));
	/* newer than the one reading: judged by it, hard (issue 36) */
	assert_string_equal(basis, "per the 7.2 rules, newest verified; Linux 7.3 not read");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_hugetlb),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_gmem_judge),
		cmocka_unit_test(test_gmem_expect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
