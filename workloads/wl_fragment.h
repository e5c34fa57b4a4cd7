/* wl_fragment.h - the pure part of the fragment workload (wl_fragment.c):
 * the clean-phase subject check. Shared with
 * tests/unit/workloads/test_fragment_threshold.c. */
#ifndef WL_FRAGMENT_H
#define WL_FRAGMENT_H

#include "hb.h"

#include <stdbool.h>
#include <stddef.h>

extern const struct hb_workload hb_wl_fragment;

/* The subject check of the clean phase: rate (0..1) of n extents huge must
 * reach min_pct; false (and the reason in why) when it does not. */
bool fr_clean_subject(struct hb_ctx *ctx, double rate, long min_pct, size_t n, char *why,
		      size_t why_len);

#endif
