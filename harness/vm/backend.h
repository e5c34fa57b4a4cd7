/* backend.h - which VM backend runs a boot (`--backend qemu|libvirt`,
 * `--connect URI`): struct hb_backend, prepared once per run, and the hook
 * boot.c calls with a struct hb_vm_spec (vm_spec.h) instead of qemu.h or
 * libvirt.h directly. No backend sees the run itself. */
#ifndef HB_BACKEND_H
#define HB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "vm_spec.h"

/* The backend of a run, prepared once (hb_backend_prepare). */
struct hb_backend {
	bool libvirt;		   /* --backend libvirt (else qemu) */
	char uri[512];		   /* libvirt: the URI the connection resolved to */
	char qver[32];		   /* the QEMU that runs the guests: "7.2.22" */
	const char *runas;	   /* the user QEMU drops to (hb_qemu_user), or NULL */
	char runas_why[160];
};

/* --backend / --connect / --guest-ram together make sense: 0, or -EINVAL
 * with one line in err. */
int hb_backend_check(const char *backend, const char *connect, const char *guest_ram, char *err,
		     size_t errlen);
/* The backend answers (qemu-system-x86_64 installed, or the libvirt URI
 * connects, NULL: the default): fills be; 0, or -EIO with one line in err. */
int hb_backend_prepare(struct hb_backend *be, const char *backend, const char *connect, char *err,
		       size_t errlen);
/* backend, libvirt_uri, and the QEMU user as the backend has it, into a
 * result's environment; accel as the boot chose it. */
void hb_backend_describe(const struct hb_backend *be, const char *accel, json_t *env);
/* hb_vm_run, or hb_libvirt_run on be's URI. */
int hb_backend_run(const struct hb_backend *be, const struct hb_vm_spec *vm,
		   struct hb_vm_outcome *out);
/* "qemu" or "libvirt <uri>" for progress lines. */
const char *hb_backend_label(const struct hb_backend *be);

#endif
