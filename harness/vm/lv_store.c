/* lv_store.c - the libvirt backend's connection and storage side (see
 * lv_store.h): one error line per failure, the XML escape, the "hugebench"
 * pool, uploads of kernel and initramfs, the single-threaded TCG wrapper,
 * and cleanup. */
#define _GNU_SOURCE
#include "lv_store.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libvirt prints every error on stderr by default; we say it once, our way. */
static void quiet_errors(void *opaque, virErrorPtr e)
{
	(void)opaque;
	(void)e;
}

const char *hb_lv_error(void)
{
	const char *m = virGetLastErrorMessage();

	return m && *m ? m : "unknown libvirt error";
}

int hb_lv_xml_escape(const char *s, char *out, size_t outlen)
{
	size_t o = 0;

	for (; *s; s++) {
		const char *rep = NULL;
		char one[2] = { *s, 0 };

		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		default: rep = one;
		}
		if (o + strlen(rep) + 1 > outlen)
			return -1;
		memcpy(out + o, rep, strlen(rep));
		o += strlen(rep);
	}
	if (o + 1 > outlen)
		return -1;
	out[o] = 0;
	return 0;
}

virConnectPtr hb_lv_connect(const char *uri, char *err, size_t errlen)
{
	virConnectPtr conn;

	if (!hb_lv_load(err, errlen))
		return NULL;
	virSetErrorFunc(NULL, quiet_errors);
	conn = virConnectOpenAuth(uri, virConnectAuthPtrDefault, 0);
	if (!conn)
		snprintf(err, errlen,
			 "cannot connect to libvirt at %s: %s; start libvirtd there (README, "
			 "\"libvirt backend\") or pass another --connect URI",
			 uri, hb_lv_error());
	return conn;
}

/* ---- storage: kernel and initramfs on the libvirt host ------------------ */

virStoragePoolPtr hb_lv_pool(virConnectPtr conn, char *err, size_t errlen)
{
	virStoragePoolPtr pool = virStoragePoolLookupByName(conn, POOL_NAME);

	if (!pool) {
		/* A transient dir pool: gone with the daemon, made again next time.
		 * Two boots creating it at once: the loser finds the winner's. */
		pool = virStoragePoolCreateXML(conn,
					       "<pool type='dir'><name>" POOL_NAME "</name>"
					       "<target><path>" POOL_PATH "</path></target></pool>",
					       VIR_STORAGE_POOL_CREATE_WITH_BUILD);
		if (!pool)
			pool = virStoragePoolLookupByName(conn, POOL_NAME);
	}
	if (pool && virStoragePoolIsActive(pool) == 0 && virStoragePoolCreate(pool, 0) < 0) {
		virStoragePoolFree(pool);
		pool = NULL;
	}
	if (!pool)
		snprintf(err, errlen,
			 "cannot use or create the libvirt storage pool '" POOL_NAME "' (" POOL_PATH
			 "): %s",
			 hb_lv_error());
	return pool;
}

/* Volumes of boots on this client whose hugebench process is gone (it was
 * killed before it could delete them). */
void hb_lv_sweep(virStoragePoolPtr pool, const char *host)
{
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(pool, &vols, 0);
	char prefix[300];

	snprintf(prefix, sizeof(prefix), HB_LV_PREFIX "%s-", host);
	for (int i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);
		long pid;

		if (name && strncmp(name, prefix, strlen(prefix)) == 0 &&
		    sscanf(name + strlen(prefix), "%ld-", &pid) == 1 && pid > 0 &&
		    kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			virStorageVolDelete(vols[i], 0);
		virStorageVolFree(vols[i]);
	}
	free(vols);
}

static int read_source(virStreamPtr st, char *data, size_t n, void *opaque)
{
	(void)st;
	return (int)read(*(int *)opaque, data, n);
}

/* A raw volume name of capacity bytes (mode) in pool; its path on the
 * libvirt host into vpath. NULL with err. */
static virStorageVolPtr create_vol(virStoragePoolPtr pool, const char *name, long long capacity,
				   int mode, char *vpath, size_t vlen, char *err, size_t errlen)
{
	char xml[1024], ename[512];
	virStorageVolPtr vol;
	char *p;

	if (hb_lv_xml_escape(name, ename, sizeof(ename))) {
		snprintf(err, errlen, "volume name %s too long", name);
		return NULL;
	}
	snprintf(xml, sizeof(xml),
		 "<volume><name>%s</name><capacity unit='bytes'>%lld</capacity>"
		 "<target><format type='raw'/><permissions><mode>0%o</mode></permissions>"
		 "</target></volume>",
		 ename, capacity, mode);
	vol = virStorageVolCreateXML(pool, xml, 0);
	if (!vol) {
		snprintf(err, errlen, "cannot create volume %s in pool " POOL_NAME ": %s", name,
			 hb_lv_error());
		return NULL;
	}
	p = virStorageVolGetPath(vol);
	if (!p) {
		snprintf(err, errlen, "volume %s has no path: %s", name, hb_lv_error());
		hb_lv_drop(&vol);
		return NULL;
	}
	snprintf(vpath, vlen, "%s", p);
	free(p);
	return vol;
}

/* Uploads path as volume name; its path on the libvirt host into vpath. */
virStorageVolPtr hb_lv_upload(virConnectPtr conn, virStoragePoolPtr pool, const char *path,
			       const char *name, int mode, char *vpath, size_t vlen, char *err,
			       size_t errlen)
{
	struct stat sb;
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb)) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		goto fail;
	}
	vol = create_vol(pool, name, (long long)sb.st_size, mode, vpath, vlen, err, errlen);
	if (!vol)
		goto fail;
	st = virStreamNew(conn, 0);
	if (!st || virStorageVolUpload(vol, st, 0, (unsigned long long)sb.st_size, 0) < 0 ||
	    virStreamSendAll(st, read_source, &fd) < 0 || virStreamFinish(st) < 0) {
		snprintf(err, errlen, "cannot upload %s to the libvirt host: %s", path, hb_lv_error());
		if (st)
			virStreamAbort(st);
		goto fail;
	}
	virStreamFree(st);
	close(fd);
	return vol;
fail:
	if (st)
		virStreamFree(st);
	hb_lv_drop(&vol);
	if (fd >= 0)
		close(fd);
	return NULL;
}

virStorageVolPtr hb_lv_create_empty(virStoragePoolPtr pool, const char *name, int mode,
				    char *vpath, size_t vlen, char *err, size_t errlen)
{
	return create_vol(pool, name, 0, mode, vpath, vlen, err, errlen);
}

struct sink {
	int fd;
	unsigned long long n;
};

static int write_sink(virStreamPtr st, const char *data, size_t n, void *opaque)
{
	struct sink *s = opaque;

	(void)st;
	for (size_t done = 0; done < n;) {
		ssize_t w = write(s->fd, data + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1; /* a full disk: the verdict says what is missing */
		done += (size_t)w;
		s->n += (unsigned long long)w;
	}
	return (int)n;
}

int hb_lv_tail(virConnectPtr conn, virStorageVolPtr vol, unsigned long long *off, int fd)
{
	virStreamPtr st = virStreamNew(conn, 0);
	struct sink s = { fd, 0 };
	int rc = -1;

	if (!st)
		return -1;
	/* length 0: to the end the file has now */
	if (virStorageVolDownload(vol, st, *off, 0, 0) == 0 &&
	    virStreamRecvAll(st, write_sink, &s) == 0 && virStreamFinish(st) == 0)
		rc = 0;
	else
		virStreamAbort(st);
	virStreamFree(st);
	*off += s.n;
	return rc;
}

void hb_lv_drop(virStorageVolPtr *vol)
{
	if (!*vol)
		return;
	virStorageVolDelete(*vol, 0);
	virStorageVolFree(*vol);
	*vol = NULL;
}

/* Single-threaded TCG, as qemu.c runs it (MTTCG was slower here and racy:
 * a guest under libvirt's default "-accel tcg" once panicked with "IO-APIC
 * + timer doesn't work!"). libvirt 9 writes "-accel tcg" and has no XML for
 * thread=single, so the domain's emulator is this wrapper: it execs the
 * libvirt host's own QEMU with thread=single added. It is kept in the pool
 * (mode 0755), named by a hash of its text, so libvirt probes it once. */
static const char wrapper_fmt[] =
	"#!/bin/sh\n"
	"# hugebench: %s with single-threaded TCG (libvirt cannot ask for it)\n"
	"prev=\n"
	"for a; do\n"
	"\tshift\n"
	"\tif [ \"$prev\" = -accel ]; then\n"
	"\t\tcase $a in\n"
	"\t\ttcg) a=tcg,thread=single ;;\n"
	"\t\ttcg,*thread=*) ;;\n"
	"\t\ttcg,*) a=$a,thread=single ;;\n"
	"\t\tesac\n"
	"\tfi\n"
	"\tset -- \"$@\" \"$a\"\n"
	"\tprev=$a\n"
	"done\n"
	"exec %s \"$@\"\n";

/* The libvirt host's QEMU for q35 TCG (domain capabilities' <path>). */
static int host_qemu(virConnectPtr conn, char *path, size_t plen)
{
	char *caps = virConnectGetDomainCapabilities(conn, NULL, "x86_64", "q35", "qemu", 0);
	const char *p = caps ? strstr(caps, "<path>") : NULL;
	size_t n = p ? strcspn(p + 6, "<") : 0;
	int rc = -1;

	/* a path that needs no quoting in the wrapper's exec line */
	if (p && n > 1 && n < plen && p[6] == '/' && strspn(p + 6, "abcdefghijklmnopqrstuvwxyz"
							   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
							   "0123456789/._-+") >= n) {
		snprintf(path, plen, "%.*s", (int)n, p + 6);
		rc = 0;
	}
	free(caps);
	return rc;
}

int hb_lv_tcg_wrapper(virConnectPtr conn, virStoragePoolPtr pool, char *path, size_t plen,
		       char *err, size_t errlen)
{
	char qemu[1024], text[2048], name[64], tmp[] = "/tmp/hb-lv-wrap-XXXXXX";
	unsigned long h = 5381;
	virStorageVolPtr vol;
	char *p;
	int fd;

	if (host_qemu(conn, qemu, sizeof(qemu))) {
		snprintf(err, errlen, "the libvirt host names no QEMU for q35 TCG: %s",
			 hb_lv_error());
		return -1;
	}
	snprintf(text, sizeof(text), wrapper_fmt, qemu, qemu);
	for (p = text; *p; p++)
		h = h * 33 + (unsigned char)*p;
	snprintf(name, sizeof(name), HB_LV_PREFIX "tcg-single-%08lx", h & 0xffffffffUL);
	vol = virStorageVolLookupByName(pool, name);
	if (!vol) {
		fd = mkstemp(tmp);
		if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
			snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			return -1;
		}
		close(fd);
		vol = hb_lv_upload(conn, pool, tmp, name, 0755, path, plen, err, errlen);
		unlink(tmp);
		if (!vol) {
			/* a boot next to us made it first: give its upload a moment */
			sleep(1);
			vol = virStorageVolLookupByName(pool, name);
		}
	}
	p = vol ? virStorageVolGetPath(vol) : NULL;
	if (vol)
		virStorageVolFree(vol);
	if (!p) {
		snprintf(err, errlen, "cannot install the single-threaded TCG wrapper %s: %s", name,
			 hb_lv_error());
		return -1;
	}
	snprintf(path, plen, "%s", p);
	free(p);
	return 0;
}

/* After a lost connection: a new one ends the domain (if libvirt's
 * auto-destroy has not) and deletes the boot's volumes, by name. */
void hb_lv_cleanup(const char *uri, const char *name, char vname[HB_LV_NVOL][420])
{
	char err[512];
	virConnectPtr c = hb_lv_connect(uri, err, sizeof(err));
	virStoragePoolPtr pool;
	virDomainPtr dom;

	if (!c) {
		hb_err("%s; the domain %s ends by itself (auto-destroy), its volumes stay in pool "
		       POOL_NAME " until the next run from this host", err, name);
		return;
	}
	dom = virDomainLookupByName(c, name);
	if (dom) {
		virDomainDestroy(dom);
		virDomainFree(dom);
	}
	pool = virStoragePoolLookupByName(c, POOL_NAME);
	for (int i = 0; pool && i < HB_LV_NVOL; i++) {
		virStorageVolPtr v = virStorageVolLookupByName(pool, vname[i]);

		hb_lv_drop(&v);
	}
	if (pool)
		virStoragePoolFree(pool);
	virConnectClose(c);
}


json_t *hb_lv_kvm_stats(virDomainPtr dom, const char *accel)
{
	virDomainPtr doms[] = { dom, NULL };
	virDomainStatsRecordPtr *recs = NULL;
	json_t *out = json_object();
	char why[512];
	int n = virDomainListGetStats(doms, VIR_DOMAIN_STATS_VM, &recs, 0);

	if (n < 0) {
		snprintf(why, sizeof(why), "libvirt could not read the VM's statistics: %s",
			 hb_lv_error());
		json_decref(out);
		return json_pack("{s:s}", "unavailable", why);
	}
	/* vm.<name>.cur (instant), .sum (cumulative), .max (peak) */
	for (int r = 0; r < n; r++)
		for (int i = 0; i < recs[r]->nparams; i++) {
			virTypedParameterPtr p = &recs[r]->params[i];
			char name[VIR_TYPED_PARAM_FIELD_LENGTH];
			char *dot;

			if (strncmp(p->field, "vm.", 3))
				continue;
			snprintf(name, sizeof(name), "%s", p->field + 3);
			dot = strrchr(name, '.');
			if (dot && (!strcmp(dot, ".cur") || !strcmp(dot, ".sum") || !strcmp(dot, ".max")))
				*dot = 0;
			switch (p->type) {
			case VIR_TYPED_PARAM_ULLONG:
				json_object_set_new(out, name, json_integer((json_int_t)p->value.ul));
				break;
			case VIR_TYPED_PARAM_LLONG:
				json_object_set_new(out, name, json_integer(p->value.l));
				break;
			case VIR_TYPED_PARAM_BOOLEAN:
				json_object_set_new(out, name, json_boolean(p->value.b));
				break;
			default:
				break;
			}
		}
	virDomainStatsRecordListFree(recs);
	if (json_object_size(out) == 0) {
		json_decref(out);
		snprintf(why, sizeof(why),
			 "libvirt reported no KVM statistics for the VM (accelerator %s): the host "
			 "KVM's stage-2 mappings exist only under KVM",
			 accel);
		return json_pack("{s:s}", "unavailable", why);
	}
	return out;
}
