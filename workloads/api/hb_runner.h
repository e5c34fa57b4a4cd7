/* hb_runner.h - the runner's side of the workload API: what the guest
 * runner (guest-images/runner/runner.c, host_state.c) and the unit tests
 * call on a workload's context, implemented in hb_core.c. Workloads include
 * hb.h only; what a workload asks of the runner is in
 * guest-images/runner/host_state.h. */
#ifndef HB_RUNNER_API_H
#define HB_RUNNER_API_H

#include <jansson.h>

#include "hb.h"

struct hb_ctx *hb_ctx_new(const struct hb_workload *w, int rep, int out_fd);
void hb_ctx_set_param(struct hb_ctx *ctx, const char *key, const char *value);
enum hb_status hb_ctx_status(const struct hb_ctx *ctx);
void hb_ctx_finish(struct hb_ctx *ctx); /* emits workload_end */
void hb_ctx_free(struct hb_ctx *ctx);
void hb_emit_raw(int fd, json_t *obj); /* one line, steals obj */

#endif
