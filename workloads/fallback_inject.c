/* fallback_inject.c - the fallback workload's allocation failures (issue 37):
 * huge and mTHP folio allocations of a shmem fault made to fail by the
 * kernel's page allocation fault injection (debugfs fail_page_alloc,
 * kfeatures row fail_page_alloc: the debug kernels, kernels/debug.config),
 * not by a memcg charge (wl_fallback.c's other cases).
 *
 * fail_page_alloc is armed for one child process only (task-filter and
 * /proc/self/make-it-fail, set around its faults), for every allocation of
 * order >= min-order (probability 100, interval 1, gfp-wait and highmem
 * allocations included: shmem's are both), and put back as it was found.
 * Its `times` counts down once per injected failure: the subject.
 *
 * Cases (a memfd of `inject_extents` x 2 MiB mapped at a 2 MiB aligned
 * address; the first page written in each extent is page 259 of it, in the
 * middle of a 64 kB block that is not the extent's first, then every page
 * of the extent in order):
 *  inject_pmd_to_64k (per-size knobs: 2048kB and 64kB always, the other
 *    sizes never; min-order 5): the PMD allocation fails once per extent,
 *    shmem falls back to 64 kB: thp_file_fallback +E, 2048kB shmem_fallback
 *    +E, 64kB shmem_alloc +32E, no fallback of 64 kB, orders 4:32E, and the
 *    64 kB folio of the first fault is the one at that fault's index (the
 *    path of "mm/shmem: fix THP allocation and fallback loop", which
 *    inserted it at the index aligned for 2 MiB);
 *  inject_to_small (the same knobs, min-order 1): both sizes fail:
 *    thp_file_fallback +E, 2048kB shmem_fallback +E, 64kB shmem_fallback
 *    +32E (each 64 kB block once, where it is empty), orders 0:512E;
 *  inject_pmd_to_small (no per-size knobs: shmem_enabled=always, min-order
 *    1): thp_file_fallback +E, orders 0:512E.
 * Checks per case: _orders (pagemap + kpageflags, no anomaly), _vmstat
 * (thp_file_fallback exactly, thp_file_fallback_charge and thp_file_alloc
 * +0), _stats (where the per-size stats exist, each file present),
 * _data (every page through the mapping and through pread), _child, and
 * subject_<case> (fail_page_alloc injected at least one failure per
 * PMD attempt: it was armed for this child's faults).
 */
#define _GNU_SOURCE
#include "hb.h"
#include "fallback.h"
#include "mthp.h"
#include "mthp_folio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#define FI_DIR "/sys/kernel/debug/fail_page_alloc"
#define FI_DEBUGFS "/sys/kernel/debug"
#define FI_SEED 0x696e6a65ULL
#define FI_FIRST 259 /* the first page written in each extent */
#define FI_TIMES 1000000L

/* The attributes armed, in the order written (and put back in reverse). */
static const char *const fi_attr[] = { "verbose",	    "task-filter",	  "ignore-gfp-wait",
				       "ignore-gfp-highmem", "min-order",	  "space",
				       "interval",	    "times",		  "probability" };
#define FI_N (sizeof(fi_attr) / sizeof(fi_attr[0]))

struct fi_saved {
	char v[FI_N][32];
	bool ok;
};

static int fi_write(const char *attr, const char *v)
{
	char p[160];

	snprintf(p, sizeof(p), FI_DIR "/%s", attr);
	return hb_write_file(p, v);
}

static long long fi_read(const char *attr)
{
	char p[160], b[32];

	snprintf(p, sizeof(p), FI_DIR "/%s", attr);
	return hb_read_file(p, b, sizeof(b)) ? -1 : strtoll(b, NULL, 10);
}

static int fi_save(struct fi_saved *s)
{
	for (size_t i = 0; i < FI_N; i++) {
		char p[160];
		int r;

		snprintf(p, sizeof(p), FI_DIR "/%s", fi_attr[i]);
		r = hb_read_file(p, s->v[i], sizeof(s->v[i]));
		if (r)
			return r;
		s->v[i][strcspn(s->v[i], "\n")] = 0;
	}
	s->ok = true;
	return 0;
}

static void fi_restore(const struct fi_saved *s)
{
	if (!s->ok)
		return;
	for (size_t i = FI_N; i-- > 0;)
		fi_write(fi_attr[i], s->v[i]);
}

/* Armed for tasks with make-it-fail only, every allocation of order >=
 * min_order; probability last. 0 or -errno (what failed in *what). */
static int fi_arm(int min_order, const char **what)
{
	char mo[16], t[24];
	const char *val[FI_N];

	snprintf(mo, sizeof(mo), "%d", min_order);
	snprintf(t, sizeof(t), "%ld", FI_TIMES);
	val[0] = "0";
	val[1] = "Y";
	val[2] = "N";
	val[3] = "N";
	val[4] = mo;
	val[5] = "0";
	val[6] = "1";
	val[7] = t;
	val[8] = "100";
	for (size_t i = 0; i < FI_N; i++) {
		int r = fi_write(fi_attr[i], val[i]);

		if (r) {
			*what = fi_attr[i];
			return r;
		}
	}
	return 0;
}

struct fi_case {
	const char *name;
	int min_order;
	int order;	/* the folio order the faults should get */
	bool per_size;	/* 2048kB and 64kB knobs; else shmem_enabled=always */
};

/* What the child saw, in memory shared with the parent. */
struct fi_out {
	struct mt_observed ob;
	size_t bad_map, bad_read; /* first bad byte, or SIZE_MAX */
	int err;
	char step[64];
};

static void fi_child(int fd, size_t size, struct fi_out *out)
{
	size_t extents = size / HB_HPAGE;
	void *raw;
	char *at;

	out->bad_map = out->bad_read = SIZE_MAX;
	raw = mmap(NULL, size + HB_HPAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	at = raw == MAP_FAILED ? NULL : (char *)(((uintptr_t)raw + HB_HPAGE - 1) & ~(HB_HPAGE - 1));
	if (!at || mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
			   MAP_FAILED) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "map the memfd");
		_exit(1);
	}
	if (hb_write_file("/proc/self/make-it-fail", "1")) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "write /proc/self/make-it-fail");
		_exit(1);
	}
	for (size_t e = 0; e < extents; e++) {
		size_t base = e * HB_HPAGE, first = base + FI_FIRST * HB_PAGE;

		hb_pattern_fill(at + first, HB_PAGE, FI_SEED, first);
		for (size_t off = base; off < base + HB_HPAGE; off += HB_PAGE)
			if (off != first)
				hb_pattern_fill(at + off, HB_PAGE, FI_SEED, off);
	}
	hb_write_file("/proc/self/make-it-fail", "0");
	if (mt_folio_orders(at, size, &out->ob)) {
		out->err = errno;
		snprintf(out->step, sizeof(out->step), "read pagemap and kpageflags");
	}
	for (size_t off = 0; off < size && out->bad_map == SIZE_MAX; off += HB_PAGE)
		if (hb_pattern_verify(at + off, HB_PAGE, FI_SEED, off) != HB_PAGE)
			out->bad_map = off;
	for (size_t off = 0; off < size && out->bad_read == SIZE_MAX; off += HB_PAGE) {
		char page[HB_PAGE];

		if (pread(fd, page, HB_PAGE, (off_t)off) != (ssize_t)HB_PAGE ||
		    hb_pattern_verify(page, HB_PAGE, FI_SEED, off) != HB_PAGE)
			out->bad_read = off;
	}
	_exit(0);
}

static void fi_hist(const long *h, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int o = MT_N_ORDERS - 1; o >= 0 && n < len; o--)
		if (h[o])
			n += (size_t)snprintf(buf + n, len - n, "%s%d:%ld", n ? " " : "", o, h[o]);
}

/* The knobs of a case: per-size 2048kB and 64kB always, every other size
 * never; or shmem_enabled=always. false after a failed check. */
static bool fi_knobs(struct hb_ctx *ctx, bool per_size)
{
	char p[160];
	int r, n = 0;

	if (!per_size) {
		r = hb_write_file(FB_THP "/shmem_enabled", "always");
		return hb_check(ctx, "inject_knobs", r == 0, "shmem_enabled=always accepted", "%s",
				r ? strerror(-r) : "0");
	}
	for (int o = 1; o <= MT_PMD_ORDER; o++) {
		const char *v = (o == MT_PMD_ORDER || o == 4) ? "always" : "never";

		mt_size_knob(o, p, sizeof(p));
		if (access(p, F_OK))
			continue;
		r = hb_write_file(p, v);
		if (r)
			return hb_check(ctx, "inject_knobs", false, "every per-size knob written",
					"%s=%s: %s", p, v, strerror(-r));
		n++;
	}
	return hb_check(ctx, "inject_knobs", n > 0, "every per-size knob written",
			"%d knobs: 2048kB and 64kB always, the others never", n);
}

static void fi_run_case(struct hb_ctx *ctx, const struct fi_case *k, long extents, bool stats,
			struct fi_out *out)
{
	size_t size = (size_t)extents * HB_HPAGE;
	long pages = extents * (long)(HB_HPAGE / HB_PAGE), want_hist[MT_N_ORDERS] = { 0 };
	long long d_fb, d_fbc, d_alloc, times_left;
	struct hb_snap a, b;
	struct mt_stats ma, mb;
	char cn[96], oh[128], eh[64];
	const char *what = "";
	int fd, r, status = 0;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (!fi_knobs(ctx, k->per_size))
		return;
	fd = memfd_create("hb-fallback-inject", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		hb_error(ctx, "%s: memfd_create + ftruncate", k->name);
		if (fd >= 0)
			close(fd);
		return;
	}
	r = fi_arm(k->min_order, &what);
	snprintf(cn, sizeof(cn), "%s_arm", k->name);
	if (!hb_check(ctx, cn, r == 0, "fail_page_alloc armed (the table says the kernel has it)",
		      "%s: %s", r ? what : "every attribute", r ? strerror(-r) : "written")) {
		close(fd);
		return;
	}
	hb_snap(ctx, &a);
	mt_stats_read(&ma);
	pid = fork();
	if (pid == 0)
		fi_child(fd, size, out);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		fi_write("probability", "0");
		hb_error(ctx, "%s: fork or wait the child", k->name);
		close(fd);
		return;
	}
	fi_write("probability", "0");
	times_left = fi_read("times");
	hb_snap(ctx, &b);
	mt_stats_read(&mb);
	hb_emit_snapshot(ctx, k->name, &a, &b);
	snprintf(cn, sizeof(cn), "%s_child", k->name);
	if (!hb_check(ctx, cn, WIFEXITED(status) && WEXITSTATUS(status) == 0 && !out->err,
		      "the child exits 0 (no SIGBUS: every fault fell back to a folio)",
		      "%s %d%s%s", WIFSIGNALED(status) ? "signal" : "status",
		      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
		      out->step[0] ? " at: " : "", out->step))
		goto out;
	snprintf(cn, sizeof(cn), "subject_%s", k->name);
	hb_check(ctx, cn, times_left >= 0 && FI_TIMES - times_left >= extents,
		 "fail_page_alloc injected >= 1 failure per extent (a PMD allocation each)",
		 "%lld failures injected (times %ld -> %lld)", FI_TIMES - times_left, FI_TIMES,
		 times_left);
	want_hist[k->order] = pages >> k->order;
	fi_hist(out->ob.hist, oh, sizeof(oh));
	fi_hist(want_hist, eh, sizeof(eh));
	snprintf(cn, sizeof(cn), "%s_orders", k->name);
	hb_check(ctx, cn, out->ob.hist[k->order] == want_hist[k->order] && !strchr(oh, ' ') &&
		 out->ob.absent == 0 && out->ob.anomalies == 0,
		 eh, "%s, %ld absent, %ld anomalies%s%s", oh, out->ob.absent, out->ob.anomalies,
		 out->ob.anomalies ? ": " : "", out->ob.anomaly);
	d_fb = hb_vmstat_delta(&a, &b, "thp_file_fallback");
	d_fbc = hb_vmstat_delta(&a, &b, "thp_file_fallback_charge");
	d_alloc = hb_vmstat_delta(&a, &b, "thp_file_alloc");
	snprintf(cn, sizeof(cn), "%s_vmstat", k->name);
	hb_check(ctx, cn, d_fb == extents && d_fbc == 0 && d_alloc == 0,
		 "thp_file_fallback +extents (one failed PMD allocation each), "
		 "thp_file_fallback_charge +0, thp_file_alloc +0",
		 "thp_file_fallback +%lld, thp_file_fallback_charge +%lld, thp_file_alloc +%lld "
		 "(extents %ld)", d_fb, d_fbc, d_alloc, extents);
	if (stats && k->per_size) {
		long long pf = mt_stat_delta(&ma, &mb, MT_PMD_ORDER, MT_SHMEM_FALLBACK),
			  pa = mt_stat_delta(&ma, &mb, MT_PMD_ORDER, MT_SHMEM_ALLOC),
			  pc = mt_stat_delta(&ma, &mb, MT_PMD_ORDER, MT_SHMEM_FALLBACK_CHARGE),
			  sf = mt_stat_delta(&ma, &mb, 4, MT_SHMEM_FALLBACK),
			  sa = mt_stat_delta(&ma, &mb, 4, MT_SHMEM_ALLOC),
			  sc = mt_stat_delta(&ma, &mb, 4, MT_SHMEM_FALLBACK_CHARGE);
		static const int sizes[] = { 4, MT_PMD_ORDER };
		bool present = true, small = k->order == 0;
		long blocks = pages / 16;

		for (size_t i = 0; i < 2; i++)
			for (int s = MT_SHMEM_ALLOC; s <= MT_SHMEM_FALLBACK_CHARGE; s++)
				present = present && ma.v[sizes[i]][s] >= 0 &&
					  mb.v[sizes[i]][s] >= 0;
		snprintf(cn, sizeof(cn), "%s_stats", k->name);
		hb_check(ctx, cn,
			 present && pf == extents && pa == 0 && pc == 0 &&
				 sf == (small ? blocks : 0) && sa == (small ? 0 : blocks) && sc == 0,
			 small ? "2048kB shmem_fallback +extents, 64kB shmem_fallback +blocks "
				 "(each 64 kB block once), shmem_alloc and _fallback_charge +0"
			       : "2048kB shmem_fallback +extents, 64kB shmem_alloc +blocks, "
				 "64kB shmem_fallback and every _fallback_charge +0",
			 "%sextents %ld, blocks %ld: 2048kB shmem_alloc +%lld, shmem_fallback +%lld, "
			 "_charge +%lld; 64kB shmem_alloc +%lld, shmem_fallback +%lld, _charge +%lld",
			 present ? "" : "a stats file is missing (kfeatures row shmem_size_stats "
					"says they exist); ",
			 extents, blocks, pa, pf, pc, sa, sf, sc);
	}
	snprintf(cn, sizeof(cn), "%s_data", k->name);
	if (out->bad_map == SIZE_MAX && out->bad_read == SIZE_MAX)
		hb_check(ctx, cn, true, "every page reads back its pattern, mapped and by pread",
			 "%ld pages", pages);
	else
		hb_check(ctx, cn, false, "every page reads back its pattern, mapped and by pread",
			 "first bad page: mapped at byte %zd, read at byte %zd (-1: none; the "
			 "first page written in each extent is page %d)",
			 out->bad_map == SIZE_MAX ? (ssize_t)-1 : (ssize_t)out->bad_map,
			 out->bad_read == SIZE_MAX ? (ssize_t)-1 : (ssize_t)out->bad_read, FI_FIRST);
out:
	close(fd);
}

void fb_inject_part(struct hb_ctx *ctx, bool per_size, bool stats)
{
	static const struct fi_case per_size_cases[] = {
		{ "inject_pmd_to_64k", 5, 4, true },
		{ "inject_to_small", 1, 0, true },
	};
	static const struct fi_case pmd_cases[] = {
		{ "inject_pmd_to_small", 1, 0, false },
	};
	const struct fi_case *cases = per_size ? per_size_cases : pmd_cases;
	size_t n = per_size ? 2 : 1;
	long extents = hb_param_long(ctx, "inject_extents");
	struct fi_saved saved = { .ok = false };
	struct fi_out *out;
	bool mounted = false;
	char why[384];
	int r;

	if (extents == 0) {
		hb_note(ctx, "inject cases not run: inject_extents=0");
		return;
	}
	if (access(FI_DIR, F_OK) && mount("none", FI_DEBUGFS, "debugfs", 0, NULL) == 0)
		mounted = true;
	if (!hb_kf_has(HB_KF_FAIL_PAGE_ALLOC, why, sizeof(why))) {
		hb_note(ctx, "inject cases skipped (allocation failures forced only by a memcg "
			     "charge here): %s", why);
		goto done;
	}
	r = fi_save(&saved);
	if (!hb_check(ctx, "inject_fail_page_alloc", r == 0,
		      FI_DIR " readable (the table says the kernel has it)", "%s",
		      r ? strerror(-r) : "read"))
		goto done;
	out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED) {
		hb_error(ctx, "map the inject child's report");
		goto done;
	}
	mt_khugepaged_pause(); /* no collapse of the extents under the readings */
	for (size_t i = 0; i < n && !hb_failed(ctx); i++)
		fi_run_case(ctx, &cases[i], extents, stats, out);
	munmap(out, sizeof(*out));
done:
	fi_restore(&saved);
	if (mounted)
		umount(FI_DEBUGFS);
}
