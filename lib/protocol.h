/* protocol.h - the names both sides of the guest -> host protocol agree on:
 * stream.jsonl event types, the event key, and the schema ids of the JSON
 * documents hugebench writes. docs/protocol.md describes every event and
 * which file writes and reads each document; a name is spelled here once. */
#ifndef HB_PROTOCOL_H
#define HB_PROTOCOL_H

/* Every stream line is a JSON object whose HB_EV_KEY member is its type. */
#define HB_EV_KEY "ev"

/* Runner (guest-images/runner/runner.c, PID 1). */
#define HB_EV_BOOT "boot"
#define HB_EV_HEARTBEAT "heartbeat"
#define HB_EV_MODULE "module"
#define HB_EV_SUITE_START "suite_start"
#define HB_EV_SUITE_ERROR "suite_error"
#define HB_EV_SUITE_END "suite_end"
#define HB_EV_WORKLOAD_START "workload_start"
#define HB_EV_WORKLOAD_END "workload_end"
#define HB_EV_KNOBS_RESTORED "knobs_restored"
#define HB_EV_HOST_STATE_RESTORED "host_state_restored"
#define HB_EV_LEFTOVERS_REMOVED "leftovers_removed"
/* the runner, after each repetition: guest and host (RTC) seconds it took */
#define HB_EV_CLOCK "clock"

/* Workload API (workloads/api/hb_core.c), inside a workload's run. */
#define HB_EV_METRIC "metric"
#define HB_EV_CHECK "check"
#define HB_EV_NOTE "note"
#define HB_EV_SNAPSHOT "snapshot"
/* Workload kvm-map (workloads/wl_kvm_map.c): KVM binary stats per phase. */
#define HB_EV_KVM_STATS "kvm_stats"
#define HB_EV_KVM_STATS_RAW "kvm_stats_raw"

/* Schema ids of the documents (docs/result-schema.md, docs/compare.md). */
#define HB_SCHEMA_RESULT "hugebench-result/1"     /* <run>/result.json */
#define HB_SCHEMA_GROUP "hugebench-group/1"	  /* <group>/group.json */
#define HB_SCHEMA_COMPARE "hugebench-compare/1"	  /* compare-report --format json */
#define HB_SCHEMA_CALIB "hugebench-calibration/2" /* hugebench calibrate */
#define HB_SCHEMA_DESCRIBE "hugebench-describe/1" /* hb-guest --describe */

/* A workload repetition's status, best first: skip < pass < fail < error <
 * incomplete (a started, unfinished repetition). -1 for anything else. */
int hb_status_rank(const char *status);
/* A run's verdict, best first: pass < kernel-warning < fail < error <
 * incomplete < timeout < panic. -1 for anything else. */
int hb_verdict_rank(const char *verdict);

#endif
