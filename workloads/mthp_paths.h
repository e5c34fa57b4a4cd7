/* mthp_paths.h - private to the mthp-paths workload (issue 37, item 3): the
 * multi-size shmem THP paths nothing else drives -- mlock, munlock and
 * mremap of mTHP-backed mappings (wl_mthp_paths.c), a split that fails on a
 * pinned folio (split_failed) and swap-in of large shmem folios through the
 * swap cache and its readahead (mthp_paths_io.c). The expectations are pure
 * functions of the kernel version, shared with
 * tests/unit/workloads/test_mthp_paths.c. */
#ifndef HB_MTHP_PATHS_H
#define HB_MTHP_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "hb.h"
#include "mthp_folio.h"

#define MP_DIR "/mnt/hb-mthp-paths"
#define MP_THP "/sys/kernel/mm/transparent_hugepage"

/* The object of every case: a 2 MiB memfd (512 pages) of folios of one
 * order, written one pattern over it. */
#define MP_OBJ HB_HPAGE
#define MP_PAGES ((long)(MP_OBJ / HB_PAGE))

/* Folio order of a size in kB (16 -> 2); -1 when not a power of two >= 8. */
int mp_order_of_kb(long kb);
/* "4:32 0:10" (mt_hist_text) plus " absent N" when pages were not present. */
void mp_hist_text(const struct mt_observed *ob, char *buf, size_t len);
/* khugepaged stopped for the whole workload: anonymous THP "never" stops
 * its thread on 6.12 (hugepage_pmd_enabled(); Debian has no
 * READ_ONLY_THP_FOR_FS) and on 7.2 while no shmem PMD knob is on (mthp's
 * khugepaged_all_never_thread measured both). Putting it to sleep
 * (mt_khugepaged_pause()) was not enough: on 6.12 it still collapsed a
 * 16 kB fill to PMD in 2 of 4 repetitions (thp_collapse_alloc +1 during
 * the fill). Where the thread still runs: asleep, with a note. The runner
 * restores the knob. false after hb_error(). */
bool mp_khugepaged_off(struct hb_ctx *ctx);
/* A khugepaged thread exists (given 1 s to go). */
bool mp_kh_running(void);
/* Every offered hugepages-<N>kB/shmem_enabled "never" except order `on`
 * ("always"); on == 0: all never; khugepaged asleep if that started it.
 * 0 or -errno of the first refused write (the path in *failed). */
int mp_size_knobs(int on, char *failed, size_t len);
/* memfd of MP_OBJ mapped MAP_SHARED at a 2 MiB aligned address inside a
 * 4 MiB + 2 MiB reservation (*raw, munmap MT_SPAN + 2 MiB); filled with seed.
 * NULL after hb_error(). */
char *mp_memfd_filled(struct hb_ctx *ctx, const char *label, uint64_t seed, int *fd, void **raw);
/* What allocated the folios over a fill, for a subject's observed text:
 * the per-size shmem_alloc that moved, thp_file_alloc, thp_collapse_alloc
 * and khugepaged/pages_collapsed (a folio of a size nobody asked for is a
 * collapse or a fault; this says which). mp_fill_begin() before the fill,
 * mp_fill_text() after it. */
struct mp_fill {
	struct mt_stats st;
	long long file_alloc, collapse_alloc, collapsed;
};
void mp_fill_begin(struct mp_fill *f);
void mp_fill_text(const struct mp_fill *f, char *buf, size_t len);
/* MADV_NOHUGEPAGE on [at, at + len) once its folios exist: khugepaged
 * skips the VMA (6.12 mm/khugepaged.c:374-380), so no collapse rewrites
 * the folios a case reads (6.12 collapses anonymous shmem to PMD whatever
 * hugepages-2048kB says: seen in paths.suite after swapacct, 9:1 where
 * 2:128 was written; mt_khugepaged_pause() alone did not hold it). false
 * after hb_error(). */
bool mp_no_collapse(struct hb_ctx *ctx, char *at, size_t len);
/* The folios of [at, at + MP_OBJ), or hb_error() and false. */
bool mp_orders(struct hb_ctx *ctx, const char *at, struct mt_observed *ob);

/* ---- expectations --------------------------------------------------------- */

/* Mlocked after mlock of [off, MP_OBJ) of a mapping of order-`order`
 * folios that starts va_mis bytes past a 2 MiB boundary (whole mapping: off
 * 0). mlock_pte_range() walks one page table (2 MiB of address space) at a
 * time and allow_mlock_munlock() mlocks a large folio only when it lies
 * wholly inside that walk's range and the VM_LOCKED range and is mapped
 * whole there (6.12 and 7.2 mm/mlock.c:307-400): a folio the locked range
 * cuts, or one whose mapping crosses a 2 MiB boundary of the address space,
 * is not mlocked. kB. */
long long mp_expect_mlocked_kb(int order, size_t va_mis, size_t off);

/* After MADV_PAGEOUT of MP_OBJ of order-`order` folios and a sequential read
 * of every page: what 7.2 (mm/shmem.c:2241-2400) and 6.12 do.
 *   whole: the folios come back at `order` (1 << (9 - order) of them), else
 *          as 512 small pages;
 *   io:    pswpin + zswpin == 512 (every page read from the device), else 0;
 *   readahead: swap_cluster_readahead() read pages ahead (swap_ra >= 1,
 *          swap_ra_hit == swap_ra, major faults + swap_ra_hit == 512), else
 *          swap_ra == swap_ra_hit == 0;
 *   swpin: hugepages-<N>kB/stats/swpin of `order` grows by this. */
struct mp_ra_expect {
	bool whole, io, readahead;
	long swpin;
	long majflt; /* exact major faults where !readahead */
};
/* sync_dev: the swap device is SWP_SYNCHRONOUS_IO (zram, brd on 6.12+);
 * in_cache: the folios are still in the swap cache when read (an async
 * device's writeback done, not yet reclaimed); zswap_on: zswap is enabled
 * (7.2 then swaps in small, mm/shmem.c:2039-2041); page_cluster: vm.page-cluster.
 * basis gets the reading used (NULL for 6.12 and 7.2). */
struct mp_ra_expect mp_expect_readahead(int kver, int order, bool sync_dev, bool in_cache,
					bool zswap_on, long page_cluster, char *basis, size_t len,
					const char **basis_out);

/* ---- parts ------------------------------------------------------------------ */
void mp_mlock_part(struct hb_ctx *ctx, int order);
void mp_split_failed_part(struct hb_ctx *ctx, int order);
void mp_readahead_part(struct hb_ctx *ctx, int order, const char *devices);

#endif
