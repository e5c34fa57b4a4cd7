/* mthp_paths_io.c - the mthp-paths parts that split and swap (mthp_paths.h).
 *
 * Part split_failed: a large shmem folio with one page pinned by vmsplice()
 * into a pipe (a page reference the split cannot account for) is split
 * through /sys/kernel/debug/split_huge_pages in its file form, which calls
 * the split on every large folio (the pid form skips a folio whose
 * refcount is off before trying: 7.2 mm/huge_memory.c:4779-4781). The split
 * sees the extra reference and fails with -EAGAIN (7.2 __folio_split(),
 * mm/huge_memory.c:4175-4177; 6.12 can_split_folio(), :3649-3651), and
 * counts it: hugepages-<N>kB/stats/split_failed +1 and, for a PMD folio,
 * thp_split_page_failed +1 (7.2 mm/huge_memory.c:4257-4259, 6.12
 * :3735-3737). Two objects: a 4 MiB file on a huge=always mount (two PMD
 * folios, the second pinned) and a 2 MiB memfd of folios of each of
 * sizes_kb (the fourth pinned), split to order 0. The other folios split
 * (split +1 each); after the pipe is read and closed the same request
 * splits the pinned one too, split_failed +0.
 *
 * Part readahead: a 2 MiB memfd of readahead_kb folios written (by a child
 * in a memory cgroup of its own, so the folios are charged there), paged
 * out with MADV_PAGEOUT, read back page by page in order; per swap device:
 *   loop        swap on a loop device over a ramfs file. loop is not
 *               BLK_FEAT_SYNCHRONOUS (kfeatures row loop), so the pages out
 *               stay in the swap cache until writeback ends and reclaim
 *               comes back: memory.reclaim of the cgroup frees them, and
 *               the read goes through shmem_swapin_cluster() ->
 *               swap_cluster_readahead(), which reads order-0 folios only
 *               ("Cached swapin only supports order 0 folio", 7.2
 *               mm/shmem.c:2291-2294) and splits the large swap entries
 *               (shmem_split_large_entry(), :2311-2322);
 *   loop_cached the same without the reclaim: the large folios are still in
 *               the swap cache and come back whole without I/O;
 *   zram        synchronous: 7.2 swaps a large entry in whole
 *               (shmem_swap_alloc_folio(), :2287-2290); 6.12 reads every
 *               device through swap_cluster_readahead() at order 0.
 * Expectations: mp_expect_readahead().
 */
#define _GNU_SOURCE
#include "host_state.h"
#include "mthp.h"
#include "mthp_paths.h"
#include "pressure.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define DEBUGFS "/sys/kernel/debug"
#define SPLIT_KNOB DEBUGFS "/split_huge_pages"

/* ---- split_failed ------------------------------------------------------------ */

struct mp_split_counts {
	long long split, failed;	    /* hugepages-<N>kB/stats of the order */
	long long thp_split, thp_failed; /* /proc/vmstat */
};

static void split_counts(int order, struct mp_split_counts *c)
{
	struct mt_stats s;
	struct hb_snap v;

	mt_stats_read(&s);
	hb_snap_take(&v);
	c->split = s.v[order][MT_SPLIT];
	c->failed = s.v[order][MT_SPLIT_FAILED];
	c->thp_split = hb_vmstat(&v, "thp_split_page", NULL);
	c->thp_failed = hb_vmstat(&v, "thp_split_page_failed", NULL);
}

/* One split request over the whole object to order 0, and its judgement:
 * <name>_<step>_write, _counts (split and split_failed of the size, the
 * global pair for PMD, all exact), _orders, _data. */
static bool split_step(struct hb_ctx *ctx, const char *name, const char *step, const char *cmd,
		       int order, long pages_in_obj, long want_split, long want_failed,
		       const long want_hist[MT_N_ORDERS], const char *at, uint64_t seed)
{
	struct mp_split_counts a, b;
	struct mt_observed ob;
	char cn[96], e[96], exp[256], oh[128], eh[128];
	bool pmd = order == MT_PMD_ORDER, ok;
	size_t bad, len = (size_t)pages_in_obj * HB_PAGE;
	int r;

	split_counts(order, &a);
	r = hb_write_file(SPLIT_KNOB, cmd);
	split_counts(order, &b);
	snprintf(cn, sizeof(cn), "%s_%s_write", name, step);
	hb_kf_errno_text(-r, e, sizeof(e));
	if (!hb_check(ctx, cn, r == 0, "the split request accepted", "write '%s': %s", cmd,
		      r ? e : "0"))
		return false;
	snprintf(cn, sizeof(cn), "%s_%s_counts", name, step);
	snprintf(exp, sizeof(exp), "split +%ld, split_failed +%ld%s", want_split, want_failed,
		 pmd ? "; thp_split_page and thp_split_page_failed the same"
		     : "; thp_split_page and thp_split_page_failed +0 (PMD order only)");
	ok = hb_check(ctx, cn,
		      a.failed >= 0 && b.split - a.split == want_split &&
			      b.failed - a.failed == want_failed &&
			      b.thp_split - a.thp_split == (pmd ? want_split : 0) &&
			      b.thp_failed - a.thp_failed == (pmd ? want_failed : 0),
		      exp, "split +%lld, split_failed %s%lld; thp_split_page +%lld, "
		      "thp_split_page_failed +%lld", b.split - a.split,
		      a.failed < 0 ? "(no file) " : "+", b.failed - a.failed,
		      b.thp_split - a.thp_split, b.thp_failed - a.thp_failed);
	/* the split pages are PTE-mapped again at the next touch */
	for (size_t off = 0; off < len; off += HB_PAGE)
		(void)*(volatile const char *)(at + off);
	if (mt_folio_orders(at, len, &ob)) {
		hb_error(ctx, "read /proc/self/pagemap and /proc/kpageflags");
		return false;
	}
	mt_hist_text(want_hist, eh, sizeof(eh));
	mp_hist_text(&ob, oh, sizeof(oh));
	snprintf(cn, sizeof(cn), "%s_%s_orders", name, step);
	ok &= hb_check(ctx, cn, !memcmp(ob.hist, want_hist, sizeof(ob.hist)) && !ob.absent, eh,
		       "%s", oh);
	bad = hb_pattern_verify(at, len, seed, 0);
	snprintf(cn, sizeof(cn), "%s_%s_data", name, step);
	ok &= hb_check(ctx, cn, bad == len, "every byte as written", "%s %zu",
		       bad == len ? "all bytes:" : "first bad byte at", bad);
	return ok;
}

/* order MT_PMD_ORDER: a 4 MiB file on a huge=always mount; else a 2 MiB
 * memfd of order-`order` folios. */
void mp_split_failed_part(struct hb_ctx *ctx, int order)
{
	const bool pmd = order == MT_PMD_ORDER;
	const size_t fsz = HB_PAGE << order, len = pmd ? 2 * HB_HPAGE : MP_OBJ;
	const long folios = (long)(len / fsz), pages = (long)(len / HB_PAGE);
	const size_t pin_folio = pmd ? 1 : 3, pin_off = pin_folio * fsz + HB_PAGE;
	const uint64_t seed = 0x73706c00ULL + (uint64_t)order;
	bool mounted = false, mnt = false;
	char name[48], path[128], cmd[256], cn[96], oh[128], how[256], buf[4096];
	long hist[MT_N_ORDERS] = { 0 };
	struct mp_fill fill;
	struct mt_observed ob;
	void *raw = NULL;
	char *at = NULL;
	int fd = -1, pp[2] = { -1, -1 }, r;

	snprintf(name, sizeof(name), "split_failed_%s%zukB", pmd ? "file_" : "memfd_", fsz / 1024);
	if (access(SPLIT_KNOB, W_OK)) {
		if (mount("none", DEBUGFS, "debugfs", 0, NULL) == 0)
			mounted = true;
		if (access(SPLIT_KNOB, W_OK)) {
			hb_note(ctx, "%s not run: no writable " SPLIT_KNOB
				     " (CONFIG_DEBUG_FS off, or debugfs not mountable: %s)", name,
				strerror(errno));
			goto out;
		}
	}
	snprintf(cn, sizeof(cn), "%s_knobs", name);
	r = mp_size_knobs(pmd ? 0 : order, buf, sizeof(buf));
	if (!hb_check(ctx, cn, r == 0, "per-size shmem_enabled written", "%s: %s", r ? buf : "all",
		      r ? strerror(-r) : "0"))
		goto out;
	mp_fill_begin(&fill);
	if (pmd) {
		if (hb_mount_huge_tmpfs(ctx, MP_DIR, "always", 8))
			goto out;
		mnt = true;
		snprintf(path, sizeof(path), MP_DIR "/split");
		fd = hb_create_file(ctx, path, len);
		if (fd < 0)
			goto out;
		at = mt_reserve_aligned_len(len, &raw);
		if (!at || mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
				   MAP_FAILED) {
			hb_error(ctx, "%s: map %s", name, path);
			goto out;
		}
		hb_pattern_fill(at, len, seed, 0);
		if (!mp_no_collapse(ctx, at, len))
			goto out;
	} else {
		at = mp_memfd_filled(ctx, "hb-mthp-paths-split", seed, &fd, &raw);
		if (!at)
			goto out;
		/* the file form opens a path: the memfd's /proc link */
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), fd);
	}
	if (mt_folio_orders(at, len, &ob)) {
		hb_error(ctx, "read /proc/self/pagemap and /proc/kpageflags");
		goto out;
	}
	mp_hist_text(&ob, oh, sizeof(oh));
	mp_fill_text(&fill, how, sizeof(how));
	snprintf(cn, sizeof(cn), "subject_%s_folios", name);
	if (!hb_check(ctx, cn, ob.hist[order] == folios && !ob.absent,
		      "every page in a folio of the size", "%s (want %d:%ld); %s", oh, order, folios,
		      how))
		goto out;
	/* the pin: one page of folio pin_folio held by a pipe */
	{
		struct iovec iov = { at + pin_off, HB_PAGE };
		ssize_t n;

		if (pipe(pp)) {
			hb_error(ctx, "pipe");
			goto out;
		}
		n = vmsplice(pp[1], &iov, 1, 0);
		snprintf(cn, sizeof(cn), "%s_pin", name);
		if (!hb_check(ctx, cn, n == (ssize_t)HB_PAGE, "vmsplice() of one page into a pipe",
			      "%zd%s%s", n, n < 0 ? " " : "", n < 0 ? strerror(errno) : ""))
			goto out;
	}
	snprintf(cmd, sizeof(cmd), "%s,0x0,0x%lx,0", path, pages);
	hist[order] = 1;
	hist[0] = pages - (1L << order);
	if (!split_step(ctx, name, "pinned", cmd, order, pages, folios - 1, 1, hist, at, seed))
		goto out;
	/* unpin: the pipe read (the page as written) and closed */
	{
		ssize_t n = read(pp[0], buf, sizeof(buf));
		size_t bad = n == (ssize_t)sizeof(buf) ? hb_pattern_verify(buf, sizeof(buf), seed, pin_off)
						       : 0;

		snprintf(cn, sizeof(cn), "%s_pipe_data", name);
		hb_check(ctx, cn, n == (ssize_t)sizeof(buf) && bad == sizeof(buf),
			 "the pinned page read from the pipe as written", "read %zd, first bad byte %zu",
			 n, bad);
		close(pp[0]);
		close(pp[1]);
		pp[0] = pp[1] = -1;
	}
	memset(hist, 0, sizeof(hist));
	hist[0] = pages;
	split_step(ctx, name, "unpinned", cmd, order, pages, 1, 0, hist, at, seed);
out:
	if (pp[0] >= 0)
		close(pp[0]);
	if (pp[1] >= 0)
		close(pp[1]);
	if (raw)
		munmap(raw, (pmd ? len : MT_SPAN) + HB_HPAGE);
	if (fd >= 0)
		close(fd);
	if (pmd && mnt) {
		unlink(MP_DIR "/split");
		hb_umount(MP_DIR);
	}
	if (mounted)
		umount(DEBUGFS);
}

/* ---- readahead --------------------------------------------------------------- */

/* zswap on now (7.2 then swaps a large entry in small) */
static bool zswap_on(void)
{
	char v[8];

	return !hb_read_file("/sys/module/zswap/parameters/enabled", v, sizeof(v)) &&
	       (v[0] == 'Y' || v[0] == '1');
}

#define MP_LOOP_MB 32

/* Writeback of the pages paged out to an async device done (Writeback 0
 * kB), 10 s at most; false when it never was. */
static bool writeback_done(void)
{
	for (int i = 0; i < 500; i++) {
		if (hb_meminfo_now_kb("Writeback") == 0)
			return true;
		usleep(20000);
	}
	return false;
}

static int move_self(const char *cg_dir)
{
	char path[320], me[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg_dir);
	snprintf(me, sizeof(me), "%d", (int)getpid());
	return hb_write_file(path, me);
}

/* The object written by a child that joined cg first: its folios are
 * charged to cg and nothing of this process is, so memory.reclaim of cg
 * reclaims the object alone (when this process itself joined cg, reclaim
 * swapped out its own heap and stack as well, and their swap-ins were
 * counted: measured on 7.2). 0, or -1 with the child's status in *st. */
static int fill_in(const char *cg, char *at, uint64_t seed, int *st)
{
	pid_t pid = fork();

	*st = 0;
	if (pid == 0) {
		if (move_self(cg))
			_exit(2);
		hb_pattern_fill(at, MP_OBJ, seed, 0);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, st, 0) != pid)
		return -1;
	return WIFEXITED(*st) && WEXITSTATUS(*st) == 0 ? 0 : -1;
}

static long ru_majflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_majflt;
}

/* One case: the object written in cg, paged out, for !in_cache on an async
 * device reclaimed from cg, then read back in order and judged. */
static void ra_case(struct hb_ctx *ctx, const char *dev, bool sync_dev, bool in_cache, int order,
		    struct pr *cg)
{
	const long n = MP_PAGES >> order;
	const uint64_t seed = 0x72610000ULL + (uint64_t)order + (in_cache ? 0x100 : 0);
	struct mt_stats m0, m1, m2;
	struct hb_snap s0, s1, s2;
	struct mt_observed ob;
	struct mp_ra_expect x;
	char name[64], cn[96], exp[256], oh[128], basis_buf[320], e[96], pc[16], how[256];
	struct mp_fill fill;
	const char *basis;
	long long out, zout, fb, sc, in_pages, ra, hit, swpin, sfb;
	long maj0, maj1, page_cluster;
	size_t bad;
	void *raw = NULL;
	char *at;
	int fd = -1, r, st;

	snprintf(name, sizeof(name), "ra_%s%s_%lukB", dev, in_cache ? "_cached" : "",
		 (HB_PAGE << order) / 1024);
	page_cluster = hb_read_file("/proc/sys/vm/page-cluster", pc, sizeof(pc)) ? -1 : atol(pc);
	x = mp_expect_readahead(hb_kver(), order, sync_dev, in_cache, zswap_on(), page_cluster,
				basis_buf, sizeof(basis_buf), &basis);
	mp_fill_begin(&fill);
	at = mt_memfd_2m("hb-mthp-paths-ra", &fd, &raw);
	if (!at) {
		hb_error(ctx, "%s: a 2 MiB memfd mapped at a 2 MiB aligned address", name);
		goto out;
	}
	if (fill_in(cg->cg, at, seed, &st)) {
		errno = 0;
		hb_error(ctx, "%s: the child writing the object in cgroup %s: status 0x%x", name,
			 cg->cg, st);
		goto out;
	}
	/* mapped here too: a read fault maps the folios the child allocated */
	if (!mp_no_collapse(ctx, at, MP_OBJ))
		goto out;
	bad = hb_pattern_verify(at, MP_OBJ, seed, 0);
	snprintf(cn, sizeof(cn), "%s_fill_data", name);
	if (!hb_check(ctx, cn, bad == MP_OBJ, "every byte the child wrote", "%s %zu",
		      bad == MP_OBJ ? "all bytes:" : "first bad byte at", bad) ||
	    !mp_orders(ctx, at, &ob))
		goto out;
	mp_hist_text(&ob, oh, sizeof(oh));
	mp_fill_text(&fill, how, sizeof(how));
	snprintf(cn, sizeof(cn), "subject_%s_folios", name);
	if (!hb_check(ctx, cn, ob.hist[order] == n && !ob.absent, "every page in a folio of the size",
		      "%s (want %d:%ld); %s", oh, order, n, how))
		goto out;
	hb_snap(ctx, &s0);
	mt_stats_read(&m0);
	r = madvise(at, MP_OBJ, MADV_PAGEOUT) ? errno : 0;
	snprintf(cn, sizeof(cn), "%s_pageout_call", name);
	hb_kf_errno_text(r, e, sizeof(e));
	if (!hb_check(ctx, cn, r == 0, "madvise(MADV_PAGEOUT) returns 0", "%s", r ? e : "0"))
		goto out;
	if (!writeback_done())
		hb_note(ctx, "%s: Writeback still %lld kB after 10 s", name,
			hb_meminfo_now_kb("Writeback"));
	if (!sync_dev && !in_cache) {
		/* the swap-cache folios, clean now, freed by reclaim of their memcg;
		 * EAGAIN when less than asked was reclaimable: judged below */
		r = pr_cg_write(cg, "memory.reclaim", "8M");
		if (r && r != -EAGAIN) {
			hb_error_rc(ctx, r, "%s: write memory.reclaim", name);
			goto out;
		}
	}
	hb_snap(ctx, &s1);
	mt_stats_read(&m1);
	hb_emit_snapshot(ctx, name, &s0, &s1);
	out = mt_stat_delta(&m0, &m1, order, MT_SWPOUT);
	zout = mt_stat_delta(&m0, &m1, order, MT_ZSWPOUT);
	fb = mt_stat_delta(&m0, &m1, order, MT_SWPOUT_FALLBACK);
	snprintf(cn, sizeof(cn), "subject_%s_swpout", name);
	snprintf(exp, sizeof(exp), "swpout + zswpout +%ld (every folio out whole), swpout_fallback +0",
		 n);
	if (!hb_check(ctx, cn, out + zout == n && fb == 0, exp,
		      "swpout +%lld zswpout +%lld swpout_fallback +%lld", out, zout, fb))
		goto out;
	sc = hb_meminfo_delta_kb(&s0, &s1, "SwapCached");
	snprintf(cn, sizeof(cn), "%s_swapcached_kb", name);
	snprintf(exp, sizeof(exp), "SwapCached %+lld kB (%s)", in_cache ? (long long)MP_OBJ / 1024 : 0LL,
		 in_cache ? "the folios kept in the swap cache"
		 : sync_dev ? "freed at once: the write was synchronous"
			    : "freed by memory.reclaim after writeback");
	if (!hb_check(ctx, cn, sc == (in_cache ? (long long)MP_OBJ / 1024 : 0), exp, "%+lld kB", sc))
		goto out;

	maj0 = ru_majflt();
	bad = hb_pattern_verify(at, MP_OBJ, seed, 0); /* every page, in order */
	maj1 = ru_majflt();
	hb_snap(ctx, &s2);
	mt_stats_read(&m2);
	hb_emit_snapshot(ctx, name, &s1, &s2);
	snprintf(cn, sizeof(cn), "%s_data", name);
	hb_check(ctx, cn, bad == MP_OBJ, "every byte as written", "%s %zu",
		 bad == MP_OBJ ? "all bytes:" : "first bad byte at", bad);
	if (!mp_orders(ctx, at, &ob))
		goto out;
	mp_hist_text(&ob, oh, sizeof(oh));
	snprintf(cn, sizeof(cn), "%s_orders", name);
	if (x.whole)
		snprintf(exp, sizeof(exp), "%d:%ld", order, n);
	else
		snprintf(exp, sizeof(exp), "0:%ld", MP_PAGES);
	hb_check_basis(ctx, cn,
		       !ob.absent && (x.whole ? ob.hist[order] == n : ob.hist[0] == MP_PAGES), basis,
		       exp, "%s", oh);

	swpin = mt_stat_delta(&m1, &m2, order, MT_SWPIN);
	sfb = mt_stat_delta(&m1, &m2, order, MT_SWPIN_FALLBACK);
	snprintf(cn, sizeof(cn), "%s_swpin", name);
	snprintf(exp, sizeof(exp), "%lukB swpin +%ld, swpin_fallback +0",
		 (HB_PAGE << order) / 1024, x.swpin);
	hb_check_basis(ctx, cn, swpin == x.swpin && sfb == 0, basis, exp,
		       "swpin +%lld, swpin_fallback +%lld", swpin, sfb);

	in_pages = hb_vmstat_delta(&s1, &s2, "pswpin") + hb_vmstat_delta(&s1, &s2, "zswpin");
	snprintf(cn, sizeof(cn), "%s_pswpin", name);
	snprintf(exp, sizeof(exp), "pswpin + zswpin +%ld (%s)", x.io ? MP_PAGES : 0L,
		 x.io ? "every page read once" : "nothing read: the folios were in the swap cache");
	hb_check(ctx, cn, in_pages == (x.io ? MP_PAGES : 0), exp, "+%lld", in_pages);

	ra = hb_vmstat_delta(&s1, &s2, "swap_ra");
	hit = hb_vmstat_delta(&s1, &s2, "swap_ra_hit");
	snprintf(cn, sizeof(cn), "%s_readahead", name);
	if (x.readahead)
		snprintf(exp, sizeof(exp),
			 "swap_ra >= 1, swap_ra_hit == swap_ra (every page read ahead used), "
			 "major faults + swap_ra_hit == %ld", MP_PAGES);
	else
		snprintf(exp, sizeof(exp), "swap_ra +0, swap_ra_hit +0, major faults %ld", x.majflt);
	hb_check_basis(ctx, cn,
		       x.readahead ? ra >= 1 && hit == ra && (maj1 - maj0) + hit == MP_PAGES
				   : ra == 0 && hit == 0 && maj1 - maj0 == x.majflt,
		       basis, exp, "swap_ra +%lld, swap_ra_hit +%lld, major faults %ld", ra, hit,
		       maj1 - maj0);
	hb_metric1(ctx, cn, "pages", HB_INFO, (double)ra);
out:
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
}

void mp_readahead_part(struct hb_ctx *ctx, int order, const char *devices)
{
	struct pr cg = { .ctx = ctx, .limit = 1024 * HB_MB };
	bool loop = strstr(devices, "loop"), zram = strstr(devices, "zram");
	char why[384] = "", knobs[192];
	int r;

	if (!hb_kf_has(HB_KF_CGROUP2_MEMORY, why, sizeof(why)) ||
	    !hb_kf_has(HB_KF_MEMCG_RECLAIM, why, sizeof(why)) ||
	    !pr_find_cgroup2(cg.cg_root, sizeof(cg.cg_root))) {
		hb_note(ctx, "readahead part not run: %s", why[0] ? why : "no cgroup v2 mount");
		return;
	}
	r = mp_size_knobs(order, knobs, sizeof(knobs));
	if (!hb_check(ctx, "ra_knobs", r == 0, "per-size shmem_enabled written", "%s: %s",
		      r ? knobs : "all", r ? strerror(-r) : "0"))
		return;
	if (pr_cg_setup(&cg))
		goto out;
	if (loop) {
		struct pr_loop l = { .loopfd = -1, .backfd = -1 };

		if (!hb_kf_has(HB_KF_LOOP, why, sizeof(why))) {
			hb_note(ctx, "loop cases not run: %s", why);
		} else if (!pr_loop_up(ctx, &l, MP_LOOP_MB)) {
			hb_note(ctx, "swap: %s over a ramfs file of %d MiB", l.dev, MP_LOOP_MB);
			ra_case(ctx, "loop", false, false, order, &cg);
			if (!hb_failed(ctx))
				ra_case(ctx, "loop", false, true, order, &cg);
		}
		pr_loop_down(&l);
	}
	if (zram && !hb_failed(ctx)) {
		struct pr env = { .ctx = ctx };

		if (access(PR_ZRAM, F_OK))
			hb_load_module("zram", "num_devices=1");
		if (!hb_kf_has(HB_KF_ZRAM, why, sizeof(why)) || access(PR_ZRAM, F_OK)) {
			hb_note(ctx, "zram case not run: %s",
				access(PR_ZRAM, F_OK) ? "no zram0 (module?)" : why);
		} else if (!pr_swap_setup(&env, 64)) {
			ra_case(ctx, "zram", true, false, order, &cg);
		}
		pr_swap_teardown(&env);
	}
out:
	pr_cg_teardown(&cg);
}

/* ---- expectations (pure) ------------------------------------------------------ */

struct mp_ra_expect mp_expect_readahead(int kver, int order, bool sync_dev, bool in_cache,
					bool zswap, long page_cluster, char *basis, size_t len,
					const char **basis_out)
{
	struct mp_ra_expect x = { 0 };
	const long n = MP_PAGES >> order;
	/* 7.2 (and, extrapolated, 6.13..7.1): a synchronous device swaps a large
	 * entry in whole unless zswap was ever on; 6.12 never */
	bool large_sync = kver > 6012 && sync_dev && !zswap;

	*basis_out = NULL;
	if (in_cache) {
		/* both readings: the folio found in the swap cache is taken whole
		 * (7.2 swap_cache_get_folio(), mm/shmem.c:2285; 6.12 the same),
		 * no I/O, no major fault */
		x.whole = true;
		return x;
	}
	if (sync_dev && kver > 7002) {
		*basis_out = hb_expect_basis_newest(basis, len, 7002, kver);
	} else if (sync_dev && kver != 6012 && kver != 7002) {
		snprintf(basis, len,
			 HB_BASIS_UNVERIFIED " 6.12 swaps shmem in through swap_cluster_readahead() "
					     "at order 0, 7.2 a large entry of a synchronous device "
					     "whole; Linux %d.%d's source was not read, the %s "
					     "reading is used",
			 kver / 1000, kver % 1000, kver > 6012 ? "7.2" : "6.12");
		*basis_out = basis;
	}
	x.io = true;
	if (large_sync) {
		x.whole = true;
		x.swpin = n;
		x.majflt = n; /* one major fault per folio */
		return x;
	}
	x.readahead = page_cluster > 0;
	x.majflt = x.readahead ? 0 : MP_PAGES;
	return x;
}
