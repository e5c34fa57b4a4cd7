/* vm_spec.h - what a VM backend is given and gives back: one guest boot
 * (struct hb_vm_spec, filled by boot.c from its run or by the accelerator
 * probe) and how it ended (struct hb_vm_outcome). The backends (qemu.c,
 * libvirt.c) and follow.c take these and nothing of the run. */
#ifndef HB_VM_SPEC_H
#define HB_VM_SPEC_H

#include <stdbool.h>

#include <jansson.h>

#include "result.h"	/* enum hb_run_end */

/* Virtual guest time (--clock virtual): one guest nanosecond per executed
 * instruction, and no host sleep when every vCPU idles (the clock jumps to
 * the next timer instead). Deterministic: independent of host load. */
#define HB_QEMU_ICOUNT "shift=3,sleep=off"

/* One guest boot, as every backend runs it. */
struct hb_vm_spec {
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
	bool ram_memfd;		   /* libvirt: guest RAM on a shared memfd (shmem), host
				    * KVM stats read at the end */
	const char *runas;	   /* QEMU drops to this user after setup (NULL: no change) */
	const char *icount;	   /* TCG guest clock from the instruction counter: the
				    * -icount option string (HB_QEMU_ICOUNT), or NULL */
	bool tcg_multi;		   /* TCG with one host thread per vCPU (thread=multi):
				    * vCPUs run at the same time; never with icount */
	bool quiet;		   /* no progress lines (probes) */
	long long output_max;	   /* console or stream file larger than this: the guest is
				    * stopped (bytes; 0: no limit) */
};

struct hb_vm_outcome {
	enum hb_run_end end;
	double boot_s;		   /* QEMU start to the guest's first event */
	double total_s;
	int qemu_status;	   /* exit status, or -1 when it was killed */
	bool stalled;		   /* ended by the stall watchdog */
	bool flooded;		   /* ended by output_max (out->error says which file) */
	json_t *host_kvm_stats;	   /* qmp_path set: stats, or {"unavailable": why} */
	char error[256];	   /* infrastructure error, if any */
};

#endif
