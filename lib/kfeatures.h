/* kfeatures.h - the one place that knows what each kernel supports, so a
 * workload never turns an attempt into a green.
 *
 * Whether a kernel has a feature is a fact of its version and its config,
 * never a guess from an error code: a workload asks this table before it
 * uses a feature; where the table says the kernel has it, an errno from it is
 * a failed check with the errno in its observed text, and "unsupported" (a
 * skip, a note, an unavailable metric) appears only where the table says so,
 * with a reason that cites the row.
 *
 * Each row: the first version that has the feature, the config option that
 * gates it, a path that exists exactly when that option is on (where the
 * guest can see one), and where the version comes from. The config option is
 * read from /proc/config.gz when the kernel has it (CONFIG_IKCONFIG_PROC),
 * else from the row's path; when neither can tell, the version decides.
 *
 * Shared by the guest (workloads/api/hb_kf.c, every workload) and the host's
 * unit tests; the decisions are pure functions of (row, version, config
 * state, errno) so they are tested without a kernel. */
#ifndef HB_KFEATURES_H
#define HB_KFEATURES_H

#include <stdbool.h>
#include <stddef.h>

enum hb_kf {
	HB_KF_SHMEM_THP,	   /* huge tmpfs: huge= and shmem_enabled */
	HB_KF_KHUGEPAGED_SHMEM,	   /* khugepaged collapses shmem */
	HB_KF_MADV_COLLAPSE,	   /* madvise(MADV_COLLAPSE), shmem included */
	HB_KF_SHMEM_PER_SIZE,	   /* hugepages-<N>kB/shmem_enabled */
	HB_KF_TMPFS_PUNCH_HOLE,	   /* fallocate(FALLOC_FL_PUNCH_HOLE) on tmpfs */
	HB_KF_TMPFS_DIRECT_IO,	   /* O_DIRECT on tmpfs */
	HB_KF_MEMFD_CREATE,	   /* memfd_create(2) */
	HB_KF_SYSV_SHM,		   /* shmget/shmat */
	HB_KF_COMPACTION_PROACTIVE, /* vm.compaction_proactiveness */
	HB_KF_CGROUP2_MEMORY,	   /* cgroup v2 memory controller */
	HB_KF_MEMCG_SWAP_MAX,	   /* memory.swap.max of cgroup v2 */
	HB_KF_ZRAM,		   /* zram block devices */
	HB_KF_PERF_EVENTS,	   /* perf_event_open(2) */
	HB_KF_HUGETLBFS,	   /* hugetlbfs and nr_hugepages */
	HB_KF_KVM_STATS_FD,	   /* KVM_GET_STATS_FD: binary VM/vCPU stats */
	HB_KF_KPAGEFLAGS,	   /* /proc/kpageflags, PFNs in /proc/PID/pagemap */
	HB_KF_SHMEM_BOOT_PARAMS,   /* thp_shmem=, transparent_hugepage_shmem=/_tmpfs= */
	HB_KF_KVM_GMEM_MMAP,	   /* guest_memfd, mmap-able and shared, on a plain VM */
	HB_KF_UFFD_MINOR_SHMEM,	   /* userfaultfd minor faults on shmem */
	HB_KF_BRD,		   /* brd RAM disks (a swap device that is not zram) */
	HB_KF_SHMEM_SIZE_STATS,	   /* hugepages-<N>kB/stats/shmem_{alloc,fallback,fallback_charge} */
	HB_KF_LOOP,		   /* loop block devices: a swap device that is not synchronous */
	HB_KF_MEMCG_RECLAIM,	   /* memory.reclaim of cgroup v2 */
	HB_KF_FAIL_PAGE_ALLOC,	   /* debugfs fail_page_alloc: page allocations made to fail */
	HB_KF_N
};

struct hb_kf_row {
	const char *name;   /* the row's name, cited in every reason */
	const char *what;   /* the feature in words */
	int min_kver;	    /* first version, major * 1000 + minor (as hb_kver()) */
	const char *config; /* the option that gates it, or NULL */
	const char *probe;  /* a path that exists when config is on, or NULL */
	const char *ref;    /* where min_kver and config come from */
};

/* The row of f (f < HB_KF_N). */
const struct hb_kf_row *hb_kf_row(enum hb_kf f);

/* What is known of a config option. */
enum hb_kf_cfg {
	HB_KF_CFG_UNKNOWN, /* no /proc/config.gz and no probe path */
	HB_KF_CFG_ON,	   /* =y or =m in the config, or the probe path exists */
	HB_KF_CFG_OFF,	   /* "is not set" or absent from the config, or no probe path */
};

/* The option's state in the text of a kernel config (the content of
 * /proc/config.gz): ON for =y/=m, OFF for "# ... is not set" or a config that
 * does not name it; UNKNOWN when text is NULL. */
enum hb_kf_cfg hb_kf_config_in(const char *config_text, const char *option);

/* Decides whether a kernel of version kver (major * 1000 + minor) with the
 * row's option in state cfg has feature f. True: it has it. False: it does
 * not, and why (if not NULL) gets the reason, citing the row. */
bool hb_kf_decide(enum hb_kf f, int kver, enum hb_kf_cfg cfg, char *why, size_t len);

/* How an errno from a feature reads. */
enum hb_kf_verdict {
	HB_KF_OK,	   /* err == 0 on a kernel that has it */
	HB_KF_UNSUPPORTED, /* the table says the kernel lacks it (whatever err) */
	HB_KF_FAILED,	   /* err != 0 on a kernel that has it: a failed check */
};

/* The verdict on err (0 or an errno value, positive) from call (e.g.
 * "madvise(MADV_COLLAPSE)") of feature f on a kernel kver/cfg, and the text
 * for the check's observed field or the skip reason: the errno's name and
 * message, the kernel version and the row cited. */
enum hb_kf_verdict hb_kf_judge(enum hb_kf f, int kver, enum hb_kf_cfg cfg, const char *call,
			       int err, char *text, size_t len);

/* "EINVAL (Invalid argument)": an errno's name and message. */
void hb_kf_errno_text(int err, char *buf, size_t len);

/* ---- reading this machine (the guest) ------------------------------------- */

/* A kernel release's version, major * 1000 + minor ("6.12.118+deb12-cloud-
 * amd64": 6012), or -1 when it does not start with two numbers. The guest's
 * hb_kver() on uname's release; the host on a kernel it is about to boot. */
int hb_kf_kver_of(const char *release);
/* The state of f's option on the running kernel: /proc/config.gz (read once;
 * zlib), else the row's probe path, else UNKNOWN. */
enum hb_kf_cfg hb_kf_config_now(enum hb_kf f);
/* hb_kf_config_in() over a gzip'ed or plain config file (NULL path:
 * /proc/config.gz); UNKNOWN when it cannot be read. For the unit tests. */
enum hb_kf_cfg hb_kf_config_file(const char *path, const char *option);

#endif
