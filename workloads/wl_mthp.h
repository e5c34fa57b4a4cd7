/* wl_mthp.h - the judging part of the mthp workload (wl_mthp.c): which
 * kernels it runs on, from the kernel feature table, and its subject check.
 * Expectations of the folio orders: mthp_table.h. */
#ifndef WL_MTHP_H
#define WL_MTHP_H

#include "hb.h"
#include "mthp_table.h"

#include <stdbool.h>

extern const struct hb_workload hb_wl_mthp;

/* NULL where a kernel of version kver has the per-size shmem knobs and
 * statistics (row shmem_per_size, its option in state per_size) and
 * /proc/kpageflags (row kpageflags, state kpf); else the reason, citing the
 * row, written into why. */
const char *mt_unsupported(int kver, enum hb_kf_cfg per_size, enum hb_kf_cfg kpf, char *why,
			   size_t len);
/* subject_mthp_folios: the policy part saw a folio of an order in 1..8 and
 * a PMD folio (hist: folios per order, from pagemap + kpageflags). */
bool mt_subject(struct hb_ctx *ctx, const long hist[MT_N_ORDERS]);

#endif
