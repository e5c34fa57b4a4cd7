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
 * QEMU version and guest kernel). */
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

#endif
