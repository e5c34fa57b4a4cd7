/* fallback.h - private to the fallback workload (issue 37): wl_fallback.c
 * (allocations whose memcg charge fails) and fallback_inject.c (allocations
 * failed by fail_page_alloc). */
#ifndef HB_FALLBACK_H
#define HB_FALLBACK_H

#include <stdbool.h>

#include "hb.h"

#define FB_THP "/sys/kernel/mm/transparent_hugepage"

/* The inject cases: where the kernel has fail_page_alloc (kfeatures row
 * fail_page_alloc), huge and 64 kB folio allocations of shmem faults fail,
 * and the fallback counters, orders and data are checked; else a note.
 * per_size: the kernel has hugepages-<N>kB/shmem_enabled; stats: and their
 * stats/ files (the _stats checks). */
void fb_inject_part(struct hb_ctx *ctx, bool per_size, bool stats);

#endif
