/* qmp.h - a minimal QMP client: enough to read a VM's KVM statistics
 * (query-stats) from the host and to end QEMU (quit). */
#ifndef HB_QMP_H
#define HB_QMP_H

#include <jansson.h>
#include <stddef.h>

/* Connects to a QMP unix socket and negotiates capabilities; returns the fd
 * or -1 with err. */
int hb_qmp_connect(const char *path, char *err, size_t errlen);
/* Sends {"execute": cmd[, "arguments": args]} and returns the "return"
 * value (new reference), skipping asynchronous events; NULL with err on an
 * error reply or timeout. Steals args. */
json_t *hb_qmp_execute(int fd, const char *cmd, json_t *args, char *err, size_t errlen);
/* True when an asynchronous event named `name` (e.g. "SHUTDOWN") has
 * arrived; reads what is pending without waiting. */
int hb_qmp_event_seen(int fd, const char *name);
/* {"pages_4k": N, "pages_2m": N, ...} from a query-stats reply for the VM
 * target: every KVM statistic with a scalar value. Empty object when QEMU
 * reported none (e.g. under TCG). */
json_t *hb_qmp_kvm_stats(json_t *query_stats_return);

#endif
