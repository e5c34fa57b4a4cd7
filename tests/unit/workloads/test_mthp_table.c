/* test_mthp_table.c - the mthp workload's expectations
 * (workloads/mthp_table.c): the folio orders of each walk, worked out by
 * hand from mm/shmem.c of 6.12 and 7.2 (the comments give the steps), and
 * the kernel feature decisions of wl_mthp.c. */
#include "helpers.h"

#include "expect_tables.h"
#include "mthp_table.h"
#include "wl_mthp.h"

#include <string.h>

#include "host_state.h"

/* wl_mthp.c's swap part journals zram and swap through the runner (with
 * pressure_env.c); nothing is set up here. */
void hb_host_state_note(bool add, const char *kind, const char *arg)
{
	(void)add;
	(void)kind;
	(void)arg;
}

#define OBJ 522	  /* 2 MiB + 40 KiB in pages */
#define SPAN 1024 /* the 4 MiB mapping of tmpfs and memfd objects */

static struct mt_policy pol(int kver, enum mt_obj obj, enum kt_mode top, enum kt_mode mount,
			    bool madv)
{
	struct mt_policy p = { .kver = kver, .top = top, .mount = mount, .obj = obj,
			       .madv = madv };

	for (int o = 0; o < MT_N_ORDERS; o++)
		p.size[o] = o ? KT_NEVER : KT_UNSET;
	return p;
}

static const char *fault(const struct mt_policy *p, long vma)
{
	static char buf[128];
	struct mt_walk w = { .pages = OBJ, .isize_pages = OBJ, .vma_pages = vma };
	long h[MT_N_ORDERS];

	assert_int_equal(mt_expect(p, &w, h), 0);
	mt_hist_text(h, buf, sizeof(buf));
	return buf;
}

static const char *writes(const struct mt_policy *p, long chunk)
{
	static char buf[128];
	struct mt_walk w = { .pages = OBJ, .chunk_pages = chunk };
	long h[MT_N_ORDERS];

	assert_int_equal(mt_expect(p, &w, h), 0);
	mt_hist_text(h, buf, sizeof(buf));
	return buf;
}

/* tmpfs files, fault path: 7.2 tries every order, highest first */
static void test_tmpfs_fault(void **state)
{
	struct mt_policy p = pol(7002, MT_TMPFS, KT_NEVER, KT_ALWAYS, false);

	(void)state;
	/* always: a PMD block past i_size but inside the mapping is taken */
	assert_string_equal(fault(&p, SPAN), "9:2");
	/* the same in a mapping of the object's size: 8 + 2 pages fill the tail */
	assert_string_equal(fault(&p, OBJ), "9:1 3:1 1:1");
	/* within_size: the orders whose block ends inside i_size, madvise or not */
	p.mount = KT_WITHIN_SIZE;
	assert_string_equal(fault(&p, SPAN), "9:1 3:1 1:1");
	p.madv = true;
	assert_string_equal(fault(&p, SPAN), "9:1 3:1 1:1");
	/* 6.12: PMD or small; within_size past i_size only with madvise */
	p.kver = 6012;
	assert_string_equal(fault(&p, SPAN), "9:2");
	p.madv = false;
	assert_string_equal(fault(&p, SPAN), "9:1 0:10");
	p.mount = KT_ALWAYS;
	assert_string_equal(fault(&p, OBJ), "9:1 0:10");
	/* advise and never */
	p.kver = 7002;
	p.mount = KT_ADVISE;
	assert_string_equal(fault(&p, SPAN), "0:522");
	p.madv = true;
	assert_string_equal(fault(&p, SPAN), "9:2");
	p.mount = KT_NEVER;
	assert_string_equal(fault(&p, SPAN), "0:522");
	/* the per-size knobs do not reach a tmpfs file */
	p.size[4] = KT_ALWAYS;
	assert_string_equal(fault(&p, SPAN), "0:522");
	/* deny on the top level wins over huge=always */
	p.mount = KT_ALWAYS;
	p.top = KT_DENY;
	assert_string_equal(fault(&p, SPAN), "0:522");
}

/* anonymous shmem: one size at a time */
static void test_anon_per_size(void **state)
{
	struct mt_policy p = pol(7002, MT_ANON, KT_NEVER, KT_UNSET, false);

	(void)state;
	assert_string_equal(fault(&p, OBJ), "0:522");
	p.size[4] = KT_ALWAYS; /* 64 kB: 32 in 2 MiB, the 10-page tail small */
	assert_string_equal(fault(&p, OBJ), "4:32 0:10");
	/* memfd in a 4 MiB mapping: the last 64 kB block crosses i_size */
	p.obj = MT_MEMFD;
	assert_string_equal(fault(&p, SPAN), "4:33");
	/* within_size: only blocks that end inside i_size */
	p.size[4] = KT_WITHIN_SIZE;
	assert_string_equal(fault(&p, SPAN), "4:32 0:10");
	p.madv = true; /* per-size within_size ignores the hint (the code) */
	assert_string_equal(fault(&p, SPAN), "4:32 0:10");
	/* advise: only with MADV_HUGEPAGE */
	p.size[4] = KT_ADVISE;
	assert_string_equal(fault(&p, SPAN), "4:33");
	p.madv = false;
	assert_string_equal(fault(&p, SPAN), "0:522");
	/* inherit: the top level */
	p.size[4] = KT_INHERIT;
	assert_string_equal(fault(&p, SPAN), "0:522");
	p.top = KT_ALWAYS;
	assert_string_equal(fault(&p, SPAN), "4:33");
	p.top = KT_ADVISE;
	assert_string_equal(fault(&p, SPAN), "0:522");
	p.madv = true;
	assert_string_equal(fault(&p, SPAN), "4:33");
	/* top-level deny wins */
	p.top = KT_DENY;
	p.size[4] = KT_ALWAYS;
	assert_string_equal(fault(&p, SPAN), "0:522");
	/* the same in 6.12 (the per-size rules did not change) */
	p = pol(6012, MT_ANON, KT_NEVER, KT_UNSET, false);
	p.size[4] = KT_ALWAYS;
	assert_string_equal(fault(&p, OBJ), "4:32 0:10");
	p.size[1] = KT_ALWAYS;
	assert_string_equal(fault(&p, OBJ), "4:32 1:5");
}

/* two sizes: the larger that fits its block, the smaller in the tail */
static void test_mixes(void **state)
{
	struct mt_policy p = pol(7002, MT_ANON, KT_NEVER, KT_UNSET, false);

	(void)state;
	p.size[2] = p.size[4] = KT_ALWAYS;
	assert_string_equal(fault(&p, OBJ), "4:32 2:2 0:2");
	p = pol(7002, MT_ANON, KT_NEVER, KT_UNSET, false);
	p.size[1] = p.size[3] = KT_ALWAYS;
	assert_string_equal(fault(&p, OBJ), "3:65 1:1");
	p = pol(7002, MT_ANON, KT_NEVER, KT_UNSET, false);
	p.size[4] = p.size[9] = KT_ALWAYS;
	assert_string_equal(fault(&p, OBJ), "9:1 0:10");
}

/* SysV: the top level as a superblock, no per-size knob */
static void test_sysv(void **state)
{
	struct mt_policy p = pol(7002, MT_SYSV, KT_ALWAYS, KT_UNSET, false);

	(void)state;
	p.size[4] = KT_ALWAYS;
	assert_string_equal(fault(&p, OBJ), "9:1 3:1 1:1");
	p.kver = 6012;
	assert_string_equal(fault(&p, OBJ), "9:1 0:10");
	p.kver = 7002;
	p.top = KT_NEVER;
	assert_string_equal(fault(&p, OBJ), "0:522");
	p.top = KT_WITHIN_SIZE;
	assert_string_equal(fault(&p, OBJ), "9:1 3:1 1:1");
	p.top = KT_ADVISE;
	assert_string_equal(fault(&p, OBJ), "0:522");
	p.madv = true;
	assert_string_equal(fault(&p, OBJ), "9:1 3:1 1:1");
}

/* write(2): within_size sizes the folio by the write, always takes PMD */
static void test_write_path(void **state)
{
	struct mt_policy p = pol(7002, MT_TMPFS, KT_NEVER, KT_WITHIN_SIZE, false);

	(void)state;
	assert_string_equal(writes(&p, 1), "0:522");
	assert_string_equal(writes(&p, 4), "2:130 1:1");
	assert_string_equal(writes(&p, 16), "4:32 3:1 1:1");
	assert_string_equal(writes(&p, 128), "7:4 3:1 1:1");
	assert_string_equal(writes(&p, 512), "9:1 3:1 1:1");
	p.madv = true; /* no VMA on write(2): the hint is not seen */
	assert_string_equal(writes(&p, 16), "4:32 3:1 1:1");
	p.mount = KT_ALWAYS;
	assert_string_equal(writes(&p, 1), "9:2");
	assert_string_equal(writes(&p, 512), "9:2");
	p.mount = KT_NEVER;
	assert_string_equal(writes(&p, 16), "0:522");
	/* 6.12: within_size gets PMD only when the write covers the block */
	p.kver = 6012;
	p.mount = KT_WITHIN_SIZE;
	assert_string_equal(writes(&p, 16), "0:522");
	assert_string_equal(writes(&p, 512), "9:1 0:10");
	p.mount = KT_ALWAYS;
	assert_string_equal(writes(&p, 1), "9:2");
}

/* basis: 6.12 and 7.2 were read; 6.19 is an extrapolation where the two
 * readings differ; after 7.2 always */
static void test_basis(void **state)
{
	struct mt_policy p = pol(6019, MT_TMPFS, KT_NEVER, KT_WITHIN_SIZE, false);
	struct mt_walk w = { .pages = OBJ, .chunk_pages = 16 };
	char buf[256];

	(void)state;
	assert_non_null(mt_expect_basis(&p, &w, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "6.19"));
	assert_int_equal(strncmp(buf, HB_BASIS_UNVERIFIED, strlen(HB_BASIS_UNVERIFIED)), 0);
	p.kver = 7002;
	assert_null(mt_expect_basis(&p, &w, buf, sizeof(buf)));
	p.kver = 6012;
	assert_null(mt_expect_basis(&p, &w, buf, sizeof(buf)));
	p.kver = 7003; /* newer than the newest reading: its rules, hard (issue 36) */
	assert_non_null(mt_expect_basis(&p, &w, buf, sizeof(buf)));
	assert_string_equal(buf, "per the 7.2 rules, newest verified; Linux 7.3 not read");
	/* a walk both readings agree on is not an extrapolation on 6.19 */
	p = pol(6019, MT_ANON, KT_NEVER, KT_UNSET, false);
	p.size[4] = KT_ALWAYS;
	w = (struct mt_walk){ .pages = OBJ, .isize_pages = OBJ, .vma_pages = OBJ };
	assert_null(mt_expect_basis(&p, &w, buf, sizeof(buf)));
	/* out of range */
	w.pages = MT_MAX_PAGES + 1;
	{
		long h[MT_N_ORDERS];

		assert_int_equal(mt_expect(&p, &w, h), -1);
	}
}

/* boot parameters, as 7.2's mm/shmem.c parses them */
static void test_boot(void **state)
{
	struct mt_boot b;

	(void)state;
	/* none given: PMD inherit, the others never, nothing else known */
	mt_boot_expect("BOOT_IMAGE=/vmlinuz console=ttyS0 quiet", &b);
	assert_false(b.sizes_given);
	assert_int_equal(b.size[9], KT_INHERIT);
	assert_int_equal(b.size[4], KT_NEVER);
	assert_int_equal(b.top, KT_UNSET);
	assert_int_equal(b.tmpfs, KT_UNSET);
	assert_int_equal(b.ignored, 0);
	/* thp_shmem=: ranges, lists, entries in order; unnamed sizes never, PMD too */
	mt_boot_expect("thp_shmem=16K-64K:always;8K,128K:within_size;32K:advise "
		       "transparent_hugepage_shmem=within_size transparent_hugepage_tmpfs=always",
		       &b);
	assert_true(b.sizes_given);
	assert_int_equal(b.size[1], KT_WITHIN_SIZE);
	assert_int_equal(b.size[2], KT_ALWAYS);
	assert_int_equal(b.size[3], KT_ADVISE);
	assert_int_equal(b.size[4], KT_ALWAYS);
	assert_int_equal(b.size[5], KT_WITHIN_SIZE);
	assert_int_equal(b.size[6], KT_NEVER);
	assert_int_equal(b.size[9], KT_NEVER);
	assert_int_equal(b.top, KT_WITHIN_SIZE);
	assert_int_equal(b.tmpfs, KT_ALWAYS);
	/* a bad size, policy or empty entry drops the whole parameter */
	mt_boot_expect("thp_shmem=16K:always;48K:always", &b);
	assert_false(b.sizes_given);
	assert_int_equal(b.size[2], KT_NEVER);
	assert_int_equal(b.size[9], KT_INHERIT);
	assert_int_equal(b.ignored, 1);
	mt_boot_expect("thp_shmem=16K:sometimes thp_shmem=2M:always; thp_shmem=4M:always", &b);
	assert_int_equal(b.ignored, 3);
	/* a later thp_shmem= adds to the first */
	mt_boot_expect("thp_shmem=2M:inherit thp_shmem=64K:always", &b);
	assert_int_equal(b.size[9], KT_INHERIT);
	assert_int_equal(b.size[4], KT_ALWAYS);
	/* force: only over a PMD-only inherit mask; deny and force end as never */
	mt_boot_expect("transparent_hugepage_shmem=force", &b);
	assert_int_equal(b.top, KT_UNSET);
	assert_int_equal(b.ignored, 1);
	mt_boot_expect("thp_shmem=2M:inherit transparent_hugepage_shmem=force", &b);
	assert_int_equal(b.top, KT_NEVER);
	mt_boot_expect("transparent_hugepage_shmem=deny transparent_hugepage_tmpfs=bogus", &b);
	assert_int_equal(b.top, KT_NEVER);
	assert_int_equal(b.tmpfs, KT_UNSET);
	assert_int_equal(b.ignored, 1);
}

/* split to order: 7.2 splits shmem to any order, 6.12 only to 0 */
static void test_split(void **state)
{
	long h[MT_N_ORDERS];
	char buf[256], t[64];
	const char *basis;

	(void)state;
	mt_expect_split(7002, 4, h, buf, sizeof(buf), &basis);
	mt_hist_text(h, t, sizeof(t));
	assert_string_equal(t, "4:32");
	assert_null(basis);
	mt_expect_split(7002, 8, h, buf, sizeof(buf), &basis);
	mt_hist_text(h, t, sizeof(t));
	assert_string_equal(t, "8:2");
	mt_expect_split(6012, 4, h, buf, sizeof(buf), &basis);
	mt_hist_text(h, t, sizeof(t));
	assert_string_equal(t, "9:1");
	mt_expect_split(6012, 0, h, buf, sizeof(buf), &basis);
	mt_hist_text(h, t, sizeof(t));
	assert_string_equal(t, "0:512");
	mt_expect_split(6019, 2, h, buf, sizeof(buf), &basis);
	mt_hist_text(h, t, sizeof(t));
	assert_string_equal(t, "2:128");
	assert_non_null(basis);
	mt_expect_split(6019, 0, h, buf, sizeof(buf), &basis);
	assert_null(basis);
}

/* swap-in of 64 kB entries: whole on 7.2 (30 after the punch, 32 after
 * swapoff), small on 6.12, small with zswap on; extrapolated between */
static void test_swapin(void **state)
{
	char buf[256];
	const char *basis;

	(void)state;
	assert_int_equal(mt_expect_swapin_64k(7002, false, false, buf, sizeof(buf), &basis), 30);
	assert_null(basis);
	assert_int_equal(mt_expect_swapin_64k(7002, true, false, buf, sizeof(buf), &basis), 32);
	assert_int_equal(mt_expect_swapin_64k(7002, true, true, buf, sizeof(buf), &basis), 0);
	assert_int_equal(mt_expect_swapin_64k(6012, false, false, buf, sizeof(buf), &basis), 0);
	assert_null(basis);
	assert_int_equal(mt_expect_swapin_64k(6019, true, false, buf, sizeof(buf), &basis), 32);
	assert_non_null(basis);
	assert_non_null(strstr(basis, "6.19"));
	assert_int_equal(mt_expect_swapin_64k(7003, false, false, buf, sizeof(buf), &basis), 30);
	assert_non_null(basis);
}

/* MADV_COLLAPSE at never: forced in both readings; every other kernel is
 * an extrapolation, even between the two */
static void test_collapse(void **state)
{
	char buf[256];
	const char *basis;

	(void)state;
	assert_true(mt_collapse_forced_at_never(6012, buf, sizeof(buf), &basis));
	assert_null(basis);
	assert_true(mt_collapse_forced_at_never(7002, buf, sizeof(buf), &basis));
	assert_null(basis);
	assert_true(mt_collapse_forced_at_never(6019, buf, sizeof(buf), &basis));
	assert_non_null(basis);
	assert_non_null(strstr(basis, "6.19"));
	mt_collapse_forced_at_never(7003, buf, sizeof(buf), &basis);
	assert_non_null(basis);
}

/* which kernels run it: the feature table, never an errno */
/* khugepaged for shmem alone: 6.12 no, 7.2 yes (both read), the kernels
 * between and after extrapolated from 7.2 */
static void test_khugepaged_shmem_alone(void **state)
{
	char buf[256];
	const char *basis;

	(void)state;
	assert_false(mt_khugepaged_runs_for_shmem_alone(6001, buf, sizeof(buf), &basis));
	assert_null(basis);
	assert_false(mt_khugepaged_runs_for_shmem_alone(6012, buf, sizeof(buf), &basis));
	assert_null(basis);
	assert_true(mt_khugepaged_runs_for_shmem_alone(7002, buf, sizeof(buf), &basis));
	assert_null(basis);
	assert_true(mt_khugepaged_runs_for_shmem_alone(6019, buf, sizeof(buf), &basis));
	assert_non_null(basis);
	assert_non_null(strstr(basis, "6.19"));
	assert_true(mt_khugepaged_runs_for_shmem_alone(7003, buf, sizeof(buf), &basis));
	assert_non_null(basis);
}

static void test_unsupported(void **state)
{
	char why[384];

	(void)state;
	assert_non_null(mt_unsupported(6001, HB_KF_CFG_ON, HB_KF_CFG_ON, why, sizeof(why)));
	assert_non_null(strstr(why, "shmem_per_size"));
	assert_null(mt_unsupported(6012, HB_KF_CFG_ON, HB_KF_CFG_ON, why, sizeof(why)));
	assert_non_null(mt_unsupported(7002, HB_KF_CFG_ON, HB_KF_CFG_OFF, why, sizeof(why)));
	assert_non_null(strstr(why, "kpageflags"));
}

/* subject: an mTHP folio and a PMD folio */
static void test_subject(void **state)
{
	struct hbt_cap c;
	long h[MT_N_ORDERS] = { 0 };

	(void)state;
	h[0] = 10;
	h[MT_PMD_ORDER] = 3;
	hbt_cap_open(&c, &hb_wl_mthp);
	assert_false(mt_subject(c.ctx, h));
	assert_false(hbt_cap_check_pass(&c, "subject_mthp_folios"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);
	h[4] = 1;
	hbt_cap_open(&c, &hb_wl_mthp);
	assert_true(mt_subject(c.ctx, h));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmpfs_fault), cmocka_unit_test(test_anon_per_size),
		cmocka_unit_test(test_mixes),	    cmocka_unit_test(test_sysv),
		cmocka_unit_test(test_write_path),  cmocka_unit_test(test_basis),
		cmocka_unit_test(test_unsupported), cmocka_unit_test(test_subject),
		cmocka_unit_test(test_boot),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_swapin),
		cmocka_unit_test(test_collapse),
		cmocka_unit_test(test_khugepaged_shmem_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
