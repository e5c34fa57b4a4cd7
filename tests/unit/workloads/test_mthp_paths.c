/* test_mthp_paths.c - the mthp-paths workload's expectations
 * (workloads/mthp_paths.h): the Mlocked a range of mTHP folios gets
 * (allow_mlock_munlock() and mlock_pte_range()'s one page table at a time,
 * 6.12 and 7.2 mm/mlock.c:307-400) and what a swap-in of large shmem folios
 * gives per kernel, device and swap-cache state (7.2 mm/shmem.c:2241-2400;
 * 6.12 always through swap_cluster_readahead()). */
#include "helpers.h"

#include "expect_tables.h"
#include "mthp_paths.h"

#include <string.h>

#include "host_state.h"

/* the readahead part journals its swap through the runner; nothing here */
void hb_host_state_note(bool add, const char *kind, const char *arg)
{
	(void)add;
	(void)kind;
	(void)arg;
}

static void test_order_of_kb(void **state)
{
	(void)state;
	assert_int_equal(mp_order_of_kb(8), 1);
	assert_int_equal(mp_order_of_kb(16), 2);
	assert_int_equal(mp_order_of_kb(64), 4);
	assert_int_equal(mp_order_of_kb(2048), 9);
	assert_int_equal(mp_order_of_kb(4), -1);
	assert_int_equal(mp_order_of_kb(48), -1);
	assert_int_equal(mp_order_of_kb(4096), -1);
}

static void test_mlocked(void **state)
{
	(void)state;
	/* 2 MiB aligned, whole range: every folio */
	assert_int_equal(mp_expect_mlocked_kb(2, 0, 0), 2048);
	assert_int_equal(mp_expect_mlocked_kb(4, 0, 0), 2048);
	assert_int_equal(mp_expect_mlocked_kb(9, 0, 0), 2048);
	/* 4 kB off a 2 MiB boundary: the last folio crosses it (measured on
	 * 7.2: 16 kB +2032, 64 kB +1984) */
	assert_int_equal(mp_expect_mlocked_kb(2, 4096, 0), 2032);
	assert_int_equal(mp_expect_mlocked_kb(4, 4096, 0), 1984);
	/* and the range cut at half a folio: the first one too (+2016, +1920) */
	assert_int_equal(mp_expect_mlocked_kb(2, 4096, 8192), 2016);
	assert_int_equal(mp_expect_mlocked_kb(4, 4096, 32768), 1920);
	/* aligned, cut: the first only */
	assert_int_equal(mp_expect_mlocked_kb(4, 0, 32768), 1984);
	/* a PMD folio cut or crossing: nothing */
	assert_int_equal(mp_expect_mlocked_kb(9, 4096, 0), 0);
	assert_int_equal(mp_expect_mlocked_kb(9, 0, HB_MB), 0);
	/* a cut on a folio boundary cuts nothing */
	assert_int_equal(mp_expect_mlocked_kb(4, 0, 65536), 1984);
	/* va_mis counts modulo 2 MiB */
	assert_int_equal(mp_expect_mlocked_kb(4, HB_HPAGE + 4096, 0), 1984);
}

static void test_readahead(void **state)
{
	char b[320];
	const char *basis;
	struct mp_ra_expect x;

	(void)state;
	/* async device, reclaimed: order 0 through readahead, on both */
	for (int k = 0; k < 2; k++) {
		x = mp_expect_readahead(k ? 7002 : 6012, 4, false, false, false, 3, b, sizeof(b),
					&basis);
		assert_null(basis);
		assert_false(x.whole);
		assert_true(x.io);
		assert_true(x.readahead);
		assert_int_equal(x.swpin, 0);
	}
	/* still in the swap cache: whole, no I/O, no fault, on both */
	x = mp_expect_readahead(6012, 4, false, true, false, 3, b, sizeof(b), &basis);
	assert_true(x.whole);
	assert_false(x.io);
	assert_false(x.readahead);
	assert_int_equal(x.majflt, 0);
	/* zram: 7.2 whole (32 folios of 64 kB, one major fault each) */
	x = mp_expect_readahead(7002, 4, true, false, false, 3, b, sizeof(b), &basis);
	assert_null(basis);
	assert_true(x.whole);
	assert_true(x.io);
	assert_false(x.readahead);
	assert_int_equal(x.swpin, 32);
	assert_int_equal(x.majflt, 32);
	/* 7.2 with zswap on: small, through readahead */
	x = mp_expect_readahead(7002, 4, true, false, true, 3, b, sizeof(b), &basis);
	assert_false(x.whole);
	assert_true(x.readahead);
	/* 6.12 on zram: order 0 through readahead */
	x = mp_expect_readahead(6012, 4, true, false, false, 3, b, sizeof(b), &basis);
	assert_null(basis);
	assert_false(x.whole);
	assert_true(x.readahead);
	assert_int_equal(x.swpin, 0);
	/* page-cluster 0: no readahead, a major fault per page */
	x = mp_expect_readahead(6012, 4, false, false, false, 0, b, sizeof(b), &basis);
	assert_false(x.readahead);
	assert_int_equal(x.majflt, 512);
	/* between the readings: extrapolated; after 7.2: judged by 7.2 */
	x = mp_expect_readahead(6016, 4, true, false, false, 3, b, sizeof(b), &basis);
	assert_non_null(basis);
	assert_non_null(strstr(basis, HB_BASIS_UNVERIFIED));
	assert_true(x.whole);
	x = mp_expect_readahead(7003, 4, true, false, false, 3, b, sizeof(b), &basis);
	assert_non_null(basis);
	assert_null(strstr(basis, HB_BASIS_UNVERIFIED));
	assert_true(x.whole);
	/* the async device's outcome is the same on every reading: no basis */
	x = mp_expect_readahead(6016, 4, false, false, false, 3, b, sizeof(b), &basis);
	assert_null(basis);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_of_kb),
		cmocka_unit_test(test_mlocked),
		cmocka_unit_test(test_readahead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
