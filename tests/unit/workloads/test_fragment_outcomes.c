/* test_fragment_outcomes.c - the fragment workload's proactiveness knob
 * (fr_set_proactiveness(), issue 25), through a fake knob writer: a kernel
 * the feature table says has vm.compaction_proactiveness (5.9 with
 * CONFIG_COMPACTION) and refuses the write fails the check naming the errno
 * -- it used to be a note "kernel without proactive compaction?" -- and only
 * one the table says lacks it gets a note citing the row, with nothing
 * written. The clean-phase subject is test_fragment_threshold.c's. */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>

#include "wl_fragment.h"

static int fake_err, fake_calls;
static char fake_value[32];

static int fake_write(const char *path, const char *value)
{
	(void)path;
	fake_calls++;
	snprintf(fake_value, sizeof(fake_value), "%s", value);
	return -fake_err;
}

static void test_refused_on_kernel_with_it(void **state)
{
	struct hbt_cap c;

	(void)state;
	fake_err = EINVAL;
	fake_calls = 0;
	hbt_cap_open(&c, &hb_wl_fragment);
	assert_false(fr_set_proactiveness(c.ctx, 0, 6001, HB_KF_CFG_ON, fake_write));
	assert_int_equal(fake_calls, 1);
	assert_int_equal(hb_ctx_status(c.ctx), HB_FAIL);
	assert_non_null(strstr(hbt_cap_check_observed(&c, "compaction_proactiveness_set"),
			       "EINVAL"));
	hbt_cap_close(&c);
}

static void test_set(void **state)
{
	struct hbt_cap c;

	(void)state;
	fake_err = 0;
	fake_calls = 0;
	hbt_cap_open(&c, &hb_wl_fragment);
	assert_true(fr_set_proactiveness(c.ctx, 20, 5009, HB_KF_CFG_UNKNOWN, fake_write));
	assert_string_equal(fake_value, "20");
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	hbt_cap_close(&c);
}

static void test_table_says_absent(void **state)
{
	struct hbt_cap c;

	(void)state;
	fake_err = ENOENT;
	fake_calls = 0;
	hbt_cap_open(&c, &hb_wl_fragment);
	assert_false(fr_set_proactiveness(c.ctx, 0, 5008, HB_KF_CFG_ON, fake_write));
	assert_false(fr_set_proactiveness(c.ctx, 0, 6012, HB_KF_CFG_OFF, fake_write));
	assert_int_equal(fake_calls, 0);
	assert_int_equal(hb_ctx_status(c.ctx), HB_PASS);
	assert_non_null(strstr(hbt_cap_notes(&c), "kfeatures row compaction_proactiveness"));
	assert_non_null(strstr(hbt_cap_notes(&c), "CONFIG_COMPACTION is off"));
	hbt_cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_on_kernel_with_it),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_table_says_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
