/* runner.h - the guest runner (PID 1): runs a parsed suite and finds
 * workloads in the registry. */
#ifndef HB_RUNNER_H
#define HB_RUNNER_H

#include "suite.h"

int hb_run_suite(const char *suite_name, const char *text, int fd);

struct hb_workload;
const struct hb_workload *hb_workload_find(const char *name);

#endif
