/* mthp_folio.h - which folio orders back a mapped range, from
 * /proc/self/pagemap and /proc/kpageflags, the way the mm selftests read
 * them (split_huge_page_test.c: a KPF_COMPOUND_HEAD page followed by
 * KPF_COMPOUND_TAIL pages is one folio), and the per-size shmem statistics
 * under hugepages-<N>kB/stats/. Guest side (root: PFNs need CAP_SYS_ADMIN). */
#ifndef HB_MTHP_FOLIO_H
#define HB_MTHP_FOLIO_H

#include <stdbool.h>
#include <stddef.h>

#include "mthp_table.h"

struct mt_observed {
	long hist[MT_N_ORDERS]; /* folios per order; [0]: small pages */
	long absent;		/* pages of the range not present */
	long anomalies;		/* a tail page without its head, a folio not a
				 * power of two or not aligned in the file */
	char anomaly[160];	/* the first one, in words */
	long first_small;	/* the first order-0 page (-1: none) */
	unsigned long long first_small_flags; /* its /proc/kpageflags word */
	int retries;		/* readings that changed under the reader */
};

/* The folios behind [addr, addr + len) (addr page aligned, at file offset 0,
 * so a folio's first page must sit at a multiple of its size); a folio that
 * extends past len (a huge folio beyond i_size) counts whole. A reading
 * counts when pagemap did not change while it was taken (pages migrated by
 * compaction under the reader; up to 50 tries). 0 or -errno. */
int mt_folio_orders(const void *addr, size_t len, struct mt_observed *o);

/* The per-size shmem counters of order o (1 .. MT_PMD_ORDER). */
enum mt_stat { MT_SHMEM_ALLOC, MT_SHMEM_FALLBACK, MT_SHMEM_FALLBACK_CHARGE, MT_SPLIT,
	       MT_SWPOUT, MT_SWPOUT_FALLBACK, MT_ZSWPOUT, MT_SWPIN, MT_SWPIN_FALLBACK,
	       MT_SPLIT_FAILED, MT_N_STATS };
extern const char *const mt_stat_name[MT_N_STATS];
struct mt_stats {
	long long v[MT_N_ORDERS][MT_N_STATS]; /* -1: file absent */
};
void mt_stats_read(struct mt_stats *s);

#endif
