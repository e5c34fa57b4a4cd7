/* qemu.h - the QEMU backend: builds the argv, runs the guest, follows the
 * result stream as QEMU writes it, and enforces the time limit. */
#ifndef HB_QEMU_H
#define HB_QEMU_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "result.h"

/* Virtual guest time (--clock virtual): one guest nanosecond per executed
 * instruction, and no host sleep when every vCPU idles (the clock jumps to
 * the next timer instead). Deterministic: independent of host load. */
#define HB_QEMU_ICOUNT "shift=3,sleep=off"

struct hb_vm {
	const char *accel;	   /* "tcg" or "kvm" */
	const char *kernel;
	const char *initrd;
	const char *cmdline;
	const char *console_path;  /* ttyS0 */
	const char *stream_path;   /* ttyS1 */
	const char *qemu_log;	   /* QEMU's own stderr */
	int vcpus;
	int memory_mb;
	double timeout_s;
	double stall_s;		   /* guest silent this long after booting: dead (0: off) */
	const char *ram_path;	   /* guest RAM backed by this file (share=on), or NULL */
	const char *qmp_path;	   /* QMP socket: host KVM stats read at the end, or NULL */
	const char *runas;	   /* QEMU drops to this user after setup (NULL: no change) */
	const char *icount;	   /* TCG guest clock from the instruction counter: the
				    * -icount option string (HB_QEMU_ICOUNT), or NULL */
	bool quiet;		   /* no progress lines (probes) */
};

struct hb_vm_outcome {
	enum hb_run_end end;
	double boot_s;		   /* QEMU start to the guest's first event */
	double total_s;
	int qemu_status;	   /* exit status, or -1 when it was killed */
	bool stalled;		   /* ended by the stall watchdog */
	json_t *host_kvm_stats;	   /* qmp_path set: stats, or {"unavailable": why} */
	char error[256];	   /* infrastructure error, if any */
};

/* Runs the VM to completion (or timeout/interrupt). Returns 0 when QEMU ran,
 * -1 when it could not be started (error filled). */
int hb_vm_run(const struct hb_vm *vm, struct hb_vm_outcome *out);
/* The user QEMU should drop to: the invoking sudo user, else nobody; NULL
 * when no change is possible (why says which case applies). */
const char *hb_qemu_user(char *why, size_t whylen);
/* "7.2.22", or "" when qemu-system-x86_64 is missing. */
void hb_qemu_version(char *buf, size_t len);
/* hb_signals_install() (util.h): hb_interrupted tells the run loop. */
void hb_vm_install_signals(void);

#endif
