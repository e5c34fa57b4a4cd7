/* test_knobs_table.c - the knobs workload's expectation table
 * (workloads/knobs_table.c): the documented shmem THP policy per kernel
 * version, checked cell by cell and by invariants over the whole matrix. */
#include "helpers.h"

#include "expect_tables.h"
#include "knobs_table.h"

#include <string.h>

static bool huge(int kver, enum kt_mode top, enum kt_mode mount, enum kt_mode pmd,
		 enum kt_kind kind, bool madv, bool within)
{
	struct kt_cell c = { .kver = kver, .top = top, .mount = mount, .pmd_knob = pmd,
			     .kind = kind, .madv = madv, .within_size = within };

	return kt_expect_huge(&c);
}

/* the kernels of the PMD-only rules (6.1, 6.12 sources read) */
static const int kvers[] = { 6001, 6012 };
static const enum kt_mode tops[] = { KT_NEVER, KT_ALWAYS, KT_WITHIN_SIZE,
				     KT_ADVISE, KT_DENY, KT_FORCE };
static const enum kt_mode sbs[] = { KT_NEVER, KT_ALWAYS, KT_WITHIN_SIZE, KT_ADVISE };

/* huge= on a tmpfs mount, shmem_enabled not deny/force (transhuge.rst). */
static void test_tmpfs_mount_modes(void **state)
{
	(void)state;
	for (size_t k = 0; k < HBT_N_OF(kvers); k++) {
		int v = kvers[k];

		assert_false(huge(v, KT_ALWAYS, KT_NEVER, KT_UNSET, KT_TMPFS, true, true));
		assert_true(huge(v, KT_NEVER, KT_ALWAYS, KT_UNSET, KT_TMPFS, false, false));
		/* within_size: huge inside i_size; outside only with madvise */
		assert_true(huge(v, KT_NEVER, KT_WITHIN_SIZE, KT_UNSET, KT_TMPFS, false, true));
		assert_false(huge(v, KT_NEVER, KT_WITHIN_SIZE, KT_UNSET, KT_TMPFS, false, false));
		assert_true(huge(v, KT_NEVER, KT_WITHIN_SIZE, KT_UNSET, KT_TMPFS, true, false));
		/* advise: only MADV_HUGEPAGE */
		assert_false(huge(v, KT_ALWAYS, KT_ADVISE, KT_UNSET, KT_TMPFS, false, true));
		assert_true(huge(v, KT_NEVER, KT_ADVISE, KT_UNSET, KT_TMPFS, true, false));
	}
}

/* deny forces off and force forces on, on every mount and kind. */
static void test_deny_force_override(void **state)
{
	(void)state;
	for (size_t k = 0; k < HBT_N_OF(kvers); k++)
		for (int kind = 0; kind < KT_N_KINDS; kind++)
			for (size_t m = 0; m < HBT_N_OF(sbs); m++)
				for (int bits = 0; bits < 4; bits++) {
					bool madv = bits & 1, within = bits & 2;

					assert_false(huge(kvers[k], KT_DENY, sbs[m], KT_UNSET,
							  kind, madv, within));
					assert_true(huge(kvers[k], KT_FORCE, sbs[m], KT_UNSET,
							 kind, madv, within));
				}
}

/* The internal mount follows shmem_enabled; a tmpfs mount ignores it. */
static void test_internal_follows_top(void **state)
{
	(void)state;
	for (size_t k = 0; k < HBT_N_OF(kvers); k++)
		for (int kind = KT_SYSV; kind < KT_N_KINDS; kind++)
			for (size_t t = 0; t < 4; t++)
				for (int bits = 0; bits < 4; bits++) {
					bool madv = bits & 1, wi = bits & 2;
					int v = kvers[k];
					enum kt_mode top = tops[t];

					/* same answer as a tmpfs mount with huge=<top> */
					assert_int_equal(
						huge(v, top, KT_UNSET, KT_UNSET, kind, madv, wi),
						huge(v, KT_NEVER, top, KT_UNSET, KT_TMPFS, madv,
						     wi));
					/* ... and the mount argument is ignored */
					assert_int_equal(
						huge(v, top, KT_ALWAYS, KT_UNSET, kind, madv, wi),
						huge(v, top, KT_NEVER, KT_UNSET, kind, madv, wi));
				}
	for (size_t m = 0; m < HBT_N_OF(sbs); m++)
		for (size_t t = 0; t < 4; t++)
			assert_int_equal(
				huge(6001, tops[t], sbs[m], KT_UNSET, KT_TMPFS, false, true),
				huge(6001, KT_NEVER, sbs[m], KT_UNSET, KT_TMPFS, false, true));
}

/* 7.2 (the tmpfs large folio rules): a 2 MiB extent crossing i_size gets
 * no PMD page from a within_size tmpfs even with MADV_HUGEPAGE, and
 * anonymous shmem inheriting shmem_enabled=within_size gets one. */
static void test_orders_era(void **state)
{
	char buf[192];
	struct kt_cell c = { .kver = 7002, .top = KT_NEVER, .mount = KT_WITHIN_SIZE,
			     .pmd_knob = KT_UNSET, .kind = KT_TMPFS, .madv = true };

	(void)state;
	assert_false(kt_expect_huge(&c));
	c.within_size = true;
	assert_true(kt_expect_huge(&c));
	assert_null(kt_expect_basis(&c, buf, sizeof(buf)));
	/* 6.12 gave the madvised extent a PMD page */
	c.kver = 6012;
	c.within_size = false;
	assert_true(kt_expect_huge(&c));
	/* memfd under shmem_enabled=within_size, PMD size "inherit" */
	c = (struct kt_cell){ .kver = 7002, .top = KT_WITHIN_SIZE, .mount = KT_UNSET,
			      .pmd_knob = KT_UNSET, .kind = KT_MEMFD };
	assert_true(kt_expect_huge(&c));
	c.pmd_knob = KT_INHERIT;
	assert_true(kt_expect_huge(&c));
	c.kver = 6012;
	assert_false(kt_expect_huge(&c));
	/* SysV is not anonymous shmem: within i_size as before */
	c = (struct kt_cell){ .kver = 7002, .top = KT_WITHIN_SIZE, .mount = KT_UNSET,
			      .pmd_knob = KT_UNSET, .kind = KT_SYSV, .within_size = true };
	assert_true(kt_expect_huge(&c));
	/* cells both readings agree on are the same in every era */
	for (size_t t = 0; t < HBT_N_OF(tops); t++)
		for (size_t m = 0; m < HBT_N_OF(sbs); m++)
			for (int bits = 0; bits < 4; bits++) {
				struct kt_cell a = { .kver = 6012, .top = tops[t], .mount = sbs[m],
						     .pmd_knob = KT_UNSET, .kind = KT_TMPFS,
						     .madv = bits & 1, .within_size = bits & 2 };
				struct kt_cell b = a;

				b.kver = 7002;
				if (sbs[m] != KT_WITHIN_SIZE || tops[t] == KT_DENY || tops[t] == KT_FORCE)
					assert_int_equal(kt_expect_huge(&a), kt_expect_huge(&b));
			}
}

/* Where the expectation is not a verified table's: every cell past the
 * newest table is judged by it, hard (issue 36); between 6.12 and 7.2 only
 * the cells whose two rules differ are unverified (soft). */
static void test_basis(void **state)
{
	char buf[192];
	struct kt_cell c = { .kver = 7003, .top = KT_ALWAYS, .mount = KT_ALWAYS,
			     .pmd_knob = KT_UNSET, .kind = KT_TMPFS };

	(void)state;
	assert_non_null(kt_expect_basis(&c, buf, sizeof(buf)));
	assert_string_equal(buf, "per the 7.2 rules, newest verified; Linux 7.3 not read");
	/* hard: not the unverified prefix hb_check_basis() makes soft */
	assert_int_not_equal(strncmp(buf, HB_BASIS_UNVERIFIED, strlen(HB_BASIS_UNVERIFIED)), 0);
	c.kver = 6019; /* both rules agree: huge= always */
	assert_null(kt_expect_basis(&c, buf, sizeof(buf)));
	c.mount = KT_WITHIN_SIZE; /* the rules differ outside i_size with madvise */
	c.madv = true;
	assert_non_null(kt_expect_basis(&c, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "6.19"));
	assert_int_equal(strncmp(buf, HB_BASIS_UNVERIFIED, strlen(HB_BASIS_UNVERIFIED)), 0);
	c.within_size = true; /* ... and agree inside it */
	assert_null(kt_expect_basis(&c, buf, sizeof(buf)));
	c.within_size = false;
	c.kver = 6012;
	assert_null(kt_expect_basis(&c, buf, sizeof(buf)));
	c.kver = 7002;
	assert_null(kt_expect_basis(&c, buf, sizeof(buf)));
	c.kver = 5015;
	assert_non_null(kt_expect_basis(&c, buf, sizeof(buf)));
	/* a cell whose 7.2 rule differs from 6.12's cites 7.2's text */
	c.kver = 7002;
	assert_non_null(strstr(kt_expect_cite(&c), "transhuge.rst"));
	c.within_size = true;
	assert_null(kt_expect_cite(&c));
	c.kver = 6012;
	c.within_size = false;
	assert_null(kt_expect_cite(&c));
}

/* hugepages-2048kB/shmem_enabled: absent before 6.11; from then on it rules
 * anonymous shmem (MAP_SHARED|MAP_ANONYMOUS and unlinked memfd), not SysV. */
static void test_per_size(void **state)
{
	struct kt_cell c = { .kver = 6001, .top = KT_NEVER, .pmd_knob = KT_ALWAYS,
			     .kind = KT_ANON };

	(void)state;
	assert_false(kt_cell_settable(&c));
	c.kver = 6012;
	assert_true(kt_cell_settable(&c));
	/* per-size always beats top never for anon and memfd, not for SysV */
	assert_true(huge(6012, KT_NEVER, KT_UNSET, KT_ALWAYS, KT_ANON, false, true));
	assert_true(huge(6012, KT_NEVER, KT_UNSET, KT_ALWAYS, KT_MEMFD, false, true));
	assert_false(huge(6012, KT_NEVER, KT_UNSET, KT_ALWAYS, KT_SYSV, false, true));
	/* per-size never beats top always for anon, not for SysV */
	assert_false(huge(6012, KT_ALWAYS, KT_UNSET, KT_NEVER, KT_ANON, true, true));
	assert_true(huge(6012, KT_ALWAYS, KT_UNSET, KT_NEVER, KT_SYSV, false, true));
	/* advise and within_size */
	assert_false(huge(6012, KT_ALWAYS, KT_UNSET, KT_ADVISE, KT_ANON, false, true));
	assert_true(huge(6012, KT_NEVER, KT_UNSET, KT_ADVISE, KT_ANON, true, false));
	assert_true(huge(6012, KT_NEVER, KT_UNSET, KT_WITHIN_SIZE, KT_MEMFD, false, true));
	assert_false(huge(6012, KT_ALWAYS, KT_UNSET, KT_WITHIN_SIZE, KT_MEMFD, false, false));
	/* inherit = the top level */
	for (size_t t = 0; t < HBT_N_OF(tops); t++)
		for (int bits = 0; bits < 4; bits++)
			assert_int_equal(huge(6012, tops[t], KT_UNSET, KT_INHERIT, KT_ANON,
					      bits & 1, bits & 2),
					 huge(6012, tops[t], KT_UNSET, KT_UNSET, KT_ANON,
					      bits & 1, bits & 2));
	/* top deny still wins */
	assert_false(huge(6012, KT_DENY, KT_UNSET, KT_ALWAYS, KT_ANON, true, true));
	/* force is refused unless the PMD size inherits */
	c = (struct kt_cell){ .kver = 6012, .top = KT_FORCE, .pmd_knob = KT_ALWAYS,
			      .kind = KT_ANON };
	assert_false(kt_cell_settable(&c));
	c.pmd_knob = KT_INHERIT;
	assert_true(kt_cell_settable(&c));
	assert_true(kt_expect_huge(&c));
	/* tmpfs files never look at the per-size knob */
	assert_false(huge(6012, KT_NEVER, KT_NEVER, KT_ALWAYS, KT_TMPFS, true, true));
	assert_true(huge(6012, KT_NEVER, KT_ALWAYS, KT_NEVER, KT_TMPFS, false, false));
}

static void test_invalid_cells(void **state)
{
	(void)state;
	/* deny/force are not mount options; inherit is not a top-level value */
	assert_false(huge(6012, KT_NEVER, KT_DENY, KT_UNSET, KT_TMPFS, true, true));
	assert_false(huge(6012, KT_INHERIT, KT_ALWAYS, KT_UNSET, KT_TMPFS, true, true));
	assert_false(huge(6012, KT_NEVER, KT_UNSET, KT_FORCE, KT_ANON, true, true));
	assert_string_equal(kt_mode_name[KT_WITHIN_SIZE], "within_size");
	assert_string_equal(kt_kind_name[KT_MEMFD], "memfd");
}

/* The memfd within_size cell is a known bug, not an expectation (issue
 * 36): from 6.14 the bug gives extent 1 (past i_size) a PMD folio, the fix
 * a small page; extent 0 (inside i_size) is huge either way, and 6.12 and
 * every other cell have no known bug. */
static void test_known_bug_memfd(void **state)
{
	struct kt_cell c = { .kver = 7002, .top = KT_WITHIN_SIZE, .mount = KT_UNSET,
			     .pmd_knob = KT_UNSET, .kind = KT_MEMFD };
	bool bug = false, fix = true;

	(void)state;
	assert_ptr_equal(kt_known_bug(&c, &bug, &fix), &hb_kb_memfd_within_size);
	assert_true(bug);
	assert_false(fix);
	c.within_size = true;
	assert_null(kt_known_bug(&c, &bug, &fix));
	assert_true(bug && fix);
	c.within_size = false;
	c.kver = 7003; /* the newest rules carry the bug forward */
	assert_non_null(kt_known_bug(&c, &bug, &fix));
	c.kver = 6012;
	assert_null(kt_known_bug(&c, &bug, &fix));
	c.kver = 7002;
	c.kind = KT_ANON; /* MAP_SHARED|MAP_ANONYMOUS has no i_size to cross */
	c.within_size = true;
	assert_null(kt_known_bug(&c, &bug, &fix));
	c.kind = KT_MEMFD;
	c.within_size = false;
	c.pmd_knob = KT_NEVER;
	assert_null(kt_known_bug(&c, &bug, &fix));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmpfs_mount_modes),
		cmocka_unit_test(test_deny_force_override),
		cmocka_unit_test(test_internal_follows_top),
		cmocka_unit_test(test_per_size),
		cmocka_unit_test(test_invalid_cells),
		cmocka_unit_test(test_orders_era),
		cmocka_unit_test(test_basis),
		cmocka_unit_test(test_known_bug_memfd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
