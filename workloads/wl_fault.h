/* wl_fault.h - the subject checks of the fault workload (wl_fault.c), on
 * outcomes (issue 25): driven by tests/unit/workloads/test_fault_outcomes.c. */
#ifndef WL_FAULT_H
#define WL_FAULT_H

#include "hb.h"

extern const struct hb_workload hb_wl_fault;

/* subject_huge_write_faults_PmdMapped: the timed write pass between a and b
 * left a huge page per extent present (ShmemHugePages) and PMD-mapped. */
bool fault_subject_write(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
			 size_t size, char *why, size_t len);
/* subject_private_read_faults_PmdMapped: the MAP_PRIVATE read pass mapped
 * the (already present) huge pages by PMD. */
bool fault_subject_read(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
			size_t size, char *why, size_t len);

#endif
