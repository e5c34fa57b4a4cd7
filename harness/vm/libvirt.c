/* libvirt.c - libvirt backend (see libvirt.h). One boot is: upload kernel
 * and initramfs into the "hugebench" storage pool of the libvirt host,
 * create a transient domain (auto-destroyed with our connection) whose
 * serial ports are two more volumes QEMU writes as plain files, copy what
 * they gain into console.log / stream.jsonl while following the results
 * like qemu.c does, and destroy the domain and delete the volumes on the
 * way out. Pool, uploads, downloads and the TCG wrapper are lv_store.c.
 *
 * Why files and not ptys (issue 33): a pty that the host drains late makes
 * the guest's UART wait, the guest idles, and under -icount sleep=off QEMU
 * moves guest time to the next timer at once, over and over: 20 s of a
 * stopped reader became three hours of guest time and a false "timed out".
 * A file write never waits for a reader (docs/guest-time.md). */
#define _GNU_SOURCE
#include "libvirt.h"
#include "follow.h"
#include "lv_guard.h"
#include "lv_store.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest one turn of the boot loop may spend in libvirt (a turn takes
 * 0.1-1 s, a few calls at load 14 over ssh included). */
#define LV_TURN_LIMIT_S 30

int hb_libvirt_probe(const char *uri, char *qver, size_t qlen, char *real, size_t rlen, char *err,
		     size_t errlen)
{
	virConnectPtr conn = hb_lv_connect(uri ? uri : HB_LIBVIRT_DEFAULT_URI, err, errlen);
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

int hb_libvirt_domain_xml(const struct hb_vm_spec *vm, const char *name,
			  const struct hb_lv_files *files, char *out, size_t outlen)
{
	char n[512], k[8192], i[8192], c[4096], e[8192 + 32] = "", ic[256] = "";
	char s0[4096], s1[4096];
	/* --guest-ram huge-tmpfs: guest RAM on a memfd QEMU maps shared, as VM
	 * hosts back guests with shmem; huge pages where the host's
	 * shmem_enabled allows them for memfds */
	const char *mb = vm->ram_memfd ? "  <memoryBacking>\n"
					 "    <source type='memfd'/>\n"
					 "    <access mode='shared'/>\n"
					 "  </memoryBacking>\n"
				       : "";
	bool kvm = strcmp(vm->accel, "kvm") == 0;
	int len;

	if (hb_lv_xml_escape(name, n, sizeof(n)) ||
	    hb_lv_xml_escape(files->kernel, k, sizeof(k)) ||
	    hb_lv_xml_escape(files->initrd, i, sizeof(i)) ||
	    hb_lv_xml_escape(files->console, s0, sizeof(s0)) ||
	    hb_lv_xml_escape(files->stream, s1, sizeof(s1)) ||
	    hb_lv_xml_escape(vm->cmdline, c, sizeof(c)))
		return -1;
	if (files->emulator) {
		char esc[8192];

		if (hb_lv_xml_escape(files->emulator, esc, sizeof(esc)))
			return -1;
		snprintf(e, sizeof(e), "    <emulator>%s</emulator>\n", esc);
	}
	/* libvirt has no XML for -icount: QEMU's own arguments, passed through
	 * (the qemu: namespace); HB_QEMU_ICOUNT needs no XML escape. */
	if (vm->icount && !kvm)
		snprintf(ic, sizeof(ic),
			 "  <qemu:commandline>\n"
			 "    <qemu:arg value='-icount'/>\n"
			 "    <qemu:arg value='%s'/>\n"
			 "  </qemu:commandline>\n",
			 vm->icount);
	/* What qemu.c runs: q35, -cpu max (host under KVM), -no-reboot, no
	 * default devices, ttyS0 = console, ttyS1 = result stream. The serial
	 * ports are files (volumes of the pool), as qemu.c's -serial file:. */
	len = snprintf(out, outlen,
		       "<domain type='%s' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
		       "  <name>%s</name>\n"
		       "  <memory unit='MiB'>%d</memory>\n"
		       "%s"
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
		       "    <serial type='file'><source path='%s'/><target port='0'/></serial>\n"
		       "    <serial type='file'><source path='%s'/><target port='1'/></serial>\n"
		       "    <memballoon model='none'/>\n"
		       "  </devices>\n"
		       "%s"
		       "</domain>\n",
		       kvm ? "kvm" : "qemu", n, vm->memory_mb, mb, vm->vcpus, k, i, c,
		       kvm ? "host-passthrough" : "maximum", e, s0, s1, ic);
	return len < 0 || (size_t)len >= outlen ? -1 : 0;
}

/* ---- one run -------------------------------------------------------------- */

/* A serial port: a volume QEMU writes, copied into a local file as it grows. */
struct chan {
	virStorageVolPtr vol;
	unsigned long long off; /* bytes copied so far */
	int fd;
};

struct lv_run {
	struct chan ch[2];	/* ttyS0 (console), ttyS1 (stream) */
	bool stopped, conn_lost, reset;
	int stop_detail;
};

/* Copies what both serial files gained since the last call. A download
 * that fails is tried again at the next turn from where it stopped: the
 * connection's own checks say whether libvirt is gone, and a guest whose
 * events stop arriving meets the stall watchdog. */
static void chan_copy(virConnectPtr conn, struct lv_run *r)
{
	for (int i = 0; i < 2; i++) {
		struct chan *c = &r->ch[i];

		if (c->vol && c->fd >= 0)
			hb_lv_tail(conn, c->vol, &c->off, c->fd);
	}
}

static void chan_close(struct chan *c)
{
	if (c->fd >= 0)
		close(c->fd);
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

/* The guest reset itself and QEMU reset the machine. libvirt 9 has QEMU
 * turn a reset into a shutdown (on_reboot=destroy, QMP set-action), so
 * there only STOPPED comes; a libvirt that lets the reset happen and then
 * destroys the domain sends this first. */
static int on_reboot(virConnectPtr conn, virDomainPtr dom, void *opaque)
{
	(void)conn;
	(void)dom;
	((struct lv_run *)opaque)->reset = true;
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
		state = hb_lv_load(NULL, 0) && virEventRegisterDefaultImpl() == 0 ? 1 : -1;
	return state == 1;
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

int hb_libvirt_run(const struct hb_vm_spec *vm, const char *uri, struct hb_vm_outcome *out)
{
	static unsigned seq;
	static const char *const suffix[HB_LV_NVOL] = { "kernel", "initrd", "console", "stream" };
	char host[256] = "host", name[400], vname[HB_LV_NVOL][420], vpath[HB_LV_NVOL][4096];
	char emulator[4096] = "";
	char *xml = NULL;
	const size_t xml_len = 32768;
	virConnectPtr conn = NULL;
	virStoragePoolPtr pool = NULL;
	virStorageVolPtr vol[HB_LV_NVOL] = { NULL };
	virDomainPtr dom = NULL;
	struct hb_follower *f = calloc(1, sizeof(*f));
	struct lv_run r = { .ch = { { .fd = -1 }, { .fd = -1 } } };
	struct hb_lv_guard guard = { 0 };
	char cut[128] = "";
	int ev_id = -1, rb_id = -1, timer = -1, rc = -1;
	bool killed = false, close_cb = false;
	double deadline, grace_end = 0, next_check = 0, up_t0;

	memset(out, 0, sizeof(*out));
	out->qemu_status = -1;
	uri = uri ? uri : HB_LIBVIRT_DEFAULT_URI;
	if (!f || !(xml = malloc(xml_len))) {
		snprintf(out->error, sizeof(out->error), "out of memory");
		goto done;
	}
	f->fd = -1;
	if (vm->ram_path || vm->qmp_path) {
		/* a host file and a QMP socket: the QEMU backend's way */
		snprintf(out->error, sizeof(out->error),
			 "a guest RAM file and QMP need the QEMU backend (--backend qemu)");
		goto done;
	}
	/* No libvirt call of this boot may block for long: see lv_guard.h. */
	if (hb_lv_guard_start(&guard)) {
		snprintf(out->error, sizeof(out->error), "cannot start a thread: %s",
			 strerror(errno));
		goto done;
	}
	if (!event_loop_ready()) {
		snprintf(out->error, sizeof(out->error), "cannot start libvirt's event loop: %s",
			 hb_lv_error());
		goto done;
	}
	hb_lv_guard_arm(&guard, 120, "connecting to libvirt");
	conn = hb_lv_connect(uri, out->error, sizeof(out->error));
	if (!conn)
		goto done;
	/* A dead link (ssh gone, host down) is noticed within ~35 s while
	 * no call waits; a call that waits is ended by the guard (below). */
	virConnectSetKeepAlive(conn, 5, 6);
	close_cb = virConnectRegisterCloseCallback(conn, on_close, &r, NULL) == 0;
	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, "./ ")] = 0;
	snprintf(name, sizeof(name), HB_LV_PREFIX "%s-%ld-%u", host, (long)getpid(), ++seq);
	for (int v = 0; v < HB_LV_NVOL; v++)
		snprintf(vname[v], sizeof(vname[v]), "%s-%s", name, suffix[v]);
	pool = hb_lv_pool(conn, out->error, sizeof(out->error));
	if (!pool)
		goto done;
	hb_lv_guard_arm(&guard, 300, "uploading kernel and initramfs");
	hb_lv_sweep(pool, host);
	up_t0 = hb_mono_s();
	vol[HB_LV_KERNEL] = hb_lv_upload(conn, pool, vm->kernel, vname[HB_LV_KERNEL], 0644,
					 vpath[HB_LV_KERNEL], sizeof(vpath[0]), out->error,
					 sizeof(out->error));
	if (vol[HB_LV_KERNEL])
		vol[HB_LV_INITRD] = hb_lv_upload(conn, pool, vm->initrd, vname[HB_LV_INITRD], 0644,
						 vpath[HB_LV_INITRD], sizeof(vpath[0]), out->error,
						 sizeof(out->error));
	/* the serial ports' files: QEMU writes them, we copy them as they grow */
	for (int v = HB_LV_CONSOLE; v <= HB_LV_STREAM && vol[v - 1]; v++)
		vol[v] = hb_lv_create_empty(pool, vname[v], 0600, vpath[v], sizeof(vpath[0]),
					    out->error, sizeof(out->error));
	if (!vol[HB_LV_STREAM])
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
	    hb_lv_tcg_wrapper(conn, pool, emulator, sizeof(emulator), out->error, sizeof(out->error)))
		goto done;
	if (hb_libvirt_domain_xml(vm, name,
				  &(struct hb_lv_files){ .kernel = vpath[HB_LV_KERNEL],
							 .initrd = vpath[HB_LV_INITRD],
							 .console = vpath[HB_LV_CONSOLE],
							 .stream = vpath[HB_LV_STREAM],
							 .emulator = emulator[0] ? emulator : NULL },
				  xml, xml_len)) {
		snprintf(out->error, sizeof(out->error), "the domain XML does not fit: path too long");
		goto done;
	}
	write_log(vm->qemu_log, uri, name, "starting", xml);

	/* Created paused: the lifecycle events are registered before the
	 * guest runs. The local copies of the serial files start empty. */
	for (int i = 0; i < 2; i++) {
		const char *path = i ? vm->stream_path : vm->console_path;

		r.ch[i].vol = vol[HB_LV_CONSOLE + i];
		r.ch[i].fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (r.ch[i].fd < 0) {
			snprintf(out->error, sizeof(out->error), "cannot create %s: %s", path,
				 strerror(errno));
			goto done;
		}
	}
	f->quiet = vm->quiet;
	f->t0 = hb_mono_s();
	hb_lv_guard_arm(&guard, 120, "starting the domain");
	dom = virDomainCreateXML(conn, xml, VIR_DOMAIN_START_PAUSED | VIR_DOMAIN_START_AUTODESTROY);
	if (!dom) {
		snprintf(out->error, sizeof(out->error), "libvirt refused the domain: %s", hb_lv_error());
		write_log(vm->qemu_log, uri, name, out->error, xml);
		goto done;
	}
	ev_id = virConnectDomainEventRegisterAny(conn, dom, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
						 VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle), &r, NULL);
	rb_id = virConnectDomainEventRegisterAny(conn, dom, VIR_DOMAIN_EVENT_ID_REBOOT,
						 VIR_DOMAIN_EVENT_CALLBACK(on_reboot), &r, NULL);
	f->fd = open(vm->stream_path, O_RDONLY | O_CLOEXEC);
	if (virDomainResume(dom) < 0) {
		snprintf(out->error, sizeof(out->error), "cannot resume domain %s: %s", name,
			 hb_lv_error());
		goto done;
	}
	timer = virEventAddTimeout(100, on_tick, NULL, NULL);
	deadline = f->t0 + vm->timeout_s;
	out->end = HB_END_NORMAL;
	rc = 0;
	for (;;) {
		double now;

		/* One turn of this loop takes 0.1-1 s; 30 s is a libvirt call
		 * that will not return. libvirt 9.0's keepalive does not end
		 * one: the thread that waits for the reply runs the client's
		 * I/O loop, which wakes only for the socket (with the daemon
		 * stopped, no keepalive timer fired in 60 s of a stream finish:
		 * docs/testing.md), so the guard is the detector. */
		hb_lv_guard_arm(&guard, LV_TURN_LIMIT_S, "waiting for libvirt during the boot");
		if (virEventRunDefaultImpl() < 0 || hb_lv_guard_fired(&guard, NULL, 0))
			r.conn_lost = true;
		if (!r.conn_lost)
			chan_copy(conn, &r);
		hb_follow(f);
		now = hb_mono_s();
		if (!r.stopped && now > next_check) {
			/* in case a lifecycle event was lost: ask */
			int act = virDomainIsActive(dom);

			if (act == 0 || (act < 0 && virGetLastErrorCode() == VIR_ERR_NO_DOMAIN)) {
				r.stopped = true;
				r.stop_detail = VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN;
			} else if (act < 0 && !virConnectIsAlive(conn)) {
				r.conn_lost = true;
			}
			next_check = now + 1;
		}
		/* as qemu.c: the host KVM's view of guest RAM once the suite is
		 * done, while the domain still runs */
		if (vm->ram_memfd && !out->host_kvm_stats && f->suite_end && !r.stopped &&
		    !r.conn_lost)
			out->host_kvm_stats = hb_lv_kvm_stats(dom, vm->accel);
		if (r.stopped || r.conn_lost) {
			/* the files outlive the domain: one more copy has
			 * everything QEMU wrote */
			if (!r.conn_lost)
				chan_copy(conn, &r);
			break;
		}
		/* the same rules as qemu.c: time limit, stall watchdog, grace
		 * after suite_end, Ctrl-C */
		if (hb_follow_must_stop(f, vm, now, deadline, &grace_end, out)) {
			virDomainDestroy(dom);
			killed = true;
			r.stopped = true;
			r.stop_detail = VIR_DOMAIN_EVENT_STOPPED_DESTROYED;
			continue;
		}
	}
	hb_follow(f);
	out->total_s = hb_mono_s() - f->t0;
	out->boot_s = f->seen_first ? f->first_t : 0;
	if (hb_lv_guard_fired(&guard, cut, sizeof(cut)) && !r.stopped) {
		snprintf(out->error, sizeof(out->error),
			 "libvirt at %s did not answer for %d s (%s): connection cut, partial "
			 "results kept",
			 uri, LV_TURN_LIMIT_S, cut);
		out->end = HB_END_INFRA;
		rc = -1;
	} else if (r.conn_lost && hb_interrupted) {
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
		  killed	 ? "destroyed by hugebench"
		  : r.conn_lost	 ? "connection lost"
		  : r.reset	 ? "the guest reset itself (reboot); on_reboot=destroy ended the domain"
				 : stop_text(r.stop_detail),
		  xml);
done:
	hb_lv_guard_arm(&guard, 30, "ending the domain and deleting its volumes");
	/* Ctrl-C while the domain was being made: over qemu+ssh:// the ssh died
	 * with us and the call failed. An interrupt, not an infrastructure
	 * error; the volumes go over a new connection. */
	if (conn && !r.conn_lost && virConnectIsAlive(conn) != 1)
		r.conn_lost = true;
	if (rc < 0 && hb_interrupted) {
		out->end = HB_END_INTERRUPTED;
		out->error[0] = 0;
		rc = 0;
	}
	if (timer >= 0)
		virEventRemoveTimeout(timer);
	if (dom) {
		/* every way out: a domain still running is ended here, before
		 * its streams are let go (chan_close) */
		if (!r.conn_lost && virDomainIsActive(dom) == 1)
			virDomainDestroy(dom);
		if (ev_id >= 0 && !r.conn_lost)
			virConnectDomainEventDeregisterAny(conn, ev_id);
		if (rb_id >= 0 && !r.conn_lost)
			virConnectDomainEventDeregisterAny(conn, rb_id);
	}
	chan_close(&r.ch[0]);
	chan_close(&r.ch[1]);
	if (dom)
		virDomainFree(dom);
	for (int v = 0; v < HB_LV_NVOL; v++)
		hb_lv_drop(&vol[v]);
	if (pool)
		virStoragePoolFree(pool);
	if (conn) {
		if (close_cb)
			virConnectUnregisterCloseCallback(conn, on_close);
		virConnectClose(conn);
	}
	/* A lost connection (ssh ended, Ctrl-C) is cleaned up over a new one.
	 * Not when the guard cut a daemon that stopped answering: a new
	 * connection would wait as long (30 s more of every frozen-daemon
	 * run); auto-destroy ends the domain once the daemon runs, and the
	 * next run from this host deletes the volumes (hb_lv_sweep). */
	if (r.conn_lost && !hb_lv_guard_fired(&guard, NULL, 0)) {
		hb_lv_guard_arm(&guard, 30, "cleaning up over a new connection");
		hb_lv_cleanup(uri, name, vname);
	}
	if (hb_lv_guard_fired(&guard, cut, sizeof(cut)))
		hb_err("libvirt at %s stopped answering (%s): connection cut; libvirt ends the "
		       "domain %s (auto-destroy), the next run from this host deletes its volumes",
		       uri, cut, name);
	hb_lv_guard_stop(&guard);
	if (f && f->fd >= 0)
		close(f->fd);
	free(f);
	free(xml);
	return rc;
}
