/* mthp_table.h - the expected folio orders of the mthp workload (wl_mthp.c):
 * which order of shmem folio backs each page of an object, given the
 * top-level shmem_enabled, the tmpfs huge= option, the per-size
 * hugepages-<N>kB/shmem_enabled knobs, MADV_HUGEPAGE, the kind of object
 * and the kernel version, for the two ways a page is allocated: a write
 * fault through a mapping, and write(2). Pure functions (no kernel), so
 * tests/unit/workloads/test_mthp_table.c checks them on the host. */
#ifndef HB_MTHP_TABLE_H
#define HB_MTHP_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "knobs_table.h"

/* Orders of shmem folios on x86_64 with 4 KiB pages: 1 (8 kB) .. 9 (2 MiB,
 * PMD): THP_ORDERS_ALL_FILE_DEFAULT, MAX_PAGECACHE_ORDER = HPAGE_PMD_ORDER
 * (7.2 include/linux/huge_mm.h, pagemap.h). Order 0 is a small page. */
#define MT_PMD_ORDER 9
#define MT_N_ORDERS (MT_PMD_ORDER + 1)
/* The largest object the walk models, in 4 KiB pages (16 MiB). */
#define MT_MAX_PAGES 4096

enum mt_obj {
	MT_TMPFS, /* a linked file on our own tmpfs mount (huge= applies) */
	MT_ANON,  /* mmap(MAP_SHARED | MAP_ANONYMOUS) */
	MT_MEMFD, /* memfd_create(): unlinked, "anonymous shmem" once mapped */
	MT_SYSV,  /* shmget/shmat (shm_vm_ops: not anonymous shmem) */
	MT_N_OBJ
};

extern const char *const mt_obj_name[MT_N_OBJ];

struct mt_policy {
	int kver;		       /* major * 1000 + minor, as hb_kver() */
	enum kt_mode top;	       /* transparent_hugepage/shmem_enabled */
	enum kt_mode mount;	       /* huge= of the tmpfs mount (MT_TMPFS) */
	enum kt_mode size[MT_N_ORDERS]; /* hugepages-<N>kB/shmem_enabled by order;
					 * KT_UNSET: no knob (reads as never) */
	enum mt_obj obj;
	bool madv;		       /* MADV_HUGEPAGE on the mapping */
};

/* How the pages of an object get allocated, in ascending order of page. */
struct mt_walk {
	long pages;	  /* pages touched: [0, pages) */
	long isize_pages; /* i_size in pages (rounded up) before the walk */
	long vma_pages;	  /* fault path: the mapping's length in pages, the
			   * mapping 2 MiB aligned at file offset 0; 0: write(2) */
	long chunk_pages; /* write(2) path: pages per write() call (the last
			   * one shorter); i_size grows with each call */
};

/* Which reading of mm/shmem.c applies (see mthp_table.c). */
enum mt_era {
	MT_ERA_PMD,    /* 6.11 .. 6.13: tmpfs, SysV: PMD or nothing */
	MT_ERA_ORDERS, /* from 6.14 (tmpfs large folios): every order */
};
enum mt_era mt_era_of(int kver);

/* The orders allowed for the allocation at page idx (bit o: order o), as
 * shmem_allowable_huge_orders() decides it in era: fault (through a VMA) or
 * write(2) (no VMA; write_end_pages is the end of the write in progress, 0
 * on the fault path), i_size isize_pages. */
unsigned mt_allowed_orders(const struct mt_policy *p, enum mt_era era, long idx,
			   long write_end_pages, bool fault, long isize_pages);

/* The expected histogram of the walk: hist[o] = folios of order o (o >= 1)
 * allocated, hist[0] = small pages. Returns 0, or -1 when the walk is out
 * of the model's range (pages > MT_MAX_PAGES, no pages). */
int mt_expect(const struct mt_policy *p, const struct mt_walk *w, long hist[MT_N_ORDERS]);
/* The same in a given era (for the tests and for mt_expect_basis()). */
int mt_expect_in(const struct mt_policy *p, const struct mt_walk *w, enum mt_era era,
		 long hist[MT_N_ORDERS]);

/* NULL when the expectation of this walk comes from sources read for this
 * kernel's version (6.12: MT_ERA_PMD; 7.2: MT_ERA_ORDERS); else how it was
 * extrapolated, written into buf (for hb_check_basis()): a kernel between
 * 6.12 and 7.2 whose two readings differ for this walk, or one newer than
 * 7.2. */
const char *mt_expect_basis(const struct mt_policy *p, const struct mt_walk *w, char *buf,
			    size_t len);

/* What the shmem THP boot parameters of a command line leave in sysfs and
 * as the default of a new tmpfs mount (7.2 transhuge.rst "Boot parameters"
 * and mm/shmem.c setup_thp_shmem(), setup_transparent_hugepage_shmem(),
 * setup_transparent_hugepage_tmpfs(), shmem_init()): */
struct mt_boot {
	bool sizes_given;	       /* a thp_shmem= the kernel took */
	enum kt_mode size[MT_N_ORDERS]; /* per-size values after boot */
	enum kt_mode top;	       /* shmem_enabled; KT_UNSET: not given */
	enum kt_mode tmpfs;	       /* huge= of a mount without huge=; KT_UNSET: not given */
	int ignored;		       /* parameters the kernel rejects and ignores */
};
void mt_boot_expect(const char *cmdline, struct mt_boot *b);

/* Whether khugepaged collapses anonymous shmem to PMD size while the PMD
 * size is "never" and a smaller size is enabled: 6.12's
 * __thp_vma_allowable_orders() returns shmem_allowable_huge_orders() without
 * intersecting it with the orders asked for (PMD), so any enabled order
 * lets khugepaged in; 7.2's returns `orders & shmem_allowable_huge_orders()`.
 * basis (for hb_check_basis) gets the extrapolation on 6.13 .. 7.1 and after
 * 7.2, else NULL. */
bool mt_khugepaged_ignores_pmd_knob(int kver, char *basis, size_t len, const char **basis_out);

/* The folios a uniform split of one shmem PMD folio to new_order leaves
 * (/sys/kernel/debug/split_huge_pages, pid and file forms): 7.2 splits
 * shmem to any order (folio_check_splittable() refuses order 1 for anon
 * only); 6.12 refuses a non-zero order for shmem (-EINVAL, the folio stays
 * whole). basis as mt_khugepaged_ignores_pmd_knob(). */
void mt_expect_split(int kver, int new_order, long hist[MT_N_ORDERS], char *basis, size_t len,
		     const char **basis_out);

/* The 64 kB folios expected back in the swap case (a 2 MiB memfd of 64 kB
 * folios swapped out as 32 large entries), read back after a hole punch
 * across the first two entries, or after swapoff. 7.2 swaps a large entry
 * in whole from a SWP_SYNCHRONOUS_IO device such as zram
 * (shmem_swapin_folio() -> shmem_swap_alloc_folio() at the entry's order),
 * unless zswap was ever enabled: 30 (the two entries the punch crossed come
 * back in smaller pieces), 32 after swapoff. 6.12 splits every large entry
 * and swaps in small pages ("swap device can only swap in order 0 folio"):
 * 0, every page small. basis as mt_khugepaged_ignores_pmd_knob(). */
long mt_expect_swapin_64k(int kver, bool after_swapoff, bool zswap_on, char *basis, size_t len,
			  const char **basis_out);

/* MADV_COLLAPSE on anonymous shmem with every knob at never: forced past
 * the knobs in both readings (7.2 shmem_allowable_huge_orders(): "forced
 * collapse ignores sysfs configs"; 6.12 thp_vma_allowable_order() without
 * TVA_ENFORCE_SYSFS), refused only by shmem_enabled=deny. The two readings
 * agree, but a kernel between them is not assumed to: basis gets the
 * extrapolation for every kernel but 6.12 and 7.2 (debian-6.19 refuses it,
 * EINVAL: docs/findings.md). */
bool mt_collapse_forced_at_never(int kver, char *basis, size_t len, const char **basis_out);

/* Whether khugepaged runs (and collapses anonymous shmem) with anonymous
 * THP "never" and only shmem's PMD size on: 7.2's start_stop_khugepaged()
 * asks hugepage_enabled(), which counts shmem_hpage_pmd_enabled(), and the
 * shmem_enabled stores call it; 6.12's hugepage_pmd_enabled() looks at the
 * anonymous orders alone and no shmem store starts the thread ("mm: shmem:
 * fix khugepaged activation policy for shmem" came after 6.12). basis as
 * mt_khugepaged_ignores_pmd_knob(). */
bool mt_khugepaged_runs_for_shmem_alone(int kver, char *basis, size_t len,
					const char **basis_out);

/* "9:1 3:1 1:1 0:10": the non-zero entries, highest order first. */
void mt_hist_text(const long hist[MT_N_ORDERS], char *buf, size_t len);

#endif
