/* wl_knobs.h - the judging part of the knobs workload (wl_knobs.c): which
 * parts of the matrix this kernel has, from the kernel feature table, and
 * the subject check. Driven by tests/unit/workloads/test_knobs_outcomes.c
 * with injected versions, config states and errnos. */
#ifndef WL_KNOBS_H
#define WL_KNOBS_H

#include "hb.h"

#include <stdbool.h>

extern const struct hb_workload hb_wl_knobs;

/* Whether the per-size cells run: where the table says the kernel has
 * hugepages-<N>kB/shmem_enabled (row shmem_per_size) and the knob is there.
 * A kernel that should have it and lacks the knob fails the check
 * persize_knob_present; one the table says lacks it gets a note citing the
 * row (also when the knob is there: a backport the table does not know). */
bool kn_persize_runs(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg, bool have_knob);
/* Whether the SysV cells run: where the table says the kernel has SysV shm
 * (row sysv_shm), probe() (a shmget + IPC_RMID: 0 or -errno; a test passes a
 * fake) must succeed, else the failed check sysv_shmget names the errno; a
 * kernel without it gets a note citing the row and probe() is not called. */
bool kn_sysv_runs(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg, int (*probe)(void));
/* subject_huge_cells: >= 1 of the cells got a huge page (ShmemHugePages
 * grew by 2 MiB at its fault: present, not merely allocated). */
bool kn_subject(struct hb_ctx *ctx, int huge_cells, int cells, const char *rows);
/* One extent of a cell, after its fault (issue 35: ShmemHugePages alone
 * counts PMD-sized folios and says nothing of the mapping): huge (1) when
 * ShmemHugePages grew by hp_kb >= 2048, the page's folio is PMD-order
 * (order from pagemap + kpageflags; -1: unknown, not required) and
 * ShmemPmdMapped grew (pmd_kb >= 2048); small (0) when none of the three
 * says huge; -1 with the disagreement in why otherwise. */
int kn_extent_huge(long long hp_kb, int order, int pmd_order, long long pmd_kb, char *why,
		   size_t len);

#endif
