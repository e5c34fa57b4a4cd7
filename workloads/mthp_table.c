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
 * linux-source-6.19): a walk whose two readings differ is unverified there
 * (soft), and after 7.2 every walk is judged by the 7.2 reading and fails on
 * disagreement (mt_expect_basis(): "per the 7.2 rules, newest verified").
 *
 * Where transhuge.rst and the code disagree, decided from 7.2.13's source
 * (issue 36, docs/findings.md "Decisions"): per-size within_size "Also
 * respect[s] madvise() hints" says the text (transhuge.rst 510-512), but
 * shmem_allowable_huge_orders() (mm/shmem.c 1855-1859, the same in 6.12)
 * adds only the "advise" orders for VM_HUGEPAGE: intended, the line was
 * copied from the mount option's text; SysV is not anonymous shmem (ipc/shm.c
 * 618, mm/shmem.c 283-285, 1838): intended. The memfd within_size PMD
 * (knobs_table.c) is a known bug; no mthp walk here shows it (the per-size
 * cases set 2048 kB explicitly).
 */
#define _GNU_SOURCE
#include "mthp_table.h"

#include "expect_tables.h"

#include <stdio.h>
#include <stdlib.h>
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

	/* newer than the newest verified reading: its rules, hard */
	if (v > KT_KVER_NEWEST_TABLE)
		return hb_expect_basis_newest(buf, len, KT_KVER_NEWEST_TABLE, v);
	if (v <= KT_KVER_PMD_TABLE || v == KT_KVER_NEWEST_TABLE)
		return NULL;
	if (mt_expect_in(p, w, MT_ERA_PMD, a) || mt_expect_in(p, w, MT_ERA_ORDERS, b) ||
	    !memcmp(a, b, sizeof(a)))
		return NULL;
	snprintf(buf, len,
		 HB_BASIS_UNVERIFIED " the 6.12 and 7.2 readings differ here (tmpfs large folios, "
		 "upstream 6.14); Linux %d.%d's source was not read, the %s reading is used",
		 v / 1000, v % 1000, mt_era_of(v) == MT_ERA_ORDERS ? "7.2" : "6.12");
	return buf;
}

/* A rule where 6.12 and 7.2 were read and differ: after 6.12, the 7.2
 * reading is used. Between the two it is unverified (basis: "extrapolated:
 * <differ>; Linux X.Y's source was not read, the 7.2 reading is used");
 * after 7.2 it is the newest verified rule (hard, hb_expect_basis_newest()).
 * *basis_out is basis then, else NULL. */
static void after_612_from_72(int kver, bool applies, const char *differ, char *basis, size_t len,
			      const char **basis_out)
{
	*basis_out = NULL;
	if (applies && kver > KT_KVER_NEWEST_TABLE) {
		*basis_out = hb_expect_basis_newest(basis, len, KT_KVER_NEWEST_TABLE, kver);
		return;
	}
	if (applies && kver > KT_KVER_PMD_TABLE && kver != KT_KVER_NEWEST_TABLE) {
		snprintf(basis, len,
			 HB_BASIS_UNVERIFIED " %s; Linux %d.%d's source was not read, the 7.2 reading "
			 "is used",
			 differ, kver / 1000, kver % 1000);
		*basis_out = basis;
	}
}

bool mt_khugepaged_ignores_pmd_knob(int kver, char *basis, size_t len, const char **basis_out)
{
	after_612_from_72(kver, true, "6.12 lets khugepaged collapse here, 7.2 does not", basis, len,
			  basis_out);
	return kver <= KT_KVER_PMD_TABLE;
}

void mt_expect_split(int kver, int new_order, long hist[MT_N_ORDERS], char *basis, size_t len,
		     const char **basis_out)
{
	bool any_order = kver > KT_KVER_PMD_TABLE;

	memset(hist, 0, sizeof(long) * MT_N_ORDERS);
	after_612_from_72(kver, new_order != 0,
			  "6.12 refuses a non-zero order for shmem, 7.2 splits to it", basis, len,
			  basis_out);
	if (new_order < 0 || new_order >= MT_PMD_ORDER || (new_order && !any_order)) {
		hist[MT_PMD_ORDER] = 1;
		return;
	}
	hist[new_order] = 1L << (MT_PMD_ORDER - new_order);
}

long mt_expect_swapin_64k(int kver, bool after_swapoff, bool zswap_on, char *basis, size_t len,
			  const char **basis_out)
{
	after_612_from_72(kver, true,
			  "6.12 swaps shmem in as small pages, 7.2 swaps a large entry in whole", basis,
			  len, basis_out);
	if (kver <= KT_KVER_PMD_TABLE || zswap_on)
		return 0;
	return after_swapoff ? 32 : 30;
}

bool mt_collapse_forced_at_never(int kver, char *basis, size_t len, const char **basis_out)
{
	*basis_out = NULL;
	if (kver > KT_KVER_NEWEST_TABLE) {
		*basis_out = hb_expect_basis_newest(basis, len, KT_KVER_NEWEST_TABLE, kver);
		return true;
	}
	if (kver != KT_KVER_PMD_TABLE && kver != KT_KVER_NEWEST_TABLE) {
		snprintf(basis, len,
			 HB_BASIS_UNVERIFIED " 6.12 and 7.2 collapse anonymous shmem past knobs at never; "
			 "Linux %d.%d's source was not read",
			 kver / 1000, kver % 1000);
		*basis_out = basis;
	}
	return true;
}

bool mt_khugepaged_runs_for_shmem_alone(int kver, char *basis, size_t len,
					const char **basis_out)
{
	after_612_from_72(kver, true,
			  "6.12 starts khugepaged for anonymous THP only, 7.2 for shmem's PMD size too",
			  basis, len, basis_out);
	return kver > KT_KVER_PMD_TABLE;
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

/* ---- boot parameters ------------------------------------------------------
 * 7.2 mm/shmem.c: transparent_hugepage_shmem= and transparent_hugepage_tmpfs=
 * take shmem_parse_huge() values (never, always, within_size, advise, deny,
 * force; force only while the PMD size's "inherit" mask is exactly PMD, which
 * before shmem_init() needs a thp_shmem= that set it); an unparsable value
 * is ignored. thp_shmem=<size>[,<size>|<from>-<to>...]:<policy>[;...]
 * (policies always, inherit, never, within_size, advise; sizes by memparse,
 * a power of two among the file orders) applies its entries in order to the
 * masks of the parameters before it; any error ignores the whole parameter.
 * Once one thp_shmem= was taken, every size it did not name is "never"
 * (the PMD size too); else the PMD size is "inherit" (shmem_init()).
 * shmem_init() turns a top level of deny or force into never. */

static bool mode_of(const char *s, size_t n, enum kt_mode *m)
{
	static const enum kt_mode all[] = { KT_NEVER,  KT_ALWAYS, KT_WITHIN_SIZE,
					    KT_ADVISE, KT_DENY,   KT_FORCE, KT_INHERIT };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strlen(kt_mode_name[all[i]]) == n && !strncmp(s, kt_mode_name[all[i]], n)) {
			*m = all[i];
			return true;
		}
	return false;
}

/* get_order_from_str(): -1 when not a power of two among the file orders */
static int order_of(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	int o;

	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; break;
	default: break;
	}
	if (!v || (v & (v - 1)))
		return -1;
	for (o = 0; (4096ULL << o) < v; o++)
		;
	return (4096ULL << o) == v && o >= 1 && o <= MT_PMD_ORDER ? o : -1;
}

/* One thp_shmem= value onto size[] (a copy: all or nothing). */
static bool thp_shmem(const char *val, enum kt_mode size[MT_N_ORDERS])
{
	enum kt_mode next[MT_N_ORDERS];
	char buf[512], *save1 = NULL, *entry;

	/* strsep() in the kernel: an empty entry or size is an error */
	if (strlen(val) >= sizeof(buf) || !val[0] || val[0] == ';' || val[0] == ',' ||
	    strstr(val, ";;") || strstr(val, ",,") || strstr(val, ",:") || strstr(val, ";,") ||
	    strstr(val, ",;") || val[strlen(val) - 1] == ';')
		return false;
	memcpy(next, size, sizeof(next));
	snprintf(buf, sizeof(buf), "%s", val);
	for (entry = strtok_r(buf, ";", &save1); entry; entry = strtok_r(NULL, ";", &save1)) {
		char *colon = strchr(entry, ':'), *save2 = NULL, *sub;
		enum kt_mode m;

		if (!colon || !mode_of(colon + 1, strlen(colon + 1), &m) || m == KT_DENY ||
		    m == KT_FORCE)
			return false;
		*colon = 0;
		for (sub = strtok_r(entry, ",", &save2); sub; sub = strtok_r(NULL, ",", &save2)) {
			char *dash = strchr(sub, '-');
			int a, b;

			if (dash)
				*dash = 0;
			a = order_of(sub);
			b = dash ? order_of(dash + 1) : a;
			if (a < 0 || b < 0 || a > b)
				return false;
			for (int o = a; o <= b; o++)
				next[o] = m;
		}
	}
	memcpy(size, next, sizeof(next));
	return true;
}

void mt_boot_expect(const char *cmdline, struct mt_boot *b)
{
	char buf[4096], *save = NULL, *w;
	enum kt_mode size[MT_N_ORDERS];

	memset(b, 0, sizeof(*b));
	b->top = b->tmpfs = KT_UNSET;
	for (int o = 0; o < MT_N_ORDERS; o++)
		size[o] = KT_NEVER; /* the masks before shmem_init(): empty */
	snprintf(buf, sizeof(buf), "%s", cmdline ? cmdline : "");
	for (w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		const char *v = strchr(w, '=');
		bool top = !strncmp(w, "transparent_hugepage_shmem=", 27);
		bool tmpfs = !strncmp(w, "transparent_hugepage_tmpfs=", 27);
		enum kt_mode m;

		if (!v)
			continue;
		v++;
		if (top || tmpfs) {
			/* shmem_parse_huge(): force only over a PMD-only inherit mask */
			bool pmd_only = size[MT_PMD_ORDER] == KT_INHERIT;

			for (int o = 1; o < MT_PMD_ORDER; o++)
				pmd_only &= size[o] != KT_INHERIT;
			if (!mode_of(v, strlen(v), &m) || m == KT_INHERIT ||
			    (m == KT_FORCE && !pmd_only)) {
				b->ignored++;
				continue;
			}
			if (top)
				b->top = m;
			else
				b->tmpfs = m;
		} else if (!strncmp(w, "thp_shmem=", 10)) {
			if (thp_shmem(v, size))
				b->sizes_given = true;
			else
				b->ignored++;
		}
	}
	if (!b->sizes_given)
		size[MT_PMD_ORDER] = KT_INHERIT;
	size[0] = KT_UNSET;
	memcpy(b->size, size, sizeof(size));
	if (b->top == KT_DENY || b->top == KT_FORCE)
		b->top = KT_NEVER; /* shmem_init(): shmem_huge > SHMEM_HUGE_DENY or never */
}
