/* backend.h - which VM backend runs a boot (`--backend qemu|libvirt`,
 * `--connect URI`): the small hook boot.c calls instead of qemu.h directly. */
#ifndef HB_BACKEND_H
#define HB_BACKEND_H

#include <stddef.h>

#include <jansson.h>

#include "boot.h"
#include "qemu.h"

/* --backend / --connect / --guest-ram together make sense: 0, or -1 after
 * one line on stderr. */
int hb_run_check_backend(const struct run_opts *o);
/* The backend answers (qemu-system-x86_64 installed, or the libvirt URI
 * connects): fills c->qver (and c->lv_uri); 0 or an exit code with err. */
int hb_backend_prepare(struct run_ctx *c, char *err, size_t errlen);
/* backend, libvirt_uri, and the QEMU user as the backend has it. */
void hb_backend_describe(const struct run_ctx *c, json_t *env);
/* hb_vm_run, or hb_libvirt_run on c's URI. */
int hb_backend_run(const struct run_ctx *c, const struct hb_vm *vm, struct hb_vm_outcome *out);
/* "qemu" or "libvirt <uri>" for progress lines. */
const char *hb_backend_label(const struct run_ctx *c);

#endif
