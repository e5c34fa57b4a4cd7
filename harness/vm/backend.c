/* backend.c - picks the VM backend of a boot (see backend.h). */
#define _GNU_SOURCE
#include "backend.h"
#include "libvirt.h"
#include "lvuri.h"
#include "qemu.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool is_libvirt(const char *backend)
{
	return backend && strcmp(backend, "libvirt") == 0;
}

int hb_backend_check(const char *backend, const char *connect, const char *guest_ram, char *err,
		     size_t errlen)
{
	if (strcmp(backend, "qemu") && strcmp(backend, "libvirt")) {
		hb_set_err(err, errlen, "--backend %s: use qemu or libvirt", backend);
		return -EINVAL;
	}
	if (connect && !is_libvirt(backend)) {
		hb_set_err(err, errlen, "--connect is a libvirt URI: add --backend libvirt");
		return -EINVAL;
	}
	if (connect) {
		char why[512];

		/* before anything, --dry-run too: ext, command= and the like run programs */
		if (hb_lvuri_check(connect, why, sizeof(why))) {
			hb_set_err(err, errlen, "--connect: %s", why);
			return -EINVAL;
		}
	}
	/* --guest-ram huge-tmpfs under libvirt is <memoryBacking> memfd (shmem);
	 * run.c already refused words other than anon and huge-tmpfs. */
	(void)guest_ram;
	return 0;
}

int hb_backend_prepare(struct hb_backend *be, const char *backend, const char *connect, char *err,
		       size_t errlen)
{
	memset(be, 0, sizeof(*be));
	be->libvirt = is_libvirt(backend);
	if (be->libvirt) {
		if (hb_libvirt_probe(connect, be->qver, sizeof(be->qver), be->uri, sizeof(be->uri),
				     err, errlen))
			return -EIO;
		printf("[libvirt] %s: QEMU %s\n", be->uri, be->qver);
	} else {
		hb_qemu_version(be->qver, sizeof(be->qver));
		if (!be->qver[0]) {
			snprintf(err, errlen,
				 "qemu-system-x86_64 not found; run: apt-get install -y qemu-system-x86");
			return -EIO;
		}
	}
	be->runas = hb_qemu_user(be->runas_why, sizeof(be->runas_why));
	return 0;
}

void hb_backend_describe(const struct hb_backend *be, const char *accel, json_t *env)
{
	json_object_set_new(env, "backend", json_string(be->libvirt ? "libvirt" : "qemu"));
	if (!be->libvirt)
		return;
	json_object_set_new(env, "libvirt_uri", hb_json_text(be->uri));
	/* TCG through the wrapper that adds thread=single (libvirt.c) */
	json_object_set_new(env, "qemu_accel",
			    json_string(strcmp(accel, "tcg") == 0 ? "tcg,thread=single" : accel));
	json_object_set_new(env, "qemu_user", json_string("libvirt"));
	json_object_set_new(env, "qemu_user_reason",
			    json_string("the user libvirtd's qemu.conf names on the libvirt host"));
}

int hb_backend_run(const struct hb_backend *be, const struct hb_vm_spec *vm,
		   struct hb_vm_outcome *out)
{
	if (be->libvirt)
		return hb_libvirt_run(vm, be->uri, out);
	return hb_vm_run(vm, out);
}

const char *hb_backend_label(const struct hb_backend *be)
{
	static char label[600];

	if (!be->libvirt)
		return "qemu";
	snprintf(label, sizeof(label), "libvirt %s", be->uri);
	return label;
}
