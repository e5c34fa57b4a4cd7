/* accel.h - choosing an accelerator that really runs the kernel, and what
 * `hugebench doctor` (doctor.c) reports of it. */
#ifndef HB_ACCEL_H
#define HB_ACCEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

/* requested: auto|tcg|kvm. For auto, KVM is used only when a probe boot of
 * this kernel under KVM finished a trivial suite (cached per host kernel,
 * QEMU version and guest kernel). A failure the host causes (a paravirtual
 * kvm_pvm, QEMU refusing -accel kvm) is cached per host instead
 * (hb_accel_host_wide): later kernels are not probed at all. Probes are
 * serialized by a lock in the cache, so concurrent runs probe once. */
void hb_accel_choose(const char *requested, const struct hb_kernel *k, char *accel, size_t alen,
		     char *reason, size_t rlen);
/* Copies what the guest reported in its suite_start event (nested_virt,
 * pmu, pmu_reason) from len bytes of stream.jsonl into env; fields of the
 * wrong type are left out ("unknown" / null). */
void hb_accel_guest_env_n(const char *stream, size_t len, json_t *env);
/* The same for a NUL-terminated string (NULL: nothing reported). Text read
 * from a file must go through hb_accel_guest_env_n with the length read. */
void hb_accel_guest_env(const char *stream, json_t *env);
/* True when len bytes of stream.jsonl hold a real suite_end event (a line
 * of its own, not the words inside some string): the probe boot finished. */
bool hb_accel_stream_finished(const char *stream, size_t len);
/* "kvm_amd", "kvm_pvm (paravirtual)", ...: the module behind /dev/kvm. */
const char *hb_accel_kvm_flavour(void);
/* How many cached probes of this host kernel and QEMU qver found KVM
 * working, and how many fell back to TCG (cache/accel/). */
void hb_accel_probed(const char *qver, int *n_kvm, int *n_tcg);

/* How a probe boot under KVM ended. */
enum hb_accel_probe {
	HB_PROBE_FINISHED,	/* the guest finished its suite: KVM works for it */
	HB_PROBE_TIMEOUT,	/* no end within the probe's time */
	HB_PROBE_QEMU_FAILED,	/* QEMU -accel kvm exited with an error naming KVM before the guest printed anything */
	HB_PROBE_GUEST_FAILED,	/* the guest ran and ended without finishing */
};
/* How a probe ended, from what it left: the guest finished, the time limit
 * ended it, QEMU's exit status, whether the console got any byte, QEMU's
 * log (may be NULL). */
enum hb_accel_probe hb_accel_probe_outcome(bool finished, bool timed_out, int qemu_status,
					   bool console_empty, const char *qemu_log);
/* What identifies this host's KVM for the probe: an answer caused by the
 * host holds until one of these changes. */
struct hb_accel_host {
	const char *release;	/* uname -r */
	const char *version;	/* uname -v (a rebuilt host kernel of the same release) */
	const char *qemu;	/* qemu-system-x86_64 version */
	const char *module;	/* the module behind /dev/kvm (hb_kvm_vendor_module) */
	unsigned long rdev;	/* /dev/kvm's device number */
};
/* The cache file name of that host's answer, "host--...": no '/', no blank;
 * -1 when len is too small. */
int hb_accel_host_key(const struct hb_accel_host *h, char *buf, size_t len);
/* True when outcome on a /dev/kvm of this module says nothing about the
 * guest kernel, so the answer holds for every kernel on the host: any failed
 * probe on a paravirtual kvm_pvm (stock kernels cannot use it), or QEMU
 * failing to start under KVM at all. A kernel that hangs or fails under a
 * working KVM (kvm_amd, kvm_intel) is that kernel's answer only. */
bool hb_accel_host_wide(const char *module, enum hb_accel_probe outcome);
/* The host-wide answer cached for this host, if any: true with accel and
 * reason (what the probe found, with the kernel it booted) filled. */
bool hb_accel_host_cached(char *accel, size_t alen, char *reason, size_t rlen);
/* <cache>/accel/<hb_accel_host_key of this host>: where that answer lives
 * (remove it to probe again). */
void hb_accel_host_file(char *buf, size_t len);

#endif
