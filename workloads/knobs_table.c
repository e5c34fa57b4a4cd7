/* knobs_table.c - the expected outcome of each cell of the knobs workload:
 * does a fault on a 2 MiB extent of shmem get a PMD-sized huge page, given
 * shmem_enabled, the tmpfs huge= option, the per-size knob, MADV_HUGEPAGE,
 * the kind of shmem and the kernel version.
 *
 * Source: Documentation/admin-guide/mm/transhuge.rst, "Hugepages in
 * tmpfs/shmem" (6.1 and 6.12), which says:
 *  - huge= on a tmpfs mount: always = huge on every allocation; never = no;
 *    within_size = only if the huge page is fully within i_size, "also
 *    respect fadvise()/madvise() hints"; advise = only with madvise/fadvise.
 *  - shmem_enabled sets the same policy for the internal shmem mount "used
 *    for SysV SHM, memfds, shared anonymous mmaps"; its extra values deny
 *    ("force the huge option off from all mounts") and force ("force the
 *    huge option on for all") override every tmpfs mount as well.
 *  - from 6.11, hugepages-<size>kB/shmem_enabled (always, inherit, never,
 *    within_size, advise); PMD-size defaults to "inherit" (= top level).
 * Where the text is silent the tables follow mm/shmem.c of those releases:
 * 6.1 __shmem_is_huge(); 6.12 shmem_huge_global_enabled() and
 * shmem_allowable_huge_orders(), where the per-size knobs apply only to
 * "anonymous shmem" VMAs (vma_is_anon_shmem()): MAP_SHARED|MAP_ANONYMOUS
 * and, because 6.12's shmem_mmap() gives any shmem file that is unlinked at
 * mmap() time the anonymous vm_ops, memfd too; SysV shm (shm_vm_ops) and
 * linked tmpfs files keep following the top level and the mount.
 * For anonymous shmem, top-level deny still wins and top-level force only
 * grants what "inherit" grants; and shmem_enabled_store() refuses force
 * (EINVAL) unless hugepages-2048kB is "inherit".
 *
 * 7.2 (linux-source-7.2 7.2.13, read 2026-12-04; docs/kernels.md): tmpfs
 * allocates large folios of every size (transhuge.rst "Hugepages in
 * tmpfs/shmem": huge=within_size "Always try PMD-sized huge pages first,
 * and fall back to smaller-sized huge pages"), and shmem_huge_global_enabled()
 * returns a mask of orders: for huge=within_size, the orders that fit inside
 * i_size (shmem_get_orders_within_size()), falling through to the madvise
 * rule only when none fits. Two rules change for a 2 MiB extent that
 * crosses i_size (extent 1 of a 3 MiB object), while a smaller order fits:
 *  - a linked tmpfs file (or SysV) on a within_size superblock gets no PMD
 *    page even with MADV_HUGEPAGE (6.12: it did);
 *  - anonymous shmem (memfd, MAP_SHARED|MAP_ANONYMOUS) whose PMD size is
 *    "inherit" under shmem_enabled=within_size gets a PMD page:
 *    shmem_allowable_huge_orders() adds every "inherit" order once
 *    global_orders > 0, with no i_size check of its own. transhuge.rst
 *    says within_size allocates only "if it will be fully within i_size":
 *    the code and its documentation disagree (docs/findings.md, "memfd
 *    beyond i_size"). Decided (issue 36): a kernel bug, not an expectation:
 *    kt_known_bug() gives both outcomes, the bug (the code) and the fix
 *    (the text and 6.12), and the check shows which one the kernel has.
 * Upstream the change came with "mm: shmem: add large folio support for
 * tmpfs" (6.14); only the 6.1, 6.12 and 7.2 sources were read, so a cell
 * whose two rules differ is unverified on 6.13 .. 7.1, and a kernel newer
 * than 7.2 is judged by the 7.2 rules and fails on disagreement
 * (kt_expect_basis(); where a kernel and the table disagree: README,
 * "When a new kernel disagrees").
 *
 * The document against the code, decided from 7.2.13's source (issue 36,
 * docs/findings.md "Decisions"):
 *  - SysV and the per-size knobs: intended; the documentation overstates.
 *    ipc/shm.c 618 replaces the shmem vm_ops with shm_vm_ops, so
 *    vma_is_anon_shmem() (mm/shmem.c 283-285) is false and
 *    shmem_allowable_huge_orders() returns the global orders (1838-1839);
 *    the comment at 643-646 says the mTHP knobs are for anon shmem.
 *  - tmpfs huge=within_size with MADV_HUGEPAGE: intended; 626-667 keep
 *    6.12's order (the sizes inside i_size first, the hint only when none
 *    fits), with "fits" now meaning any order.
 */
#include "knobs_table.h"

#include "expect_tables.h"

#include <stddef.h>
#include <stdio.h>

const char *const kt_mode_name[KT_N_MODES] = {
	[KT_NEVER] = "never",	[KT_ALWAYS] = "always", [KT_WITHIN_SIZE] = "within_size",
	[KT_ADVISE] = "advise", [KT_DENY] = "deny",	[KT_FORCE] = "force",
	[KT_INHERIT] = "inherit", [KT_UNSET] = "unset",
};

const char *const kt_kind_name[KT_N_KINDS] = {
	[KT_TMPFS] = "tmpfs", [KT_SYSV] = "sysv", [KT_ANON] = "anon", [KT_MEMFD] = "memfd",
};

enum kt_rule {
	R_NO,		     /* never huge */
	R_YES,		     /* always huge */
	R_WITHIN_OR_MADV,    /* huge if within i_size, else only with MADV_HUGEPAGE */
	R_MADV,		     /* huge only with MADV_HUGEPAGE */
	R_WITHIN,	     /* huge only if within i_size (per-size within_size) */
	R_GLOBAL,	     /* per-size "inherit": the global rule decides */
	R_INVALID,	     /* not a valid combination */
};

/* Global policy, all kernels (6.1 .. 6.18): [shmem_enabled][superblock huge],
 * where the superblock value is huge= for a tmpfs mount and shmem_enabled
 * itself for the internal mount (deny/force never reach a superblock). */
static const enum kt_rule global_rule[KT_N_MODES][4] = {
	/*               sb: never  always  within_size       advise */
	[KT_NEVER]       = { R_NO,  R_YES,  R_WITHIN_OR_MADV, R_MADV },
	[KT_ALWAYS]      = { R_NO,  R_YES,  R_WITHIN_OR_MADV, R_MADV },
	[KT_WITHIN_SIZE] = { R_NO,  R_YES,  R_WITHIN_OR_MADV, R_MADV },
	[KT_ADVISE]      = { R_NO,  R_YES,  R_WITHIN_OR_MADV, R_MADV },
	[KT_DENY]        = { R_NO,  R_NO,   R_NO,             R_NO   },
	[KT_FORCE]       = { R_YES, R_YES,  R_YES,            R_YES  },
	[KT_INHERIT]     = { R_INVALID, R_INVALID, R_INVALID, R_INVALID },
	[KT_UNSET]       = { R_INVALID, R_INVALID, R_INVALID, R_INVALID },
};

/* Anonymous shmem from 6.11: [shmem_enabled][hugepages-2048kB/shmem_enabled].
 * Columns in enum order: never, always, within_size, advise, deny, force,
 * inherit, unset (deny and force are not per-size values). */
static const enum kt_rule anon_per_size_rule[KT_N_MODES][KT_N_MODES] = {
#define PS(nv, al, ws, ad, inh) { nv, al, ws, ad, R_INVALID, R_INVALID, inh, R_GLOBAL }
	[KT_NEVER]       = PS(R_NO, R_YES, R_WITHIN, R_MADV, R_GLOBAL),
	[KT_ALWAYS]      = PS(R_NO, R_YES, R_WITHIN, R_MADV, R_GLOBAL),
	[KT_WITHIN_SIZE] = PS(R_NO, R_YES, R_WITHIN, R_MADV, R_GLOBAL),
	[KT_ADVISE]      = PS(R_NO, R_YES, R_WITHIN, R_MADV, R_GLOBAL),
	[KT_DENY]        = PS(R_NO, R_NO,  R_NO,     R_NO,   R_NO),
	/* force returns huge_shmem_orders_inherit: only "inherit" keeps PMD */
	[KT_FORCE]       = PS(R_NO, R_NO,  R_NO,     R_NO,   R_YES),
#undef PS
	[KT_INHERIT]     = { R_INVALID },
	[KT_UNSET]       = { R_INVALID },
};

static int sb_column(enum kt_mode m)
{
	switch (m) {
	case KT_NEVER:
		return 0;
	case KT_ALWAYS:
		return 1;
	case KT_WITHIN_SIZE:
		return 2;
	case KT_ADVISE:
		return 3;
	default:
		return -1;
	}
}

static bool apply(enum kt_rule r, const struct kt_cell *c)
{
	switch (r) {
	case R_YES:
		return true;
	case R_WITHIN_OR_MADV:
		return c->within_size || c->madv;
	case R_MADV:
		return c->madv;
	case R_WITHIN:
		return c->within_size;
	default:
		return false;
	}
}

/* Which reading of mm/shmem.c decides: before or from the tmpfs large folio
 * rework (see the head of this file). */
enum kt_era { KT_ERA_PMD, KT_ERA_ORDERS };

static bool anon_shmem(const struct kt_cell *c)
{
	return c->kind == KT_ANON || c->kind == KT_MEMFD;
}

static enum kt_rule global_of(const struct kt_cell *c, enum kt_era era)
{
	enum kt_mode sb;
	int col;

	if (c->top == KT_DENY || c->top == KT_FORCE)
		return global_rule[c->top][0];
	sb = c->kind == KT_TMPFS ? c->mount : c->top;
	col = sb_column(sb);
	if (col < 0 || c->top >= KT_N_MODES)
		return R_INVALID;
	if (era == KT_ERA_ORDERS && sb == KT_WITHIN_SIZE)
		/* 7.2: a smaller order inside i_size wins over the madvise hint;
		 * for anonymous shmem any order makes the global control "on" */
		return anon_shmem(c) && c->kver >= KT_KVER_PER_SIZE ? R_YES : R_WITHIN;
	return global_rule[c->top][col];
}

bool kt_cell_settable(const struct kt_cell *c)
{
	if (c->top >= KT_INHERIT || c->kind >= KT_N_KINDS)
		return false;
	if (c->kind == KT_TMPFS && sb_column(c->mount) < 0)
		return false;
	if (c->pmd_knob != KT_UNSET) {
		if (c->kver < KT_KVER_PER_SIZE || c->pmd_knob == KT_DENY ||
		    c->pmd_knob == KT_FORCE || c->pmd_knob >= KT_UNSET)
			return false;
		/* 6.11+ shmem_enabled_store(): force needs PMD-size "inherit" */
		if (c->top == KT_FORCE && c->pmd_knob != KT_INHERIT)
			return false;
	}
	return true;
}

static bool expect_in(const struct kt_cell *c, enum kt_era era)
{
	enum kt_rule r;

	if (!kt_cell_settable(c))
		return false;
	r = global_of(c, era);
	if (anon_shmem(c) && c->kver >= KT_KVER_PER_SIZE && c->pmd_knob != KT_UNSET) {
		r = anon_per_size_rule[c->top][c->pmd_knob];
		if (r == R_GLOBAL)
			r = global_of(c, era);
	}
	return apply(r, c);
}

static enum kt_era era_of(int kver)
{
	return kver >= KT_KVER_TMPFS_ORDERS ? KT_ERA_ORDERS : KT_ERA_PMD;
}

bool kt_expect_huge(const struct kt_cell *c)
{
	return expect_in(c, era_of(c->kver));
}

const char *kt_expect_cite(const struct kt_cell *c)
{
	if (era_of(c->kver) != KT_ERA_ORDERS || expect_in(c, KT_ERA_PMD) == expect_in(c, KT_ERA_ORDERS))
		return NULL;
	if (anon_shmem(c))
		return "7.2 mm/shmem.c shmem_allowable_huge_orders(): inherit orders once any order "
		       "fits i_size; transhuge.rst says within i_size only (docs/findings.md)";
	return "7.2 transhuge.rst within_size: PMD first, then smaller sizes within i_size; "
	       "mm/shmem.c shmem_get_orders_within_size()";
}

const char *kt_expect_basis(const struct kt_cell *c, char *buf, size_t len)
{
	int v = c->kver;

	/* newer than the newest verified table: its rules, failing on
	 * disagreement (hb_check_basis: a hard basis) */
	if (v > KT_KVER_NEWEST_TABLE)
		return hb_expect_basis_newest(buf, len, KT_KVER_NEWEST_TABLE, v);
	if (v < KT_KVER_OLDEST_TABLE) {
		snprintf(buf, len, HB_BASIS_UNVERIFIED " the 6.1 table (oldest read) on Linux %d.%d",
			 v / 1000, v % 1000);
		return buf;
	}
	if (v > KT_KVER_PMD_TABLE && v < KT_KVER_NEWEST_TABLE &&
	    expect_in(c, KT_ERA_PMD) != expect_in(c, KT_ERA_ORDERS)) {
		snprintf(buf, len,
			 HB_BASIS_UNVERIFIED " the 6.12 and 7.2 rules differ here (tmpfs large folios, "
			 "upstream 6.14); Linux %d.%d's source was not read, the %s rule is used",
			 v / 1000, v % 1000, era_of(v) == KT_ERA_ORDERS ? "7.2" : "6.12");
		return buf;
	}
	return NULL;
}

const struct hb_known_bug *kt_known_bug(const struct kt_cell *c, bool *bug_huge, bool *fixed_huge)
{
	if (!anon_shmem(c) || era_of(c->kver) != KT_ERA_ORDERS || !kt_cell_settable(c))
		return NULL;
	*bug_huge = expect_in(c, KT_ERA_ORDERS);
	*fixed_huge = expect_in(c, KT_ERA_PMD);
	return *bug_huge != *fixed_huge ? &hb_kb_memfd_within_size : NULL;
}
