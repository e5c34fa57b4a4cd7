/* kfeatures.c - the kernel feature table and its decisions (kfeatures.h). */
#define _GNU_SOURCE
#include "kfeatures.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/*
 * Versions are the release that merged the feature (the commit named in
 * ref). A distribution may backport a feature to an older release: the
 * table then says "unsupported" and the workload skips that part, which is
 * the honest answer for a version the table does not know to have it; add a
 * row (or lower one) with the evidence when that happens.
 */
static const struct hb_kf_row rows[HB_KF_N] = {
	[HB_KF_SHMEM_THP] = {
		"shmem_thp", "huge tmpfs (tmpfs huge=, transparent_hugepage/shmem_enabled)", 4008,
		"CONFIG_TRANSPARENT_HUGEPAGE", "/sys/kernel/mm/transparent_hugepage/shmem_enabled",
		"Linux 4.8, THP-enabled tmpfs/shmem series; transhuge.rst 'Hugepages in "
		"tmpfs/shmem'" },
	[HB_KF_KHUGEPAGED_SHMEM] = {
		"khugepaged_shmem", "khugepaged collapse of shmem", 4008,
		"CONFIG_TRANSPARENT_HUGEPAGE", "/sys/kernel/mm/transparent_hugepage/khugepaged",
		"'khugepaged: add support of collapse for tmpfs/shmem pages', Linux 4.8" },
	[HB_KF_MADV_COLLAPSE] = {
		"madv_collapse", "madvise(MADV_COLLAPSE) of shmem", 6001,
		"CONFIG_TRANSPARENT_HUGEPAGE", "/sys/kernel/mm/transparent_hugepage",
		"'mm/madvise: introduce MADV_COLLAPSE sync hugepage collapse' and 'add file and "
		"shmem support to MADV_COLLAPSE', Linux 6.1" },
	[HB_KF_SHMEM_PER_SIZE] = {
		"shmem_per_size", "per-size hugepages-<N>kB/shmem_enabled", 6011,
		"CONFIG_TRANSPARENT_HUGEPAGE", "/sys/kernel/mm/transparent_hugepage",
		"'mm: shmem: add multi-size THP sysfs interface for anonymous shmem', Linux 6.11; "
		"transhuge.rst" },
	[HB_KF_TMPFS_PUNCH_HOLE] = {
		"tmpfs_punch_hole", "fallocate(FALLOC_FL_PUNCH_HOLE) on tmpfs", 3005,
		"CONFIG_SHMEM", NULL,
		"'tmpfs: support fallocate FALLOC_FL_PUNCH_HOLE', Linux 3.5" },
	[HB_KF_TMPFS_DIRECT_IO] = {
		"tmpfs_direct_io", "O_DIRECT on tmpfs", 6006, "CONFIG_SHMEM", NULL,
		"'tmpfs: trivial support for direct IO', Linux 6.6" },
	[HB_KF_MEMFD_CREATE] = {
		"memfd_create", "memfd_create(2)", 3017, NULL, NULL,
		"'shm: add memfd_create() syscall', Linux 3.17" },
	[HB_KF_SYSV_SHM] = {
		"sysv_shm", "SysV shared memory (shmget/shmat)", 0, "CONFIG_SYSVIPC", "/proc/sysvipc",
		"init/Kconfig SYSVIPC; ipc/shm.c" },
	[HB_KF_COMPACTION_PROACTIVE] = {
		"compaction_proactiveness", "vm.compaction_proactiveness", 5009, "CONFIG_COMPACTION",
		"/proc/sys/vm/compact_memory",
		"'mm: proactive compaction', Linux 5.9; sysctl/vm.rst" },
	[HB_KF_CGROUP2_MEMORY] = {
		"cgroup2_memory", "the cgroup v2 memory controller", 4005, "CONFIG_MEMCG", NULL,
		"cgroup v2 out of development in Linux 4.5; cgroup-v2.rst 'Memory'" },
	[HB_KF_MEMCG_SWAP_MAX] = {
		"memcg_swap_max", "memory.swap.max of cgroup v2", 4005, "CONFIG_SWAP", NULL,
		"'mm: memcontrol: charge swap to cgroup2', Linux 4.5 (CONFIG_MEMCG_SWAP before 6.1)" },
	[HB_KF_ZRAM] = {
		"zram", "zram block devices", 3014, "CONFIG_ZRAM", "/sys/class/zram-control",
		"zram out of staging in Linux 3.14; zram-control since 4.2" },
	[HB_KF_PERF_EVENTS] = {
		"perf_events", "perf_event_open(2)", 2006, "CONFIG_PERF_EVENTS",
		"/proc/sys/kernel/perf_event_paranoid", "Linux 2.6.31" },
	[HB_KF_HUGETLBFS] = {
		"hugetlbfs", "hugetlbfs and vm.nr_hugepages", 0, "CONFIG_HUGETLBFS",
		"/sys/kernel/mm/hugepages", "fs/hugetlbfs" },
	[HB_KF_KVM_STATS_FD] = {
		"kvm_stats_fd", "KVM_GET_STATS_FD (binary VM and vCPU stats)", 5014, "CONFIG_KVM", NULL,
		"'KVM: stats: Support binary stats retrieval for a VM', Linux 5.14; kvm/api.rst" },
	[HB_KF_KPAGEFLAGS] = {
		"kpageflags", "/proc/kpageflags (folio heads and tails by PFN)", 2006,
		"CONFIG_PROC_PAGE_MONITOR", "/proc/kpageflags",
		"'maps4: add /proc/kpageflags interface', Linux 2.6.25; admin-guide/mm/pagemap.rst" },
	[HB_KF_SHMEM_BOOT_PARAMS] = {
		"shmem_boot_params",
		"boot parameters thp_shmem=, transparent_hugepage_shmem=, transparent_hugepage_tmpfs=",
		6014, "CONFIG_TRANSPARENT_HUGEPAGE", "/sys/kernel/mm/transparent_hugepage",
		"'mm: add more kernel parameters to control mTHP' (Maira Canal), Linux 6.14: absent "
		"from 6.12's mm/shmem.c, present in 7.2's and its transhuge.rst; 6.13 not read" },
	/* Read in 7.2: arch/x86/kvm/Kconfig, KVM_X86 selects KVM_GUEST_MEMFD if
	 * X86_64; kvm_gmem_get_supported_flags() gives MMAP | INIT_SHARED to a
	 * VM without private memory. In 6.12 guest_memfd is
	 * CONFIG_KVM_PRIVATE_MEM (SEV or SW_PROTECTED_VM, both off in Debian's
	 * cloud config) and KVM_CAP_GUEST_MEMFD is 0 for a default VM. 6.18 to
	 * 7.1 were not read. */
	[HB_KF_KVM_GMEM_MMAP] = {
		"kvm_gmem_mmap", "mmap-able guest_memfd on a default KVM VM", 6018,
		"CONFIG_KVM_GUEST_MEMFD", NULL,
		"guest_memfd GUEST_MEMFD_FLAG_MMAP, Linux 6.18 (issue 21); 7.2 read" },
	[HB_KF_UFFD_MINOR_SHMEM] = {
		"uffd_minor_shmem", "userfaultfd minor faults on shmem (UFFD_FEATURE_MINOR_SHMEM)",
		5014, "CONFIG_USERFAULTFD", "/proc/sys/vm/unprivileged_userfaultfd",
		"'userfaultfd: add minor fault handling for shmem', Linux 5.14" },
	/* brd sets BLK_FEAT_SYNCHRONOUS in 6.12 (drivers/block/brd.c:376) and
	 * 7.2 (brd.c:312), so swapon marks it SWP_SYNCHRONOUS_IO (7.2
	 * mm/swapfile.c:3720) and 7.2's shmem_swapin_folio() skips the swap
	 * cache for it as for zram (mm/shmem.c:2287); 6.1's brd.c does not set
	 * it. 6.12's shmem_swapin_folio() goes through the swap cache
	 * (shmem_swapin_cluster()) whatever the device. Issue 37 first took brd
	 * for a swap-cache device: true on 6.1 and 6.12 only. */
	[HB_KF_BRD] = {
		"brd", "RAM disk block devices (brd): a swap device that is not zram", 0,
		"CONFIG_BLK_DEV_RAM", "/sys/block/ram0",
		"drivers/block/brd.c: BLK_FEAT_SYNCHRONOUS from 6.11 (6.12 and 7.2 read), so "
		"there shmem swap-in skips the swap cache as on zram; 6.1's brd is not "
		"synchronous (its swap-ins go through the swap cache)" },
	/* Read in 6.12 and 7.2 mm/huge_memory.c: file_stats_attrs (shmem_alloc,
	 * shmem_fallback, shmem_fallback_charge) go into every hugepages-<N>kB
	 * whose order has a shmem_enabled knob (THP_ORDERS_ALL_FILE_DEFAULT). */
	[HB_KF_SHMEM_SIZE_STATS] = {
		"shmem_size_stats",
		"per-size stats/shmem_alloc, shmem_fallback, shmem_fallback_charge beside each "
		"hugepages-<N>kB/shmem_enabled", 6011,
		"CONFIG_TRANSPARENT_HUGEPAGE", "/sys/kernel/mm/transparent_hugepage",
		"'mm: shmem: add mTHP counters for anonymous shmem', Linux 6.11; 6.12 and 7.2 "
		"file_stats_attrs read (issue 35)" },
	/* loop does not set BLK_FEAT_SYNCHRONOUS (6.12 and 7.2
	 * drivers/block/loop.c read): its I/O completes in a worker, so a swap
	 * on it is neither SWP_SYNCHRONOUS_IO (shmem swap-in goes through the
	 * swap cache and swap_cluster_readahead(), 7.2 mm/shmem.c:2293) nor
	 * done when MADV_PAGEOUT returns (the folios stay in the swap cache
	 * under writeback). On a file of a file system without a block device
	 * (ramfs) it is not rotational (loop.c:964-968), so large swap entries
	 * can be allocated (7.2 mm/swapfile.c:1103). */
	[HB_KF_LOOP] = {
		"loop", "loop block devices: a swap device whose swap-in goes through the swap cache",
		0, "CONFIG_BLK_DEV_LOOP", "/sys/module/loop",
		"drivers/block/loop.c (6.12, 7.2 read): no BLK_FEAT_SYNCHRONOUS" },
	[HB_KF_MEMCG_RECLAIM] = {
		"memcg_reclaim", "memory.reclaim of cgroup v2 (proactive reclaim)", 5019,
		"CONFIG_MEMCG", NULL,
		"'memcg: introduce per-memcg reclaim interface', Linux 5.19; "
		"Documentation/admin-guide/cgroup-v2.rst" },
	/* Read in 7.2: mm/fail_page_alloc.c (min-order, ignore-gfp-wait,
	 * ignore-gfp-highmem beside the common attributes of
	 * lib/fault-inject.c: probability, interval, times, space, verbose,
	 * task-filter) and Documentation/fault-injection/fault-injection.rst.
	 * The debugfs directory exists only with FAULT_INJECTION_DEBUG_FS too
	 * (kernels/debug.config sets both); the version is the 2.6.20 of
	 * "fault-injection capability for alloc_pages()". */
	[HB_KF_FAIL_PAGE_ALLOC] = {
		"fail_page_alloc", "page allocation fault injection (debugfs fail_page_alloc)",
		2006, "CONFIG_FAIL_PAGE_ALLOC", "/sys/kernel/debug/fail_page_alloc",
		"'fault-injection capability for alloc_pages()', Linux 2.6.20; "
		"Documentation/fault-injection/fault-injection.rst (7.2 read); needs "
		"CONFIG_FAULT_INJECTION_DEBUG_FS for its debugfs files" },
};

const struct hb_kf_row *hb_kf_row(enum hb_kf f)
{
	return &rows[(unsigned)f < HB_KF_N ? f : 0];
}

/* "kfeatures row madv_collapse: Linux >= 6.1, CONFIG_TRANSPARENT_HUGEPAGE" */
static void cite(const struct hb_kf_row *r, char *buf, size_t len)
{
	char ver[32] = "every version";

	if (r->min_kver > 0)
		snprintf(ver, sizeof(ver), "Linux >= %d.%d", r->min_kver / 1000, r->min_kver % 1000);
	snprintf(buf, len, "kfeatures row %s: %s%s%s", r->name, ver, r->config ? ", " : "",
		 r->config ? r->config : "");
}

enum hb_kf_cfg hb_kf_config_in(const char *text, const char *option)
{
	size_t ol;

	if (!text)
		return HB_KF_CFG_UNKNOWN;
	if (!option)
		return HB_KF_CFG_ON;
	ol = strlen(option);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n > ol && !strncmp(p, option, ol) && p[ol] == '=')
			return (p[ol + 1] == 'y' || p[ol + 1] == 'm') ? HB_KF_CFG_ON : HB_KF_CFG_OFF;
		if (n > ol + 2 && !strncmp(p, "# ", 2) && !strncmp(p + 2, option, ol) &&
		    !strncmp(p + 2 + ol, " is not set", 11))
			return HB_KF_CFG_OFF;
		p += n;
		if (*p == '\n')
			p++;
	}
	return HB_KF_CFG_OFF; /* a config that does not name it does not have it */
}

bool hb_kf_decide(enum hb_kf f, int kver, enum hb_kf_cfg cfg, char *why, size_t len)
{
	const struct hb_kf_row *r = hb_kf_row(f);
	char c[192];

	cite(r, c, sizeof(c));
	if (kver < r->min_kver) {
		if (why)
			snprintf(why, len, "%s is not in Linux %d.%d: it exists from %d.%d (%s; %s)",
				 r->what, kver / 1000, kver % 1000, r->min_kver / 1000,
				 r->min_kver % 1000, c, r->ref);
		return false;
	}
	if (r->config && cfg == HB_KF_CFG_OFF) {
		if (why)
			snprintf(why, len, "%s is not in this kernel: %s is off (per /proc/config.gz, "
				 "or %s absent) (%s)", r->what, r->config,
				 r->probe ? r->probe : "its files", c);
		return false;
	}
	return true;
}

void hb_kf_errno_text(int err, char *buf, size_t len)
{
	const char *n = err ? strerrorname_np(err) : "0";

	snprintf(buf, len, "%s (%s)", n ? n : "errno ?", err ? strerror(err) : "success");
}

enum hb_kf_verdict hb_kf_judge(enum hb_kf f, int kver, enum hb_kf_cfg cfg, const char *call,
			       int err, char *text, size_t len)
{
	char e[96], c[192];

	if (!hb_kf_decide(f, kver, cfg, text, len))
		return HB_KF_UNSUPPORTED;
	cite(hb_kf_row(f), c, sizeof(c));
	if (!err) {
		if (text)
			snprintf(text, len, "%s returned 0 (%s)", call, c);
		return HB_KF_OK;
	}
	hb_kf_errno_text(err, e, sizeof(e));
	if (text)
		snprintf(text, len, "%s from %s on Linux %d.%d, which has it (%s)", e, call,
			 kver / 1000, kver % 1000, c);
	return HB_KF_FAILED;
}

/* ---- this machine -------------------------------------------------------- */

int hb_kf_kver_of(const char *release)
{
	int maj, min;

	return sscanf(release, "%d.%d", &maj, &min) == 2 ? maj * 1000 + min : -1;
}

/* A whole (gzip'ed or plain: zlib reads both) file, or NULL. */
static char *read_config(const char *path)
{
	gzFile g = gzopen(path, "rb");
	size_t cap = 1 << 18, n = 0;
	char *buf;

	if (!g)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		int k;

		if (cap - n < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		k = gzread(g, buf + n, (unsigned)(cap - n - 1));
		if (k < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	gzclose(g);
	if (buf)
		buf[n] = 0;
	return buf;
}

enum hb_kf_cfg hb_kf_config_file(const char *path, const char *option)
{
	char *text = read_config(path ? path : "/proc/config.gz");
	enum hb_kf_cfg c = text ? hb_kf_config_in(text, option) : HB_KF_CFG_UNKNOWN;

	free(text);
	return c;
}

enum hb_kf_cfg hb_kf_config_now(enum hb_kf f)
{
	static char *config;
	static bool read;
	const struct hb_kf_row *r = hb_kf_row(f);

	if (!r->config)
		return HB_KF_CFG_ON;
	if (!read) {
		config = read_config("/proc/config.gz");
		read = true;
	}
	if (config)
		return hb_kf_config_in(config, r->config);
	if (r->probe)
		return access(r->probe, F_OK) == 0 ? HB_KF_CFG_ON : HB_KF_CFG_OFF;
	return HB_KF_CFG_UNKNOWN;
}
