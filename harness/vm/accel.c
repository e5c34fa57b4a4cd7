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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define PROBE_TIMEOUT_S 45.0

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
	hb_sha256_file(k->image, sha);
	snprintf(buf, len, "%s/accel/%s--qemu-%s--%.16s", hb_cache_dir(), u.release, q, sha);
}

/* Boots k under KVM with a one-check suite: 1 it finished, 0 it did not
 * (a clear no: timeout or QEMU refused), -1 no answer (interrupted, the probe
 * could not be set up) - not to be cached. */
static int probe_kvm(const struct hb_kernel *k, char *why, size_t wlen)
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
		struct hb_vm_spec vm = { .accel = "kvm", .kernel = k->image, .initrd = initrd,
					 .runas = hb_qemu_user(uwhy, sizeof(uwhy)),
					 .cmdline = "console=ttyS0 panic=-1", .console_path = con,
					 .stream_path = str, .qemu_log = log, .vcpus = 1,
					 .memory_mb = 512, .timeout_s = PROBE_TIMEOUT_S,
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
	if (ok)
		snprintf(why, wlen, "a probe boot of %s under KVM finished in %.1f s", k->release,
			 o.total_s);
	else if (o.end == HB_END_TIMEOUT)
		snprintf(why, wlen,
			 "/dev/kvm is %s, but a probe boot of %s under KVM did not finish in %.0f s "
			 "(stock kernels hang there); using TCG -cpu max",
			 hb_accel_kvm_flavour(), k->release, PROBE_TIMEOUT_S);
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

void hb_accel_choose(const char *requested, const struct hb_kernel *k, char *accel, size_t alen,
		     char *reason, size_t rlen)
{
	char cpath[PATH_MAX];
	char *cached;
	int probe;

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
	cached = hb_slurp(cpath, NULL);
	if (cached && strchr(cached, '\n')) {
		char *nl = strchr(cached, '\n');

		*nl = 0;
		nl[1 + strcspn(nl + 1, "\n")] = 0;
		snprintf(accel, alen, "%s", cached);
		snprintf(reason, rlen, "%s (cached probe)", nl + 1);
		free(cached);
		return;
	}
	free(cached);
	printf("[accel] probing KVM with %s (up to %.0f s, once per host/QEMU/kernel)\n", k->release,
	       PROBE_TIMEOUT_S);
	fflush(stdout);
	probe = probe_kvm(k, reason, rlen);
	snprintf(accel, alen, "%s", probe == 1 ? "kvm" : "tcg");
	if (probe >= 0) {
		char dir[PATH_MAX], text[600];

		snprintf(dir, sizeof(dir), "%s/accel", hb_cache_dir());
		hb_mkdir_p(dir);
		snprintf(text, sizeof(text), "%s\n%s\n", accel, reason);
		hb_write_text(cpath, text);
	}
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
