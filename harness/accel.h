/* accel.h - choosing an accelerator that really runs the kernel, and the
 * `hugebench doctor` report. */
#ifndef HB_ACCEL_H
#define HB_ACCEL_H

#include <jansson.h>
#include <stddef.h>

#include "kernel.h"

/* requested: auto|tcg|kvm. For auto, KVM is used only when a probe boot of
 * this kernel under KVM finished a trivial suite (cached per host kernel,
 * QEMU version and guest kernel). */
void hb_accel_choose(const char *requested, const struct hb_kernel *k, char *accel, size_t alen,
		     char *reason, size_t rlen);
/* Copies what the guest reported (nested_virt, pmu) into env. */
void hb_accel_guest_env(const char *stream, json_t *env);
int hb_cmd_doctor(int argc, char **argv);

#endif
