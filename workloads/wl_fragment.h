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

/* Sets vm.compaction_proactiveness to v through write_knob (hb_write_file;
 * a test passes a fake): only where the kernel feature table says the
 * kernel has it (row compaction_proactiveness: Linux >= 5.9 with
 * CONFIG_COMPACTION), else a note citing the row and nothing written. A
 * write refused on a kernel that has it is the failed check
 * compaction_proactiveness_set naming the errno. True when it was set. */
bool fr_set_proactiveness(struct hb_ctx *ctx, long v, int kver, enum hb_kf_cfg cfg,
			  int (*write_knob)(const char *path, const char *value));

#endif
