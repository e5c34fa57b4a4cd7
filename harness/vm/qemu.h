/* qemu.h - the QEMU backend: builds the argv, runs the guest, follows the
 * result stream as QEMU writes it, and enforces the time limit. */
#ifndef HB_QEMU_H
#define HB_QEMU_H

#include <stddef.h>

#include "vm_spec.h"

/* Runs the VM to completion (or timeout/interrupt). Returns 0 when QEMU ran,
 * -1 when it could not be started (error filled). */
int hb_vm_run(const struct hb_vm_spec *vm, struct hb_vm_outcome *out);
/* The user QEMU should drop to: the invoking sudo user, else nobody; NULL
 * when no change is possible (why says which case applies). */
const char *hb_qemu_user(char *why, size_t whylen);
/* "7.2.22", or "" when qemu-system-x86_64 is missing. */
void hb_qemu_version(char *buf, size_t len);
/* The option that drops QEMU to user, for QEMU version qver: "-runas" user
 * before 9.1, "-run-with" "user=<user>" from 9.1 (where -runas is
 * deprecated). *opt and val filled; -1 when user does not fit or holds a
 * comma (QEMU's option separator). */
int hb_qemu_runas_opt(const char *qver, const char *user, const char **opt, char *val,
		      size_t vlen);

#endif
