/* accel.c - accelerator choice by a real probe boot (doctor.c reports it). */
#define _GNU_SOURCE
#include "protocol.h"
#include "accel.h"
#include "image.h"
#include "qemu.h"
#include "result.h"
#include "target.h"
#include "sysinfo.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define PROBE_TIMEOUT_S 45.0

/* The probe's time limit: 45 s, or HUGEBENCH_KVM_PROBE_S (whole seconds,
 * 1-45). Only shorter: a stock kernel that hangs under kvm_pvm hangs at any
 * limit, so a test of what is done with the answer need not wait 45 s for
 * it (test_accel_probe_once_per_host); a bad value is said and ignored. */
static double probe_limit(void)
{
	static double limit;
	const char *v = getenv("HUGEBENCH_KVM_PROBE_S");

	if (limit > 0)
		return limit;
	limit = PROBE_TIMEOUT_S;
	if (v && *v) {
		char *end;
		long n = strtol(v, &end, 10);

		if (*end || end == v || n < 1 || n > (long)PROBE_TIMEOUT_S)
			fprintf(stderr,
				"hugebench: HUGEBENCH_KVM_PROBE_S=%.16s is not a whole number of "
				"seconds from 1 to %.0f: the probe's limit stays %.0f s\n",
				v, PROBE_TIMEOUT_S, PROBE_TIMEOUT_S);
		else
			limit = (double)n;
	}
	return limit;
}

const char *hb_accel_kvm_flavour(void)
{
	const char *m = hb_kvm_vendor_module();

	return !strcmp(m, "kvm_pvm") ? "kvm_pvm (paravirtual)" : !strcmp(m, "unknown") ? "unknown module" : m;
}

static void cache_path(const struct hb_kernel *k, char *buf, size_t len)
{
	struct utsname u;
	char q[32];

	char sha[65] = "unknown";

	uname(&u);
	hb_qemu_version(q, sizeof(q));
	/* keyed by the image itself: a rebuilt kernel with the same release
	 * string is probed again */
	hb_sha256_file(k->boot_image[0] ? k->boot_image : k->image, sha);
	snprintf(buf, len, "%s/accel/%s--qemu-%s--%.16s", hb_cache_dir(), u.release, q, sha);
}

enum hb_accel_probe hb_accel_probe_outcome(bool finished, bool timed_out, int qemu_status,
					   bool console_empty, const char *qemu_log)
{
	if (finished)
		return HB_PROBE_FINISHED;
	if (timed_out)
		return HB_PROBE_TIMEOUT;
	/* QEMU's failure is the host's only when QEMU names KVM ("Could not
	 * access KVM kernel module", "kvm_init_vcpu failed", an MSR -cpu host
	 * cannot set): a kernel image QEMU cannot load fails before any output
	 * too, and is that kernel's answer */
	if (qemu_status != 0 && console_empty && qemu_log && strcasestr(qemu_log, "kvm"))
		return HB_PROBE_QEMU_FAILED;
	return HB_PROBE_GUEST_FAILED;
}

/* Boots k under KVM with a one-check suite: 1 it finished, 0 it did not
 * (a clear no: timeout or QEMU refused), -1 no answer (interrupted, the probe
 * could not be set up) - not to be cached. */
static int probe_kvm(const struct hb_kernel *k, char *why, size_t wlen, enum hb_accel_probe *what)
{
	char dir[PATH_MAX], initrd[PATH_MAX], err[512], con[PATH_MAX], str[PATH_MAX], log[PATH_MAX];
	struct hb_vm_outcome o;
	char *stream;
	size_t slen = 0;
	int ok;

	snprintf(dir, sizeof(dir), "%s/accel/probe-%d", hb_cache_dir(), (int)getpid());
	hb_mkdir_p(dir);
	if (hb_image_build(k, "selftest mode=ok\n", "probe", initrd, sizeof(initrd), err,
			   sizeof(err))) {
		snprintf(why, wlen, "probe image failed: %s", err);
		return -1;
	}
	snprintf(con, sizeof(con), "%s/console.log", dir);
	snprintf(str, sizeof(str), "%s/stream.jsonl", dir);
	snprintf(log, sizeof(log), "%s/qemu.log", dir);
	{
		char uwhy[160];
		struct hb_vm_spec vm = { .accel = "kvm",
					 .kernel = k->boot_image[0] ? k->boot_image : k->image,
					 .initrd = initrd,
					 .runas = hb_qemu_user(uwhy, sizeof(uwhy)),
					 .cmdline = "console=ttyS0 panic=-1", .console_path = con,
					 .stream_path = str, .qemu_log = log, .vcpus = 1,
					 .memory_mb = 512, .timeout_s = probe_limit(),
					 .quiet = true };

		if (hb_vm_run(&vm, &o)) {
			snprintf(why, wlen, "%s", o.error);
			unlink(initrd);
			return -1;
		}
	}
	unlink(initrd);
	stream = hb_slurp(str, &slen);
	ok = stream && hb_accel_stream_finished(stream, slen);
	{
		struct stat cst;
		bool silent = stat(con, &cst) != 0 || cst.st_size == 0;
		char *qlog = hb_slurp(log, NULL);

		*what = hb_accel_probe_outcome(ok, o.end == HB_END_TIMEOUT, o.qemu_status, silent,
					       qlog);
		free(qlog);
	}
	if (ok)
		snprintf(why, wlen, "a probe boot of %s under KVM finished in %.1f s", k->release,
			 o.total_s);
	else if (o.end == HB_END_TIMEOUT)
		snprintf(why, wlen,
			 "/dev/kvm is %s, but a probe boot of %s under KVM did not finish in %.0f s "
			 "(stock kernels hang there); using TCG -cpu max",
			 hb_accel_kvm_flavour(), k->release, probe_limit());
	else {
		/* QEMU's own words: the probe folder is removed below */
		char *qlog = hb_slurp(log, NULL);

		if (qlog)
			qlog[strcspn(qlog, "\n")] = 0;
		snprintf(why, wlen, "/dev/kvm is %s, but QEMU -accel kvm failed (exit %d: %.160s); "
			 "using TCG",
			 hb_accel_kvm_flavour(), o.qemu_status, qlog && *qlog ? qlog : "no message");
		free(qlog);
	}
	free(stream);
	{
		char *rm[] = { "rm", "-rf", dir, NULL };

		hb_spawn_capture(rm, NULL, 0);
	}
	if (!ok && o.end == HB_END_INTERRUPTED)
		return -1;
	return ok;
}

/* The host's identity for the probe (struct hb_accel_host). */
static void this_host(struct hb_accel_host *h, struct utsname *u, char *q, size_t qlen)
{
	struct stat st;

	uname(u);
	hb_qemu_version(q, qlen);
	h->release = u->release;
	h->version = u->version;
	h->qemu = q;
	h->module = hb_kvm_vendor_module();
	h->rdev = stat("/dev/kvm", &st) == 0 ? (unsigned long)st.st_rdev : 0;
}

int hb_accel_host_key(const struct hb_accel_host *h, char *buf, size_t len)
{
	char vsha[65] = "";
	int n;

	/* uname -v holds blanks, '#', ':': only its hash goes into the name */
	if (hb_sha256_hex(h->version, strlen(h->version), vsha))
		snprintf(vsha, sizeof(vsha), "unknown");
	n = snprintf(buf, len, "host--%s--%.12s--qemu-%s--%s--%lx", h->release, vsha, h->qemu,
		     h->module, h->rdev);
	if (n < 0 || (size_t)n >= len)
		return -1;
	for (char *c = buf; *c; c++)
		if (*c == '/' || *c == ' ')
			*c = '_';
	return 0;
}

bool hb_accel_host_wide(const char *module, enum hb_accel_probe outcome)
{
	if (outcome == HB_PROBE_FINISHED)
		return false;
	if (outcome == HB_PROBE_QEMU_FAILED)
		return true;
	return module && !strcmp(module, "kvm_pvm");
}

void hb_accel_host_file(char *buf, size_t len)
{
	struct hb_accel_host h;
	struct utsname u;
	char q[32], key[400];

	this_host(&h, &u, q, sizeof(q));
	if (hb_accel_host_key(&h, key, sizeof(key)))
		snprintf(key, sizeof(key), "host--unnamed");
	snprintf(buf, len, "%s/accel/%s", hb_cache_dir(), key);
}

/* A cache file "accel\nreason\n": true with both filled. */
static bool read_answer(const char *path, char *accel, size_t alen, char *reason, size_t rlen)
{
	char *text = hb_slurp(path, NULL), *nl;

	if (!text || !(nl = strchr(text, '\n'))) {
		free(text);
		return false;
	}
	*nl = 0;
	nl[1 + strcspn(nl + 1, "\n")] = 0;
	snprintf(accel, alen, "%s", text);
	snprintf(reason, rlen, "%s", nl + 1);
	free(text);
	return !strcmp(accel, "kvm") || !strcmp(accel, "tcg");
}

bool hb_accel_host_cached(char *accel, size_t alen, char *reason, size_t rlen)
{
	char path[PATH_MAX];

	hb_accel_host_file(path, sizeof(path));
	return read_answer(path, accel, alen, reason, rlen);
}

/* An answer cached for this kernel, or for every kernel on this host. */
static bool cached_answer(const char *kpath, char *accel, size_t alen, char *reason, size_t rlen)
{
	char why[600];

	if (read_answer(kpath, accel, alen, why, sizeof(why))) {
		snprintf(reason, rlen, "%s (cached probe)", why);
		return true;
	}
	if (hb_accel_host_cached(accel, alen, why, sizeof(why))) {
		snprintf(reason, rlen, "%s (cached for this host: no kernel is probed again; "
			 "hugebench doctor shows it)", why);
		return true;
	}
	return false;
}

void hb_accel_choose(const char *requested, const struct hb_kernel *k, char *accel, size_t alen,
		     char *reason, size_t rlen)
{
	char cpath[PATH_MAX], dir[PATH_MAX], lock[PATH_MAX + 16];
	enum hb_accel_probe what = HB_PROBE_GUEST_FAILED;
	int probe, fd;

	if (strcmp(requested, "auto") != 0) {
		snprintf(accel, alen, "%s", requested);
		snprintf(reason, rlen, "asked for with --accel %s", requested);
		return;
	}
	if (access("/dev/kvm", R_OK | W_OK) != 0) {
		snprintf(accel, alen, "tcg");
		snprintf(reason, rlen, "no usable /dev/kvm; TCG -cpu max");
		return;
	}
	cache_path(k, cpath, sizeof(cpath));
	if (cached_answer(cpath, accel, alen, reason, rlen))
		return;
	/* One probe at a time per cache: a second run (another clone, the other
	 * side of an ab) waits and then finds the answer. */
	(void)hb_cache_ensure();
	snprintf(dir, sizeof(dir), "%s/accel", hb_cache_dir());
	hb_mkdir_p(dir);
	snprintf(lock, sizeof(lock), "%s/.probe.lock", dir);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
		printf("[accel] waiting for another run's KVM probe\n");
		fflush(stdout);
		if (flock(fd, LOCK_EX) != 0) {
			close(fd);
			fd = -1;
		}
	}
	if (cached_answer(cpath, accel, alen, reason, rlen)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	printf("[accel] probing KVM with %s (up to %.0f s, once per host/QEMU/kernel; once per "
	       "host when the host is the cause)\n", k->release, probe_limit());
	fflush(stdout);
	probe = probe_kvm(k, reason, rlen, &what);
	snprintf(accel, alen, "%s", probe == 1 ? "kvm" : "tcg");
	if (probe >= 0) {
		char text[600];

		snprintf(text, sizeof(text), "%s\n%s\n", accel, reason);
		hb_write_text(cpath, text);
		if (hb_accel_host_wide(hb_kvm_vendor_module(), what)) {
			char hpath[PATH_MAX];

			hb_accel_host_file(hpath, sizeof(hpath));
			hb_write_text(hpath, text);
		}
	}
	if (fd >= 0)
		close(fd);
}

bool hb_accel_stream_finished(const char *stream, size_t len)
{
	struct hb_stream_info info;
	json_t *mods, *wls = hb_result_from_stream_n(stream, len, &mods, &info);

	json_decref(wls);
	json_decref(mods);
	return info.suite_end;
}

void hb_accel_guest_env_n(const char *stream, size_t len, json_t *env)
{
	struct hb_stream_reader r;
	json_t *ev = NULL, *v;
	int got;

	json_object_set_new(env, "nested_virt", json_string("unknown"));
	json_object_set_new(env, "pmu", json_null());
	hb_stream_reader_init(&r, stream, len);
	while ((got = hb_stream_next(&r, &ev)) >= 0) {
		if (got && strcmp(json_string_value(json_object_get(ev, HB_EV_KEY)), HB_EV_SUITE_START) == 0)
			break;
		json_decref(ev);
		ev = NULL;
	}
	if (!ev)
		return;
	/* what the guest says goes into result.json: strings as ASCII text */
	v = json_object_get(ev, "nested_virt");
	if (json_is_string(v) && json_string_length(v) > 0 && json_string_length(v) < 64)
		json_object_set_new(env, "nested_virt", hb_json_text(json_string_value(v)));
	v = json_object_get(ev, "pmu");
	if (json_is_boolean(v))
		json_object_set(env, "pmu", v);
	v = json_object_get(ev, "pmu_reason");
	if (json_is_string(v) && json_string_length(v) < 512)
		json_object_set_new(env, "pmu_reason", hb_json_text(json_string_value(v)));
	json_decref(ev);
}

void hb_accel_guest_env(const char *stream, json_t *env)
{
	hb_accel_guest_env_n(stream, stream ? strlen(stream) : 0, env);
}

void hb_accel_probed(const char *qver, int *n_kvm, int *n_tcg)
{
	struct utsname u;
	char dir[PATH_MAX], prefix[200];
	DIR *d;
	struct dirent *e;

	*n_kvm = *n_tcg = 0;
	uname(&u);
	snprintf(prefix, sizeof(prefix), "%s--qemu-%s--", u.release, qver);
	snprintf(dir, sizeof(dir), "%s/accel", hb_cache_dir());
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		char path[PATH_MAX + 256];
		char *text;

		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		text = hb_slurp(path, NULL);
		if (text && !strncmp(text, "kvm\n", 4))
			(*n_kvm)++;
		else if (text && !strncmp(text, "tcg\n", 4))
			(*n_tcg)++;
		free(text);
	}
	if (d)
		closedir(d);
}
