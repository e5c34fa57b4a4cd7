/* wl_mthp_paths.c - the multi-size shmem THP paths of issue 37 item 3 that
 * nothing else drove: mlock, munlock and mremap of mTHP-backed mappings
 * (here), a split that fails on a pinned folio and swap-in of large folios
 * through the swap cache and its readahead (mthp_paths_io.c). Where the
 * kernel has no per-size shmem THP (kfeatures row shmem_per_size, 6.11) the
 * whole workload is a skip with that reason.
 *
 * Part mlock, for each size of `sizes_kb` (16 and 64): a 2 MiB memfd of
 * folios of that size (its hugepages-<N>kB/shmem_enabled "always", every
 * other size "never"), written, then
 *   mlock all         Mlocked and Unevictable +2048 kB exactly, folios kept;
 *   mremap            the locked range moved to an address 4 kB off any folio
 *                     boundary: Mlocked still +2048 kB, the same folios at
 *                     the new address, every byte, the old range unmapped;
 *   munlock all       both back to +0;
 *   mlock all again   at the moved address: +2048 - S kB, the folio whose
 *                     mapping crosses the 2 MiB boundary is not mlocked
 *                     (mlock_pte_range() walks one page table at a time);
 *   mlock [S/2, end)  a range that cuts the first folio: +2048 - 2S kB, the
 *                     cut folio not mlocked either (allow_mlock_munlock(),
 *                     6.12 and 7.2 mm/mlock.c:307-400: a large folio is
 *                     mlocked only when wholly inside the VM_LOCKED range
 *                     and the page table walked);
 *   munlock each      +0; the folios still of that size, every byte.
 * Every step's Mlocked and Unevictable are exact (mp_expect_mlocked_kb()).
 * Subject: subject_mlock_<S>_folios, the fill gave folios of that size only.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "mthp.h"
#include "mthp_paths.h"
#include "wl_mlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

int mp_order_of_kb(long kb)
{
	for (int o = 1; o <= MT_PMD_ORDER; o++)
		if ((long)((HB_PAGE << o) / 1024) == kb)
			return o;
	return -1;
}

void mp_hist_text(const struct mt_observed *ob, char *buf, size_t len)
{
	size_t n;

	mt_hist_text(ob->hist, buf, len);
	n = strlen(buf);
	if (ob->absent && n < len)
		snprintf(buf + n, len - n, "%sabsent %ld", n ? " " : "", ob->absent);
}

int mp_size_knobs(int on, char *failed, size_t len)
{
	for (int o = 1; o <= MT_PMD_ORDER; o++) {
		char knob[160];
		int r;

		snprintf(knob, sizeof(knob), MP_THP "/hugepages-%lukB/shmem_enabled",
			 (HB_PAGE << o) / 1024);
		if (access(knob, F_OK))
			continue;
		r = hb_write_file(knob, o == on ? "always" : "never");
		if (r) {
			snprintf(failed, len, "%s=%s", knob, o == on ? "always" : "never");
			return r;
		}
	}
	/* 2048 kB "always" starts khugepaged on 7.2 (hugepage_enabled() counts
	 * shmem_hpage_pmd_enabled()): asleep then, as mthp does */
	if (mp_kh_running())
		mt_khugepaged_pause();
	return 0;
}

/* Whether khugepaged's kernel thread exists, given 1 s to stop (a stopped
 * kthread lingers in /proc). */
bool mp_kh_running(void)
{
	uint64_t t0 = hb_now_ns();
	bool now;

	while ((now = mt_khugepaged_thread_exists()) && hb_now_ns() - t0 < 1000000000ULL)
		usleep(20000);
	return now;
}

bool mp_khugepaged_off(struct hb_ctx *ctx)
{
	int r = hb_write_file(MP_THP "/enabled", "never");

	if (r) {
		hb_error_rc(ctx, r, "write never to " MP_THP "/enabled");
		return false;
	}
	if (mp_kh_running()) {
		hb_note(ctx, "khugepaged still runs with anonymous THP never (a shmem PMD knob on?): "
			     "put to sleep instead");
		mt_khugepaged_pause();
	}
	return true;
}

static void fill_counts(struct mp_fill *f)
{
	struct hb_snap v;

	mt_stats_read(&f->st);
	hb_snap_take(&v);
	f->file_alloc = hb_vmstat(&v, "thp_file_alloc", NULL);
	f->collapse_alloc = hb_vmstat(&v, "thp_collapse_alloc", NULL);
	f->collapsed = mt_kh_counter("pages_collapsed");
}

void mp_fill_begin(struct mp_fill *f)
{
	fill_counts(f);
}

void mp_fill_text(const struct mp_fill *f, char *buf, size_t len)
{
	struct mp_fill now;
	size_t n;

	fill_counts(&now);
	n = (size_t)snprintf(buf, len, "fill: shmem_alloc");
	for (int o = 1; o <= MT_PMD_ORDER && n < len; o++) {
		long long d = mt_stat_delta(&f->st, &now.st, o, MT_SHMEM_ALLOC);

		if (d)
			n += (size_t)snprintf(buf + n, len - n, " %lukB +%lld", (HB_PAGE << o) / 1024, d);
	}
	if (n < len)
		snprintf(buf + n, len - n, "; thp_file_alloc +%lld, thp_collapse_alloc +%lld, "
			 "khugepaged pages_collapsed +%lld", now.file_alloc - f->file_alloc,
			 now.collapse_alloc - f->collapse_alloc, now.collapsed - f->collapsed);
}

char *mp_memfd_filled(struct hb_ctx *ctx, const char *label, uint64_t seed, int *fd, void **raw)
{
	char *at = mt_memfd_2m(label, fd, raw);

	if (!at) {
		hb_error(ctx, "%s: a 2 MiB memfd mapped at a 2 MiB aligned address", label);
		return NULL;
	}
	hb_pattern_fill(at, MP_OBJ, seed, 0);
	return mp_no_collapse(ctx, at, MP_OBJ) ? at : NULL;
}

bool mp_no_collapse(struct hb_ctx *ctx, char *at, size_t len)
{
	if (madvise(at, len, MADV_NOHUGEPAGE)) {
		hb_error(ctx, "madvise(MADV_NOHUGEPAGE)");
		return false;
	}
	return true;
}

bool mp_orders(struct hb_ctx *ctx, const char *at, struct mt_observed *ob)
{
	int r = mt_folio_orders(at, MP_OBJ, ob);

	if (r)
		hb_error_rc(ctx, r, "read /proc/self/pagemap and /proc/kpageflags");
	return r == 0;
}

long long mp_expect_mlocked_kb(int order, size_t va_mis, size_t off)
{
	const size_t fsz = HB_PAGE << order;
	long long kb = 0;

	for (size_t f = 0; f < MP_OBJ; f += fsz) {
		size_t va = va_mis % HB_HPAGE + f;

		if (f >= off && va / HB_HPAGE == (va + fsz - 1) / HB_HPAGE)
			kb += (long long)fsz / 1024;
	}
	return kb;
}

/* ---- part mlock ------------------------------------------------------------- */

struct mp_ml {
	struct hb_ctx *ctx;
	char name[32]; /* "mlock_64kB" */
	int order;
	struct hb_snap base;
};

/* CAP_IPC_LOCK in the effective set (as wl_mlock.c). */
static bool cap_ipc_lock(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long caps = 0;
	char line[256];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps & (1ULL << 14);
}

/* mlock or munlock; false after ml_refused()'s skip or failed check. */
static bool lock(struct mp_ml *m, const char *step, char *p, size_t len, bool on)
{
	char sn[64];

	if (!(on ? mlock(p, len) : munlock(p, len)))
		return true;
	{
		int err = errno;
		struct rlimit rl = { 0, 0 };

		getrlimit(RLIMIT_MEMLOCK, &rl);
		snprintf(sn, sizeof(sn), "%s_%s", m->name, step);
		ml_refused(m->ctx, sn, on, len, err, cap_ipc_lock(), (unsigned long long)rl.rlim_cur);
	}
	return false;
}

/* <name>_<step>_Mlocked_kb == want and Unevictable the same, against the
 * baseline; <name>_<step>_orders: every page in a folio of the size. */
static bool after(struct mp_ml *m, const char *step, long long want, const char *at,
		  const char *why)
{
	struct hb_snap now;
	struct mt_observed ob;
	long long ml, ue;
	char cn[96], exp[192], oh[128];
	long n = MP_PAGES >> m->order;
	bool ok;

	hb_snap(m->ctx, &now);
	ml = hb_meminfo_delta_kb(&m->base, &now, "Mlocked");
	ue = hb_meminfo_delta_kb(&m->base, &now, "Unevictable");
	snprintf(cn, sizeof(cn), "%s_%s_Mlocked_kb", m->name, step);
	snprintf(exp, sizeof(exp), "Mlocked and Unevictable %+lld kB (%s)", want, why);
	ok = hb_check(m->ctx, cn, ml == want && ue == want, exp, "Mlocked %+lld kB, Unevictable %+lld kB",
		      ml, ue);
	if (!mp_orders(m->ctx, at, &ob))
		return false;
	mp_hist_text(&ob, oh, sizeof(oh));
	snprintf(cn, sizeof(cn), "%s_%s_orders", m->name, step);
	snprintf(exp, sizeof(exp), "%d:%ld (the folios stay whole)", m->order, n);
	ok &= hb_check(m->ctx, cn, ob.hist[m->order] == n && !ob.absent && !ob.anomalies, exp,
		       "%s%s%s", oh, ob.anomalies ? "; " : "", ob.anomalies ? ob.anomaly : "");
	return ok;
}

static bool data(struct mp_ml *m, const char *step, const char *at, uint64_t seed)
{
	size_t bad = hb_pattern_verify(at, MP_OBJ, seed, 0);
	char cn[96];

	snprintf(cn, sizeof(cn), "%s_%s_data", m->name, step);
	return hb_check(m->ctx, cn, bad == MP_OBJ, "every byte as written", "%s %zu",
			bad == MP_OBJ ? "all bytes:" : "first bad byte at", bad);
}

void mp_mlock_part(struct hb_ctx *ctx, int order)
{
	struct mp_ml m = { .ctx = ctx, .order = order };
	const uint64_t seed = 0x6d6c6b00ULL + (uint64_t)order;
	const size_t fsz = HB_PAGE << order;
	long n = MP_PAGES >> order;
	struct mt_observed ob;
	void *raw = NULL, *raw2 = NULL;
	char failed[192], cn[96], oh[128], how[256], *at, *to, *dst;
	struct mp_fill fill;
	int fd = -1, r;

	snprintf(m.name, sizeof(m.name), "mlock_%zukB", fsz / 1024);
	r = mp_size_knobs(order, failed, sizeof(failed));
	snprintf(cn, sizeof(cn), "%s_knobs", m.name);
	if (!hb_check(ctx, cn, r == 0, "per-size shmem_enabled written", "%s: %s",
		      r ? failed : "all", r ? strerror(-r) : "0"))
		return;
	mp_fill_begin(&fill);
	at = mp_memfd_filled(ctx, "hb-mthp-paths-mlock", seed, &fd, &raw);
	if (!at || !mp_orders(ctx, at, &ob))
		goto out;
	mp_hist_text(&ob, oh, sizeof(oh));
	mp_fill_text(&fill, how, sizeof(how));
	snprintf(cn, sizeof(cn), "subject_%s_folios", m.name);
	if (!hb_check(ctx, cn, ob.hist[order] == n && !ob.absent, "every page in a folio of the size",
		      "%s (want %d:%ld); %s", oh, order, n, how))
		goto out;
	hb_snap(ctx, &m.base);

	if (!lock(&m, "mlock", at, MP_OBJ, true) ||
	    !after(&m, "mlock", mp_expect_mlocked_kb(order, 0, 0), at,
		   "every folio inside the range and one page table"))
		goto out;

	/* mremap the locked range to 4 kB past a 2 MiB boundary: off every
	 * folio boundary of every size >= 8 kB */
	to = mt_reserve_aligned(&raw2);
	if (!to) {
		hb_error(ctx, "reserve the mremap target");
		goto out;
	}
	dst = mremap(at, MP_OBJ, MP_OBJ, MREMAP_MAYMOVE | MREMAP_FIXED, to + HB_PAGE);
	snprintf(cn, sizeof(cn), "%s_mremap_call", m.name);
	if (!hb_check(ctx, cn, dst == to + HB_PAGE, "mremap to the fixed misaligned address",
		      "%s", dst == MAP_FAILED ? strerror(errno) : "moved"))
		goto out;
	if (!after(&m, "mremap", (long long)MP_OBJ / 1024, dst,
		   "mremap moves the mlock with the mapping") ||
	    !data(&m, "mremap", dst, seed))
		goto out;
	{
		unsigned char v;
		int err = mincore(at, HB_PAGE, &v) ? errno : 0;

		snprintf(cn, sizeof(cn), "%s_mremap_old_unmapped", m.name);
		hb_check(ctx, cn, err == ENOMEM,
			 "mincore() of the old address: ENOMEM (nothing mapped there)", "%s",
			 err ? strerror(err) : "0: still mapped");
	}
	if (!lock(&m, "munlock", dst, MP_OBJ, false) ||
	    !after(&m, "munlock", 0, dst, "munlock returns every folio"))
		goto out;
	/* at dst the last folio's mapping crosses a 2 MiB boundary */
	if (!lock(&m, "mlock_moved", dst, MP_OBJ, true) ||
	    !after(&m, "mlock_moved", mp_expect_mlocked_kb(order, HB_PAGE, 0), dst,
		   "mlock at the moved address: the folio whose mapping crosses a 2 MiB "
		   "boundary (two page tables) is not mlocked, mlock_pte_range()") ||
	    !lock(&m, "munlock_moved", dst, MP_OBJ, false) ||
	    !after(&m, "munlock_moved", 0, dst, "munlock returns them"))
		goto out;
	if (!lock(&m, "mlock_cut", dst + fsz / 2, MP_OBJ - fsz / 2, true) ||
	    !after(&m, "mlock_cut", mp_expect_mlocked_kb(order, HB_PAGE, fsz / 2), dst,
		   "the first folio, cut by the range, and the one across the 2 MiB boundary "
		   "not mlocked: allow_mlock_munlock()"))
		goto out;
	if (!lock(&m, "munlock_cut", dst + fsz / 2, MP_OBJ - fsz / 2, false) ||
	    !after(&m, "munlock_cut", 0, dst, "munlock returns them"))
		goto out;
	data(&m, "final", dst, seed);
out:
	if (raw2)
		munmap(raw2, MT_SPAN + HB_HPAGE); /* the moved mapping and its mlock with it */
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
}

/* ---- the workload ------------------------------------------------------------- */

static const char *mthp_paths_unsupported(struct hb_ctx *ctx)
{
	static char why[384];
	char kf[256];

	if (hb_huge_tmpfs_probe(ctx))
		return hb_huge_tmpfs_probe(ctx);
	if (!hb_kf_has(HB_KF_SHMEM_PER_SIZE, kf, sizeof(kf))) {
		snprintf(why, sizeof(why), "no per-size shmem THP sizes: %s", kf);
		return why;
	}
	if (!hb_kf_has(HB_KF_KPAGEFLAGS, kf, sizeof(kf))) {
		snprintf(why, sizeof(why), "folio orders cannot be read: %s", kf);
		return why;
	}
	return NULL;
}

/* The orders of a list of sizes in kB ("16,64"); false after hb_error()
 * naming a size without a per-size knob on this kernel. */
static int sizes_of(struct hb_ctx *ctx, const char *list, int *orders, int max)
{
	char buf[128], *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) {
		char knob[160];
		int o = mp_order_of_kb(strtol(t, NULL, 10));

		snprintf(knob, sizeof(knob), MP_THP "/hugepages-%skB/shmem_enabled", t);
		if (o < 0 || access(knob, F_OK)) {
			errno = 0;
			hb_error(ctx, "size %s kB has no %s on this kernel", t, knob);
			return -1;
		}
		orders[n++] = o;
	}
	return n;
}

static void mthp_paths_run(struct hb_ctx *ctx)
{
	const char *parts = hb_param_str(ctx, "parts");
	int orders[MT_N_ORDERS], n;

	n = sizes_of(ctx, hb_param_str(ctx, "sizes_kb"), orders, MT_N_ORDERS);
	if (n < 0)
		return;
	if (!mp_khugepaged_off(ctx)) /* a collapse under a reader rewrites what it reads */
		return;
	if (strstr(parts, "mlock"))
		for (int i = 0; i < n && !hb_failed(ctx); i++)
			mp_mlock_part(ctx, orders[i]);
	if (strstr(parts, "split_failed") && !hb_failed(ctx)) {
		mp_split_failed_part(ctx, MT_PMD_ORDER);
		for (int i = 0; i < n && !hb_failed(ctx); i++)
			if (orders[i] != MT_PMD_ORDER)
				mp_split_failed_part(ctx, orders[i]);
	}
	if (strstr(parts, "readahead") && !hb_failed(ctx)) {
		int o = mp_order_of_kb(hb_param_long(ctx, "readahead_kb"));

		if (o < 1 || o >= MT_PMD_ORDER) {
			errno = 0;
			hb_error(ctx, "readahead_kb=%ld is not a size below 2048 kB",
				 hb_param_long(ctx, "readahead_kb"));
			return;
		}
		mp_readahead_part(ctx, o, hb_param_str(ctx, "swap_devices"));
	}
}

static const struct hb_param mthp_paths_params[] = {
	{ .name = "parts", .type = HB_PARAM_LIST, .def = "mlock,split_failed,readahead",
	  .choices = "mlock|split_failed|readahead", .help = "parts to run" },
	{ .name = "sizes_kb", .type = HB_PARAM_LIST, .def = "16,64",
	  .choices = "8|16|32|64|128|256|512|1024|2048",
	  .help = "folio sizes of the mlock and split_failed parts (2048: PMD)" },
	{ .name = "readahead_kb", .type = HB_PARAM_LONG, .def = "64", .min = 8, .max = 1024,
	  .help = "folio size of the readahead part (a power of two below 2048)" },
	{ .name = "swap_devices", .type = HB_PARAM_LIST, .def = "loop,zram", .choices = "loop|zram",
	  .help = "swap devices of the readahead part: loop (through the swap cache), zram "
		  "(synchronous)" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_mthp_paths = {
	.name = "mthp-paths",
	.help = "mTHP shmem folios under mlock/munlock/mremap, split_failed on a pinned folio, "
		"swap-in of large folios through the swap cache and readahead",
	.unsupported = mthp_paths_unsupported,
	.run = mthp_paths_run,
	.params = mthp_paths_params,
};
