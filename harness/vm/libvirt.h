/* libvirt.h - the libvirt backend (`hugebench run --backend libvirt
 * [--connect URI]`): the same guest as the QEMU backend (qemu.h), run as a
 * transient, auto-destroyed libvirt domain on any libvirt host, local or
 * remote. Kernel and initramfs are uploaded into a storage pool; QEMU writes
 * console and results into two more volumes of that pool as plain files
 * (never blocking the guest), and hugebench copies them as they grow, over
 * the libvirt connection, into the same console.log and stream.jsonl. */
#ifndef HB_LIBVIRT_H
#define HB_LIBVIRT_H

#include <stddef.h>

#include "vm_spec.h"

/* The URI used when --connect is not given. */
#define HB_LIBVIRT_DEFAULT_URI "qemu:///system"

/* Checks that uri (NULL: the default) answers: the hypervisor's version
 * ("7.2.22") into qver and the URI the connection resolved to into real.
 * 0, or -1 with one line in err saying what to do. */
int hb_libvirt_probe(const char *uri, char *qver, size_t qlen, char *real, size_t rlen, char *err,
		     size_t errlen);
/* hb_vm_run (qemu.h) through libvirt: same fields, same outcome, same time
 * limit and stall watchdog. vm->ram_path, vm->qmp_path and vm->runas are not
 * supported (the caller refuses them). The domain is destroyed and the
 * uploaded volumes deleted on every way out; if hugebench dies, libvirt's
 * auto-destroy ends the domain when the connection closes. */
int hb_libvirt_run(const struct hb_vm_spec *vm, const char *uri, struct hb_vm_outcome *out);
/* Paths on the libvirt host of one boot's files. */
struct hb_lv_files {
	const char *kernel, *initrd;
	const char *console, *stream; /* ttyS0, ttyS1: written by QEMU */
	const char *emulator;	      /* NULL: libvirt's default QEMU */
};
/* The transient domain's XML for vm named name with these files; -1 when it
 * does not fit. */
int hb_libvirt_domain_xml(const struct hb_vm_spec *vm, const char *name,
			  const struct hb_lv_files *files, char *out, size_t outlen);

#endif
