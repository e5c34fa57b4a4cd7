/* lv_store.h - connection and storage helpers of the libvirt backend
 * (lv_store.c; used by libvirt.c only, and using nothing of it). */
#ifndef HB_LV_STORE_H
#define HB_LV_STORE_H

#include <stddef.h>

#include <jansson.h>

#include "lv_api.h"

#define POOL_NAME "hugebench"
#define POOL_PATH "/var/lib/libvirt/hugebench"
/* Every domain and volume hugebench creates is named with this prefix. */
#define HB_LV_PREFIX "hugebench-"

/* XML text of s with & < > " ' escaped; -1 when it does not fit. */
int hb_lv_xml_escape(const char *s, char *out, size_t outlen);

/* libvirt's last error message (never NULL). */
const char *hb_lv_error(void);
/* Opens uri with libvirt's default auth callbacks and its own error
 * printing off; NULL with one line in err saying what to do. */
virConnectPtr hb_lv_connect(const char *uri, char *err, size_t errlen);
/* The "hugebench" pool, created (transient dir pool) when missing. */
virStoragePoolPtr hb_lv_pool(virConnectPtr conn, char *err, size_t errlen);
/* Deletes the volumes of boots from this client host whose process is gone. */
void hb_lv_sweep(virStoragePoolPtr pool, const char *host);
/* Uploads path as volume name (mode); its path on the libvirt host. */
virStorageVolPtr hb_lv_upload(virConnectPtr conn, virStoragePoolPtr pool, const char *path,
			      const char *name, int mode, char *vpath, size_t vlen, char *err,
			      size_t errlen);
/* An empty volume name (mode), for a serial port that QEMU writes as a
 * plain file on the libvirt host; its path into vpath. */
virStorageVolPtr hb_lv_create_empty(virStoragePoolPtr pool, const char *name, int mode,
				    char *vpath, size_t vlen, char *err, size_t errlen);
/* Appends to fd what volume vol holds beyond *off (a download from that
 * offset to its current end) and moves *off past it. 0, or -1 when libvirt
 * failed (what arrived before is kept and counted). */
int hb_lv_tail(virConnectPtr conn, virStorageVolPtr vol, unsigned long long *off, int fd);
/* Deletes and frees *vol (NULL: nothing). */
void hb_lv_drop(virStorageVolPtr *vol);
/* The emulator wrapper that adds thread=single to -accel tcg, installed
 * once per libvirt host; its path into path. 0 or -1 with err. */
int hb_lv_tcg_wrapper(virConnectPtr conn, virStoragePoolPtr pool, char *path, size_t plen,
		      char *err, size_t errlen);
/* The host KVM's statistics of dom's VM (VIR_DOMAIN_STATS_VM: QEMU's
 * query-stats through libvirt), named as qemu.c names them (pages_2m, ...),
 * or {"unavailable": why}. */
json_t *hb_lv_kvm_stats(virDomainPtr dom, const char *accel);
/* The volumes of one boot: kernel, initramfs, console (ttyS0), result
 * stream (ttyS1). */
enum { HB_LV_KERNEL, HB_LV_INITRD, HB_LV_CONSOLE, HB_LV_STREAM, HB_LV_NVOL };
/* After a lost connection: destroys domain name and deletes the volumes
 * vname over a new connection. */
void hb_lv_cleanup(const char *uri, const char *name, char vname[HB_LV_NVOL][420]);

#endif
