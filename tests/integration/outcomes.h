/* outcomes.h - integration test of issue 25 ("no green from an attempt"):
 * on minimal-6.1-collapse-fail (shmem collapse fails after its huge page is
 * allocated) recover fails its MADV_COLLAPSE check, naming EINVAL, and its
 * khugepaged subject; on minimal-6.1 the same suite passes. */
#ifndef HB_OUTCOMES_H
#define HB_OUTCOMES_H

void test_outcomes_collapse_fail(void **state);
/* Issue 35: a kernel report fails the run and names the report and the
 * workload running then (minimal-6.1-warn-series: a WARNING at the first
 * huge tmpfs allocation, which the suite's 2nd workload makes). */
void test_kernel_report_names_workload(void **state);

#endif
