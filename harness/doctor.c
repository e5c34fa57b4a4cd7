/* doctor.c - `hugebench doctor`: what works on this host (QEMU, busybox,
 * the guest binary, /dev/kvm, earlier accelerator probes, nested
 * virtualization, a PMU, the cache). It only reads: no download, no
 * apt-get, no probe boot. */
#define _GNU_SOURCE
#include "accel.h"
#include "commands.h"
#include "qemu.h"
#include "sysinfo.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static void line(const char *what, const char *state, const char *fix)
{
	printf("  %-22s %s\n", what, state);
	if (fix && *fix)
		printf("  %-22s fix: %s\n", "", fix);
}

int hb_cmd_doctor(int argc, char **argv)
{
	char q[32], buf[512];
	struct statvfs sv;
	int problems = 0;

	(void)argc;
	(void)argv;
	printf("hugebench %s doctor\n", HB_VERSION);
	hb_qemu_version(q, sizeof(q));
	line("qemu-system-x86_64", q[0] ? q : "missing",
	     q[0] ? NULL : "apt-get install -y qemu-system-x86");
	problems += !q[0];
	line("busybox-static", hb_is_file("/bin/busybox") ? "present" : "missing",
	     hb_is_file("/bin/busybox") ? NULL : "apt-get install -y busybox-static");
	problems += !hb_is_file("/bin/busybox");
	snprintf(buf, sizeof(buf), "%s/build/hb-guest", hb_root());
	line("guest binary", hb_is_file(buf) ? buf : "not built", hb_is_file(buf) ? NULL : "make");

	if (access("/dev/kvm", R_OK | W_OK) == 0) {
		snprintf(buf, sizeof(buf), "/dev/kvm present: %s", hb_accel_kvm_flavour());
		line("kvm device", buf, NULL);
	} else {
		line("kvm device", "absent (guests run under TCG, slower)", NULL);
	}
	/* doctor only reads: no download, no apt-get, no probe boot. The
	 * answers of earlier probes (one per host kernel, QEMU and guest
	 * kernel) are in the cache; `hugebench run` probes what is missing. */
	{
		int n_kvm, n_tcg;
		char haccel[16], hwhy[600];

		hb_accel_probed(q, &n_kvm, &n_tcg);
		if (access("/dev/kvm", R_OK | W_OK) != 0)
			snprintf(buf, sizeof(buf), "TCG for every kernel: no usable /dev/kvm (no probe)");
		else if (hb_accel_host_cached(haccel, sizeof(haccel), hwhy, sizeof(hwhy)))
			/* the host is the cause: no kernel is probed again */
			snprintf(buf, sizeof(buf), "%s for every kernel on this host (cached): %s",
				 !strcmp(haccel, "kvm") ? "KVM" : "TCG", hwhy);
		else if (n_kvm + n_tcg == 0)
			snprintf(buf, sizeof(buf), "not probed yet on this host and QEMU");
		else
			snprintf(buf, sizeof(buf), "probed %d guest kernel(s): KVM worked for %d, TCG for %d",
				 n_kvm + n_tcg, n_kvm, n_tcg);
		line("accelerator (auto)", buf,
		     n_kvm + n_tcg || strstr(buf, "every kernel")
			     ? NULL
			     : "hugebench run probes KVM (up to 45 s) once per kernel, or once per host "
			       "when the host is the cause");
	}
	snprintf(buf, sizeof(buf), "guests under TCG -cpu max: svm+npt; host CPU: %s%s",
		 hb_cpu_has_flag("svm") ? "svm " : "", hb_cpu_has_flag("vmx") ? "vmx" : "no svm/vmx");
	line("nested virtualization", buf, NULL);
	{
		/* A PMU exists when the kernel exposes a CPU PMU to perf. */
		int pmu = hb_is_dir("/sys/bus/event_source/devices/cpu") ||
			  hb_is_dir("/sys/bus/event_source/devices/cpu_core");

		line("PMU (host)", pmu ? "present" : "absent: TLB-miss metrics will be 'unavailable'",
		     NULL);
	}
	/* the machine's cache, shared by every clone: where and why there */
	if (statvfs(hb_cache_dir(), &sv) == 0)
		snprintf(buf, sizeof(buf), "%s (%s; %.1f GiB free)", hb_cache_dir(),
			 hb_cache_origin(), (double)sv.f_bavail * (double)sv.f_frsize / (1 << 30));
	else
		snprintf(buf, sizeof(buf), "%s (%s; not created yet)", hb_cache_dir(),
			 hb_cache_origin());
	line("cache", buf, NULL);
	{
		/* the per-clone cache of hugebench before issue 33: unused now */
		char old[PATH_MAX + 16], real_old[PATH_MAX], real_cur[PATH_MAX];

		snprintf(old, sizeof(old), "%s/.cache", hb_root());
		if (hb_is_dir(old) && realpath(old, real_old) &&
		    !(realpath(hb_cache_dir(), real_cur) && !strcmp(real_old, real_cur))) {
			snprintf(buf, sizeof(buf), "%s is not used any more (the cache is the machine's)",
				 old);
			snprintf(old, sizeof(old), "rm -rf -- '%s'", real_old);
			line("old per-clone cache", buf, old);
		}
	}
	printf("%s\n", problems ? "doctor: something is missing; run: make deps" : "doctor: ready");
	return problems ? HB_EXIT_INFRA : 0;
}
