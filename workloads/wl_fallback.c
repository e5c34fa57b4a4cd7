/* wl_fallback.c - huge and large shmem allocations made to fail, and what
 * the kernel does then (issue 37, "forced fallback").
 *
 * A child process in a memory cgroup v2 maps a shmem object, reads its
 * memory.current and sets memory.max to that plus headroom_kb (512 kB):
 * below the size of the large folio the object asks for, above the small
 * pages the child then faults. It touches `touches` pages, each in its own
 * large-folio block, writing a pattern. Every large folio is allocated,
 * then its memcg charge fails (a 2 MiB or 1 MiB charge is more than
 * MEMCG_CHARGE_BATCH pages, so the per-CPU charge stock cannot serve it),
 * and shmem falls back to a small page (mm/shmem.c
 * shmem_alloc_and_add_folio(): 6.12 and 7.2 read; 6.1 shmem_add_to_page_cache()).
 *
 * Cases: charge_file_pmd (a huge=always tmpfs file: 2 MiB folios),
 * charge_memfd (a memfd: 1024 kB folios alone where per-size knobs exist,
 * kfeatures row shmem_per_size; else PMD through shmem_enabled=always), and
 * control_file_pmd: the same touches with no limit get PMD folios, so the
 * limit is what made the others fall back (subject_fallback_control).
 * Checks per case: <case>_orders (pagemap + kpageflags: `touches` order-0
 * pages under the limit; `touches` PMD folios in the control);
 * <case>_vmstat (thp_file_fallback and thp_file_fallback_charge +touches
 * exactly for a PMD folio, +0 for a smaller one); <case>_stats (where the
 * per-size stats exist: hugepages-<N>kB/stats/shmem_fallback and
 * shmem_fallback_charge +touches exactly, shmem_alloc +0 of that size);
 * <case>_data (every touched page reads back its pattern through pread);
 * <case>_child (the child was not OOM-killed: exit 0).
 *
 * Then the inject cases (fallback_inject.c): where the kernel has
 * fail_page_alloc (the debug kernels), the allocation itself fails, for
 * the PMD size alone or for every large size, with two sizes on.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "fallback.h"
#include "mthp.h"
#include "mthp_table.h"
#include "mthp_folio.h"
#include "pressure.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define FB_DIR "/mnt/hb-fallback"
#define FB_PATH FB_DIR "/data"
#define FB_SEED 0x66616c6cULL

struct fb_case {
	const char *name;
	bool memfd, limit;
	int order; /* the large folio the object asks for */
};

/* What the child saw, in memory shared with the parent. */
struct fb_out {
	long hist[MT_N_ORDERS];
	long absent;
	size_t bad; /* first bad byte of the touched pages, or SIZE_MAX */
	int err;    /* errno of a failed step, 0 */
	char step[64];
};

static void child(const struct pr *cg, int fd, size_t size, size_t block, long touches,
		  long headroom_kb, bool limit, struct fb_out *out)
{
	char pid[32], max[32];
	void *raw;
	char *at;
	long long cur;

	out->bad = SIZE_MAX;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (pr_cg_write(cg, "cgroup.procs", pid)) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "join the cgroup");
		_exit(1);
	}
	at = mt_reserve_aligned_len(size, &raw);
	if (!at || mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
			   MAP_FAILED) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "map the object");
		_exit(1);
	}
	cur = 0;
	{
		char path[256], buf[64];

		snprintf(path, sizeof(path), "%s/memory.current", cg->cg);
		if (hb_read_file(path, buf, sizeof(buf)) == 0)
			cur = atoll(buf);
	}
	if (limit) {
		snprintf(max, sizeof(max), "%lld", cur + headroom_kb * 1024);
		if (pr_cg_write(cg, "memory.max", max)) {
			out->err = errno;
			snprintf(out->step, sizeof(out->step), "write memory.max");
			_exit(1);
		}
	}
	/* one page in each block, at a different page of each */
	for (long t = 0; t < touches; t++) {
		size_t off = (size_t)t * block + ((size_t)t * 5 % (block / HB_PAGE)) * HB_PAGE;

		hb_pattern_fill(at + off, HB_PAGE, FB_SEED, off);
	}
	{
		struct mt_observed ob;

		if (mt_folio_orders(at, (size_t)touches * block, &ob) == 0) {
			memcpy(out->hist, ob.hist, sizeof(out->hist));
			out->absent = ob.absent;
		} else {
			out->err = errno;
			snprintf(out->step, sizeof(out->step), "read pagemap and kpageflags");
		}
	}
	for (long t = 0; t < touches && out->bad == SIZE_MAX; t++) {
		size_t off = (size_t)t * block + ((size_t)t * 5 % (block / HB_PAGE)) * HB_PAGE;
		char page[HB_PAGE];

		if (pread(fd, page, HB_PAGE, (off_t)off) != (ssize_t)HB_PAGE ||
		    hb_pattern_verify(page, HB_PAGE, FB_SEED, off) != HB_PAGE)
			out->bad = off;
	}
	_exit(0);
}

static void run_case(struct hb_ctx *ctx, struct pr *cg, const struct fb_case *k,
		     struct fb_out *out, bool stats)
{
	long touches = hb_param_long(ctx, "touches"), headroom = hb_param_long(ctx, "headroom_kb");
	size_t block = HB_PAGE << k->order, size = (size_t)touches * block;
	long long want = k->limit ? touches : 0, d_fb, d_fbc, s_fb, s_fbc, s_alloc;
	struct hb_snap a, b;
	struct mt_stats ma, mb;
	char cn[96], oh[128], eh[64];
	int fd, status = 0;
	pid_t pid;

	if (size < HB_HPAGE)
		size = HB_HPAGE;
	memset(out, 0, sizeof(*out));
	if (k->memfd) {
		fd = memfd_create("hb-fallback", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)size)) {
			hb_error(ctx, "%s: memfd_create + ftruncate", k->name);
			if (fd >= 0)
				close(fd);
			return;
		}
	} else {
		fd = hb_create_file(ctx, FB_PATH, size);
		if (fd < 0)
			return;
	}
	if (pr_cg_write(cg, "memory.max", "max")) {
		hb_error(ctx, "%s: memory.max=max", k->name);
		close(fd);
		return;
	}
	hb_snap(ctx, &a);
	mt_stats_read(&ma);
	pid = fork();
	if (pid == 0)
		child(cg, fd, size, block, touches, headroom, k->limit, out);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		hb_error(ctx, "%s: fork or wait the child", k->name);
		close(fd);
		return;
	}
	hb_snap(ctx, &b);
	mt_stats_read(&mb);
	hb_emit_snapshot(ctx, k->name, &a, &b);
	snprintf(cn, sizeof(cn), "%s_child", k->name);
	if (!hb_check(ctx, cn, WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the child exits 0 (no OOM kill: small pages fit under the limit)",
		      "%s %d%s%s%s", WIFSIGNALED(status) ? "signal" : "status",
		      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
		      out->step[0] ? " at: " : "", out->step, out->err ? " (errno set)" : ""))
		goto out;
	mt_hist_text(out->hist, oh, sizeof(oh));
	snprintf(eh, sizeof(eh), "%d:%ld", k->limit ? 0 : k->order, touches);
	/* the control is the subject: without the limit the same touches get
	 * large folios, so the limit is what makes the others fall back */
	snprintf(cn, sizeof(cn), k->limit ? "%s_orders" : "subject_fallback_%s", k->name);
	hb_check(ctx, cn, out->hist[k->limit ? 0 : k->order] == touches && !strchr(oh, ' '),
		 eh, "%s", oh);
	d_fb = hb_vmstat_delta(&a, &b, "thp_file_fallback");
	d_fbc = hb_vmstat_delta(&a, &b, "thp_file_fallback_charge");
	snprintf(cn, sizeof(cn), "%s_vmstat", k->name);
	{
		long long w = k->order == MT_PMD_ORDER ? want : 0;

		hb_check(ctx, cn, d_fb == w && d_fbc == w,
			 k->order == MT_PMD_ORDER ? "thp_file_fallback and _charge +touches under "
						    "the limit"
						  : "thp_file_fallback and _charge +0 (not PMD)",
			 "thp_file_fallback +%lld, thp_file_fallback_charge +%lld (want +%lld)",
			 d_fb, d_fbc, w);
	}
	if (stats) {
		s_fb = mt_stat_delta(&ma, &mb, k->order, MT_SHMEM_FALLBACK);
		s_fbc = mt_stat_delta(&ma, &mb, k->order, MT_SHMEM_FALLBACK_CHARGE);
		s_alloc = mt_stat_delta(&ma, &mb, k->order, MT_SHMEM_ALLOC);
		snprintf(cn, sizeof(cn), "%s_stats", k->name);
		hb_check(ctx, cn, s_fb == want && s_fbc == want && s_alloc == (k->limit ? 0 : touches),
			 "per-size shmem_fallback and shmem_fallback_charge +touches under the limit "
			 "(+0 without), shmem_alloc +0 under it (+touches without)",
			 "%lukB: shmem_fallback +%lld, shmem_fallback_charge +%lld, shmem_alloc +%lld",
			 (HB_PAGE << k->order) / 1024, s_fb, s_fbc, s_alloc);
	}
	snprintf(cn, sizeof(cn), "%s_data", k->name);
	if (out->bad == SIZE_MAX)
		hb_check(ctx, cn, true, "every touched page reads back its pattern", "%ld pages",
			 touches);
	else
		hb_check(ctx, cn, false, "every touched page reads back its pattern",
			 "bad page at byte %zu", out->bad);
out:
	close(fd);
	if (!k->memfd)
		unlink(FB_PATH);
}

static void fallback_run(struct hb_ctx *ctx)
{
	bool per_size = hb_kf_has(HB_KF_SHMEM_PER_SIZE, NULL, 0);
	struct fb_case cases[] = {
		{ "control_file_pmd", false, false, MT_PMD_ORDER },
		{ "charge_file_pmd", false, true, MT_PMD_ORDER },
		{ "charge_memfd", true, true, per_size ? 8 : MT_PMD_ORDER },
	};
	struct pr cg = { .ctx = ctx, .limit = 1UL << 30 };
	struct fb_out *out;
	struct mt_stats probe;
	bool stats;
	int r;

	mt_stats_read(&probe);
	stats = probe.v[MT_PMD_ORDER][MT_SHMEM_FALLBACK_CHARGE] >= 0;
	if (!stats)
		hb_note(ctx, "no hugepages-2048kB/stats/shmem_fallback_charge on this kernel: the "
			     "_stats checks are not made (per-size stats: 6.11)");
	if (!pr_find_cgroup2(cg.cg_root, sizeof(cg.cg_root))) {
		hb_skip(ctx, "no cgroup v2 mount");
		return;
	}
	if (per_size) {
		static const char *const kn[][2] = {
			{ FB_THP "/hugepages-2048kB/shmem_enabled", "never" },
			{ FB_THP "/hugepages-1024kB/shmem_enabled", "always" },
		};

		for (size_t i = 0; i < 2; i++) {
			r = hb_write_file(kn[i][0], kn[i][1]);
			if (!hb_check(ctx, "fallback_knobs", r == 0, "knob written", "%s=%s: %s",
				      kn[i][0], kn[i][1], r ? strerror(-r) : "0"))
				return;
		}
	} else if (!hb_param_given(ctx, "shmem_enabled")) {
		r = hb_write_file(FB_THP "/shmem_enabled", "always");
		if (!hb_check(ctx, "fallback_knobs", r == 0, "shmem_enabled=always accepted", "%s",
			      r ? strerror(-r) : "0"))
			return;
	}
	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED) {
		hb_error(ctx, "map the child's report");
		return;
	}
	if (hb_mount_huge_tmpfs(ctx, FB_DIR, "always", 64) || pr_cg_setup(&cg))
		goto done;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && !hb_failed(ctx); i++)
		run_case(ctx, &cg, &cases[i], out, stats);
	if (!hb_failed(ctx))
		fb_inject_part(ctx, per_size, stats);
done:
	pr_cg_teardown(&cg);
	hb_umount(FB_DIR);
	rmdir(FB_DIR);
	munmap(out, sizeof(*out));
}

static const struct hb_param fallback_params[] = {
	{ .name = "touches", .type = HB_PARAM_LONG, .def = "4", .min = 1, .max = 64,
	  .help = "pages touched, one per large-folio block" },
	{ .name = "headroom_kb", .type = HB_PARAM_LONG, .def = "512", .min = 64, .max = 960,
	  .help = "memory.max above memory.current: less than the large folio, more than the "
		  "small pages" },
	{ .name = "inject_extents", .type = HB_PARAM_LONG, .def = "4", .min = 0, .max = 32,
	  .help = "2 MiB extents of each inject case (fallback_inject.c: fail_page_alloc, the "
		  "debug kernels); 0: the inject cases are not run" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_fallback = {
	.name = "fallback",
	.help = "huge and large shmem allocations fail their memcg charge, or (fail_page_alloc) "
		"the allocation itself: fallback counters, orders and data",
	.unsupported = hb_huge_tmpfs_probe,
	.run = fallback_run,
	.params = fallback_params,
};
