/* wl_swapacct.c - shmem accounting exact across swap-out and swap-in, and
 * fallocate meeting swap under a memory cgroup (issue 37, item 3).
 *
 * Part pmd: a file of `extents` 2 MiB folios on a huge=always tmpfs mount,
 * swapped out with MADV_PAGEOUT to the swap of the race workload (brd where
 * the kernel has it: swap-in through the swap cache before 6.11; zram otherwise), then
 * read back. After the fill, after the swap-out and after the swap-in the
 * folios are read from pagemap + kpageflags and the counters must agree with
 * them exactly: ShmemHugePages - baseline == 2048 kB x the PMD folios seen
 * (<step>_ShmemHugePages_kb), Shmem - baseline == 4 kB x the pages present
 * (<step>_Shmem_kb). At the swap-out every folio leaves whole or split
 * (thp_swpout + thp_swpout_fallback == extents, pswpout + zswpout == all
 * its pages: pmd_swapout); hugepages-2048kB/stats/swpout moves with
 * thp_swpout, and swpin by the PMD folios that came back (pmd_swpin).
 * pmd_data: every byte after the swap-in.
 *
 * Part falloc: a child in a memory cgroup of memory.high limit_mb (not
 * memory.max: with max, 7.2 OOM-kills the child, measured), swap on,
 * fallocate()s falloc_mb (more than the limit) of a huge=always file. The
 * folios being fallocated cannot be swapped (shmem_writeout() redirties a
 * !uptodate folio inside the range and adds its pages to nr_unswapped) and
 * shmem_fallocate() gives up with ENOMEM once nr_unswapped passes the pages
 * fallocated (mm/shmem.c, 7.2 read). Measured on 7.2, the bail-out is not
 * reached here: fallocate returns 0. Checks: falloc_no_oom_kill (the child
 * returns by itself, memory.events oom_kill +0), falloc_result (0 or
 * ENOMEM), falloc_blocks (all blocks after 0, none after ENOMEM: the folios
 * it added removed). Metric falloc_time.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "mthp.h"
#include "mthp_folio.h"
#include "race.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define SA_DIR "/mnt/hb-swapacct"
#define SA_PATH SA_DIR "/data"
#define SA_SEED 0x73776170ULL

struct sa_base {
	long long huge_kb, shmem_kb;
};

static void hist_text(const long *h, long absent, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int o = MT_N_ORDERS - 1; o >= 0 && n < len; o--)
		if (h[o])
			n += (size_t)snprintf(buf + n, len - n, "%s%d:%ld", n ? " " : "", o, h[o]);
	if (absent && n < len)
		snprintf(buf + n, len - n, "%sabsent %ld", n ? " " : "", absent);
}

/* The counters against the folios seen at one step. */
static bool agree(struct hb_ctx *ctx, const char *step, const struct sa_base *base,
		  const struct hb_snap *s, const struct mt_observed *ob)
{
	long long huge = hb_meminfo_kb(s, "ShmemHugePages", NULL) - base->huge_kb;
	long long shmem = hb_meminfo_kb(s, "Shmem", NULL) - base->shmem_kb;
	long long present = 0;
	char cn[64], oh[128];
	bool ok;

	for (int o = 0; o < MT_N_ORDERS; o++)
		present += ob->hist[o] << o;
	hist_text(ob->hist, ob->absent, oh, sizeof(oh));
	snprintf(cn, sizeof(cn), "%s_ShmemHugePages_kb", step);
	ok = hb_check(ctx, cn, huge == 2048LL * ob->hist[MT_PMD_ORDER],
		      "2048 kB x the PMD folios seen", "%+lld kB; folios %s", huge, oh);
	snprintf(cn, sizeof(cn), "%s_Shmem_kb", step);
	ok &= hb_check(ctx, cn, shmem == 4 * present, "4 kB x the pages present",
		       "%+lld kB, %lld pages present; folios %s", shmem, present, oh);
	return ok;
}

static void part_pmd(struct hb_ctx *ctx, long extents)
{
	size_t size = (size_t)extents * HB_HPAGE;
	struct hb_snap s0, s1, s2, s3;
	struct mt_stats m1, m2, m3;
	struct mt_observed ob;
	struct sa_base base;
	void *raw = NULL;
	char *at;
	size_t bad;
	int fd;

	hb_snap(ctx, &s0);
	base.huge_kb = hb_meminfo_kb(&s0, "ShmemHugePages", NULL);
	base.shmem_kb = hb_meminfo_kb(&s0, "Shmem", NULL);
	fd = hb_create_file(ctx, SA_PATH, size);
	if (fd < 0)
		return;
	at = mt_reserve_aligned_len(size, &raw);
	if (!at || mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
			   MAP_FAILED) {
		hb_error(ctx, "map %s", SA_PATH);
		goto out;
	}
	hb_pattern_fill(at, size, SA_SEED, 0);
	if (mt_folio_orders(at, size, &ob)) {
		hb_error(ctx, "read pagemap and kpageflags");
		goto out;
	}
	hb_snap(ctx, &s1);
	mt_stats_read(&m1);
	agree(ctx, "pmd_fill", &base, &s1, &ob);
	if (!hb_check(ctx, "subject_pmd_fill", ob.hist[MT_PMD_ORDER] == extents,
		      "one PMD folio per 2 MiB", "%ld of %ld", ob.hist[MT_PMD_ORDER], extents))
		goto out;
	if (madvise(at, size, MADV_PAGEOUT)) {
		hb_error(ctx, "madvise(MADV_PAGEOUT)");
		goto out;
	}
	if (mt_folio_orders(at, size, &ob)) {
		hb_error(ctx, "read pagemap and kpageflags");
		goto out;
	}
	hb_snap(ctx, &s2);
	mt_stats_read(&m2);
	hb_emit_snapshot(ctx, "pmd_swapout", &s1, &s2);
	agree(ctx, "pmd_swapout", &base, &s2, &ob);
	{
		long long whole = hb_vmstat_delta(&s1, &s2, "thp_swpout");
		long long fb = hb_vmstat_delta(&s1, &s2, "thp_swpout_fallback");
		long long pages = hb_vmstat_delta(&s1, &s2, "pswpout") +
				  hb_vmstat_delta(&s1, &s2, "zswpout");
		long long ps = mt_stat_delta(&m1, &m2, MT_PMD_ORDER, MT_SWPOUT);
		/* before 6.12 ("mm: shmem: support large folio swap out") shmem
		 * splits every huge folio before swap: thp_split_page counts it */
		long long split = hb_kver() < 6012 ? hb_vmstat_delta(&s1, &s2, "thp_split_page") : 0;

		hb_check(ctx, "pmd_swapout",
			 whole + fb + split == extents && pages == extents * 512 &&
				 (m2.v[MT_PMD_ORDER][MT_SWPOUT] < 0 || ps == whole),
			 "every folio out, whole or split (thp_swpout + thp_swpout_fallback, "
			 "before 6.12 + thp_split_page, == extents), every page (pswpout + "
			 "zswpout), 2048kB swpout == thp_swpout",
			 "thp_swpout +%lld, thp_swpout_fallback +%lld, split before 6.12 +%lld, "
			 "pages +%lld, 2048kB swpout +%lld (of %ld extents)", whole, fb, split, pages,
			 ps, extents);
	}
	bad = hb_pattern_verify(at, size, SA_SEED, 0);
	if (mt_folio_orders(at, size, &ob)) {
		hb_error(ctx, "read pagemap and kpageflags");
		goto out;
	}
	hb_snap(ctx, &s3);
	mt_stats_read(&m3);
	hb_emit_snapshot(ctx, "pmd_swapin", &s2, &s3);
	agree(ctx, "pmd_swapin", &base, &s3, &ob);
	if (m3.v[MT_PMD_ORDER][MT_SWPIN] >= 0) {
		long long in = mt_stat_delta(&m2, &m3, MT_PMD_ORDER, MT_SWPIN);

		hb_check(ctx, "pmd_swpin", in == ob.hist[MT_PMD_ORDER],
			 "hugepages-2048kB/stats/swpin + the PMD folios that came back",
			 "swpin +%lld, swpin_fallback +%lld, PMD folios back %ld", in,
			 mt_stat_delta(&m2, &m3, MT_PMD_ORDER, MT_SWPIN_FALLBACK),
			 ob.hist[MT_PMD_ORDER]);
	}
	hb_check(ctx, "pmd_data", bad == size, "every byte back", "%s %zu",
		 bad == size ? "all bytes:" : "first bad byte at", bad);
	hb_metric1(ctx, "pmd_swapin_pmd_folios", "folios", HB_INFO, (double)ob.hist[MT_PMD_ORDER]);
out:
	if (raw)
		munmap(raw, size + HB_HPAGE);
	close(fd);
	unlink(SA_PATH);
}

static void part_falloc(struct hb_ctx *ctx, long limit_mb, long falloc_mb)
{
	struct pr cg = { .ctx = ctx, .limit = (size_t)limit_mb * HB_MB };
	int *res = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long long oom0, oom1;
	struct stat st;
	int fd = -1, status = 0;
	uint64_t t0;
	pid_t pid;

	if (res == MAP_FAILED) {
		hb_error(ctx, "map the child's answer");
		return;
	}
	res[0] = -1;
	if (!pr_find_cgroup2(cg.cg_root, sizeof(cg.cg_root))) {
		hb_note(ctx, "falloc part not run: no cgroup v2 mount");
		goto out;
	}
	if (pr_cg_setup(&cg))
		goto out;
	{ /* memory.high, not max: reclaim in the charge path, no OOM kill */
		char v[32];

		snprintf(v, sizeof(v), "%zu", cg.limit);
		if (pr_cg_write(&cg, "memory.max", "max") || pr_cg_write(&cg, "memory.high", v)) {
			hb_error(ctx, "memory.max=max, memory.high=%s", v);
			goto out;
		}
	}
	fd = hb_create_file(ctx, SA_PATH, 0);
	if (fd < 0)
		goto out;
	oom0 = pr_cg_key(&cg, "memory.events", "oom_kill");
	t0 = hb_now_ns();
	pid = fork();
	if (pid == 0) {
		char me[32];

		snprintf(me, sizeof(me), "%d", (int)getpid());
		if (pr_cg_write(&cg, "cgroup.procs", me))
			_exit(2);
		res[0] = fallocate(fd, 0, 0, (off_t)falloc_mb * (off_t)HB_MB) ? errno : 0;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		hb_error(ctx, "fork or wait the fallocate child");
		goto out;
	}
	hb_metric1(ctx, "falloc_time", "s", HB_LOWER, (double)(hb_now_ns() - t0) / 1e9);
	oom1 = pr_cg_key(&cg, "memory.events", "oom_kill");
	hb_check(ctx, "falloc_no_oom_kill",
		 WIFEXITED(status) && WEXITSTATUS(status) == 0 && oom1 == oom0,
		 "the child returns from fallocate by itself, memory.events oom_kill +0",
		 "%s %d, oom_kill +%lld", WIFSIGNALED(status) ? "signal" : "status",
		 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), oom1 - oom0);
	hb_note(ctx, "fallocate of %ld MiB under memory.high %ld MiB with swap: %s", falloc_mb,
		limit_mb, res[0] < 0 ? "(no answer)" : res[0] ? strerror(res[0]) : "0 (all allocated)");
	hb_check(ctx, "falloc_result", res[0] == 0 || res[0] == ENOMEM,
		 "0, or ENOMEM (shmem_fallocate()'s nr_unswapped bail-out)", "%s",
		 res[0] < 0 ? "(no answer)" : res[0] ? strerror(res[0]) : "0");
	if (fstat(fd, &st) == 0) {
		long long want = res[0] == 0 ? falloc_mb * 2048LL : 0;

		hb_check(ctx, "falloc_blocks", st.st_blocks == want,
			 "all of it allocated after 0 (st_blocks 2048 per MiB), none after ENOMEM "
			 "(the folios it added removed)",
			 "st_blocks %lld, want %lld", (long long)st.st_blocks, want);
	}
out:
	if (fd >= 0)
		close(fd);
	unlink(SA_PATH);
	pr_cg_teardown(&cg);
	munmap(res, 4096);
}

static void swapacct_run(struct hb_ctx *ctx)
{
	long extents = hb_param_long(ctx, "extents");
	long limit = hb_param_long(ctx, "limit_mb"), falloc = hb_param_long(ctx, "falloc_mb");
	struct race_swap sw = { .kind = "none" };

	if (falloc <= limit) {
		errno = 0;
		hb_error(ctx, "falloc_mb=%ld must be more than limit_mb=%ld", falloc, limit);
		return;
	}
	if (hb_mount_huge_tmpfs(ctx, SA_DIR, "always", falloc + 2 * extents + 16))
		return;
	if (race_swap_setup(ctx, &sw, (size_t)(2 * extents + falloc + 16) * HB_MB,
			    hb_param_str(ctx, "swap")) ||
	    hb_failed(ctx))
		goto out;
	if (!sw.on) {
		hb_skip(ctx, "no swap device (swap=%s)", hb_param_str(ctx, "swap"));
		goto out;
	}
	hb_note(ctx, "swap: %s", sw.kind);
	/* khugepaged asleep: on 6.12 the read back swaps in small pages (brd,
	 * through readahead) and khugepaged collapsed them under the reader
	 * (paths.suite 2026-12-06: thp_collapse_alloc +4, every page unmapped,
	 * pmd_swapin_* failed); the runner restores its knobs */
	mt_khugepaged_pause();
	part_pmd(ctx, extents);
	if (!hb_failed(ctx))
		part_falloc(ctx, limit, falloc);
out:
	race_swap_teardown(&sw);
	hb_umount(SA_DIR);
	rmdir(SA_DIR);
}

static const struct hb_param swapacct_params[] = {
	{ .name = "extents", .type = HB_PARAM_LONG, .def = "4", .min = 1, .max = 64,
	  .help = "2 MiB folios swapped out and in" },
	{ .name = "limit_mb", .type = HB_PARAM_LONG, .def = "32", .min = 8, .max = 1024,
	  .help = "memory.max of the fallocate child" },
	{ .name = "falloc_mb", .type = HB_PARAM_LONG, .def = "96", .min = 16, .max = 2048,
	  .mult = 2, .help = "bytes fallocated, more than limit_mb" },
	{ .name = "swap", .type = HB_PARAM_ENUM, .def = "auto", .choices = "auto|brd|zram",
	  .help = "swap device: auto is brd where the kernel has it, else zram" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_swapacct = {
	.name = "swapacct",
	.help = "ShmemHugePages and Shmem exact against the folios seen across swap-out and "
		"swap-in; fallocate beyond a memcg limit with swap",
	.unsupported = hb_huge_tmpfs_probe,
	.run = swapacct_run,
	.params = swapacct_params,
};
