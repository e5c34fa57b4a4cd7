/* wl_mthp.c - multi-size shmem THP (issue 21): which folio order backs each
 * page of shmem, for every size the kernel offers, checked page by page
 * through /proc/self/pagemap + /proc/kpageflags (mthp_folio.c) against the
 * expectation of mthp_table.c, plus the per-size statistics and the data.
 *
 * Parts (each a parameter, all on by default), in this order:
 *  - boot (6.14+): what thp_shmem=, transparent_hugepage_shmem= and
 *    transparent_hugepage_tmpfs= on /proc/cmdline left in sysfs and as the
 *    huge= of a new mount (mt_boot_expect()), read before any knob is written;
 *  - policy: per offered size <N>kB and value of hugepages-<N>kB/shmem_enabled
 *    (always, within_size, advise, inherit under top-level always and
 *    advise), all other sizes never, x MADV_HUGEPAGE x object (MAP_SHARED|
 *    MAP_ANONYMOUS, memfd); two-size mixes; then the objects the per-size
 *    knobs must not reach: a tmpfs file on each huge= mount and SysV shm
 *    under each top-level value, with a non-PMD size set to always. Every page
 *    of an object of 2 MiB + 40 KiB is write-faulted in ascending order (the
 *    tail tells the orders apart); tmpfs and memfd objects sit in a 4 MiB
 *    mapping (a PMD block crosses i_size), anonymous and SysV in one of their
 *    own size.
 *  - khugepaged: 16 kB always, 2048 kB never, MADV_HUGEPAGE memfd; two full
 *    khugepaged scans: no collapse, or one where the table says the kernel
 *    collapses anyway (6.12). khugepaged is asleep while the other parts read;
 *  - write: a file of 2 MiB + 40 KiB written with write(2) in chunks of
 *    4 KiB .. 2 MiB on huge=within_size, always and never mounts; its folios
 *    (seen through a read-only mapping afterwards) against the write path's
 *    expectation; the contents read back through read(2) and the mapping.
 *  - integrity: a build-like mix of files (1000 B .. 3 MiB, written in odd
 *    chunk sizes, a region overwritten, truncated into a folio and extended)
 *    on within_size and always mounts, every byte verified.
 * Checks per case: <case>_orders (the histogram of folio orders, exactly),
 * <case>_stats (hugepages-<N>kB/stats/shmem_alloc grew by the folios of each
 * order seen, shmem_fallback and shmem_fallback_charge did not), write cases
 * also <case>_data. Subject: subject_mthp_folios (a folio of an order between
 * 1 and 8 and a PMD folio were seen). Metrics: order histograms per part,
 * cases matching, write(2) time per page per chunk size.
 *
 * Which kernels: the per-size knobs and statistics from 6.11 (kfeatures row
 * shmem_per_size), /proc/kpageflags (row kpageflags); before that a skip
 * citing the row.
 */
#define _GNU_SOURCE
#include "hb.h"
#include "host_state.h"
#include "mthp_folio.h"
#include "pressure.h"
#include "mthp_table.h"
#include "wl_mthp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/swap.h>
#include <unistd.h>

#define MT_DIR "/mnt/hb-mthp"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define MT_TOP THP_DIR "/shmem_enabled"
#define KH_DIR THP_DIR "/khugepaged"
#define MT_OBJ (HB_HPAGE + 40 * 1024)	/* 2 MiB + 40 KiB: 522 pages */
#define MT_OBJ_PAGES ((long)(MT_OBJ / HB_PAGE))
#define MT_SPAN (2 * HB_HPAGE)		/* the mapping of a tmpfs/memfd object */
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

enum mt_part { P_POLICY, P_WRITE, P_N };
static const char *const part_name[P_N] = { "policy", "write" };

struct mt_state {
	int kver;
	bool offered[MT_N_ORDERS]; /* hugepages-<N>kB/shmem_enabled exists */
	bool sysv_ok;
	enum kt_mode cur_top, cur_size[MT_N_ORDERS];
	long hist[P_N][MT_N_ORDERS]; /* observed folios per part */
	int cases, matching;
	int mounts_ok;
	long retries; /* folio readings taken again: pages moved under the reader */
	long swapin_hist[MT_N_ORDERS];
	bool swap_ran;
};

static void size_knob(int order, char *buf, size_t len)
{
	snprintf(buf, len, THP_DIR "/hugepages-%lukB/shmem_enabled", (HB_PAGE << order) / 1024);
}

static int set_mode(const char *path, enum kt_mode m, enum kt_mode *cur)
{
	int r;

	if (*cur == m)
		return 0;
	r = hb_write_file(path, kt_mode_name[m]);
	*cur = r ? KT_UNSET : m;
	return r;
}

/* Writes the policy's knobs; false after a failed check naming the write. */
static bool apply_policy(struct hb_ctx *ctx, struct mt_state *st, const char *name,
			 const struct mt_policy *p)
{
	char path[128], e[96];
	int r;

	for (int o = 1; o < MT_N_ORDERS; o++) {
		if (!st->offered[o])
			continue;
		size_knob(o, path, sizeof(path));
		r = set_mode(path, p->size[o], &st->cur_size[o]);
		if (r) {
			hb_kf_errno_text(-r, e, sizeof(e));
			hb_check(ctx, name, false, "per-size knob write accepted",
				 "write %s to %s: %s", kt_mode_name[p->size[o]], path, e);
			return false;
		}
	}
	r = set_mode(MT_TOP, p->top, &st->cur_top);
	if (r) {
		hb_kf_errno_text(-r, e, sizeof(e));
		hb_check(ctx, name, false, "shmem_enabled write accepted",
			 "write %s to " MT_TOP ": %s", kt_mode_name[p->top], e);
		return false;
	}
	return true;
}

static char *reserve_aligned(void **raw)
{
	char *p = mmap(NULL, MT_SPAN + HB_HPAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	*raw = p;
	return (char *)(((uintptr_t)p + HB_HPAGE - 1) & ~(HB_HPAGE - 1));
}

/* The object of p mapped at `at` (a tmpfs object in dir); its mapping's
 * length in *vma. 0 or -errno. */
static int map_object(const struct mt_policy *p, const char *dir, char *at, int *fd,
		      size_t *vma)
{
	char path[96];
	void *m;
	int id;

	*fd = -1;
	*vma = MT_SPAN;
	switch (p->obj) {
	case MT_TMPFS:
		snprintf(path, sizeof(path), "%s/obj", dir);
		*fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		break;
	case MT_MEMFD:
		*fd = memfd_create("hb-mthp", MFD_CLOEXEC);
		break;
	case MT_ANON:
		*vma = MT_OBJ;
		m = mmap(at, MT_OBJ, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		return m == MAP_FAILED ? -errno : 0;
	case MT_SYSV:
		*vma = MT_OBJ;
		id = shmget(IPC_PRIVATE, MT_OBJ, IPC_CREAT | 0600);
		if (id < 0)
			return -errno;
		munmap(at, MT_SPAN);
		m = shmat(id, at, 0);
		shmctl(id, IPC_RMID, NULL); /* freed at detach */
		return m == (void *)-1 ? -errno : 0;
	default:
		return -EINVAL;
	}
	if (*fd < 0)
		return -errno;
	if (ftruncate(*fd, (off_t)MT_OBJ))
		return -errno;
	m = mmap(at, MT_SPAN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, *fd, 0);
	return m == MAP_FAILED ? -errno : 0;
}

/* <name>_stats: the per-size counters agree with the folios seen. */
static void check_stats(struct hb_ctx *ctx, const char *name, const struct mt_stats *a,
			const struct mt_stats *b, const long seen[MT_N_ORDERS])
{
	char cn[160], obs[512], exp[512];
	size_t oo = 0, eo = 0;
	bool ok = true;

	for (int o = MT_PMD_ORDER; o >= 1; o--) {
		long long d[MT_N_STATS];

		if (a->v[o][MT_SHMEM_ALLOC] < 0)
			continue;
		for (int k = 0; k < MT_N_STATS; k++)
			d[k] = b->v[o][k] - a->v[o][k];
		/* split: the folios of this case stay whole while it runs */
		if (d[MT_SHMEM_ALLOC] != seen[o] || d[MT_SHMEM_FALLBACK] ||
		    d[MT_SHMEM_FALLBACK_CHARGE] || (b->v[o][MT_SPLIT] >= 0 && d[MT_SPLIT]))
			ok = false;
		if (d[MT_SHMEM_ALLOC] || d[MT_SHMEM_FALLBACK] || d[MT_SHMEM_FALLBACK_CHARGE] ||
		    d[MT_SPLIT] || seen[o]) {
			if (oo < sizeof(obs))
				oo += (size_t)snprintf(obs + oo, sizeof(obs) - oo,
						       "%s%d: alloc +%lld fallback +%lld charge +%lld"
						       " split +%lld",
						       oo ? "; " : "", o, d[MT_SHMEM_ALLOC],
						       d[MT_SHMEM_FALLBACK],
						       d[MT_SHMEM_FALLBACK_CHARGE], d[MT_SPLIT]);
			if (eo < sizeof(exp))
				eo += (size_t)snprintf(exp + eo, sizeof(exp) - eo,
						       "%s%d: alloc +%ld (the folios seen), "
						       "fallback, charge, split +0",
						       eo ? "; " : "", o, seen[o]);
		}
	}
	snprintf(cn, sizeof(cn), "%s_stats", name);
	hb_check(ctx, cn, ok,
		 eo ? exp : "no shmem_alloc; shmem_fallback(_charge) and split +0 throughout",
		 "%s", oo ? obs : "no per-size counter moved");
}

/* <name>_orders: the folios seen against the table; true when they match. */
static bool check_orders(struct hb_ctx *ctx, struct mt_state *st, const char *name,
			 const struct mt_policy *p, const struct mt_walk *w,
			 const struct mt_observed *ob, enum mt_part part)
{
	long want[MT_N_ORDERS];
	char cn[160], eh[128], oh[128], basis_buf[256];
	const char *basis = mt_expect_basis(p, w, basis_buf, sizeof(basis_buf));
	bool ok;

	if (mt_expect(p, w, want)) {
		errno = 0;
		hb_error(ctx, "%s: walk outside the table's range", name);
		return false;
	}
	mt_hist_text(want, eh, sizeof(eh));
	mt_hist_text(ob->hist, oh, sizeof(oh));
	ok = !memcmp(want, ob->hist, sizeof(want)) && !ob->absent && !ob->anomalies;
	for (int o = 0; o < MT_N_ORDERS; o++)
		st->hist[part][o] += ob->hist[o];
	snprintf(cn, sizeof(cn), "%s_orders", name);
	st->cases++;
	st->retries += ob->retries;
	if (hb_check_basis(ctx, cn, ok, basis, eh, "%s%s%s%s%s", oh,
			   ob->absent ? " (pages not present)" : "",
			   ob->anomalies ? "; " : "", ob->anomalies ? ob->anomaly : "",
			   ob->retries >= 50	 ? " (pagemap still changing after 50 readings)"
			   : ob->retries ? " (read again: pages moved while read)"
					 : ""))
		st->matching++;
	return ok;
}

/* One policy case: map the object, MADV_HUGEPAGE, write-fault every page of
 * its i_size in ascending order, read the folios and the counters. A tmpfs
 * object is a file in dir (NULL: the huge=<mount> mount). */
static void run_fault_case_in(struct hb_ctx *ctx, struct mt_state *st, const char *name,
			      const struct mt_policy *p, const char *dir)
{
	char dbuf[64];
	struct mt_walk w = { .pages = MT_OBJ_PAGES, .isize_pages = MT_OBJ_PAGES };
	static struct hb_snap s0, s1;
	struct mt_stats a, b;
	struct mt_observed ob;
	void *raw = NULL;
	size_t vma = 0;
	char *at;
	int fd = -1, r;

	if (!apply_policy(ctx, st, name, p))
		return;
	at = reserve_aligned(&raw);
	if (!at) {
		hb_error(ctx, "%s: mmap reserve", name);
		return;
	}
	if (!dir) {
		snprintf(dbuf, sizeof(dbuf), MT_DIR "/%s", kt_mode_name[p->mount]);
		dir = dbuf;
	}
	r = map_object(p, dir, at, &fd, &vma);
	if (r) {
		errno = -r;
		hb_error(ctx, "%s: create/map the %s object", name, mt_obj_name[p->obj]);
		goto out;
	}
	w.vma_pages = (long)(vma / HB_PAGE);
	if (p->madv && madvise(at, vma, MADV_HUGEPAGE)) {
		hb_error(ctx, "%s: madvise(MADV_HUGEPAGE)", name);
		goto out;
	}
	hb_snap_take(&s0);
	mt_stats_read(&a);
	for (long i = 0; i < MT_OBJ_PAGES; i++)
		at[i * HB_PAGE] = (char)(i | 1);
	mt_stats_read(&b);
	r = mt_folio_orders(at, MT_OBJ, &ob);
	if (r) {
		errno = -r;
		hb_error(ctx, "%s: read /proc/self/pagemap and /proc/kpageflags", name);
		goto out;
	}
	if (!check_orders(ctx, st, name, p, &w, &ob, P_POLICY)) {
		/* what the first small page was, and whether a second read agrees */
		struct mt_observed again;
		char h[128];

		if (!mt_folio_orders(at, MT_OBJ, &again)) {
			mt_hist_text(again.hist, h, sizeof(h));
			hb_note(ctx, "%s: first small page %ld, kpageflags %#llx; read again: %s",
				name, ob.first_small, ob.first_small_flags, h);
		}
		/* what else happened meanwhile (collapse, migration, reclaim) */
		hb_snap_take(&s1);
		hb_emit_snapshot(ctx, name, &s0, &s1);
	}
	check_stats(ctx, name, &a, &b, ob.hist);
out:
	if (p->obj == MT_SYSV)
		shmdt(at);
	munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
	if (p->obj == MT_TMPFS && dir) {
		char path[96];

		snprintf(path, sizeof(path), "%s/obj", dir);
		unlink(path);
	}
}

static void run_fault_case(struct hb_ctx *ctx, struct mt_state *st, const char *name,
			   const struct mt_policy *p)
{
	run_fault_case_in(ctx, st, name, p, NULL);
}

static struct mt_policy base_policy(const struct mt_state *st, enum mt_obj obj)
{
	struct mt_policy p = { .kver = st->kver, .top = KT_NEVER, .mount = KT_UNSET, .obj = obj };

	for (int o = 0; o < MT_N_ORDERS; o++)
		p.size[o] = st->offered[o] ? KT_NEVER : KT_UNSET;
	return p;
}

static void size_name(int order, char *buf, size_t len)
{
	snprintf(buf, len, "%lukB", (HB_PAGE << order) / 1024);
}

static void policy_part(struct hb_ctx *ctx, struct mt_state *st)
{
	/* per-size value, and the top level it runs under */
	static const struct {
		enum kt_mode v, top;
	} rows[] = {
		{ KT_ALWAYS, KT_NEVER },  { KT_WITHIN_SIZE, KT_NEVER }, { KT_ADVISE, KT_NEVER },
		{ KT_INHERIT, KT_ALWAYS }, { KT_INHERIT, KT_ADVISE },
	};
	static const enum mt_obj anon_objs[] = { MT_ANON, MT_MEMFD };
	static const int mixes[][2] = { { 2, 4 }, { 4, MT_PMD_ORDER }, { 1, 3 } };
	static const enum kt_mode mounts[] = { KT_NEVER, KT_ALWAYS, KT_WITHIN_SIZE, KT_ADVISE };
	static const enum kt_mode sysv_tops[] = { KT_NEVER, KT_ALWAYS, KT_WITHIN_SIZE,
						  KT_ADVISE, KT_DENY };
	char name[128], sz[16], sz2[16];

	for (int o = 1; o < MT_N_ORDERS; o++) {
		if (!st->offered[o])
			continue;
		size_name(o, sz, sizeof(sz));
		for (size_t r = 0; r < N_OF(rows); r++)
			for (size_t k = 0; k < N_OF(anon_objs); k++)
				for (int madv = 0; madv < 2 && !hb_failed(ctx); madv++) {
					struct mt_policy p = base_policy(st, anon_objs[k]);

					p.size[o] = rows[r].v;
					p.top = rows[r].top;
					p.madv = madv;
					snprintf(name, sizeof(name), "ps_%s-%s%s%s_%s_%s", sz,
						 kt_mode_name[rows[r].v],
						 rows[r].v == KT_INHERIT ? "-" : "",
						 rows[r].v == KT_INHERIT ? kt_mode_name[rows[r].top] : "",
						 mt_obj_name[anon_objs[k]], madv ? "madv" : "nomadv");
					run_fault_case(ctx, st, name, &p);
				}
	}
	/* two sizes at once: the larger one that fits wins, the smaller fills in */
	for (size_t m = 0; m < N_OF(mixes); m++) {
		int a = mixes[m][0], b = mixes[m][1];
		struct mt_policy p = base_policy(st, MT_ANON);

		if (!st->offered[a] || !st->offered[b] || hb_failed(ctx))
			continue;
		p.size[a] = p.size[b] = KT_ALWAYS;
		size_name(a, sz, sizeof(sz));
		size_name(b, sz2, sizeof(sz2));
		snprintf(name, sizeof(name), "mix_%s+%s-always_anon", sz, sz2);
		run_fault_case(ctx, st, name, &p);
	}
	/* top-level deny wins over a per-size always */
	if (st->offered[4] && !hb_failed(ctx)) {
		struct mt_policy p = base_policy(st, MT_ANON);

		p.size[4] = KT_ALWAYS;
		p.top = KT_DENY;
		run_fault_case(ctx, st, "ps_64kB-always-deny_anon_nomadv", &p);
	}
	/* tmpfs files: huge= decides, a per-size always on 64 kB changes nothing */
	for (size_t m = 0; m < N_OF(mounts); m++)
		for (int madv = 0; madv < 2 && !hb_failed(ctx); madv++) {
			struct mt_policy p = base_policy(st, MT_TMPFS);

			p.mount = mounts[m];
			p.madv = madv;
			if (st->offered[4])
				p.size[4] = KT_ALWAYS;
			snprintf(name, sizeof(name), "tmpfs_%s_%s", kt_mode_name[mounts[m]],
				 madv ? "madv" : "nomadv");
			run_fault_case(ctx, st, name, &p);
		}
	/* SysV: the top level decides, the per-size knobs do not reach it */
	for (size_t t = 0; st->sysv_ok && t < N_OF(sysv_tops); t++)
		for (int madv = 0; madv < 2 && !hb_failed(ctx); madv++) {
			struct mt_policy p = base_policy(st, MT_SYSV);

			p.top = sysv_tops[t];
			p.madv = madv;
			if (st->offered[4])
				p.size[4] = KT_ALWAYS;
			snprintf(name, sizeof(name), "sysv_%s_%s", kt_mode_name[sysv_tops[t]],
				 madv ? "madv" : "nomadv");
			run_fault_case(ctx, st, name, &p);
		}
}

/* ---- khugepaged ------------------------------------------------------------ */

static long long kh_counter(const char *name);

/* The readings must not race khugepaged: on 6.12 it collapses anonymous
 * shmem to PMD size whatever hugepages-2048kB/shmem_enabled says (see
 * mthp_table.h), and a collapse zaps the page tables of the range under the
 * reader. khugepaged sleeps scan_sleep_millisecs between passes only while
 * some mm is registered; the first registration wakes it at once. So: one
 * long sleep (the write wakes it), this mm registered through an empty
 * MADV_HUGEPAGE anonymous mapping (anon THP "madvise" if it was "never"),
 * then wait for the pass that follows to end (full_scans moves; 3 s at
 * most). The runner restores every knob written here. */
static void khugepaged_pause(void)
{
	static void *reg;
	long long f0 = kh_counter("full_scans");
	char en[32];
	uint64_t t0;

	hb_write_file(KH_DIR "/scan_sleep_millisecs", "86400000");
	hb_write_file(KH_DIR "/alloc_sleep_millisecs", "86400000");
	if (!reg) {
		hb_knob_active(THP_DIR "/enabled", en, sizeof(en));
		if (!strcmp(en, "never"))
			hb_write_file(THP_DIR "/enabled", "madvise");
		reg = mmap(NULL, 2 * HB_HPAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (reg == MAP_FAILED)
			reg = NULL;
		else
			madvise(reg, 2 * HB_HPAGE, MADV_HUGEPAGE);
	}
	t0 = hb_now_ns();
	while (f0 >= 0 && kh_counter("full_scans") == f0 && hb_now_ns() - t0 < 3000000000ULL)
		usleep(20000);
}

static long long kh_counter(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), KH_DIR "/%s", name);
	return hb_read_file(path, buf, sizeof(buf)) ? -1 : strtoll(buf, NULL, 10);
}

/* 16 kB "always", PMD "never", a memfd with MADV_HUGEPAGE written whole;
 * then khugepaged scans every 100 ms for up to 10 s (two full scans, where
 * it has our mm at all). A kernel whose khugepaged honours the PMD knob
 * leaves the 16 kB folios; 6.12's collapses to PMD (the table says which). */
static void khugepaged_part(struct hb_ctx *ctx, struct mt_state *st)
{
	struct mt_policy p = base_policy(st, MT_MEMFD);
	struct mt_walk w = { .pages = MT_OBJ_PAGES, .isize_pages = MT_OBJ_PAGES,
			     .vma_pages = MT_SPAN / HB_PAGE };
	long want[MT_N_ORDERS];
	char basis_buf[256], eh[128], oh[128], exp[256];
	const char *basis;
	struct mt_observed ob;
	long long f0, f1 = -1, coll0, coll1;
	bool collapses, ok;
	void *raw = NULL;
	size_t vma = 0;
	uint64_t t0;
	char *at;
	int fd = -1, r;

	if (!st->offered[2])
		return;
	p.size[2] = KT_ALWAYS;
	p.madv = true;
	collapses = mt_khugepaged_ignores_pmd_knob(st->kver, basis_buf, sizeof(basis_buf), &basis);
	if (!apply_policy(ctx, st, "khugepaged_ps_16kB_pmd_never", &p))
		return;
	at = reserve_aligned(&raw);
	if (!at) {
		hb_error(ctx, "khugepaged: mmap reserve");
		return;
	}
	r = map_object(&p, NULL, at, &fd, &vma);
	if (r || madvise(at, vma, MADV_HUGEPAGE)) {
		errno = r ? -r : errno;
		hb_error(ctx, "khugepaged: map the memfd");
		goto out;
	}
	for (long i = 0; i < MT_OBJ_PAGES; i++)
		at[i * HB_PAGE] = (char)(i | 1);
	f0 = kh_counter("full_scans");
	coll0 = kh_counter("pages_collapsed");
	hb_write_file(KH_DIR "/alloc_sleep_millisecs", "100");
	hb_write_file(KH_DIR "/scan_sleep_millisecs", "100");
	t0 = hb_now_ns();
	while (hb_now_ns() - t0 < 10000000000ULL) {
		usleep(100000);
		f1 = kh_counter("full_scans");
		if (f0 >= 0 && f1 >= f0 + 2)
			break;
	}
	khugepaged_pause();
	coll1 = kh_counter("pages_collapsed");
	/* fault back what a collapse took out of the page tables */
	for (long i = 0; i < MT_OBJ_PAGES; i++)
		(void)*(volatile char *)(at + i * HB_PAGE);
	r = mt_folio_orders(at, MT_OBJ, &ob);
	if (r) {
		errno = -r;
		hb_error(ctx, "khugepaged: read /proc/self/pagemap and /proc/kpageflags");
		goto out;
	}
	mt_expect(&p, &w, want);
	mt_hist_text(want, eh, sizeof(eh));
	mt_hist_text(ob.hist, oh, sizeof(oh));
	if (collapses) {
		ok = ob.hist[MT_PMD_ORDER] >= 1;
		snprintf(exp, sizeof(exp),
			 ">= 1 PMD folio: 6.12's khugepaged collapses although 2048kB is never "
			 "(__thp_vma_allowable_orders() does not intersect the shmem orders)");
	} else {
		ok = !memcmp(want, ob.hist, sizeof(want)) && !ob.absent;
		snprintf(exp, sizeof(exp), "%s (no collapse: hugepages-2048kB/shmem_enabled=never)",
			 eh);
	}
	hb_check_basis(ctx, "khugepaged_ps_16kB_pmd_never_orders", ok, basis, exp,
		       "%s after %lld full scans; pages_collapsed +%lld", oh,
		       f0 >= 0 && f1 >= 0 ? f1 - f0 : -1, coll1 - coll0);
out:
	munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
}

/* ---- boot parameters -------------------------------------------------------- */

/* The huge= of the tmpfs mounted at dir, from /proc/mounts ("never" when
 * the option is not shown: shmem_show_options() prints it when not never). */
static void mount_huge(const char *dir, char *out, size_t len)
{
	FILE *f = fopen("/proc/mounts", "re");
	char line[512];

	snprintf(out, len, "(not mounted)");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char dev[128], mnt[128], type[32], opts[256];
		const char *h;

		if (sscanf(line, "%127s %127s %31s %255s", dev, mnt, type, opts) != 4 ||
		    strcmp(mnt, dir))
			continue;
		h = strstr(opts, "huge=");
		if (!h) {
			snprintf(out, len, "never");
			continue;
		}
		snprintf(out, len, "%.*s", (int)strcspn(h + 5, ","), h + 5);
	}
	fclose(f);
}

/* What the boot parameters on /proc/cmdline left: the per-size values, the
 * top level, the huge= of a new mount and the folios it gives. Runs first,
 * before any knob is written. */
static void boot_part(struct hb_ctx *ctx, struct mt_state *st)
{
	char cmd[4096], why[384], exp[512] = "", obs[512] = "", sz[16], dir[64], got[32];
	size_t eo = 0, oo = 0;
	struct mt_boot b;
	bool ok = true;

	if (!hb_kf_has(HB_KF_SHMEM_BOOT_PARAMS, why, sizeof(why))) {
		hb_note(ctx, "boot parameters not checked: %s", why);
		return;
	}
	if (hb_read_file("/proc/cmdline", cmd, sizeof(cmd))) {
		hb_error(ctx, "read /proc/cmdline");
		return;
	}
	mt_boot_expect(cmd, &b);
	if (b.ignored)
		hb_note(ctx, "%d shmem THP boot parameter(s) on the command line are ones the "
			     "kernel rejects and ignores (mm/shmem.c); expected as ignored", b.ignored);
	for (int o = 1; o < MT_N_ORDERS; o++) {
		char path[128], v[32];

		if (!st->offered[o])
			continue;
		size_knob(o, path, sizeof(path));
		hb_knob_active(path, v, sizeof(v));
		size_name(o, sz, sizeof(sz));
		ok &= !strcmp(v, kt_mode_name[b.size[o]]);
		if (eo < sizeof(exp))
			eo += (size_t)snprintf(exp + eo, sizeof(exp) - eo, "%s%s=%s", eo ? " " : "",
					       sz, kt_mode_name[b.size[o]]);
		if (oo < sizeof(obs))
			oo += (size_t)snprintf(obs + oo, sizeof(obs) - oo, "%s%s=%s", oo ? " " : "",
					       sz, v);
	}
	hb_check(ctx, "boot_persize", ok, exp, "%s (thp_shmem= %s)", obs,
		 b.sizes_given ? "taken" : "not given: PMD inherit, others never");
	if (b.top != KT_UNSET) {
		hb_knob_active(MT_TOP, got, sizeof(got));
		hb_check(ctx, "boot_shmem_enabled", !strcmp(got, kt_mode_name[b.top]),
			 kt_mode_name[b.top], "%s", got);
	}
	if (b.tmpfs == KT_UNSET)
		return;
	/* a mount without huge=: the default, shown and obeyed */
	snprintf(dir, sizeof(dir), MT_DIR "/default");
	if (hb_mount_tmpfs(ctx, dir, "size=64m"))
		return;
	mount_huge(dir, got, sizeof(got));
	hb_check(ctx, "boot_tmpfs_default", !strcmp(got, kt_mode_name[b.tmpfs]),
		 kt_mode_name[b.tmpfs], "huge=%s in /proc/mounts of a mount without huge=", got);
	if (b.tmpfs <= KT_ADVISE) {
		struct mt_policy p = base_policy(st, MT_TMPFS);
		char name[64];

		/* the sizes as booted: a tmpfs file ignores them anyway */
		p.mount = b.tmpfs;
		p.top = b.top != KT_UNSET ? b.top : KT_NEVER;
		snprintf(name, sizeof(name), "boot_tmpfs_default_%s", kt_mode_name[b.tmpfs]);
		run_fault_case_in(ctx, st, name, &p, dir);
	}
	hb_umount(dir);
	rmdir(dir);
}

/* ---- large-folio swap ------------------------------------------------------ */

static long long stat_delta(const struct mt_stats *a, const struct mt_stats *b, int o,
			    enum mt_stat k)
{
	return a->v[o][k] < 0 || b->v[o][k] < 0 ? 0 : b->v[o][k] - a->v[o][k];
}

/* A 2 MiB memfd of 64 kB folios, written, swapped out with MADV_PAGEOUT:
 * every folio whole (swpout or zswpout +32 at 64 kB, swpout_fallback +0).
 * Then either a hole punch over [32 kB, 96 kB) -- half of each of the first
 * two large swap entries -- and everything read back (swap-in); or swapoff
 * with the large entries out, and everything read back. */
static void swap_case(struct hb_ctx *ctx, struct mt_state *st, struct pr *env, bool off)
{
	const char *name = off ? "swapoff_64kB_memfd" : "swap_64kB_memfd";
	const size_t hole = 32 * 1024, hole_len = 64 * 1024;
	struct mt_policy p = base_policy(st, MT_MEMFD);
	struct mt_walk w = { .pages = 512, .isize_pages = 512, .vma_pages = 512 };
	struct mt_stats a, b, c;
	struct mt_observed ob;
	char cn[96], e[96], h[128];
	long long out, zout, fb;
	void *raw = NULL;
	size_t bad = HB_HPAGE;
	char *at;
	int fd, r;

	p.size[4] = KT_ALWAYS;
	if (!apply_policy(ctx, st, name, &p))
		return;
	fd = memfd_create("hb-mthp-swap", MFD_CLOEXEC);
	at = reserve_aligned(&raw);
	if (fd < 0 || !at || ftruncate(fd, (off_t)HB_HPAGE) ||
	    mmap(at, HB_HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		hb_error(ctx, "%s: memfd", name);
		goto out;
	}
	hb_pattern_fill(at, HB_HPAGE, 0x5a5a + off, 0);
	r = mt_folio_orders(at, HB_HPAGE, &ob);
	if (r) {
		errno = -r;
		hb_error(ctx, "%s: read /proc/self/pagemap and /proc/kpageflags", name);
		goto out;
	}
	snprintf(cn, sizeof(cn), "%s_before", name);
	if (!check_orders(ctx, st, cn, &p, &w, &ob, P_POLICY))
		goto out;
	mt_stats_read(&a);
	r = madvise(at, HB_HPAGE, MADV_PAGEOUT) ? errno : 0;
	mt_stats_read(&b);
	snprintf(cn, sizeof(cn), "%s_pageout_call", name);
	hb_kf_errno_text(r, e, sizeof(e));
	if (!hb_check(ctx, cn, r == 0, "madvise(MADV_PAGEOUT) returns 0", "%s", r ? e : "0"))
		goto out;
	out = stat_delta(&a, &b, 4, MT_SWPOUT);
	zout = stat_delta(&a, &b, 4, MT_ZSWPOUT);
	fb = stat_delta(&a, &b, 4, MT_SWPOUT_FALLBACK);
	snprintf(cn, sizeof(cn), "%s_swpout", name);
	hb_check(ctx, cn, out + zout == 32 && fb == 0,
		 "64kB: swpout + zswpout +32 (every folio whole), swpout_fallback +0",
		 "64kB: swpout +%lld zswpout +%lld swpout_fallback +%lld; split +%lld", out, zout,
		 fb, stat_delta(&a, &b, 4, MT_SPLIT));
	if (!off) {
		snprintf(cn, sizeof(cn), "%s_punch_call", name);
		r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)hole,
			      (off_t)hole_len) ? errno : 0;
		hb_kf_errno_text(r, e, sizeof(e));
		hb_check(ctx, cn, r == 0, "punch [32 kB, 96 kB) over two swapped 64 kB entries",
			 "%s", r ? e : "0");
	} else {
		snprintf(cn, sizeof(cn), "%s_call", name);
		r = swapoff(env->swapdev) ? errno : 0;
		if (!r) {
			env->swap_on = false;
			hb_host_state_note(false, "swap", env->swapdev);
		}
		hb_kf_errno_text(r, e, sizeof(e));
		hb_check(ctx, cn, r == 0, "swapoff returns 0 with large entries out", "%s",
			 r ? e : "0");
	}
	/* everything back: swap-in by reading (or already in after swapoff) */
	for (size_t off2 = 0; off2 < HB_HPAGE && bad == HB_HPAGE; off2 += HB_PAGE) {
		bool zero = !off && off2 >= hole && off2 < hole + hole_len;
		size_t k;

		if (zero) {
			for (k = 0; k < HB_PAGE && !at[off2 + k]; k++)
				;
		} else {
			k = hb_pattern_verify(at + off2, HB_PAGE, 0x5a5a + off, off2);
		}
		if (k != HB_PAGE)
			bad = off2 + k;
	}
	mt_stats_read(&c);
	snprintf(cn, sizeof(cn), "%s_data", name);
	hb_check(ctx, cn, bad == HB_HPAGE,
		 off ? "every byte as written after swapoff"
		     : "every byte as written after swap-in, the punched 64 kB zero",
		 bad == HB_HPAGE ? "all %zu bytes" : "first bad byte at %zu",
		 bad == HB_HPAGE ? (size_t)HB_HPAGE : bad);
	if (!mt_folio_orders(at, HB_HPAGE, &ob)) {
		mt_hist_text(ob.hist, h, sizeof(h));
		hb_note(ctx, "%s: folios after %s: %s; 64kB swpin +%lld swpin_fallback +%lld", name,
			off ? "swapoff" : "swap-in", h, stat_delta(&b, &c, 4, MT_SWPIN),
			stat_delta(&b, &c, 4, MT_SWPIN_FALLBACK));
		for (int o = 0; o < MT_N_ORDERS; o++)
			st->swapin_hist[o] += ob.hist[o];
	}
out:
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	if (fd >= 0)
		close(fd);
}

static void swap_part(struct hb_ctx *ctx, struct mt_state *st)
{
	struct pr env = { .ctx = ctx };
	char why[256];

	if (!st->offered[4])
		return;
	if (access(PR_ZRAM, F_OK))
		hb_load_module("zram", "num_devices=1");
	if (!hb_kf_has(HB_KF_ZRAM, why, sizeof(why)) || access(PR_ZRAM, F_OK)) {
		hb_note(ctx, "swap part not run: %s", access(PR_ZRAM, F_OK) ? "no zram0 (module?)" : why);
		return;
	}
	if (!pr_swap_setup(&env, 64)) {
		st->swap_ran = true;
		swap_case(ctx, st, &env, false);
		if (!hb_failed(ctx))
			swap_case(ctx, st, &env, true);
	}
	pr_swap_teardown(&env);
}

/* ---- split to order ---------------------------------------------------------- */

#define DEBUGFS "/sys/kernel/debug"
#define SPLIT_KNOB DEBUGFS "/split_huge_pages"

/* A 2 MiB file on the huge=always mount, written (one PMD folio), split
 * to new_order through split_huge_pages in its pid form (our mapping's
 * range) or its file form (path, page offsets); then its folios, the
 * 2048 kB split counter and its data. */
static void split_case(struct hb_ctx *ctx, struct mt_state *st, bool file_form, int new_order)
{
	struct mt_policy p = base_policy(st, MT_TMPFS);
	char name[64], path[96], cmd[192], cn[96], eh[128], oh[128], basis_buf[256], e[96];
	char exp[160];
	long long split_want, split_seen;
	const char *basis;
	long want[MT_N_ORDERS];
	struct mt_stats a, b;
	struct mt_observed ob;
	void *raw = NULL;
	char *at = NULL;
	size_t bad;
	int fd, r;

	p.mount = KT_ALWAYS;
	snprintf(name, sizeof(name), "split_%s_order%d", file_form ? "file" : "pid", new_order);
	if (!apply_policy(ctx, st, name, &p))
		return;
	snprintf(path, sizeof(path), MT_DIR "/always/split");
	fd = hb_create_file(ctx, path, HB_HPAGE);
	if (fd < 0)
		return;
	at = reserve_aligned(&raw);
	if (!at || mmap(at, HB_HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
			   MAP_FAILED) {
		hb_error(ctx, "%s: map %s", name, path);
		goto out;
	}
	hb_pattern_fill(at, HB_HPAGE, 0x5911 + (uint64_t)new_order, 0);
	if (mt_folio_orders(at, HB_HPAGE, &ob) || ob.hist[MT_PMD_ORDER] != 1) {
		mt_hist_text(ob.hist, oh, sizeof(oh));
		snprintf(cn, sizeof(cn), "%s_setup", name);
		hb_check(ctx, cn, false, "one PMD folio before the split", "%s", oh);
		goto out;
	}
	if (file_form)
		snprintf(cmd, sizeof(cmd), "%s,0x0,0x%lx,%d", path, HB_HPAGE / HB_PAGE, new_order);
	else
		snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx,%d", (int)getpid(), (unsigned long)at,
			 (unsigned long)at + HB_HPAGE, new_order);
	mt_stats_read(&a);
	r = hb_write_file(SPLIT_KNOB, cmd);
	mt_stats_read(&b);
	snprintf(cn, sizeof(cn), "%s_write", name);
	hb_kf_errno_text(-r, e, sizeof(e));
	if (!hb_check(ctx, cn, r == 0, "the split request accepted", "write '%s': %s", cmd,
		      r ? e : "0"))
		goto out;
	for (long i = 0; i < (long)(HB_HPAGE / HB_PAGE); i++)
		(void)*(volatile char *)(at + i * HB_PAGE);
	r = mt_folio_orders(at, HB_HPAGE, &ob);
	if (r) {
		errno = -r;
		hb_error(ctx, "%s: read /proc/self/pagemap and /proc/kpageflags", name);
		goto out;
	}
	mt_expect_split(st->kver, new_order, want, basis_buf, sizeof(basis_buf), &basis);
	mt_hist_text(want, eh, sizeof(eh));
	mt_hist_text(ob.hist, oh, sizeof(oh));
	snprintf(cn, sizeof(cn), "%s_orders", name);
	st->cases++;
	/* hugepages-2048kB/stats/split counts the split that happened, only it */
	split_want = want[MT_PMD_ORDER] ? 0 : 1;
	split_seen = stat_delta(&a, &b, MT_PMD_ORDER, MT_SPLIT);
	snprintf(exp, sizeof(exp), "%s; 2048kB split +%lld", eh, split_want);
	if (hb_check_basis(ctx, cn,
			   !memcmp(want, ob.hist, sizeof(want)) && !ob.absent &&
				   split_seen == split_want,
			   basis, exp, "%s; 2048kB split +%lld", oh, split_seen))
		st->matching++;
	bad = hb_pattern_verify(at, HB_HPAGE, 0x5911 + (uint64_t)new_order, 0);
	snprintf(cn, sizeof(cn), "%s_data", name);
	hb_check(ctx, cn, bad == HB_HPAGE, "every byte as written", "%s %zu",
		 bad == HB_HPAGE ? "all bytes:" : "first bad byte at", bad);
out:
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	close(fd);
	unlink(path);
}

static void split_part(struct hb_ctx *ctx, struct mt_state *st)
{
	static const int orders[] = { 0, 2, 4, 8 };
	bool mounted = false;

	if (access(SPLIT_KNOB, W_OK)) {
		if (mount("none", DEBUGFS, "debugfs", 0, NULL) == 0)
			mounted = true;
		if (access(SPLIT_KNOB, W_OK)) {
			hb_note(ctx, "split part not run: no writable " SPLIT_KNOB
				     " (CONFIG_DEBUG_FS off, or debugfs not mountable: %s)",
				strerror(errno));
			goto out;
		}
	}
	for (int form = 0; form < 2; form++)
		for (size_t i = 0; i < N_OF(orders) && !hb_failed(ctx); i++)
			split_case(ctx, st, form, orders[i]);
out:
	if (mounted)
		umount(DEBUGFS);
}

/* ---- write(2) ------------------------------------------------------------ */

/* A byte of the data of file `seed` at offset off (any alignment). */
static unsigned char data_byte(uint64_t seed, size_t off)
{
	uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ (off / 8) * 0xBF58476D1CE4E5B9ULL;

	x ^= x >> 31;
	x *= 0x94D049BB133111EBULL;
	x ^= x >> 29;
	return (unsigned char)(x >> ((off % 8) * 8));
}

static void data_fill(unsigned char *buf, size_t len, uint64_t seed, size_t off)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = data_byte(seed, off + i);
}

/* The first offset in [0, len) that differs, or len. */
static size_t data_verify(const unsigned char *buf, size_t len, uint64_t seed, size_t off)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != data_byte(seed, off + i))
			return i;
	return len;
}

static int write_all(int fd, const unsigned char *buf, size_t len, size_t chunk)
{
	for (size_t off = 0; off < len;) {
		size_t n = len - off < chunk ? len - off : chunk;
		ssize_t w = write(fd, buf + off, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		off += (size_t)w;
	}
	return 0;
}

static int read_all(int fd, unsigned char *buf, size_t len, off_t at)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = pread(fd, buf + off, len - off, at + (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

static void run_write_case(struct hb_ctx *ctx, struct mt_state *st, enum kt_mode mount,
			   size_t chunk, unsigned char *src, unsigned char *back)
{
	struct mt_policy p = base_policy(st, MT_TMPFS);
	struct mt_walk w = { .pages = MT_OBJ_PAGES, .chunk_pages = (long)(chunk / HB_PAGE) };
	char name[96], path[96], cn[128], metric[96];
	struct mt_stats a, b;
	struct mt_observed ob;
	uint64_t t0, t1;
	void *raw = NULL;
	char *at;
	size_t bad;
	int fd, r;

	p.mount = mount;
	snprintf(name, sizeof(name), "write_%s_%zuk", kt_mode_name[mount], chunk / 1024);
	if (!apply_policy(ctx, st, name, &p))
		return;
	snprintf(path, sizeof(path), MT_DIR "/%s/w", kt_mode_name[mount]);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		hb_error(ctx, "%s: open %s", name, path);
		return;
	}
	mt_stats_read(&a);
	t0 = hb_now_ns();
	r = write_all(fd, src, MT_OBJ, chunk);
	t1 = hb_now_ns();
	mt_stats_read(&b);
	if (r) {
		errno = -r;
		hb_error(ctx, "%s: write %s", name, path);
		goto out;
	}
	snprintf(metric, sizeof(metric), "%s_ns_per_page", name);
	hb_metric1(ctx, metric, "ns", HB_LOWER, (double)(t1 - t0) / (double)MT_OBJ_PAGES);
	/* the folios, through a read-only mapping of the file */
	at = reserve_aligned(&raw);
	if (!at || mmap(at, MT_OBJ, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		hb_error(ctx, "%s: map %s", name, path);
		goto out;
	}
	for (long i = 0; i < MT_OBJ_PAGES; i++)
		(void)*(volatile char *)(at + i * HB_PAGE);
	r = mt_folio_orders(at, MT_OBJ, &ob);
	if (r) {
		errno = -r;
		hb_error(ctx, "%s: read /proc/self/pagemap and /proc/kpageflags", name);
		goto out;
	}
	check_orders(ctx, st, name, &p, &w, &ob, P_WRITE);
	check_stats(ctx, name, &a, &b, ob.hist);
	/* the data, through read(2) and through the mapping */
	snprintf(cn, sizeof(cn), "%s_data", name);
	r = read_all(fd, back, MT_OBJ, 0);
	bad = r ? 0 : data_verify(back, MT_OBJ, 1, 0);
	if (bad == MT_OBJ)
		bad = data_verify((const unsigned char *)at, MT_OBJ, 1, 0);
	if (r)
		snprintf(metric, sizeof(metric), "read(2) failed");
	else if (bad == MT_OBJ)
		snprintf(metric, sizeof(metric), "all %zu bytes", (size_t)MT_OBJ);
	else
		snprintf(metric, sizeof(metric), "first bad byte at %zu", bad);
	hb_check(ctx, cn, !r && bad == MT_OBJ, "every byte as written (read(2) and mmap)", "%s",
		 metric);
out:
	if (raw)
		munmap(raw, MT_SPAN + HB_HPAGE);
	close(fd);
	unlink(path);
}

static void write_part(struct hb_ctx *ctx, struct mt_state *st)
{
	static const enum kt_mode mounts[] = { KT_WITHIN_SIZE, KT_ALWAYS, KT_NEVER };
	static const size_t chunks[] = { 4096, 16384, 65536, 512 * 1024, HB_HPAGE };
	unsigned char *src = malloc(MT_OBJ), *back = malloc(MT_OBJ);

	if (!src || !back) {
		hb_error(ctx, "malloc");
		goto out;
	}
	data_fill(src, MT_OBJ, 1, 0);
	for (size_t m = 0; m < N_OF(mounts); m++)
		for (size_t c = 0; c < N_OF(chunks) && !hb_failed(ctx); c++)
			run_write_case(ctx, st, mounts[m], chunks[c], src, back);
out:
	free(src);
	free(back);
}

/* ---- integrity: a build-like mix ------------------------------------------ */

static const size_t mix_sizes[] = { 1000,	    4096,	 12345,	    65636,
				    300000,	    1048576,	 HB_HPAGE + 4103, 3 * HB_MB + 12345,
				    777,	    HB_HPAGE,	 131072 + 5, 40960 };
static const size_t mix_chunks[] = { 1000, 4096, 8193, 65536, HB_MB, HB_HPAGE, 333 };

/* Writes file i, overwrites a third of it with data of seed i + 100,
 * truncates it into the middle and extends it back; then verifies every
 * byte. Returns the first bad offset, or size; -1 on an I/O error. */
static long mix_file(const char *path, size_t i, unsigned char *buf)
{
	size_t size = mix_sizes[i], chunk = mix_chunks[i % N_OF(mix_chunks)];
	size_t ow = size / 3, owlen = size / 5, cut = size / 2 + 1;
	long bad = (long)size;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	data_fill(buf, size, i, 0);
	if (write_all(fd, buf, size, chunk))
		goto io;
	data_fill(buf, owlen, i + 100, ow);
	if (owlen && pwrite(fd, buf, owlen, (off_t)ow) != (ssize_t)owlen)
		goto io;
	if (ftruncate(fd, (off_t)cut) || ftruncate(fd, (off_t)size))
		goto io;
	if (read_all(fd, buf, size, 0))
		goto io;
	for (size_t off = 0; off < size && bad == (long)size; off++) {
		unsigned char want = off >= cut		? 0
				     : off >= ow && off < ow + owlen ? data_byte(i + 100, off)
								       : data_byte(i, off);

		if (buf[off] != want)
			bad = (long)off;
	}
	close(fd);
	return bad;
io:
	close(fd);
	return -1;
}

static void integrity_part(struct hb_ctx *ctx, struct mt_state *st)
{
	static const enum kt_mode mounts[] = { KT_WITHIN_SIZE, KT_ALWAYS };
	unsigned char *buf = malloc(3 * HB_MB + 12345);
	double bytes = 0;

	(void)st;
	if (!buf) {
		hb_error(ctx, "malloc");
		return;
	}
	for (size_t m = 0; m < N_OF(mounts) && !hb_failed(ctx); m++) {
		char path[96], cn[64], first[160] = "";
		int bad_files = 0;

		for (size_t i = 0; i < N_OF(mix_sizes); i++) {
			long bad;

			snprintf(path, sizeof(path), MT_DIR "/%s/mix%02zu", kt_mode_name[mounts[m]], i);
			bad = mix_file(path, i, buf);
			if (bad != (long)mix_sizes[i]) {
				if (!bad_files++)
					snprintf(first, sizeof(first),
						 "file %zu (%zu bytes): %s %ld", i, mix_sizes[i],
						 bad < 0 ? "I/O error" : "first bad byte at",
						 bad < 0 ? 0 : bad);
			}
			bytes += (double)mix_sizes[i];
		}
		for (size_t i = 0; i < N_OF(mix_sizes); i++) {
			snprintf(path, sizeof(path), MT_DIR "/%s/mix%02zu", kt_mode_name[mounts[m]], i);
			unlink(path);
		}
		snprintf(cn, sizeof(cn), "integrity_%s", kt_mode_name[mounts[m]]);
		hb_check(ctx, cn, bad_files == 0,
			 "every byte of every file as written, overwritten, truncated and extended",
			 bad_files ? "%d of %zu files differ; %s" : "%d of %zu files differ%s",
			 bad_files, N_OF(mix_sizes), first);
	}
	hb_metric1(ctx, "integrity_bytes", "bytes", HB_INFO, bytes);
	free(buf);
}

/* ---- the workload ---------------------------------------------------------- */

bool mt_subject(struct hb_ctx *ctx, const long hist[MT_N_ORDERS])
{
	long mthp = 0;

	for (int o = 1; o < MT_PMD_ORDER; o++)
		mthp += hist[o];
	return hb_check(ctx, "subject_mthp_folios", mthp >= 1 && hist[MT_PMD_ORDER] >= 1,
			">= 1 folio of an order in 1..8 and >= 1 PMD folio seen in pagemap",
			"%ld folios of orders 1..8, %ld PMD folios", mthp, hist[MT_PMD_ORDER]);
}

static void emit_hist(struct hb_ctx *ctx, const char *part, const long hist[MT_N_ORDERS])
{
	for (int o = 0; o < MT_N_ORDERS; o++) {
		char m[64];

		snprintf(m, sizeof(m), "%s_folios_order%d", part, o);
		hb_metric1(ctx, m, "count", HB_INFO, (double)hist[o]);
	}
}

static void mthp_run(struct hb_ctx *ctx)
{
	struct mt_state st = { .kver = hb_kver(), .cur_top = KT_UNSET };
	bool do_policy = hb_param_bool(ctx, "policy"), do_write = hb_param_bool(ctx, "write");
	bool do_integrity = hb_param_bool(ctx, "integrity");
	static const enum kt_mode mounts[] = { KT_NEVER, KT_ALWAYS, KT_WITHIN_SIZE, KT_ADVISE };
	char top0[32], dir[64], opts[64], why[384];
	uint64_t t0 = hb_now_ns();
	int n_offered = 0;

	if (hb_failed(ctx))
		return;
	for (int o = 1; o < MT_N_ORDERS; o++) {
		char path[128];

		size_knob(o, path, sizeof(path));
		st.offered[o] = access(path, W_OK) == 0;
		st.cur_size[o] = KT_UNSET;
		n_offered += st.offered[o];
	}
	/* the kernel has the per-size knobs (the probe said so): every file
	 * order must be offered, PMD included */
	if (!hb_check(ctx, "sizes_offered", n_offered == MT_N_ORDERS - 1,
		      "hugepages-<N>kB/shmem_enabled for 8 kB .. 2048 kB (orders 1..9)",
		      "%d of %d sizes", n_offered, MT_N_ORDERS - 1))
		hb_note(ctx, "only the sizes offered are run");
	st.sysv_ok = hb_kf_has(HB_KF_SYSV_SHM, why, sizeof(why));
	if (!st.sysv_ok)
		hb_note(ctx, "sysv cases not run: %s", why);
	hb_knob_active(MT_TOP, top0, sizeof(top0));
	for (size_t m = 0; m < N_OF(mounts); m++) {
		snprintf(dir, sizeof(dir), MT_DIR "/%s", kt_mode_name[mounts[m]]);
		snprintf(opts, sizeof(opts), "huge=%s,size=64m", kt_mode_name[mounts[m]]);
		if (hb_mount_tmpfs(ctx, dir, opts))
			goto out;
		st.mounts_ok++;
	}
	khugepaged_pause();
	if (hb_param_bool(ctx, "boot"))
		boot_part(ctx, &st);
	if (do_policy && !hb_failed(ctx))
		policy_part(ctx, &st);
	if (hb_param_bool(ctx, "khugepaged") && !hb_failed(ctx))
		khugepaged_part(ctx, &st);
	if (hb_param_bool(ctx, "swap") && !hb_failed(ctx))
		swap_part(ctx, &st);
	if (hb_param_bool(ctx, "split") && !hb_failed(ctx))
		split_part(ctx, &st);
	if (do_write && !hb_failed(ctx))
		write_part(ctx, &st);
	if (do_integrity && !hb_failed(ctx))
		integrity_part(ctx, &st);
	if (hb_failed(ctx))
		goto out;
	if (do_policy)
		mt_subject(ctx, st.hist[P_POLICY]);
	for (int p = 0; p < P_N; p++)
		if (p == P_POLICY ? do_policy : do_write)
			emit_hist(ctx, part_name[p], st.hist[p]);
	if (st.swap_ran)
		emit_hist(ctx, "swapin", st.swapin_hist);
	hb_metric1(ctx, "mthp_cases", "count", HB_INFO, st.cases);
	hb_metric1(ctx, "mthp_cases_matching", "count", HB_HIGHER, st.matching);
	hb_metric1(ctx, "mthp_pagemap_rereads", "count", HB_INFO, (double)st.retries);
	hb_metric1(ctx, "mthp_elapsed", "ms", HB_INFO, (double)(hb_now_ns() - t0) / 1e6);
out:
	/* the runner restores every knob too; put these back at once anyway */
	if (top0[0])
		hb_write_file(MT_TOP, top0);
	for (size_t m = 0; m < (size_t)st.mounts_ok; m++) {
		snprintf(dir, sizeof(dir), MT_DIR "/%s", kt_mode_name[mounts[m]]);
		hb_umount(dir);
		rmdir(dir);
	}
	rmdir(MT_DIR);
}

const char *mt_unsupported(int kver, enum hb_kf_cfg per_size, enum hb_kf_cfg kpf, char *why,
			   size_t len)
{
	if (!hb_kf_decide(HB_KF_SHMEM_PER_SIZE, kver, per_size, why, len))
		return why;
	if (!hb_kf_decide(HB_KF_KPAGEFLAGS, kver, kpf, why, len))
		return why;
	return NULL;
}

static const char *mthp_unsupported(struct hb_ctx *ctx)
{
	static char why[384];
	const char *r = hb_huge_tmpfs_probe(ctx);

	if (r)
		return r;
	r = mt_unsupported(hb_kver(), hb_kf_config_now(HB_KF_SHMEM_PER_SIZE),
			   hb_kf_config_now(HB_KF_KPAGEFLAGS), why, sizeof(why));
	if (r)
		return r;
	if (access(MT_TOP, W_OK))
		return "no write access to " MT_TOP " (not root)";
	return NULL;
}

static const struct hb_param mthp_params[] = {
	{ .name = "boot", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "what thp_shmem=, transparent_hugepage_shmem=/_tmpfs= on the command line left (6.14+)" },
	{ .name = "policy", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "per-size shmem_enabled x object x MADV_HUGEPAGE, and the objects it must not reach" },
	{ .name = "khugepaged", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "khugepaged with a 16 kB size on and PMD never: no collapse (6.12: collapse)" },
	{ .name = "swap", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "64 kB folios swapped out whole to zram, a hole punched across entries, swap-in, swapoff" },
	{ .name = "split", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "a PMD folio split to orders 0, 2, 4, 8 through debugfs split_huge_pages (pid and file forms)" },
	{ .name = "write", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "tmpfs write(2) in chunks of 4 kB .. 2 MB on within_size/always/never mounts" },
	{ .name = "integrity", .type = HB_PARAM_BOOL, .def = "1",
	  .help = "a build-like mix of files written, overwritten, truncated, verified" },
	HB_PARAM_END,
};

const struct hb_workload hb_wl_mthp = {
	.name = "mthp",
	.help = "multi-size shmem THP: folio orders per size knob, object and write path; stats; data",
	.unsupported = mthp_unsupported,
	.run = mthp_run,
	.params = mthp_params,
};
