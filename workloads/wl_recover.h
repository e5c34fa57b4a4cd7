/* wl_recover.h - the judging part of the recover workload (wl_recover.c):
 * whether MADV_COLLAPSE exists on a kernel, what its errno means there, and
 * the subject checks of both ways back, on outcomes (issue 25). Pure
 * functions of what was observed, so tests/unit/workloads/test_recover_outcomes.c
 * drives them with injected errnos and kernel versions, without a kernel. */
#ifndef WL_RECOVER_H
#define WL_RECOVER_H

#include "hb.h"

#include <stdbool.h>

extern const struct hb_workload hb_wl_recover;

/* What one MADV_COLLAPSE pass saw. */
struct rc_collapse_obs {
	int kver;		 /* the kernel, major * 1000 + minor */
	enum hb_kf_cfg cfg;	 /* its CONFIG_TRANSPARENT_HUGEPAGE */
	int ret, err, tries;	 /* madvise()'s return, errno (0 on success), attempts */
	long long huge_kb;	 /* ShmemHugePages after, above the baseline before the file */
	long long size_kb;	 /* the file */
	long long collapse_alloc, collapse_alloc_failed; /* attempt counters, shown only */
	double ms;		 /* the time the calls took */
};

/* Whether this kernel has MADV_COLLAPSE, from the table (lib/kfeatures.c),
 * never from an errno. When it has not: a note and madv_collapse_time
 * unavailable, both citing the row; returns false. */
bool rc_collapse_supported(struct hb_ctx *ctx, int kver, enum hb_kf_cfg cfg);
/* After the calls: subject_madv_collapse (ShmemHugePages back to the whole
 * file: the collapse happened) and collapse_madvise (madvise returned 0;
 * an errno fails it, named with the row), then madv_collapse_time, a number
 * only when both passed. Returns whether both passed. */
bool rc_collapse_judge(struct hb_ctx *ctx, const struct rc_collapse_obs *o);

/* What the khugepaged phase saw, from before the scan rate was raised to
 * the end of the wait. */
struct rc_khugepaged_obs {
	long long extents;	    /* 2 MiB extents of the file */
	long long pages_collapsed;  /* khugepaged/pages_collapsed delta */
	long long huge_kb, size_kb; /* ShmemHugePages above the baseline, the file */
	long long collapse_alloc, collapse_alloc_failed; /* attempt counters, shown only */
};

/* subject_khugepaged_collapse: khugepaged collapsed, counted by
 * pages_collapsed (>= one per extent) or by ShmemHugePages back to the whole
 * file; never by thp_collapse_alloc, which counts attempts. */
bool rc_khugepaged_subject(struct hb_ctx *ctx, const struct rc_khugepaged_obs *o);

#endif
