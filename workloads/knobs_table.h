/* knobs_table.h - expected shmem THP allocation per knob setting: the pure
 * expectation function of the knobs workload (wl_knobs.c), kept apart so the
 * host's unit tests (tests/unit/test_wl_b.c) can check it without a kernel. */
#ifndef HB_KNOBS_TABLE_H
#define HB_KNOBS_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "kfeatures.h"

/* Values of shmem_enabled, of the tmpfs huge= option and of the per-size
 * hugepages-<N>kB/shmem_enabled knobs (KT_INHERIT only there). */
enum kt_mode {
	KT_NEVER,
	KT_ALWAYS,
	KT_WITHIN_SIZE,
	KT_ADVISE,
	KT_DENY,
	KT_FORCE,
	KT_INHERIT,
	KT_UNSET, /* per-size knob absent (before 6.11) or not part of the cell */
	KT_N_MODES
};

/* What backs the memory of a cell. */
enum kt_kind {
	KT_TMPFS, /* a file on our own tmpfs mount (huge= applies) */
	KT_SYSV,  /* shmget/shmat: internal shm_mnt */
	KT_ANON,  /* mmap(MAP_SHARED | MAP_ANONYMOUS): internal shm_mnt */
	KT_MEMFD, /* memfd_create: internal shm_mnt; unlinked, so "anonymous
		   * shmem" for the 6.11+ per-size knobs */
	KT_N_KINDS
};

struct kt_cell {
	int kver;	       /* major * 1000 + minor, as hb_kver() */
	enum kt_mode top;      /* /sys/kernel/mm/transparent_hugepage/shmem_enabled */
	enum kt_mode mount;    /* huge= of the tmpfs mount (KT_TMPFS only) */
	enum kt_mode pmd_knob; /* hugepages-2048kB/shmem_enabled, or KT_UNSET */
	enum kt_kind kind;
	bool madv;	       /* MADV_HUGEPAGE on the mapping before the fault */
	bool within_size;      /* i_size covers the whole 2 MiB extent faulted */
};

extern const char *const kt_mode_name[KT_N_MODES];
extern const char *const kt_kind_name[KT_N_KINDS];

/* Kernel version (major*1000+minor) from which hugepages-<N>kB/shmem_enabled
 * exist: the kernel feature table's row shmem_per_size (lib/kfeatures.c). */
#define KT_KVER_PER_SIZE (hb_kf_row(HB_KF_SHMEM_PER_SIZE)->min_kver)

/* The kernels whose Documentation/admin-guide/mm/transhuge.rst and
 * mm/shmem.c the tables were read from: 6.1 and 6.12 (the PMD-only rules),
 * 7.2 (the rules from the tmpfs large folio rework, upstream 6.14). */
#define KT_KVER_OLDEST_TABLE 6001
#define KT_KVER_PMD_TABLE 6012
#define KT_KVER_TMPFS_ORDERS 6014
#define KT_KVER_NEWEST_TABLE 7002

/* Whether a write fault on a 2 MiB aligned extent, fully inside the VMA,
 * allocates a PMD-sized shmem huge page in this cell. */
bool kt_expect_huge(const struct kt_cell *c);

/* Where the cell's rule differs between 6.12 and the 7.2 table and the 7.2
 * one applies: the lines of 7.2's transhuge.rst / mm/shmem.c it follows;
 * else NULL. */
const char *kt_expect_cite(const struct kt_cell *c);

/* NULL when kt_expect_huge() of this cell comes from a table read for this
 * kernel's version; else its basis (written into buf) for hb_check_basis():
 * "per the 7.2 rules, newest verified; Linux 7.3 not read" (hard) after 7.2,
 * "extrapolated: ..." (unverified, soft) before 6.1 and on 6.13 .. 7.1
 * where the 6.12 and 7.2 rules differ. */
const char *kt_expect_basis(const struct kt_cell *c, char *buf, size_t len);

/* The known bug this cell shows on this kernel (docs/findings.md), or NULL:
 * from the tmpfs large folio rework, anonymous shmem (memfd) whose 2048 kB
 * size inherits shmem_enabled=within_size, where the two outcomes differ
 * for this extent (c->within_size). *bug_huge: the outcome of the bug (the
 * code's rule), *fixed_huge: the correct one (the text, 6.12). */
struct hb_known_bug;
const struct hb_known_bug *kt_known_bug(const struct kt_cell *c, bool *bug_huge, bool *fixed_huge);

/* Whether the cell can be set up at all: e.g. from 6.11 shmem_enabled=force is
 * refused (EINVAL) unless hugepages-2048kB/shmem_enabled is "inherit". */
bool kt_cell_settable(const struct kt_cell *c);

#endif
