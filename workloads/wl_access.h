/* wl_access.h - the judging part of the access workload (wl_access.c): the
 * subject check and what a hardware counter that cannot be opened means.
 * Driven by tests/unit/workloads/test_access_outcomes.c. */
#ifndef WL_ACCESS_H
#define WL_ACCESS_H

#include "hb.h"

#include <stdbool.h>

extern const struct hb_workload hb_wl_access;

/* subject_huge_PmdMapped: a huge page per extent, present and PMD-mapped. */
bool acc_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
		 size_t size, char *why, size_t len);
/* A counter's perf_event_open(what) gave err (0: opened). Where this machine
 * has no hardware PMU -- the kernel without perf events (kfeatures row
 * perf_events), or no core PMU registered (/sys/bus/event_source/devices/cpu
 * absent: a guest under TCG, a VM without PMU passthrough) -- its metrics are
 * unavailable with that fact as the reason (into why; returns false), whatever
 * the errno. Where there is one, an errno is the failed check pmu_<counter>
 * naming it (why gets it too; returns false). True when err is 0. */
bool acc_counter_judge(struct hb_ctx *ctx, const char *counter, const char *what,
		       const char *no_pmu_why, int err, char *why, size_t len);
/* NULL when this machine has a hardware PMU the kernel can drive, else the
 * reason (the table's row, or the missing core PMU). */
const char *acc_no_pmu(char *buf, size_t len);

#endif
