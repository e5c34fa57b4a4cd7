/* kvm_map_judge.c - the judging part of the kvm-map workload (kvm_map.h):
 * its subject check, which backings this kernel has, from the kernel
 * feature table (issue 25), and what KVM maps guest_memfd with, per kernel
 * version (issue 21). Pure functions of what was observed, linked on
 * their own by tests/unit/workloads/test_kvm_map_outcomes.c. */
#define _GNU_SOURCE
#include "kvm_map.h"
#include "expect_tables.h"

#include <stdio.h>
#include <string.h>

bool kvm_map_subject_judge(struct hb_ctx *ctx, const char *tag, long long p2m, long long p4k,
			   const char *knob, char *absent, size_t len)
{
	char name[96], exp[128];

	snprintf(name, sizeof(name), "subject_%s_pages_2m", tag);
	snprintf(exp, sizeof(exp), ">= +1 2 MiB stage-2 mapping of huge shmem guest RAM (%s)", tag);
	if (hb_check(ctx, name, p2m >= 1, exp, "pages_2m %+lld, pages_4k %+lld (%s)", p2m, p4k,
		     knob))
		return true;
	snprintf(absent, len, "no 2 MiB stage-2 mapping of huge shmem guest RAM (%s)", knob);
	return false;
}

int kvm_map_hugetlb_judge(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg, bool have_2m)
{
	char why[384];

	if (!hb_kf_decide(HB_KF_HUGETLBFS, kver, cfg, why, sizeof(why))) {
		hb_note(ctx, "hugetlb backing skipped: %s", why);
		return 1;
	}
	/* x86-64 hugetlbfs always has the 2 MiB size */
	return hb_check(ctx, "hugetlb_2m_present", have_2m,
			"/sys/kernel/mm/hugepages/hugepages-2048kB exists (kfeatures row "
			"hugetlbfs)", "%s", have_2m ? "present" : "absent")
		       ? 0
		       : -1;
}

bool kvm_map_call_judge(struct hb_ctx *ctx, const char *tag, const char *what, const char *call,
			int err)
{
	char name[96], exp[160], e[96];

	snprintf(name, sizeof(name), "%s_%s", tag, what);
	snprintf(exp, sizeof(exp), "%s succeeds", call);
	hb_kf_errno_text(err, e, sizeof(e));
	return hb_check(ctx, name, err == 0, exp, "%s: %s", call, err ? e : "0");
}

/*
 * guest_memfd's stage-2 size, per kernel version. Read in 7.2 (linux-source-7.2
 * 7.2.13): virt/kvm/guest_memfd.c kvm_gmem_get_folio() allocates order-0
 * folios only ("TODO: Support huge pages", WARN_ON_ONCE on a larger one) and
 * __kvm_gmem_get_pfn() sets *max_order = 0; arch/x86/kvm/mmu/mmu.c takes a
 * fault on a gmem-only slot (GUEST_MEMFD_FLAG_MMAP) through
 * kvm_mmu_faultin_pfn_gmem(), max_level = kvm_max_level_for_order(0) = 4 KiB,
 * and kvm_gmem_max_mapping_level() keeps it there. Every other version is the
 * 7.2 reading extrapolated (6.18 to 7.1 and anything newer were not read).
 */
#define KVM_MAP_GMEM_KVER_READ 7002

bool kvm_map_gmem_expect(int kver, char *why, size_t why_len, char *basis, size_t len,
			 const char **basis_out)
{
	snprintf(why, why_len, "guest_memfd: order-0 folios, max_order 0 (7.2 kvm_gmem_get_pfn)");
	*basis_out = NULL;
	if (kver > KVM_MAP_GMEM_KVER_READ) {
		/* newer than the one reading: its rule, failing on disagreement */
		*basis_out = hb_expect_basis_newest(basis, len, KVM_MAP_GMEM_KVER_READ, kver);
	} else if (kver != KVM_MAP_GMEM_KVER_READ) {
		snprintf(basis, len,
			 HB_BASIS_UNVERIFIED " guest_memfd has only order-0 folios in 7.2, the one source "
			 "read; Linux %d.%d's source was not read, the 7.2 reading is used",
			 kver / 1000, kver % 1000);
		*basis_out = basis;
	}
	return false;
}

int kvm_map_gmem_judge(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg,
		       const struct kvm_vm_gmem_caps *caps)
{
	const long long need = (long long)(KVM_VM_GMEM_FLAG_MMAP | KVM_VM_GMEM_FLAG_INIT_SHARED);
	char why[768], seen[192];
	bool ok;

	snprintf(seen, sizeof(seen),
		 "KVM_CAP_GUEST_MEMFD %lld, KVM_CAP_GUEST_MEMFD_FLAGS %#llx, KVM_CAP_USER_MEMORY2 "
		 "%lld", caps->gmem, caps->flags, caps->region2);
	if (!hb_kf_decide(HB_KF_KVM_GMEM_MMAP, kver, cfg, why, sizeof(why))) {
		hb_note(ctx, "gmem backing skipped (%s on a default VM): %s", seen, why);
		return 1;
	}
	ok = caps->gmem > 0 && caps->region2 > 0 && caps->flags >= 0 && (caps->flags & need) == need;
	return hb_check(ctx, "gmem_caps", ok,
			"KVM_CAP_GUEST_MEMFD >= 1, KVM_CAP_USER_MEMORY2 >= 1 and "
			"KVM_CAP_GUEST_MEMFD_FLAGS with MMAP|INIT_SHARED (0x3) on a default VM "
			"(kfeatures row kvm_gmem_mmap)",
			"%s", seen)
		       ? 0
		       : -1;
}
