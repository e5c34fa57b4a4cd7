/* mthp_table.c - the expected order of every shmem folio the mthp workload
 * allocates, per kernel version, as data plus the one walk that applies it.
 *
 * Sources (read 2026-12-04; docs/workloads.md, "mthp"):
 *  - 7.2 (linux-source-7.2 7.2.13): Documentation/admin-guide/mm/transhuge.rst,
 *    "Hugepages in tmpfs/shmem": tmpfs mounts "make use of all available huge
 *    page sizes" (huge=always / within_size: "Always try PMD-sized huge pages
 *    first, and fall back to smaller-sized huge pages"), the internal mount
 *    (SysV, memfd, shared anonymous) is controlled per size by
 *    hugepages-<size>kB/shmem_enabled (always, inherit, never, within_size,
 *    advise; PMD "inherit", the others "never" by default). mm/shmem.c:
 *    shmem_huge_global_enabled() returns an order mask (every file order for
 *    huge=always; for within_size the orders up to the largest whose aligned
 *    block ends inside max(i_size, write end), shmem_get_orders_within_size();
 *    else the madvise rule), shmem_allowable_huge_orders() applies the
 *    per-size masks to anonymous shmem VMAs only (vma_is_anon_shmem(): shared
 *    anonymous and, being unlinked when mapped, memfd) and returns the global
 *    mask for everything else (tmpfs files, SysV, write(2) with no VMA);
 *    shmem_suitable_orders() keeps the orders whose aligned block lies inside
 *    the VMA (thp_vma_suitable_orders()) and holds no page yet;
 *    shmem_alloc_and_add_folio() takes the highest.
 *  - 6.12 (linux-source-6.12 6.12.118): the same per-size rules for
 *    anonymous shmem (within_size per size against i_size only), but
 *    shmem_huge_global_enabled() is PMD or nothing: tmpfs and SysV get a PMD
 *    folio or small pages, and write(2) on within_size gets PMD only when the
 *    2 MiB block ends inside the write.
 * The two readings are the two eras below; upstream the change is "mm: shmem:
 * add large folio support for tmpfs" (6.14). 6.19 was not read (Debian has no
 * linux-source-6.19): a walk whose two readings differ is an extrapolation
 * there, and every walk is one after 7.2 (mt_expect_basis()).
 *
 * Where transhuge.rst and the code disagree the code is followed, as in
 * knobs_table.c: per-size within_size "Also respect[s] madvise() hints" says
 * the text, but only the "advise" orders follow MADV_HUGEPAGE in
 * shmem_allowable_huge_orders() of 6.12 and 7.2.
 */
#include "mthp_table.h"

#include <stdio.h>
#include <string.h>

const char *const mt_obj_name[MT_N_OBJ] = {
	[MT_TMPFS] = "tmpfs", [MT_ANON] = "anon", [MT_MEMFD] = "memfd", [MT_SYSV] = "sysv",
};

#define BIT(o) (1u << (o))
#define PMD_BIT BIT(MT_PMD_ORDER)
/* THP_ORDERS_ALL_FILE_DEFAULT: orders 1 .. MAX_PAGECACHE_ORDER */
#define FILE_ORDERS ((BIT(MT_PMD_ORDER + 1) - 1) & ~BIT(0))

/* The global rule, [era][superblock huge value]: what shmem_huge_global_enabled()
 * returns for a superblock in mode never/always/within_size/advise. G_*
 * values are resolved by global_orders(). */
enum g_rule { G_NONE, G_ALL, G_WITHIN_OR_MADV, G_MADV };
static const enum g_rule global_rule[KT_N_MODES] = {
	[KT_NEVER] = G_NONE,
	[KT_ALWAYS] = G_ALL,
	[KT_WITHIN_SIZE] = G_WITHIN_OR_MADV,
	[KT_ADVISE] = G_MADV,
	[KT_DENY] = G_NONE, /* not a superblock value: handled first */
	[KT_FORCE] = G_NONE,
	[KT_INHERIT] = G_NONE,
	[KT_UNSET] = G_NONE,
};
/* the orders "all" means in each era */
static const unsigned era_all[] = { [MT_ERA_PMD] = PMD_BIT, [MT_ERA_ORDERS] = FILE_ORDERS };

enum mt_era mt_era_of(int kver)
{
	return kver >= KT_KVER_TMPFS_ORDERS ? MT_ERA_ORDERS : MT_ERA_PMD;
}

static int highest(unsigned mask)
{
	for (int o = MT_PMD_ORDER; o >= 0; o--)
		if (mask & BIT(o))
			return o;
	return -1;
}

/* shmem_get_orders_within_size(): the orders of mask up to the highest one
 * whose aligned block around idx ends inside isize pages; 0 if none. */
static unsigned within_size(unsigned mask, long idx, long isize)
{
	for (int o = highest(mask); o >= 1; o--) {
		long end;

		if (!(mask & BIT(o)))
			continue;
		end = (idx / (1L << o) + 1) * (1L << o); /* round_up(idx + 1, 1 << o) */
		if (isize >= end)
			return mask & (BIT(o + 1) - 1);
	}
	return 0;
}

static bool internal_mount(enum mt_obj o)
{
	return o != MT_TMPFS;
}

/* shmem_huge_global_enabled(): isize is max(write end, i_size) in pages. */
static unsigned global_orders(const struct mt_policy *p, enum mt_era era, long idx, long isize,
			      bool madv)
{
	enum kt_mode sb = internal_mount(p->obj) ? p->top : p->mount;
	unsigned w;

	if (p->top == KT_DENY)
		return 0;
	if (p->top == KT_FORCE)
		return PMD_BIT;
	switch (sb < KT_N_MODES ? global_rule[sb] : G_NONE) {
	case G_ALL:
		return era_all[era];
	case G_WITHIN_OR_MADV:
		w = era == MT_ERA_ORDERS ? within_size(FILE_ORDERS, idx, isize)
					 : within_size(PMD_BIT, idx, isize);
		if (w)
			return w;
		return madv ? era_all[era] : 0;
	case G_MADV:
		return madv ? era_all[era] : 0;
	default:
		return 0;
	}
}

/* The per-size masks (huge_shmem_orders_<value>) of a policy. */
static unsigned size_mask(const struct mt_policy *p, enum kt_mode v)
{
	unsigned m = 0;

	for (int o = 1; o <= MT_PMD_ORDER; o++)
		if (p->size[o] == v)
			m |= BIT(o);
	return m;
}

unsigned mt_allowed_orders(const struct mt_policy *p, enum mt_era era, long idx,
			   long write_end_pages, bool fault, long isize_pages)
{
	bool madv = fault && p->madv; /* VM_HUGEPAGE: only a fault has a VMA */
	long isize = write_end_pages > isize_pages ? write_end_pages : isize_pages;
	unsigned g = global_orders(p, era, idx, isize, madv), mask;

	/* tmpfs files, SysV, write(2): the global mask (per-size knobs ignored) */
	if (!fault || p->obj == MT_TMPFS || p->obj == MT_SYSV)
		return g;
	/* anonymous shmem: deny wins, force grants the "inherit" orders */
	if (p->top == KT_DENY)
		return 0;
	if (p->top == KT_FORCE)
		return size_mask(p, KT_INHERIT);
	mask = size_mask(p, KT_ALWAYS);
	mask |= within_size(size_mask(p, KT_WITHIN_SIZE), idx, isize_pages);
	if (madv)
		mask |= size_mask(p, KT_ADVISE);
	if (g)
		mask |= size_mask(p, KT_INHERIT);
	return mask & FILE_ORDERS;
}

int mt_expect_in(const struct mt_policy *p, const struct mt_walk *w, enum mt_era era,
		 long hist[MT_N_ORDERS])
{
	/* the pages that hold a folio: up to one PMD block past the walk */
	static unsigned char present[MT_MAX_PAGES + (1L << MT_PMD_ORDER)];
	bool fault = w->vma_pages > 0;
	long isize = w->isize_pages;

	memset(hist, 0, sizeof(long) * MT_N_ORDERS);
	if (w->pages <= 0 || w->pages > MT_MAX_PAGES || (fault && w->vma_pages > MT_MAX_PAGES) ||
	    (!fault && w->chunk_pages <= 0))
		return -1;
	memset(present, 0, sizeof(present));
	for (long idx = 0; idx < w->pages; idx++) {
		long wend = 0;
		unsigned m;
		int o;

		if (present[idx])
			continue;
		if (!fault) {
			/* the write() that covers idx; i_size grew to its start */
			long start = idx / w->chunk_pages * w->chunk_pages;

			wend = start + w->chunk_pages < w->pages ? start + w->chunk_pages : w->pages;
			if (start > isize)
				isize = start;
		}
		m = mt_allowed_orders(p, era, idx, wend, fault, isize);
		for (o = highest(m); o >= 1; o--) {
			long n = 1L << o, start = idx / n * n;
			bool busy = false;

			if (!(m & BIT(o)))
				continue;
			if (fault && start + n > w->vma_pages)
				continue; /* thp_vma_suitable_orders() */
			for (long i = start; i < start + n && !busy; i++)
				busy = present[i];
			if (busy)
				continue; /* shmem_suitable_orders(): a page is there */
			memset(present + start, 1, (size_t)n);
			hist[o]++;
			break;
		}
		if (o < 1) {
			present[idx] = 1;
			hist[0]++;
		}
	}
	return 0;
}

int mt_expect(const struct mt_policy *p, const struct mt_walk *w, long hist[MT_N_ORDERS])
{
	return mt_expect_in(p, w, mt_era_of(p->kver), hist);
}

const char *mt_expect_basis(const struct mt_policy *p, const struct mt_walk *w, char *buf,
			    size_t len)
{
	long a[MT_N_ORDERS], b[MT_N_ORDERS];
	int v = p->kver;

	if (v > KT_KVER_NEWEST_TABLE) {
		snprintf(buf, len, "extrapolated: the 7.2 reading (newest read) on Linux %d.%d",
			 v / 1000, v % 1000);
		return buf;
	}
	if (v <= KT_KVER_PMD_TABLE || v == KT_KVER_NEWEST_TABLE)
		return NULL;
	if (mt_expect_in(p, w, MT_ERA_PMD, a) || mt_expect_in(p, w, MT_ERA_ORDERS, b) ||
	    !memcmp(a, b, sizeof(a)))
		return NULL;
	snprintf(buf, len,
		 "extrapolated: the 6.12 and 7.2 readings differ here (tmpfs large folios, "
		 "upstream 6.14); Linux %d.%d's source was not read, the %s reading is used",
		 v / 1000, v % 1000, mt_era_of(v) == MT_ERA_ORDERS ? "7.2" : "6.12");
	return buf;
}

void mt_hist_text(const long hist[MT_N_ORDERS], char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int o = MT_PMD_ORDER; o >= 0 && off < len; o--) {
		int n;

		if (!hist[o])
			continue;
		n = snprintf(buf + off, len - off, "%s%d:%ld", off ? " " : "", o, hist[o]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (!off)
		snprintf(buf, len, "none");
}
