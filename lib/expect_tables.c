/* expect_tables.c - provenance of the expectation tables and the known bugs
 * (expect_tables.h). Add a row when a table is read from a new source or
 * verified on a new kernel; docs/findings.md holds the reasoning. */
#include "expect_tables.h"

#include <stdio.h>

const struct hb_expect_table hb_expect_tables[] = {
	{ "knobs", 6001,
	  "linux-source-6.1 6.1.192-3 (Debian): mm/shmem.c __shmem_is_huge(), "
	  "Documentation/admin-guide/mm/transhuge.rst \"Hugepages in tmpfs/shmem\"",
	  "debian-6.1 (6.1.0-57-cloud-amd64): quick suite green (docs/findings.md)" },
	{ "knobs", 6012,
	  "linux-source-6.12 6.12.118-1~deb12u1 (Debian): mm/shmem.c shmem_huge_global_enabled(), "
	  "shmem_allowable_huge_orders(); transhuge.rst",
	  "debian-6.12 (6.12.118+deb12-cloud-amd64): quick suite green (docs/findings.md)" },
	{ "knobs", 7002,
	  "linux-source-7.2 7.2.13-1 (Debian sid), read 2026-12-04: mm/shmem.c "
	  "shmem_huge_global_enabled() 626-667, shmem_get_orders_within_size() 604-624, "
	  "shmem_allowable_huge_orders() 1820-1862; transhuge.rst 425-514",
	  "debian-7.2 (7.2.13+deb14-cloud-amd64) 2026-12-04: quick suite green "
	  "(the memfd within_size cell a known bug from 2026-12-06); minimal-7.3-raised "
	  "(this source built here, booted as 7.3) 2026-12-06: internal and per-size cells green" },
	{ "mthp", 6012,
	  "linux-source-6.12 6.12.118-1~deb12u1, read 2026-12-04: mm/shmem.c, mm/huge_memory.c, "
	  "transhuge.rst",
	  "debian-6.12 (6.12.118) 2026-12-04: mthp suite 488 of 488" },
	{ "mthp", 7002,
	  "linux-source-7.2 7.2.13-1, read 2026-12-04: mm/shmem.c, mm/huge_memory.c, "
	  "mm/shmem.c shmem_swapin_folio(), transhuge.rst",
	  "debian-7.2 (7.2.13) 2026-12-04: mthp suite 489 of 489; minimal-7.2 (make mthp-regress); "
	  "minimal-7.3-raised (this source built here, booted as 7.3) 2026-12-06: mthp green" },
	{ "mlock", 6001,
	  "linux-source-6.1 6.1.192-3: mm/internal.h mlock_vma_folio(), mm/mlock.c "
	  "mlock_pte_range() (workloads/wl_mlock.c's head)",
	  "debian-6.1 (6.1.0-57-cloud-amd64): quick suite green" },
	{ "mlock", 6007,
	  "linux-source-6.12 6.12.118: mm/mlock.c allow_mlock_munlock(), mm/internal.h "
	  "munlock_vma_folio(); the row's start at 6.7 is believed, not verified",
	  "debian-6.12 (6.12.117/118) and the 6.18.44 development host: quick suite green" },
	{ "kvm-map gmem", 7002,
	  "linux-source-7.2 7.2.13-1: virt/kvm/guest_memfd.c kvm_gmem_get_folio(), "
	  "arch/x86/kvm/mmu/mmu.c kvm_mmu_faultin_pfn_gmem()",
	  "debian-7.2 (7.2.13) 2026-12-05: kvm-map gmem 8207 / 0" },
};
const size_t hb_n_expect_tables = sizeof(hb_expect_tables) / sizeof(hb_expect_tables[0]);

const char *hb_expect_basis_newest(char *buf, size_t len, int newest_kver, int kver)
{
	snprintf(buf, len, "per the %d.%d rules, newest verified; Linux %d.%d not read",
		 newest_kver / 1000, newest_kver % 1000, kver / 1000, kver % 1000);
	return buf;
}

const struct hb_known_bug hb_kb_memfd_within_size = {
	.id = "memfd-within-size-pmd-past-isize",
	.title = "anonymous shmem under shmem_enabled=within_size (2048 kB inherit) gets a PMD "
		 "folio for a block that crosses i_size",
	.ref = "docs/findings.md \"Known bug: memfd within_size\" (7.2.13 mm/shmem.c 1855-1862; "
	       "not yet reported upstream)",
	.buggy = "e0=huge e1=huge",
	.correct = "e0=huge e1=small",
	.applies = "from the tmpfs large folio rework (upstream 6.14); read in 7.2.13, seen on "
		   "debian-7.2",
};

const struct hb_known_bug hb_kb_kst_split_61 = {
	.id = "kselftest-6.1-split-huge-page-one-thp",
	.title = "kselftest vm/split_huge_page_test (6.1) faults in four PMD-sized THPs but "
		 "demands AnonHugePages of exactly one: \"No THP is allocated\" when all four "
		 "are huge",
	.ref = "docs/external-tools.md \"Known bugs of the peer tests\" (6.1.192 "
	       "tools/testing/selftests/vm/split_huge_page_test.c 94-111, vm_util.c 111-152; "
	       "6.12's test checks 4)",
	.buggy = "\"No THP is allocated\" with thp_fault_alloc >= +2",
	.correct = "the test's PMD split runs (ok)",
	.applies = "the kselftest built from linux-source-6.1 (6.1.192-3)",
};

const struct hb_known_bug *const hb_known_bugs[] = { &hb_kb_memfd_within_size,
						     &hb_kb_kst_split_61 };
const size_t hb_n_known_bugs = sizeof(hb_known_bugs) / sizeof(hb_known_bugs[0]);
