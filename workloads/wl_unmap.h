/* wl_unmap.h - the subject check of the unmap workload (wl_unmap.c), on
 * outcomes (issue 25): driven by tests/unit/workloads/test_unmap_outcomes.c. */
#ifndef WL_UNMAP_H
#define WL_UNMAP_H

#include "hb.h"

extern const struct hb_workload hb_wl_unmap;

/* subject_setup_huge_PmdMapped: the fill left a huge page per extent present
 * and PMD-mapped. */
bool um_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b, size_t size);

#endif
