/* test_pressure_outcomes.c - the pressure workload's judging (pressure.h,
 * issue 25): a fill's subject counts huge pages that existed -- present,
 * split or swapped out whole -- not thp_file_alloc (6.1 counts a huge page
 * whose memcg charge then fails); the swap-out must be seen in
 * pswpout/zswpout; memory.swap.max is written where the feature table says
 * the kernel has it, a refusal a failed check (fake writer). */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "pressure.h"

extern const struct hb_workload hb_wl_pressure;

/* pressure_env.c journals what it sets up through the runner; nothing is set
 * up here. */
void hb_host_state_note(bool add, const char *kind, const char *arg)
{
	(void)add;
	(void)kind;
	(void)arg;
}

static bool fill(const char *b, long long min)
{
	struct hb_snap sa, sb;
	struct hbt_cap c;
	char why[256] = "";
	bool ok;

	hbt_snap(&sa, "ShmemHugePages=0 vm.thp_split_page=0 vm.thp_swpout=0 vm.thp_file_alloc=0");
	hbt_snap(&sb, b);
	hbt_cap_open(&c, &hb_wl_pressure);
	ok = pr_subject_fill(c.ctx, "subject_swap_huge_fill", &sa, &sb, min, why, sizeof(why));
	assert_int_equal(hbt_cap_check_pass(&c, "subject_swap_huge_fill"), ok);
	assert_int_equal(why[0] != 0, !ok);
	hbt_cap_close(&c);
	return ok;
}

static void test_fill(void **state)
{
	(void)state;
	/* 32 allocations, every one dropped at charge time: nothing existed */
	assert_false(fill("ShmemHugePages=0 vm.thp_split_page=0 vm.thp_swpout=0 "
			  "vm.thp_file_alloc=32 vm.thp_file_fallback_charge=32", 8));
	/* 6.1: all 32 split to be swapped */
	assert_true(fill("ShmemHugePages=0 vm.thp_split_page=32 vm.thp_file_alloc=32", 8));
	/* 6.12: 15 swapped out whole */
	assert_true(fill("ShmemHugePages=0 vm.thp_swpout=15 vm.thp_file_alloc=15", 8));
	/* still resident (the noswap phase, before the file is removed) */
	assert_true(fill("ShmemHugePages=16384 vm.thp_file_alloc=8", 8));
	assert_false(fill("ShmemHugePages=12288 vm.thp_file_alloc=8", 8));
}

static bool swapped(const char *c)
{
	struct hb_snap sa, sc;
	struct hbt_cap cap;
	bool ok;

	hbt_snap(&sa, "vm.pswpout=100 vm.zswpout=0 vm.thp_split_page=0 vm.thp_swpout=0");
	hbt_snap(&sc, c);
	hbt_cap_open(&cap, &hb_wl_pressure);
	ok = pr_subject_swapped(cap.ctx, &sa, &sc);
	hbt_cap_close(&cap);
	return ok;
}

static void test_swapped(void **state)
{
	(void)state;
	/* split, but nothing reached swap */
	assert_false(swapped("vm.pswpout=100 vm.thp_split_page=32"));
	/* swap-out seen, but no huge page among it */
	assert_false(swapped("vm.pswpout=24789"));
	assert_true(swapped("vm.pswpout=24789 vm.thp_split_page=32"));
	assert_true(swapped("vm.pswpout=100 vm.zswpout=7680 vm.thp_swpout=15"));
}

static int fake_err, fake_calls;

static int fake_cg_write(const struct pr *s, const char *file, const char *val)
{
	(void)s;
	fake_calls++;
	assert_string_equal(file, "memory.swap.max");
	assert_string_equal(val, "0");
	return -fake_err;
}

static void test_swap_max(void **state)
{
	struct pr s = { 0 };
	struct hbt_cap c;

	(void)state;
	fake_err = EACCES;
	fake_calls = 0;
	hbt_cap_open(&c, &hb_wl_pressure);
	assert_false(pr_set_swap_max(c.ctx, 6001, HB_KF_CFG_ON, fake_cg_write, &s));
	assert_non_null(strstr(hbt_cap_check_observed(&c, "noswap_swap_max_set"), "EACCES"));
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	hbt_cap_close(&c);

	fake_err = 0;
	hbt_cap_open(&c, &hb_wl_pressure);
	assert_true(pr_set_swap_max(c.ctx, 6012, HB_KF_CFG_ON, fake_cg_write, &s));
	hbt_cap_close(&c);

	/* the file absent (CONFIG_SWAP off, or swap accounting off): a note */
	fake_calls = 0;
	hbt_cap_open(&c, &hb_wl_pressure);
	assert_false(pr_set_swap_max(c.ctx, 6012, HB_KF_CFG_OFF, fake_cg_write, &s));
	assert_int_equal(fake_calls, 0);
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	assert_non_null(strstr(hbt_cap_notes(&c), "kfeatures row memcg_swap_max"));
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_swap_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
