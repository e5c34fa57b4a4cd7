/* backend.c - picks the VM backend of a boot (see backend.h). */
#define _GNU_SOURCE
#include "backend.h"
#include "libvirt.h"
#include "lvuri.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static bool is_libvirt(const struct run_opts *o)
{
	return o->backend && strcmp(o->backend, "libvirt") == 0;
}

int hb_run_check_backend(const struct run_opts *o)
{
	if (strcmp(o->backend, "qemu") && strcmp(o->backend, "libvirt")) {
		hb_err("--backend %s: use qemu or libvirt", o->backend);
		return -1;
	}
	if (o->connect && !is_libvirt(o)) {
		hb_err("--connect is a libvirt URI: add --backend libvirt");
		return -1;
	}
	if (o->connect) {
		char err[512];

		/* before anything, --dry-run too: ext, command= and the like run programs */
		if (hb_lvuri_check(o->connect, err, sizeof(err))) {
			hb_err("--connect: %s", err);
			return -1;
		}
	}
	if (is_libvirt(o) && o->guest_ram && strcmp(o->guest_ram, "huge-tmpfs") == 0) {
		hb_err("--guest-ram huge-tmpfs backs guest RAM with a file on this host and reads "
		       "QMP: use --backend qemu for it");
		return -1;
	}
	return 0;
}

int hb_backend_prepare(struct run_ctx *c, char *err, size_t errlen)
{
	if (is_libvirt(&c->o)) {
		if (hb_libvirt_probe(c->o.connect, c->qver, sizeof(c->qver), c->lv_uri,
				     sizeof(c->lv_uri), err, errlen))
			return HB_EXIT_INFRA;
		printf("[libvirt] %s: QEMU %s\n", c->lv_uri, c->qver);
		return 0;
	}
	hb_qemu_version(c->qver, sizeof(c->qver));
	if (!c->qver[0]) {
		snprintf(err, errlen,
			 "qemu-system-x86_64 not found; run: apt-get install -y qemu-system-x86");
		return HB_EXIT_INFRA;
	}
	return 0;
}

void hb_backend_describe(const struct run_ctx *c, json_t *env)
{
	bool lv = is_libvirt(&c->o);

	json_object_set_new(env, "backend", json_string(lv ? "libvirt" : "qemu"));
	if (!lv)
		return;
	json_object_set_new(env, "libvirt_uri", hb_json_text(c->lv_uri));
	/* TCG through the wrapper that adds thread=single (libvirt.c) */
	json_object_set_new(env, "qemu_accel",
			    json_string(strcmp(c->accel, "tcg") == 0 ? "tcg,thread=single" : c->accel));
	json_object_set_new(env, "qemu_user", json_string("libvirt"));
	json_object_set_new(env, "qemu_user_reason",
			    json_string("the user libvirtd's qemu.conf names on the libvirt host"));
}

int hb_backend_run(const struct run_ctx *c, const struct hb_vm *vm, struct hb_vm_outcome *out)
{
	if (is_libvirt(&c->o))
		return hb_libvirt_run(vm, c->lv_uri, out);
	return hb_vm_run(vm, out);
}

const char *hb_backend_label(const struct run_ctx *c)
{
	static char label[600];

	if (!is_libvirt(&c->o))
		return "qemu";
	snprintf(label, sizeof(label), "libvirt %s", c->lv_uri);
	return label;
}
