/* wl_kvm_map.c - the KVM hva -> huge stage-2 mapping path, measured from an
 * L2 micro-guest built on the KVM API (kvm_vm.c), one run per RAM backing.
 *
 * The guest's data region (size_mb, at GPA 1 GiB, 2 MiB aligned in GPA and
 * HVA) is backed in turn by a huge=always tmpfs file, a huge=never tmpfs
 * file, a memfd (governed by shmem_enabled), anonymous memory with
 * MADV_HUGEPAGE, a hugetlbfs file, and (backings=...,gmem: opt-in) a
 * guest_memfd created on the micro-VM, mmap-able and shared, bound with
 * KVM_SET_USER_MEMORY_REGION2 -- the control beside huge tmpfs: KVM maps it
 * at what guest_memfd allocates (order 0 in 7.2: 4 KiB only, expected per
 * kernel version as data, kvm_map_judge.c), where the kfeatures row
 * kvm_gmem_mmap says the kernel has it (6.18+); elsewhere that backing is
 * skipped with a note citing the row and KVM's caps. Its first half is mapped in the guest
 * by 2 MiB pages (PDE.PS), its second half by 4 KiB pages. A small guest
 * program takes commands through a mailbox and answers through the ucall
 * port: WRITE a pattern into every 4 KiB page of a range (two qwords per
 * page), VERIFY a range against the pattern with zeros expected inside a
 * "hole", NOP. The host times each command around KVM_RUN, one command per
 * 2 MiB extent for the first-touch and second passes.
 *
 * KVM binary stats (VM and vCPU, every counter) are emitted as "kvm_stats"
 * events at each phase. Checks: a huge backing gets pages_2m covering >= 90%
 * of the touched memory that is 2 MiB aligned in both GPA and HVA and no 4 KiB
 * stage-2 pages beyond the guest's own page tables; a small backing gets
 * pages_2m == 0; the host side agrees (ShmemHugePages grew by the data size,
 * KVM's 2 MiB mappings fit inside ShmemPmdMapped / AnonHugePages / used huge
 * pages). Then the backing is changed under the running guest - hole punch
 * of a 2 MiB extent and of 4 KiB inside one (MADV_DONTNEED for anonymous
 * memory), truncate of the last extent and re-extension - and KVM must drop
 * the affected mappings, the guest must read zeros exactly in the hole and
 * intact data elsewhere, and re-touching must map the memory again.
 * Subject checks subject_huge_pages_2m (and subject_memfd_pages_2m when
 * memfd_shmem_enabled asks for huge memfd): that huge shmem backing got
 * 2 MiB stage-2 mappings, whatever shmem_enabled says; where it did not, its
 * timings are unavailable. shmem_enabled=VALUE sets the knob first.
 *
 * The host never touches guest RAM before the guest does unless prefault=1:
 * by default KVM's own get_user_pages() fault decides the host mapping
 * (recorded as host_prefault in every kvm_stats event).
 *
 * Where /dev/kvm cannot run a native 64-bit guest (this machine's host has
 * the paravirtual kvm_pvm), the workload skips with the reason; no numbers
 * are reported from such a path.
 */
#define _GNU_SOURCE
#define _GNU_SOURCE
#include "kvm_map.h"
#include "sysinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- entry points ------------------------------------------------------- */

static char g_kvm_map_modules[256];

static void kvm_map_load(const char *name, const char *alt, const char *params)
{
	int r = hb_load_module(name, params);
	size_t l = strlen(g_kvm_map_modules);

	if (r == -ENOENT && alt)
		r = hb_load_module(alt, params);
	snprintf(g_kvm_map_modules + l, sizeof(g_kvm_map_modules) - l, "%s%s: %s", l ? ", " : "",
		 name, r == 0 ? "loaded" : r == -EEXIST ? "already loaded" : strerror(-r));
}

static const char *kvm_map_unsupported(struct hb_ctx *ctx)
{
	static char why[512];

	(void)ctx;
	g_kvm_map_modules[0] = 0;
	if (access("/dev/kvm", F_OK)) {
		kvm_map_load("irqbypass", NULL, NULL);
		kvm_map_load("kvm", NULL, NULL);
		if (hb_cpu_has_flag("svm"))
			kvm_map_load("kvm_amd", "kvm-amd", "nested=1 npt=1");
		else if (hb_cpu_has_flag("vmx"))
			kvm_map_load("kvm_intel", "kvm-intel", "nested=1 ept=1");
		else
			snprintf(g_kvm_map_modules + strlen(g_kvm_map_modules),
				 sizeof(g_kvm_map_modules) - strlen(g_kvm_map_modules),
				 ", CPU has neither svm nor vmx");
	}
	if (access("/dev/kvm", F_OK)) {
		snprintf(why, sizeof(why), "no /dev/kvm after loading the KVM modules (%s)",
			 g_kvm_map_modules);
		return why;
	}
	/* every check reads KVM's binary stats: the table says which kernels
	 * have them */
	if (!hb_kf_has(HB_KF_KVM_STATS_FD, why, sizeof(why)))
		return why;
	return NULL;
}

static void kvm_map_run(struct hb_ctx *ctx)
{
	long size_mb = hb_param_long(ctx, "size_mb");
	long cmd_s = hb_param_long(ctx, "cmd_timeout_s");
	long probe_s = hb_param_long(ctx, "probe_timeout_s");
	bool prefault = hb_param_bool(ctx, "prefault");
	bool raw_stats = hb_param_bool(ctx, "raw_stats");
	const char *list = hb_param_str(ctx, "backings");
	const char *memfd_knob = hb_param_str(ctx, "memfd_shmem_enabled");
	const char *vendor = hb_kvm_vendor_module();
	char why[512];
	bool first = true;

	if (hb_failed(ctx))
		return;
	if (!memfd_knob)
		memfd_knob = ""; /* not given: the knob is left as it is */
	if (g_kvm_map_modules[0])
		hb_note(ctx, "KVM modules: %s", g_kvm_map_modules);
	if (kvm_map_probe((unsigned int)probe_s * 1000, why, sizeof(why))) {
		if (!strcmp(vendor, "kvm_amd") || !strcmp(vendor, "kvm_intel")) {
			hb_error_rc(ctx, 0, "native KVM (%s) could not run the 64-bit micro-guest: %s",
				    vendor, why);
		} else {
			hb_skip(ctx, "/dev/kvm (module %s%s) cannot run a native 64-bit guest: %s",
				vendor, !strcmp(vendor, "kvm_pvm") ? ", paravirtual KVM" : "", why);
		}
		return;
	}
	if (strcmp(vendor, "kvm_amd") && strcmp(vendor, "kvm_intel")) {
		hb_skip(ctx, "/dev/kvm is served by %s%s: the micro-guest probe ran, but this is "
			"not the native kvm_amd/kvm_intel stage-2 (NPT/EPT) path, so no numbers are "
			"reported from it", vendor,
			!strcmp(vendor, "kvm_pvm") ? " (paravirtual KVM, shadow paging)" : "");
		return;
	}
	hb_note(ctx, "KVM vendor module %s; micro-guest probe ran in 64-bit mode", vendor);

	for (const char *p = list; *p && !hb_failed(ctx);) {
		size_t l = strcspn(p, ",");
		const struct kvm_map_backing *b = NULL;

		for (size_t i = 0; i < kvm_map_n_backings; i++)
			if (strlen(kvm_map_backings[i].tag) == l &&
			    !strncmp(kvm_map_backings[i].tag, p, l))
				b = &kvm_map_backings[i];
		if (!b) {
			hb_error_rc(ctx, 0,
				    "unknown backing '%.*s' (known: huge, never, memfd, anon_thp, hugetlb, "
				    "gmem)",
				    (int)l, p);
			return;
		}
		if (b->kind == KVM_MAP_MEMFD) {
			if (memfd_knob[0] &&
			    hb_write_file("/sys/kernel/mm/transparent_hugepage/shmem_enabled",
					  memfd_knob)) {
				hb_error(ctx, "set shmem_enabled=%s for the memfd backing", memfd_knob);
				return;
			}
		}
		kvm_map_one(ctx, b, (size_t)size_mb * HB_MB, (unsigned int)cmd_s * 1000, prefault,
			    raw_stats, first, kvm_map_wants_huge(b, memfd_knob));
		first = false;
		p += l;
		if (*p == ',')
			p++;
	}
}

static const struct hb_param kvm_map_params[] = {
	HB_PARAM_SIZE_MB("32", 8, 1024, "micro-guest RAM per backing"),
	{ .name = "backings", .type = HB_PARAM_LIST, .def = "huge,never,memfd,anon_thp,hugetlb",
	  .choices = "huge|never|memfd|anon_thp|hugetlb|gmem",
	  .help = "guest RAM backings, in order; gmem (guest_memfd, 6.18+) is opt-in" },
	{ .name = "memfd_shmem_enabled", .type = HB_PARAM_ENUM, .choices = HB_SHMEM_ENABLED_CHOICES,
	  .help = "shmem_enabled for the memfd backing; not given: left as it is" },
	{ .name = "prefault", .type = HB_PARAM_BOOL, .def = "0",
	  .help = "touch guest RAM from the host before the guest runs" },
	{ .name = "raw_stats", .type = HB_PARAM_BOOL, .def = "0",
	  .help = "also emit the raw KVM binary stats" },
	{ .name = "cmd_timeout_s", .type = HB_PARAM_LONG, .def = "120", .min = 1, .max = 86400,
	  .help = "seconds a micro-guest command may take" },
	{ .name = "probe_timeout_s", .type = HB_PARAM_LONG, .def = "30", .min = 1, .max = 86400,
	  .help = "seconds the /dev/kvm probe guest may take" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_kvm_map = {
	.name = "kvm-map",
	.help = "KVM stage-2 huge mappings of guest RAM per backing, holes under a running L2 "
		"micro-guest",
	.unsupported = kvm_map_unsupported,
	.run = kvm_map_run,
	.params = kvm_map_params,
};
