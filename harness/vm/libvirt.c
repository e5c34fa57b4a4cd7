/* libvirt.c - libvirt backend (see libvirt.h). One boot is: upload kernel
 * and initramfs into the "hugebench" storage pool of the libvirt host,
 * create a transient domain (paused, auto-destroyed with our connection),
 * open both serial ports as streams, resume, copy the streams into
 * console.log / stream.jsonl while following the results like qemu.c does,
 * and destroy the domain and delete the volumes on the way out. */
#define _GNU_SOURCE
#include "libvirt.h"
#include "vm/follow.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#define POOL_NAME "hugebench"
#define POOL_PATH "/var/lib/libvirt/hugebench"

/* libvirt prints every error on stderr by default; we say it once, our way. */
static void quiet_errors(void *opaque, virErrorPtr e)
{
	(void)opaque;
	(void)e;
}

static const char *last_error(void)
{
	const char *m = virGetLastErrorMessage();

	return m && *m ? m : "unknown libvirt error";
}

static virConnectPtr connect_uri(const char *uri, char *err, size_t errlen)
{
	virConnectPtr conn;

	virSetErrorFunc(NULL, quiet_errors);
	conn = virConnectOpenAuth(uri, virConnectAuthPtrDefault, 0);
	if (!conn)
		snprintf(err, errlen,
			 "cannot connect to libvirt at %s: %s; start libvirtd there (README, "
			 "\"libvirt backend\") or pass another --connect URI",
			 uri, last_error());
	return conn;
}

int hb_libvirt_probe(const char *uri, char *qver, size_t qlen, char *real, size_t rlen, char *err,
		     size_t errlen)
{
	virConnectPtr conn = connect_uri(uri ? uri : HB_LIBVIRT_DEFAULT_URI, err, errlen);
	unsigned long v = 0;
	char *u;

	if (!conn)
		return -1;
	if (virConnectGetVersion(conn, &v) == 0 && v)
		snprintf(qver, qlen, "%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
	else
		snprintf(qver, qlen, "unknown");
	u = virConnectGetURI(conn);
	snprintf(real, rlen, "%s", u ? u : (uri ? uri : HB_LIBVIRT_DEFAULT_URI));
	free(u);
	virConnectClose(conn);
	return 0;
}

int hb_libvirt_xml_escape(const char *s, char *out, size_t outlen)
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

int hb_libvirt_domain_xml(const struct hb_vm *vm, const char *name, const char *kernel,
			  const char *initrd, const char *emulator, char *out, size_t outlen)
{
	char n[512], k[8192], i[8192], c[4096], e[8192 + 32] = "";
	bool kvm = strcmp(vm->accel, "kvm") == 0;
	int len;

	if (hb_libvirt_xml_escape(name, n, sizeof(n)) || hb_libvirt_xml_escape(kernel, k, sizeof(k)) ||
	    hb_libvirt_xml_escape(initrd, i, sizeof(i)) ||
	    hb_libvirt_xml_escape(vm->cmdline, c, sizeof(c)))
		return -1;
	if (emulator) {
		char esc[8192];

		if (hb_libvirt_xml_escape(emulator, esc, sizeof(esc)))
			return -1;
		snprintf(e, sizeof(e), "    <emulator>%s</emulator>\n", esc);
	}
	/* What qemu.c runs: q35, -cpu max (host under KVM), -no-reboot, no
	 * default devices, ttyS0 = console, ttyS1 = result stream. The serial
	 * ports are ptys that hugebench reads as libvirt streams. */
	len = snprintf(out, outlen,
		       "<domain type='%s'>\n"
		       "  <name>%s</name>\n"
		       "  <memory unit='MiB'>%d</memory>\n"
		       "  <vcpu>%d</vcpu>\n"
		       "  <os>\n"
		       "    <type arch='x86_64' machine='q35'>hvm</type>\n"
		       "    <kernel>%s</kernel>\n"
		       "    <initrd>%s</initrd>\n"
		       "    <cmdline>%s</cmdline>\n"
		       "  </os>\n"
		       "  <features><acpi/><apic/></features>\n"
		       "  <cpu mode='%s'/>\n"
		       "  <on_poweroff>destroy</on_poweroff>\n"
		       "  <on_reboot>destroy</on_reboot>\n"
		       "  <on_crash>destroy</on_crash>\n"
		       "  <devices>\n"
		       "%s"
		       "    <controller type='usb' model='none'/>\n"
		       "    <serial type='pty'><target port='0'/></serial>\n"
		       "    <serial type='pty'><target port='1'/></serial>\n"
		       "    <memballoon model='none'/>\n"
		       "  </devices>\n"
		       "</domain>\n",
		       kvm ? "kvm" : "qemu", n, vm->memory_mb, vm->vcpus, k, i, c,
		       kvm ? "host-passthrough" : "maximum", e);
	return len < 0 || (size_t)len >= outlen ? -1 : 0;
}

/* ---- storage: kernel and initramfs on the libvirt host ------------------ */

static virStoragePoolPtr get_pool(virConnectPtr conn, char *err, size_t errlen)
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
			 last_error());
	return pool;
}

/* Volumes of boots on this client whose hugebench process is gone (it was
 * killed before it could delete them). */
static void sweep_stale(virStoragePoolPtr pool, const char *host)
{
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(pool, &vols, 0);
	char prefix[300];

	snprintf(prefix, sizeof(prefix), HB_LIBVIRT_PREFIX "%s-", host);
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

/* Uploads path as volume name; its path on the libvirt host into vpath. */
static virStorageVolPtr upload(virConnectPtr conn, virStoragePoolPtr pool, const char *path,
			       const char *name, int mode, char *vpath, size_t vlen, char *err,
			       size_t errlen)
{
	char xml[1024], ename[512];
	struct stat sb;
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	char *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb)) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		goto fail;
	}
	hb_libvirt_xml_escape(name, ename, sizeof(ename));
	snprintf(xml, sizeof(xml),
		 "<volume><name>%s</name><capacity unit='bytes'>%lld</capacity>"
		 "<target><format type='raw'/><permissions><mode>0%o</mode></permissions>"
		 "</target></volume>",
		 ename, (long long)sb.st_size, mode);
	vol = virStorageVolCreateXML(pool, xml, 0);
	if (!vol) {
		snprintf(err, errlen, "cannot create volume %s in pool " POOL_NAME ": %s", name,
			 last_error());
		goto fail;
	}
	st = virStreamNew(conn, 0);
	if (!st || virStorageVolUpload(vol, st, 0, (unsigned long long)sb.st_size, 0) < 0 ||
	    virStreamSendAll(st, read_source, &fd) < 0 || virStreamFinish(st) < 0) {
		snprintf(err, errlen, "cannot upload %s to the libvirt host: %s", path, last_error());
		if (st)
			virStreamAbort(st);
		goto fail;
	}
	virStreamFree(st);
	st = NULL;
	p = virStorageVolGetPath(vol);
	if (!p) {
		snprintf(err, errlen, "volume %s has no path: %s", name, last_error());
		goto fail;
	}
	snprintf(vpath, vlen, "%s", p);
	free(p);
	close(fd);
	return vol;
fail:
	if (st)
		virStreamFree(st);
	if (vol) {
		virStorageVolDelete(vol, 0);
		virStorageVolFree(vol);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void drop_volume(virStorageVolPtr *vol)
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

static int tcg_wrapper(virConnectPtr conn, virStoragePoolPtr pool, char *path, size_t plen,
		       char *err, size_t errlen)
{
	char qemu[1024], text[2048], name[64], tmp[] = "/tmp/hb-lv-wrap-XXXXXX";
	unsigned long h = 5381;
	virStorageVolPtr vol;
	char *p;
	int fd;

	if (host_qemu(conn, qemu, sizeof(qemu))) {
		snprintf(err, errlen, "the libvirt host names no QEMU for q35 TCG: %s",
			 last_error());
		return -1;
	}
	snprintf(text, sizeof(text), wrapper_fmt, qemu, qemu);
	for (p = text; *p; p++)
		h = h * 33 + (unsigned char)*p;
	snprintf(name, sizeof(name), HB_LIBVIRT_PREFIX "tcg-single-%08lx", h & 0xffffffffUL);
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
		vol = upload(conn, pool, tmp, name, 0755, path, plen, err, errlen);
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
			 last_error());
		return -1;
	}
	snprintf(path, plen, "%s", p);
	free(p);
	return 0;
}

/* ---- one run -------------------------------------------------------------- */

/* A serial port as a libvirt stream, copied into a file as data arrives. */
struct chan {
	virStreamPtr st;
	int fd;
	bool watching, eof, failed;
};

struct lv_run {
	struct chan ch[2];	/* ttyS0 (console), ttyS1 (stream) */
	bool stopped, conn_lost;
	int stop_detail;
};

static void chan_cb(virStreamPtr st, int events, void *opaque)
{
	struct chan *c = opaque;
	char buf[1 << 16];

	(void)events;
	for (;;) {
		int n = virStreamRecv(st, buf, sizeof(buf));

		if (n == -2)
			return; /* nothing more for now */
		if (n > 0) {
			for (int off = 0; off < n;) {
				ssize_t w = write(c->fd, buf + off, (size_t)(n - off));

				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					break; /* a full disk: the verdict says what is missing */
				off += (int)w;
			}
			continue;
		}
		/* 0: the pty closed (the domain ended); -1: the stream broke */
		c->eof = true;
		c->failed = n < 0;
		virStreamEventRemoveCallback(st);
		c->watching = false;
		return;
	}
}

static void chan_close(struct chan *c)
{
	if (c->st) {
		if (c->watching)
			virStreamEventRemoveCallback(c->st);
		if (c->eof && !c->failed)
			virStreamFinish(c->st);
		else
			virStreamAbort(c->st);
		virStreamFree(c->st);
	}
	if (c->fd >= 0)
		close(c->fd);
	c->st = NULL;
	c->fd = -1;
}

static int on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque)
{
	struct lv_run *r = opaque;

	(void)conn;
	(void)dom;
	if (event == VIR_DOMAIN_EVENT_STOPPED) {
		r->stopped = true;
		r->stop_detail = detail;
	}
	return 0;
}

static void on_close(virConnectPtr conn, int reason, void *opaque)
{
	(void)conn;
	(void)reason;
	((struct lv_run *)opaque)->conn_lost = true;
}

static void on_tick(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;
}

static bool event_loop_ready(void)
{
	static int state; /* 0 not tried, 1 ok, -1 failed */

	if (!state)
		state = virEventRegisterDefaultImpl() == 0 ? 1 : -1;
	return state == 1;
}

static int open_chan(virDomainPtr dom, virConnectPtr conn, const char *dev, const char *path,
		     struct chan *c, char *err, size_t errlen)
{
	c->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	c->st = virStreamNew(conn, VIR_STREAM_NONBLOCK);
	if (!c->st || virDomainOpenConsole(dom, dev, c->st, VIR_DOMAIN_CONSOLE_FORCE) < 0 ||
	    virStreamEventAddCallback(c->st,
				      VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
					      VIR_STREAM_EVENT_HANGUP,
				      chan_cb, c, NULL) < 0) {
		snprintf(err, errlen, "cannot open the guest's %s as a libvirt stream: %s", dev,
			 last_error());
		return -1;
	}
	c->watching = true;
	return 0;
}

static void write_log(const char *path, const char *uri, const char *name, const char *how,
		      const char *xml)
{
	char *text;

	if (!path || asprintf(&text, "libvirt %s, domain %s: %s\n\n%s", uri, name, how, xml) < 0)
		return;
	hb_write_text(path, text);
	free(text);
}

static const char *stop_text(int detail)
{
	switch (detail) {
	case VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN: return "the guest shut down";
	case VIR_DOMAIN_EVENT_STOPPED_DESTROYED: return "destroyed";
	case VIR_DOMAIN_EVENT_STOPPED_CRASHED: return "QEMU crashed";
	case VIR_DOMAIN_EVENT_STOPPED_FAILED: return "QEMU failed";
	default: return "stopped";
	}
}

/* After a lost connection: a new one ends the domain (if libvirt's
 * auto-destroy has not) and deletes the boot's volumes, by name. */
static void cleanup_by_name(const char *uri, const char *name, char vname[2][420])
{
	char err[512];
	virConnectPtr c = connect_uri(uri, err, sizeof(err));
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
	for (int i = 0; pool && i < 2; i++) {
		virStorageVolPtr v = virStorageVolLookupByName(pool, vname[i]);

		drop_volume(&v);
	}
	if (pool)
		virStoragePoolFree(pool);
	virConnectClose(c);
}

int hb_libvirt_run(const struct hb_vm *vm, const char *uri, struct hb_vm_outcome *out)
{
	static unsigned seq;
	char host[256] = "host", name[400], vname[2][420], vpath[2][4096], emulator[4096] = "";
	char *xml = NULL;
	const size_t xml_len = 32768;
	virConnectPtr conn = NULL;
	virStoragePoolPtr pool = NULL;
	virStorageVolPtr vol[2] = { NULL, NULL };
	virDomainPtr dom = NULL;
	struct hb_follower *f = calloc(1, sizeof(*f));
	struct lv_run r = { .ch = { { .fd = -1 }, { .fd = -1 } } };
	int ev_id = -1, timer = -1, rc = -1;
	bool killed = false, close_cb = false;
	double deadline, grace_end = 0, drain_end = 0, next_check = 0, up_t0;

	memset(out, 0, sizeof(*out));
	out->qemu_status = -1;
	uri = uri ? uri : HB_LIBVIRT_DEFAULT_URI;
	if (!f || !(xml = malloc(xml_len))) {
		snprintf(out->error, sizeof(out->error), "out of memory");
		goto done;
	}
	f->fd = -1;
	if (vm->ram_path || vm->qmp_path) {
		snprintf(out->error, sizeof(out->error),
			 "--guest-ram huge-tmpfs needs the QEMU backend (--backend qemu)");
		goto done;
	}
	if (!event_loop_ready()) {
		snprintf(out->error, sizeof(out->error), "cannot start libvirt's event loop: %s",
			 last_error());
		goto done;
	}
	conn = connect_uri(uri, out->error, sizeof(out->error));
	if (!conn)
		goto done;
	/* A dead link (ssh gone, host down) is noticed within ~30 s. */
	virConnectSetKeepAlive(conn, 5, 6);
	close_cb = virConnectRegisterCloseCallback(conn, on_close, &r, NULL) == 0;
	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, "./ ")] = 0;
	snprintf(name, sizeof(name), HB_LIBVIRT_PREFIX "%s-%ld-%u", host, (long)getpid(), ++seq);
	snprintf(vname[0], sizeof(vname[0]), "%s-kernel", name);
	snprintf(vname[1], sizeof(vname[1]), "%s-initrd", name);
	pool = get_pool(conn, out->error, sizeof(out->error));
	if (!pool)
		goto done;
	sweep_stale(pool, host);
	up_t0 = hb_mono_s();
	vol[0] = upload(conn, pool, vm->kernel, vname[0], 0644, vpath[0], sizeof(vpath[0]),
			out->error, sizeof(out->error));
	if (vol[0])
		vol[1] = upload(conn, pool, vm->initrd, vname[1], 0644, vpath[1], sizeof(vpath[1]),
				out->error, sizeof(out->error));
	if (!vol[1])
		goto done;
	if (!vm->quiet) {
		struct stat k, i;

		if (stat(vm->kernel, &k) == 0 && stat(vm->initrd, &i) == 0)
			printf("[libvirt] %s: kernel and initramfs (%.1f MB) uploaded to pool " POOL_NAME
			       " in %.2f s\n",
			       uri, (double)(k.st_size + i.st_size) / 1e6, hb_mono_s() - up_t0);
		fflush(stdout);
	}
	if (strcmp(vm->accel, "tcg") == 0 &&
	    tcg_wrapper(conn, pool, emulator, sizeof(emulator), out->error, sizeof(out->error)))
		goto done;
	if (hb_libvirt_domain_xml(vm, name, vpath[0], vpath[1], emulator[0] ? emulator : NULL, xml,
				  xml_len)) {
		snprintf(out->error, sizeof(out->error), "the domain XML does not fit: path too long");
		goto done;
	}
	write_log(vm->qemu_log, uri, name, "starting", xml);

	/* Created paused: both serial ports are open before the guest says a
	 * word (a pty nobody reads loses what QEMU writes to it). */
	f->quiet = vm->quiet;
	f->t0 = hb_mono_s();
	dom = virDomainCreateXML(conn, xml, VIR_DOMAIN_START_PAUSED | VIR_DOMAIN_START_AUTODESTROY);
	if (!dom) {
		snprintf(out->error, sizeof(out->error), "libvirt refused the domain: %s", last_error());
		write_log(vm->qemu_log, uri, name, out->error, xml);
		goto done;
	}
	ev_id = virConnectDomainEventRegisterAny(conn, dom, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
						 VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle), &r, NULL);
	if (open_chan(dom, conn, "serial0", vm->console_path, &r.ch[0], out->error,
		      sizeof(out->error)) ||
	    open_chan(dom, conn, "serial1", vm->stream_path, &r.ch[1], out->error,
		      sizeof(out->error)))
		goto done;
	f->fd = open(vm->stream_path, O_RDONLY | O_CLOEXEC);
	if (virDomainResume(dom) < 0) {
		snprintf(out->error, sizeof(out->error), "cannot resume domain %s: %s", name,
			 last_error());
		goto done;
	}
	timer = virEventAddTimeout(100, on_tick, NULL, NULL);
	deadline = f->t0 + vm->timeout_s;
	out->end = HB_END_NORMAL;
	rc = 0;
	for (;;) {
		double now;

		if (virEventRunDefaultImpl() < 0)
			r.conn_lost = true;
		hb_follow(f);
		now = hb_mono_s();
		if (!r.stopped && now > next_check) {
			/* in case a lifecycle event was lost: ask */
			int act = virDomainIsActive(dom);

			if (act == 0 || (act < 0 && virGetLastErrorCode() == VIR_ERR_NO_DOMAIN)) {
				r.stopped = true;
				r.stop_detail = VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN;
			}
			next_check = now + 1;
		}
		if (r.stopped || r.conn_lost) {
			/* what the ptys still held comes before their end of file */
			if (!drain_end)
				drain_end = now + 3;
			if ((r.ch[0].eof && r.ch[1].eof) || r.conn_lost || now > drain_end)
				break;
			continue;
		}
		/* the same rules as qemu.c: time limit, stall watchdog, grace
		 * after suite_end, Ctrl-C */
		bool stalled = vm->stall_s > 0 && f->seen_first && !f->suite_end &&
			       now - f->t0 - f->last_t > vm->stall_s;

		if (hb_interrupted || now > deadline || stalled || (grace_end && now > grace_end)) {
			if (hb_interrupted)
				out->end = HB_END_INTERRUPTED;
			else if (now > deadline || stalled)
				out->end = HB_END_TIMEOUT;
			out->stalled = stalled && !hb_interrupted && now <= deadline;
			virDomainDestroy(dom);
			killed = true;
			r.stopped = true;
			r.stop_detail = VIR_DOMAIN_EVENT_STOPPED_DESTROYED;
			continue;
		}
		if (f->suite_end && !grace_end)
			grace_end = now + 30;
	}
	hb_follow(f);
	out->total_s = hb_mono_s() - f->t0;
	out->boot_s = f->seen_first ? f->first_t : 0;
	if (r.conn_lost && hb_interrupted) {
		/* Ctrl-C in a terminal reaches the whole process group: the ssh
		 * under a qemu+ssh:// connection dies with us. An interrupt all
		 * the same, not an infrastructure error. */
		out->end = HB_END_INTERRUPTED;
	} else if (r.conn_lost && !r.stopped) {
		/* libvirtd ends the domain itself (auto-destroy) */
		snprintf(out->error, sizeof(out->error),
			 "lost the connection to libvirt at %s during the run; partial results kept",
			 uri);
		out->end = HB_END_INFRA;
		rc = -1;
	} else if (!killed) {
		out->qemu_status = r.stop_detail == VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN ||
						   r.stop_detail == VIR_DOMAIN_EVENT_STOPPED_DESTROYED
					   ? 0
					   : 1;
	}
	write_log(vm->qemu_log, uri, name,
		  killed ? "destroyed by hugebench" : r.conn_lost ? "connection lost"
						     : stop_text(r.stop_detail),
		  xml);
done:
	if (timer >= 0)
		virEventRemoveTimeout(timer);
	chan_close(&r.ch[0]);
	chan_close(&r.ch[1]);
	if (dom) {
		/* every way out: a domain still running is ended here */
		if (virDomainIsActive(dom) == 1)
			virDomainDestroy(dom);
		if (ev_id >= 0)
			virConnectDomainEventDeregisterAny(conn, ev_id);
		virDomainFree(dom);
	}
	drop_volume(&vol[0]);
	drop_volume(&vol[1]);
	if (pool)
		virStoragePoolFree(pool);
	if (conn) {
		if (close_cb)
			virConnectUnregisterCloseCallback(conn, on_close);
		virConnectClose(conn);
	}
	if (r.conn_lost)
		cleanup_by_name(uri, name, vname);
	if (f && f->fd >= 0)
		close(f->fd);
	free(f);
	free(xml);
	return rc;
}
