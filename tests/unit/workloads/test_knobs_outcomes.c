/* test_knobs_outcomes.c - the knobs workload's judging (wl_knobs.h, issue
 * 25): which parts of the matrix run comes from the kernel feature table --
 * the per-size knob from 6.11, SysV shm where CONFIG_SYSVIPC is on -- with a
 * fake shmget probe for the errno; the subject counts cells that got a huge
 * page. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "knobs_table.h"
#include "wl_knobs.h"

/* The per-size knob: on 6.12 it must be there (absent: a failed check); on
 * 6.1 the table says it is not, a note citing the row, the cells not run --
 * also when a knob shows up there (a backport the table does not know). */
static void test_persize(void **state)
{
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_knobs);
	assert_true(kn_persize_runs(c.ctx, 6012, HB_KF_CFG_ON, true));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);

	hbt_cap_open(&c, &hb_wl_knobs);
	assert_false(kn_persize_runs(c.ctx, 6012, HB_KF_CFG_UNKNOWN, false));
	assert_false(hbt_cap_check_pass(&c, "persize_knob_present"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);

	hbt_cap_open(&c, &hb_wl_knobs);
	assert_false(kn_persize_runs(c.ctx, 6001, HB_KF_CFG_ON, false));
	assert_false(kn_persize_runs(c.ctx, 6001, HB_KF_CFG_ON, true));
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	assert_non_null(strstr(hbt_cap_notes(&c), "kfeatures row shmem_per_size"));
	assert_non_null(strstr(hbt_cap_notes(&c), "backport"));
	hbt_cap_close(&c);
	/* the expectation table follows the same row */
	assert_int_equal(KT_KVER_PER_SIZE, 6011);
}

static int probe_err;
static int probe_calls;

static int fake_probe(void)
{
	probe_calls++;
	return -probe_err;
}

static void test_sysv(void **state)
{
	struct hbt_cap c;

	(void)state;
	probe_err = ENOSPC;
	probe_calls = 0;
	hbt_cap_open(&c, &hb_wl_knobs);
	assert_false(kn_sysv_runs(c.ctx, 6001, HB_KF_CFG_ON, fake_probe));
	assert_int_equal(probe_calls, 1);
	assert_non_null(strstr(hbt_cap_check_observed(&c, "sysv_shmget"), "ENOSPC"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);

	probe_err = 0;
	hbt_cap_open(&c, &hb_wl_knobs);
	assert_true(kn_sysv_runs(c.ctx, 6012, HB_KF_CFG_UNKNOWN, fake_probe));
	hbt_cap_close(&c);

	/* CONFIG_SYSVIPC off: not called, a note citing the row */
	probe_err = ENOSYS;
	probe_calls = 0;
	hbt_cap_open(&c, &hb_wl_knobs);
	assert_false(kn_sysv_runs(c.ctx, 6012, HB_KF_CFG_OFF, fake_probe));
	assert_int_equal(probe_calls, 0);
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	assert_non_null(strstr(hbt_cap_notes(&c), "kfeatures row sysv_shm"));
	hbt_cap_close(&c);
}

static void test_subject(void **state)
{
	struct hbt_cap c;

	(void)state;
	hbt_cap_open(&c, &hb_wl_knobs);
	assert_false(kn_subject(c.ctx, 0, 84, "all"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);
	hbt_cap_open(&c, &hb_wl_knobs);
	assert_true(kn_subject(c.ctx, 1, 8, "deny"));
	hbt_cap_close(&c);
}

/* An extent is huge on all three signs or small on none (issue 35: the
 * cells read ShmemHugePages only); a disagreement fails, saying which. */
static void test_extent_huge(void **state)
{
	char why[200];

	(void)state;
	assert_int_equal(kn_extent_huge(2048, 9, 9, 2048, why, sizeof(why)), 1);
	assert_string_equal(why, "");
	assert_int_equal(kn_extent_huge(2048, -1, 9, 2048, why, sizeof(why)), 1); /* no kpageflags */
	assert_int_equal(kn_extent_huge(0, 0, 9, 0, why, sizeof(why)), 0);
	assert_int_equal(kn_extent_huge(0, 4, 9, 0, why, sizeof(why)), 0); /* a 64 kB folio */
	assert_int_equal(kn_extent_huge(0, -1, 9, 0, why, sizeof(why)), 0);
	assert_int_equal(kn_extent_huge(2048, 9, 9, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "a PMD-sized folio not mapped by PMD"));
	assert_non_null(strstr(why, "ShmemPmdMapped +0 kB"));
	assert_int_equal(kn_extent_huge(2048, 0, 9, 2048, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not in a PMD-order folio"));
	assert_int_equal(kn_extent_huge(0, 9, 9, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "ShmemHugePages did not count"));
	assert_int_equal(kn_extent_huge(0, 0, 9, 2048, why, sizeof(why)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_persize),
		cmocka_unit_test(test_sysv),
		cmocka_unit_test(test_subject),
		cmocka_unit_test(test_extent_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
