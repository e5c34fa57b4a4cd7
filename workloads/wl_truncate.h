/* wl_truncate.h - the pure part of the truncate workload (wl_truncate.c):
 * its hole-aware data model and the bounds a punch or truncate must meet.
 * Shared with tests/unit/workloads/test_truncate_model.c; nothing here
 * touches the kernel. */
#ifndef WL_TRUNCATE_H
#define WL_TRUNCATE_H

#include "hb.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define TR_SEED 0x7472756e63617465ULL
#define TR_MAX_HOLES 4

/* [start, end) in bytes; both multiples of 8 (the pattern's word size). */
struct tr_hole {
	off_t start, end;
};

struct tr_state {
	struct hb_ctx *ctx;
	int fd;
	char *map;
	size_t size;	/* the file's original (and final) size */
	off_t eof;	/* current i_size */
	struct tr_hole holes[TR_MAX_HOLES];
	int n_holes;
	char *buf;	/* TR_CHUNK bytes for pread */
};

struct tr_verdict {
	off_t bad_data;	/* first offset outside holes not matching, or -1 */
	off_t bad_zero;	/* first offset inside a hole not zero, or -1 */
};

/* What removing file bytes [start, end) may and must do, in bytes. */
struct tr_bounds {
	off_t must;	/* 2 MiB extents wholly inside: freed for certain */
	off_t touched;	/* extents the range touches: the most split or freed */
	off_t pages;	/* whole 4 KiB pages inside: the most freed */
};

bool tr_in_hole(const struct tr_state *t, off_t pos);
/* The next hole boundary after pos, capped at limit. */
off_t tr_next_edge(const struct tr_state *t, off_t pos, off_t limit);
/* Compare buf (file bytes [base, base+len)) against the model. */
void tr_compare(const struct tr_state *t, const char *buf, off_t base, size_t len,
		struct tr_verdict *v);
struct tr_bounds tr_bounds_of(off_t start, off_t end);

/* The probe: huge tmpfs, and fallocate(PUNCH_HOLE) on tmpfs, both from the
 * kernel feature table (kver, cfg: the punch row's option), never from an
 * errno. NULL, or why the workload cannot run (citing the row). */
const char *tr_unsupported_on(int kver, enum hb_kf_cfg cfg, char *why, size_t len);
/* The verdict on err (0: success) from a step's syscall: the check
 * <step>_call, passing on 0 and failing with the errno named (the punch row
 * cited for fallocate); returns pass. */
bool tr_call_judge(struct hb_ctx *ctx, const char *step, bool truncate, int kver,
		   enum hb_kf_cfg cfg, int err);
/* The subject: the fill gave a huge page per extent, PMD-mapped
 * (subject_setup_huge_PmdMapped). */
bool tr_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
		size_t size);

#endif
