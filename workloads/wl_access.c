/* wl_access.c - access cost over a large region of huge tmpfs versus
 * small-page tmpfs: what a huge mapping buys once the memory is faulted in.
 *
 * For each mount (huge=always, huge=never) a file of size_mb is mapped
 * MAP_SHARED and populated. Then, each pass timed:
 *  - seq:  read one 8-byte word per 64-byte line, in address order;
 *  - rand: pointer-chase a random single cycle through every 4 KiB page
 *          (Sattolo's shuffle; each hop is a dependent load, so TLB misses
 *          show up as latency).
 * Metrics are ns per access, plus dTLB load misses and page-walk cycles per
 * access through perf_event_open where a PMU exists. Whether one exists is a
 * fact, not an errno (issue 25): the kernel has perf events (kfeatures row
 * perf_events) and a core PMU is registered (/sys/bus/event_source/devices/
 * cpu; none under TCG). Without one those metrics are unavailable with that
 * fact as the reason -- never zero; with one, a counter that cannot be
 * opened is the failed check pmu_<counter> naming the errno. Checks: the huge
 * mapping really is PMD-mapped (ShmemPmdMapped grows by size) and the small
 * one is not. Subject check subject_huge_PmdMapped (a huge page per extent,
 * present and PMD-mapped): where it fails, the huge metrics are unavailable,
 * not numbers.
 *
 * Params: size_mb=64 passes=3 rand_hops=0 (0 = 4 hops per page).
 */
#define _GNU_SOURCE
#include "sysinfo.h"
#include "hb.h"
#include "wl_access.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct acc_mode {
	const char *tag;
	const char *opts;
	bool huge;
};

static const struct acc_mode modes[] = {
	{ "huge", "huge=always", true },
	{ "small", "huge=never", false },
};

/* One hardware counter: an fd, or the reason it could not be opened. */
struct acc_counter {
	const char *name; /* metric name prefix */
	int fd;
	char why[192];
};

static int perf_open(struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
}

const char *acc_no_pmu(char *buf, size_t len)
{
	if (!hb_kf_has(HB_KF_PERF_EVENTS, buf, len))
		return buf;
	/* a core PMU registers as "cpu" (or cpu_core/cpu_atom on hybrid Intel) */
	if (access("/sys/bus/event_source/devices/cpu", F_OK) &&
	    access("/sys/bus/event_source/devices/cpu_core", F_OK)) {
		snprintf(buf, len, "no hardware PMU: /sys/bus/event_source/devices/cpu absent "
			 "(the kernel registered no core PMU: TCG, or a VM without PMU)");
		return buf;
	}
	return NULL;
}

bool acc_counter_judge(struct hb_ctx *ctx, const char *counter, const char *what,
		       const char *no_pmu_why, int err, char *why, size_t len)
{
	char name[96], call[160], e[96];

	if (no_pmu_why) {
		snprintf(why, len, "%s", no_pmu_why);
		return false;
	}
	snprintf(name, sizeof(name), "pmu_%s", counter);
	snprintf(call, sizeof(call), "perf_event_open(%s)", what);
	hb_kf_errno_text(err, e, sizeof(e));
	if (!err) {
		hb_check(ctx, name, true, "the counter opens (this machine has a PMU)", "%s: 0", call);
		return true;
	}
	snprintf(why, len, "%s failed: %s", call, e);
	hb_check(ctx, name, false, "the counter opens (this machine has a PMU)", "%s: %s", call, e);
	return false;
}

static void counter_open(struct hb_ctx *ctx, struct acc_counter *c, struct perf_event_attr *a,
			 const char *what, const char *no_pmu_why)
{
	int err;

	c->fd = no_pmu_why ? -1 : perf_open(a);
	err = c->fd < 0 && !no_pmu_why ? errno : 0;
	if (!acc_counter_judge(ctx, c->name, what, no_pmu_why, err, c->why, sizeof(c->why)) &&
	    c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
}

static void counters_open(struct hb_ctx *ctx, struct acc_counter *tlb, struct acc_counter *walk)
{
	struct perf_event_attr a = { 0 };
	char vendor[64] = "", nopmu[384];
	const char *no_pmu = acc_no_pmu(nopmu, sizeof(nopmu));
	char *cpuinfo;

	tlb->name = "dtlb_load_misses";
	walk->name = "page_walk_cycles";
	a.type = PERF_TYPE_HW_CACHE;
	a.config = PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		   (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	counter_open(ctx, tlb, &a, "PERF_TYPE_HW_CACHE dTLB read miss", no_pmu);

	walk->fd = -1;
	cpuinfo = hb_slurp("/proc/cpuinfo", NULL);
	hb_cpuinfo_field(cpuinfo, "vendor_id", vendor, sizeof(vendor));
	free(cpuinfo);
	if (strcmp(vendor, "GenuineIntel") == 0) {
		/* DTLB_LOAD_MISSES.WALK_DURATION (Haswell) / .WALK_PENDING
		 * (Skylake on): event 0x08, umask 0x10 -- cycles a load page
		 * walk is in progress. */
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_RAW;
		a.config = 0x1008;
		counter_open(ctx, walk, &a, "PERF_TYPE_RAW 0x1008 DTLB_LOAD_MISSES.WALK_*", no_pmu);
	} else {
		/* a fact of the CPU: no event of that kind is known here */
		snprintf(walk->why, sizeof(walk->why),
			 "no page-walk-cycles event known for CPU vendor '%s'", vendor);
	}
}

static void counter_start(struct acc_counter *c)
{
	if (c->fd >= 0) {
		ioctl(c->fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(c->fd, PERF_EVENT_IOC_ENABLE, 0);
	}
}

static double counter_stop(struct acc_counter *c)
{
	uint64_t v = 0;

	if (c->fd < 0)
		return 0;
	ioctl(c->fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(c->fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return (double)v;
}

static void counter_emit(struct hb_ctx *ctx, const struct acc_counter *c, const char *pattern,
			 const char *tag, const double *per_access, size_t n, const char *absent_why)
{
	char name[96];

	snprintf(name, sizeof(name), "%s_%s_%s", c->name, pattern, tag);
	if (c->fd < 0)
		hb_metric_unavailable(ctx, name, "per_access", HB_LOWER, c->why);
	else
		hb_metric_subject(ctx, name, "per_access", HB_LOWER, per_access, n, absent_why);
}

static volatile uint64_t acc_sink; /* keeps the sequential loop alive */

/* xorshift64*: fast, deterministic. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* Link every page into one random cycle; the node of page i sits at a
 * varying line inside the page so the chase does not hammer one cache set.
 * Returns the offset of the first node. */
static size_t build_chase(char *p, size_t size)
{
	size_t pages = size / HB_PAGE;
	uint32_t *perm = malloc(pages * sizeof(*perm));
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	if (!perm)
		return (size_t)-1;
	for (size_t i = 0; i < pages; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = pages - 1; i > 0; i--) { /* Sattolo: one cycle */
		size_t j = rnd(&seed) % i;
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	/* perm is a cyclic permutation: page k links to page perm[k]. */
	for (size_t k = 0; k < pages; k++) {
		size_t from = k * HB_PAGE + (k % 63) * 64;
		size_t to = (size_t)perm[k] * HB_PAGE + ((size_t)perm[k] % 63) * 64;

		*(size_t *)(p + from) = to;
	}
	free(perm);
	return 0; /* page 0's node is at offset 0 */
}

bool acc_subject(struct hb_ctx *ctx, const struct hb_snap *a, const struct hb_snap *b,
		 size_t size, char *why, size_t len)
{
	return hb_check_pmd_subject(ctx, "subject_huge_PmdMapped", a, b, size, why, len);
}

static void one_mode(struct hb_ctx *ctx, const struct acc_mode *m, size_t size, int passes,
		     size_t hops, struct acc_counter *tlb, struct acc_counter *walk)
{
	double *ns = calloc((size_t)passes, sizeof(double));
	double *tlb_pa = calloc((size_t)passes, sizeof(double));
	double *walk_pa = calloc((size_t)passes, sizeof(double));
	char dir[64], path[96], name[96], absent[256];
	const char *absent_why = NULL;
	struct hb_snap a, b;
	char *p = MAP_FAILED;
	int fd = -1;

	snprintf(dir, sizeof(dir), "/mnt/hb-access-%s", m->tag);
	snprintf(path, sizeof(path), "%s/data", dir);
	if (!ns || !tlb_pa || !walk_pa) {
		hb_error(ctx, "out of memory");
		goto out_free;
	}
	if (hb_mount_tmpfs(ctx, dir, m->opts))
		goto out_free;
	fd = hb_create_file(ctx, path, size);
	if (fd < 0)
		goto out;
	hb_snap_take(&a);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		hb_error(ctx, "mmap %s", path);
		goto out;
	}
	memset(p, 0, size);
	if (build_chase(p, size) == (size_t)-1) {
		hb_error(ctx, "out of memory for the chase permutation");
		goto out;
	}
	hb_snap_take(&b);
	hb_emit_snapshot(ctx, m->tag, &a, &b);
	/* What the huge passes measure is access through PMD-mapped huge
	 * pages; without them the numbers are small-page numbers. */
	if (m->huge && !acc_subject(ctx, &a, &b, size, absent, sizeof(absent)))
		absent_why = absent;
	snprintf(name, sizeof(name), "%s_ShmemPmdMapped_delta_kb", m->tag);
	hb_check_eq(ctx, name, m->huge ? (long long)(size / 1024) : 0,
		    hb_meminfo_delta_kb(&a, &b, "ShmemPmdMapped"));
	if (!m->huge)
		hb_check_eq(ctx, "small_ShmemHugePages_delta_kb", 0,
			    hb_meminfo_delta_kb(&a, &b, "ShmemHugePages"));

	/* Sequential: one word per cache line. */
	for (int r = 0; r < passes; r++) {
		const volatile uint64_t *w = (const uint64_t *)p;
		size_t n = size / 64;
		uint64_t sum = 0, t0;

		counter_start(tlb);
		counter_start(walk);
		t0 = hb_now_ns();
		for (size_t i = 0; i < n; i++)
			sum += w[i * 8];
		ns[r] = (double)(hb_now_ns() - t0) / (double)n;
		tlb_pa[r] = counter_stop(tlb) / (double)n;
		walk_pa[r] = counter_stop(walk) / (double)n;
		acc_sink = sum;
	}
	snprintf(name, sizeof(name), "seq_ns_per_access_%s", m->tag);
	hb_metric_subject(ctx, name, "ns", HB_LOWER, ns, (size_t)passes, absent_why);
	counter_emit(ctx, tlb, "seq", m->tag, tlb_pa, (size_t)passes, absent_why);
	counter_emit(ctx, walk, "seq", m->tag, walk_pa, (size_t)passes, absent_why);

	/* Random: dependent loads through the page cycle, after one untimed
	 * warm-up pass. */
	for (int r = -1; r < passes; r++) {
		size_t off = 0;
		uint64_t t0;

		if (r < 0) {
			for (size_t i = 0; i < hops; i++)
				off = *(volatile size_t *)(p + off);
			continue;
		}

		counter_start(tlb);
		counter_start(walk);
		t0 = hb_now_ns();
		for (size_t i = 0; i < hops; i++)
			off = *(volatile size_t *)(p + off);
		ns[r] = (double)(hb_now_ns() - t0) / (double)hops;
		tlb_pa[r] = counter_stop(tlb) / (double)hops;
		walk_pa[r] = counter_stop(walk) / (double)hops;
		if (off >= size)
			hb_error(ctx, "pointer chase left the region (offset %zu)", off);
	}
	snprintf(name, sizeof(name), "rand_ns_per_access_%s", m->tag);
	hb_metric_subject(ctx, name, "ns", HB_LOWER, ns, (size_t)passes, absent_why);
	counter_emit(ctx, tlb, "rand", m->tag, tlb_pa, (size_t)passes, absent_why);
	counter_emit(ctx, walk, "rand", m->tag, walk_pa, (size_t)passes, absent_why);
out:
	if (p != MAP_FAILED)
		munmap(p, size);
	if (fd >= 0)
		close(fd);
	unlink(path);
	hb_umount(dir);
	rmdir(dir);
out_free:
	free(ns);
	free(tlb_pa);
	free(walk_pa);
}

static void access_run(struct hb_ctx *ctx)
{
	size_t size = (size_t)hb_param_long(ctx, "size_mb") * HB_MB;
	long passes = hb_param_long(ctx, "passes");
	long hops = hb_param_long(ctx, "rand_hops");
	struct acc_counter tlb, walk;

	if (hops == 0)
		hops = (long)(4 * (size / HB_PAGE));
	counters_open(ctx, &tlb, &walk);
	if (tlb.fd < 0)
		hb_note(ctx, "%s", tlb.why);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]) && !hb_failed(ctx); i++)
		one_mode(ctx, &modes[i], size, (int)passes, (size_t)hops, &tlb, &walk);
	if (tlb.fd >= 0)
		close(tlb.fd);
	if (walk.fd >= 0)
		close(walk.fd);
}

static const struct hb_param access_params[] = {
	HB_PARAM_SIZE_MB("64", 2, HB_MB_MAX, "file size accessed, per tmpfs mode"),
	{ .name = "passes", .type = HB_PARAM_LONG, .def = "3", .min = 1, .max = 1000,
	  .help = "sequential and random passes (samples) per mode" },
	{ .name = "rand_hops", .type = HB_PARAM_LONG, .def = "0", .min = 0, .max = 1000000000,
	  .help = "pointer-chase hops per random pass; 0: four per 4 KiB page" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_access = {
	.name = "access",
	.help = "seq/random access ns and dTLB misses, huge=always vs huge=never tmpfs",
	.unsupported = hb_huge_tmpfs_probe,
	.run = access_run,
	.params = access_params,
};
