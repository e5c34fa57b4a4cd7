/* wl_fragment.c - huge tmpfs fault latency and huge-allocation success rate
 * while physical memory is fragmented.
 *
 * Phase "clean": a huge=always file of huge_mb is faulted one 2 MiB extent
 * at a time (each fault timed), filled and verified. Phase "fragmented":
 * first frag_pct % of MemFree (capped at frag_cap_mb, and so that the huge
 * file still fits once half the filler is punched out) is filled with
 * small-page cache -- a huge=never tmpfs file written in order -- then every
 * other 4 KiB page of it is punched out with fallocate(PUNCH_HOLE), the way
 * mmtests' thpchallenge fragments anonymous memory; then the huge file is
 * faulted again the same way.
 * Metrics per phase: fault latency per extent, success rate (huge pages
 * obtained / extents faulted, better higher), compact_stall/success/fail and
 * thp_file_alloc/fallback deltas. Checks only what is guaranteed: data
 * verifies (huge file, and the surviving pages of the fragmenting file), and
 * after cleanup Shmem and MemFree are back within memfree_tol_mb of the
 * baseline (MemFree counting the per-CPU free lists, net of memory other
 * processes took meanwhile).
 *
 * With madv=1 the huge file is madvise(MADV_HUGEPAGE)d, which under the
 * default defrag=madvise lets its faults compact directly (compact_stall);
 * without it huge faults only take free huge pages and fall back, while
 * kcompactd compacts in the background (compact_daemon_wake,
 * pgmigrate_success). proactiveness=N sets vm.compaction_proactiveness for
 * the run (0 turns proactive background compaction off; -1 leaves it):
 * where the kernel feature table says the kernel has it, a refused write is
 * a failed check; where it says not, a note citing the row (issue 25).
 *
 * Subject check subject_clean_huge_success: the clean phase got huge pages
 * (rate >= clean_min_pct; see fr_clean_subject() for the threshold). Where not,
 * the latencies and the fragmented success rate are unavailable.
 *
 * Params: huge_mb=64 frag_pct=50 frag_cap_mb=256 memfree_tol_mb=64 madv=0
 *         proactiveness=-1 clean_min_pct=50.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "wl_fragment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FR_HUGE_DIR "/mnt/hb-fragment"
#define FR_HUGE_PATH FR_HUGE_DIR "/huge"
#define FR_SMALL_DIR "/mnt/hb-fragment-small"
#define FR_SMALL_PATH FR_SMALL_DIR "/filler"
#define FR_SEED 0x66726167ULL
#define FR_CHUNK HB_MB

/*
 * The subject of this workload is the huge page a fault on a huge=always
 * file gets. On a clean system -- the clean phase runs first, before any
 * filler, in a guest whose MemFree is about 1.9 GiB of 2 GiB while the file
 * is 64 MiB (quick) or 512 MiB (full) -- free 2 MiB blocks outnumber the
 * extents at least 3 to 1, so a kernel that gives huge tmpfs pages at all
 * gets nearly every extent huge without compaction: 1.0 measured on 6.1 and
 * 6.12. clean_min_pct=50 fails a kernel that gives none (0) or few, yet
 * leaves room for a busier or smaller machine. Below it, the fault latency
 * of the clean pass does not time huge faults, and the fragmented phase has
 * no baseline: those metrics are unavailable.
 */
bool fr_clean_subject(struct hb_ctx *ctx, double rate, long min_pct, size_t n, char *why,
		      size_t why_len)
{
	char exp[96];
	bool ok = rate * 100 >= (double)min_pct;

	snprintf(exp, sizeof(exp), "clean_huge_success_rate >= %ld%% (clean_min_pct)", min_pct);
	hb_check(ctx, "subject_clean_huge_success", ok, exp, "%.1f%% of %zu extents", rate * 100, n);
	if (!ok)
		snprintf(why, why_len, "clean phase got %.1f%% of its extents huge (< %ld%%): no huge "
			 "tmpfs pages to measure", rate * 100, min_pct);
	return ok;
}

bool fr_set_proactiveness(struct hb_ctx *ctx, long v, int kver, enum hb_kf_cfg cfg,
			  int (*write_knob)(const char *path, const char *value))
{
	char val[24], why[384], call[96];
	int r;

	if (!hb_kf_decide(HB_KF_COMPACTION_PROACTIVE, kver, cfg, why, sizeof(why))) {
		hb_note(ctx, "proactiveness=%ld not applied: %s", v, why);
		return false;
	}
	snprintf(val, sizeof(val), "%ld", v);
	snprintf(call, sizeof(call), "write %s to /proc/sys/vm/compaction_proactiveness", val);
	r = write_knob("/proc/sys/vm/compaction_proactiveness", val);
	return hb_check_call_on(ctx, "compaction_proactiveness_set", HB_KF_COMPACTION_PROACTIVE,
				kver, cfg, call, r < 0 ? -r : 0);
}

/* Fault the huge file extent by extent (timed), then fill and verify it.
 * Emits <tag>_fault_latency, <tag>_huge_success_rate and counter deltas.
 * min_pct >= 0: the clean phase, whose success rate is the subject check;
 * its reason lands in why. Otherwise why (if set) makes the latency and rate
 * unavailable. */
static void fault_phase(struct hb_ctx *ctx, const char *tag, size_t size, bool madv,
			long min_pct, char *why, size_t why_len)
{
	static const char *const counters[] = {
		"compact_stall",       "compact_success",   "compact_fail",
		"compact_daemon_wake", "pgmigrate_success", "thp_file_alloc",
		"thp_file_fallback",
	};
	size_t n = size / HB_HPAGE, bad;
	double *lat = malloc(n * sizeof(*lat));
	struct hb_snap a, b;
	char name[96], partial[128];
	const char *absent;
	long long huge_kb;
	double rate;
	char *p = MAP_FAILED;
	int fd;

	if (!lat) {
		hb_error(ctx, "out of memory");
		return;
	}
	fd = hb_create_file(ctx, FR_HUGE_PATH, size);
	if (fd < 0)
		goto out;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		hb_error(ctx, "mmap " FR_HUGE_PATH);
		goto out;
	}
	if (madv && madvise(p, size, MADV_HUGEPAGE)) {
		hb_error(ctx, "madvise(MADV_HUGEPAGE)");
		goto out;
	}
	hb_snap_take(&a);
	for (size_t i = 0; i < n; i++) {
		uint64_t t0 = hb_now_ns();

		p[i * HB_HPAGE] = 1;
		lat[i] = (double)(hb_now_ns() - t0);
	}
	hb_snap_take(&b);
	hb_emit_snapshot(ctx, tag, &a, &b);
	huge_kb = hb_meminfo_delta_kb(&a, &b, "ShmemHugePages");
	rate = (double)huge_kb / (double)(size / 1024);
	absent = why[0] ? why : NULL;
	if (min_pct >= 0 && !fr_clean_subject(ctx, rate, min_pct, n, why, why_len))
		absent = why;
	/* The clean latency claims to time huge faults: only when all were. */
	if (min_pct >= 0 && !absent && huge_kb < (long long)(size / 1024)) {
		snprintf(partial, sizeof(partial), "only %lld of %zu timed clean faults got a huge "
			 "page", huge_kb / 2048, n);
		absent = partial;
	}
	snprintf(name, sizeof(name), "%s_fault_latency", tag);
	hb_metric_subject(ctx, name, "ns", HB_LOWER, lat, n, absent);
	/* The clean rate is the subject's own measure: kept as a number. */
	snprintf(name, sizeof(name), "%s_huge_success_rate", tag);
	hb_metric_subject(ctx, name, "ratio", HB_HIGHER, &rate, 1, min_pct >= 0 ? NULL : absent);
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		snprintf(name, sizeof(name), "%s_%s", tag, counters[i]);
		hb_metric1(ctx, name, "count", HB_INFO,
			   (double)hb_vmstat_delta(&a, &b, counters[i]));
	}
	hb_pattern_fill(p, size, FR_SEED, 0);
	bad = hb_pattern_verify(p, size, FR_SEED, 0);
	snprintf(name, sizeof(name), "%s_huge_file_data", tag);
	if (bad == size)
		hb_check(ctx, name, true, "every byte matches", "all %zu bytes match", size);
	else
		hb_check(ctx, name, false, "every byte matches", "first mismatch at byte %zu", bad);
out:
	if (p != MAP_FAILED)
		munmap(p, size);
	if (fd >= 0)
		close(fd);
	unlink(FR_HUGE_PATH);
	free(lat);
}

/* Write the filler in order, each 4 KiB page stamped with its index. */
static int fill_small(int fd, size_t bytes)
{
	uint64_t *buf = aligned_alloc(HB_PAGE, FR_CHUNK);

	if (!buf)
		return -ENOMEM;
	memset(buf, 0xa5, FR_CHUNK);
	for (size_t off = 0; off < bytes; off += FR_CHUNK) {
		size_t len = bytes - off < FR_CHUNK ? bytes - off : FR_CHUNK;

		for (size_t pg = 0; pg < len / HB_PAGE; pg++)
			buf[pg * (HB_PAGE / 8)] = (off / HB_PAGE + pg) | (1ULL << 63);
		if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len) {
			free(buf);
			return -errno;
		}
	}
	free(buf);
	return 0;
}

/* Odd pages keep their stamp, even pages read back as zeros (holes). */
static size_t verify_small(int fd, size_t bytes)
{
	uint64_t *buf = aligned_alloc(HB_PAGE, FR_CHUNK);
	size_t bad = bytes;

	if (!buf)
		return 0;
	for (size_t off = 0; off < bytes && bad == bytes; off += FR_CHUNK) {
		size_t len = bytes - off < FR_CHUNK ? bytes - off : FR_CHUNK;

		if (pread(fd, buf, len, (off_t)off) != (ssize_t)len) {
			bad = off;
			break;
		}
		for (size_t pg = 0; pg < len / HB_PAGE; pg++) {
			size_t idx = off / HB_PAGE + pg;
			uint64_t w = buf[pg * (HB_PAGE / 8)];
			uint64_t want = idx % 2 ? (idx | (1ULL << 63)) : 0;

			if (w != want) {
				bad = idx * HB_PAGE;
				break;
			}
		}
	}
	free(buf);
	return bad;
}

/* Free pages held in the per-CPU lists, in kB: MemFree does not count them,
 * and on a big machine they reach 100+ MiB right after a large free. */
static long long pcp_free_kb(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[256];
	long long pages = 0, v;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %lld", &v) == 1)
			pages += v;
	fclose(f);
	return pages * (long long)(HB_PAGE / 1024);
}

/* Memory this workload took came back: Shmem is at its baseline, and MemFree
 * (plus per-CPU free lists) is, once memory that others took meanwhile (anon,
 * other page cache, slab, page tables -- on a host target other processes
 * keep running) is counted. */
static void check_released(struct hb_ctx *ctx, const struct hb_snap *s0, long long pcp0,
			   long tol_mb)
{
	static const char *const others[] = { "AnonPages", "Slab", "PageTables", "KernelStack" };
	long long tol = tol_mb * 1024, shmem = 0, deficit = 0, taken = 0;
	struct hb_snap s1;

	for (int i = 0; i < 10; i++) {
		long long pcp = pcp_free_kb();

		hb_snap_take(&s1);
		shmem = hb_meminfo_delta_kb(s0, &s1, "Shmem");
		taken = hb_meminfo_delta_kb(s0, &s1, "Cached") - shmem;
		for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++)
			taken += hb_meminfo_delta_kb(s0, &s1, others[k]);
		if (taken < 0)
			taken = 0;
		deficit = -hb_meminfo_delta_kb(s0, &s1, "MemFree") - (pcp - pcp0);
		if (shmem <= tol && deficit - taken <= tol)
			break;
		usleep(100000);
	}
	hb_emit_snapshot(ctx, "after_cleanup", s0, &s1);
	hb_check(ctx, "shmem_released", shmem <= tol, "Shmem within memfree_tol_mb of baseline",
		 "%+lld kB", shmem);
	hb_check(ctx, "memfree_restored", deficit - taken <= tol,
		 "MemFree within memfree_tol_mb of baseline (after memory others took meanwhile)",
		 "MemFree+pcp %+lld kB, others took %lld kB", -deficit, taken);
}

static void fragment_run(struct hb_ctx *ctx)
{
	long huge_mb = hb_param_long(ctx, "huge_mb");
	long frag_pct = hb_param_long(ctx, "frag_pct");
	long cap_mb = hb_param_long(ctx, "frag_cap_mb");
	long tol_mb = hb_param_long(ctx, "memfree_tol_mb");
	bool madv = hb_param_bool(ctx, "madv");
	long proactive = hb_param_long(ctx, "proactiveness");
	long min_pct = hb_param_long(ctx, "clean_min_pct");
	char absent[256] = "";
	long long free0, room_kb, pcp0;
	size_t huge, frag;
	struct hb_snap s0, a, b;
	char opts[96];
	uint64_t t0;
	int fd = -1;

	if (hb_failed(ctx))
		return;
	/* the runner restores it after the workload */
	if (proactive >= 0)
		fr_set_proactiveness(ctx, proactive, hb_kver(),
				     hb_kf_config_now(HB_KF_COMPACTION_PROACTIVE), hb_write_file);
	huge = (size_t)huge_mb * HB_MB;
	pcp0 = pcp_free_kb();
	hb_snap_take(&s0);
	free0 = hb_meminfo_kb(&s0, "MemFree", NULL);
	/* Nothing here can be reclaimed without swap: the filler must fit with
	 * 64 MiB to spare, and after half of it is punched out the huge file
	 * must fit too (frag/2 + huge + 64 MiB <= MemFree). */
	frag = (size_t)(free0 * frag_pct / 100) * 1024;
	if (frag > (size_t)cap_mb * HB_MB)
		frag = (size_t)cap_mb * HB_MB;
	room_kb = free0 - 65536;
	if (2 * (free0 - (long long)(huge / 1024) - 65536) < room_kb)
		room_kb = 2 * (free0 - (long long)(huge / 1024) - 65536);
	if (room_kb <= 0 || frag / 1024 > (size_t)room_kb)
		frag = room_kb > 0 ? (size_t)room_kb * 1024 : 0;
	frag &= ~(FR_CHUNK - 1);
	if (frag < FR_CHUNK) {
		hb_skip(ctx, "MemFree %lld kB leaves no room to fragment next to a %ld MiB file",
			free0, huge_mb);
		return;
	}
	hb_metric1(ctx, "memfree_baseline", "kB", HB_INFO, (double)free0);
	hb_metric1(ctx, "fragmented_bytes", "MiB", HB_INFO, (double)(frag / HB_MB));

	if (hb_mount_huge_tmpfs(ctx, FR_HUGE_DIR, "always", huge_mb + 4))
		return;
	fault_phase(ctx, "clean", huge, madv, min_pct, absent, sizeof(absent));
	if (hb_failed(ctx))
		goto out;

	snprintf(opts, sizeof(opts), "huge=never,size=%zuk", frag / 1024 + 4096);
	if (hb_mount_tmpfs(ctx, FR_SMALL_DIR, opts))
		goto out;
	hb_snap_take(&a);
	t0 = hb_now_ns();
	fd = open(FR_SMALL_PATH, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		hb_error(ctx, "create " FR_SMALL_PATH);
		goto out;
	}
	{
		int r = fill_small(fd, frag);

		if (r) {
			hb_error_rc(ctx, r, "write %zu bytes to " FR_SMALL_PATH, frag);
			goto out;
		}
	}
	for (size_t off = 0; off < frag; off += 2 * HB_PAGE)
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			      (off_t)HB_PAGE)) {
			hb_error(ctx, "fallocate(PUNCH_HOLE) at %zu", off);
			goto out;
		}
	hb_snap_take(&b);
	hb_emit_snapshot(ctx, "fragmenting", &a, &b);
	hb_metric1(ctx, "fragment_setup_time", "ms", HB_INFO, (double)(hb_now_ns() - t0) / 1e6);

	fault_phase(ctx, "fragmented", huge, madv, -1, absent, sizeof(absent));

	{
		size_t bad = verify_small(fd, frag);

		if (bad == frag)
			hb_check(ctx, "filler_data", true, "odd pages stamped, even pages holes",
				 "all %zu pages as expected", frag / HB_PAGE);
		else
			hb_check(ctx, "filler_data", false, "odd pages stamped, even pages holes",
				 "page %zu differs", bad / HB_PAGE);
	}
out:
	if (fd >= 0)
		close(fd);
	unlink(FR_SMALL_PATH);
	unlink(FR_HUGE_PATH);
	hb_umount(FR_SMALL_DIR);
	hb_umount(FR_HUGE_DIR);
	rmdir(FR_SMALL_DIR);
	rmdir(FR_HUGE_DIR);
	if (hb_failed(ctx))
		return;
	check_released(ctx, &s0, pcp0, tol_mb);
}

static const struct hb_param fragment_params[] = {
	{ .name = "huge_mb", .type = HB_PARAM_LONG, .def = "64", .min = 2, .max = HB_MB_MAX, .mult = 2,
	  .help = "huge tmpfs file faulted in after fragmenting" },
	{ .name = "frag_pct", .type = HB_PARAM_LONG, .def = "50", .min = 1, .max = 95,
	  .help = "percent of free memory filled with small page cache" },
	{ .name = "frag_cap_mb", .type = HB_PARAM_LONG, .def = "256", .min = 1, .max = HB_MB_MAX,
	  .help = "upper bound of that page cache" },
	{ .name = "memfree_tol_mb", .type = HB_PARAM_LONG, .def = "64", .min = 0, .max = HB_MB_MAX,
	  .help = "MemFree may end this far below its start (memfree_restored)" },
	{ .name = "madv", .type = HB_PARAM_BOOL, .def = "0",
	  .help = "MADV_HUGEPAGE on the huge tmpfs mapping" },
	{ .name = "proactiveness", .type = HB_PARAM_LONG, .def = "-1", .min = -1, .max = 100,
	  .help = "vm.compaction_proactiveness for the run; -1: left as it is" },
	{ .name = "clean_min_pct", .type = HB_PARAM_LONG, .def = "50", .min = 1, .max = 100,
	  .help = "huge success rate (percent) the clean phase must reach" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_fragment = {
	.name = "fragment",
	.help = "huge tmpfs fault latency and huge success rate with memory fragmented by "
		"small page cache",
	.unsupported = hb_huge_tmpfs_probe,
	.run = fragment_run,
	.params = fragment_params,
};
