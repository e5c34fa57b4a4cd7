/* expect_tables.h - what the per-version expectation tables of the guest
 * (workloads/knobs_table.c, mthp_table.c, kvm_map_judge.c) were read from
 * and verified on, the words a check gives on a kernel newer than the
 * newest verified table, and the known bugs (issue 36). Shared by the guest
 * (the checks) and the host (`hugebench kernels` shows the provenance). */
#ifndef HB_EXPECT_TABLES_H
#define HB_EXPECT_TABLES_H

#include <stddef.h>

/* One per-version reading of a table. */
struct hb_expect_table {
	const char *table;	 /* knobs, mthp, kvm-map gmem */
	int kver;		 /* major*1000+minor the reading is of */
	const char *source;	 /* package and files read, and when */
	const char *verified_on; /* kernels a real run agreed on, with the date */
};
extern const struct hb_expect_table hb_expect_tables[];
extern const size_t hb_n_expect_tables;

/* How a soft basis starts (hb.h, hb_check_basis): a kernel whose rule is
 * unknown, between two verified tables that differ (or before the oldest). */
#define HB_BASIS_UNVERIFIED "extrapolated:"

/* "per the 7.2 rules, newest verified; Linux 7.3 not read": the basis of a
 * check on a kernel (kver) newer than the newest verified table
 * (newest_kver); it is a hard expectation (hb.h, hb_check_basis). */
const char *hb_expect_basis_newest(char *buf, size_t len, int newest_kver, int kver);

/* A behaviour the project holds to be a bug, of the kernel or of a peer
 * test: not an expectation (hb_check_known_bug()). */
struct hb_known_bug {
	const char *id;	     /* short and stable */
	const char *title;   /* one line: what is wrong */
	const char *ref;     /* where it is written down: the finding, a report, a fix */
	const char *buggy;   /* what the bug shows, in the check's observed words */
	const char *correct; /* what a fixed kernel (or test) shows */
	const char *applies; /* which kernels or test sources show it */
};
/* memfd (anonymous shmem), shmem_enabled=within_size, hugepages-2048kB
 * "inherit": a PMD folio for a 2 MiB block that crosses i_size (7.2). */
extern const struct hb_known_bug hb_kb_memfd_within_size;
/* kselftest vm/split_huge_page_test of 6.1: demands exactly one THP of the
 * four it faults in, "No THP is allocated" when all four are huge. */
extern const struct hb_known_bug hb_kb_kst_split_61;
extern const struct hb_known_bug *const hb_known_bugs[];
extern const size_t hb_n_known_bugs;

#endif
