/* wl_mapped.h - the pure part of the mapped workload (wl_mapped.c): what
 * Mapped shows per kernel while a 4 KiB PTE maps part of a huge folio.
 * Shared with tests/unit/workloads/test_mapped_table.c. */
#ifndef WL_MAPPED_H
#define WL_MAPPED_H

#include <stdbool.h>
#include <stddef.h>

/* One row of the table (the comment above mp_seed in wl_mapped.c says why). */
struct mp_expect {
	int min_kver;			/* first kernel, major * 1000 + minor */
	const char *basis;
	bool partial_counts_folio;	/* a 4 KiB PTE of a huge folio shows 2 MiB */
};

extern const struct mp_expect mp_seed;
extern const struct mp_expect mp_kernels[];	/* oldest first */
extern const size_t mp_n_kernels;

/* The row for kver: the newest row not newer than it (the oldest if none). */
const struct mp_expect *mp_expect_for(int kver);

struct hb_ctx;
struct hb_snap;
/* subject_setup_huge: writing the file between a and b left a huge page per
 * extent present (ShmemHugePages; not thp_file_alloc: issue 25). */
bool mp_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b, size_t size);

#endif
