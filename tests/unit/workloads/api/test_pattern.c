/* test_pattern.c - the data pattern of the workload API
 * (hb_pattern_fill(), hb_pattern_verify(), hb_hash() in
 * workloads/api/hb_util.c): what is written verifies at its own offset and
 * seed only, and the first bad byte is found. */
#include "helpers.h"

#include "hb.h"

static void test_pattern(void **state)
{
	uint64_t buf[512];

	(void)state;
	hb_pattern_fill(buf, sizeof(buf), 42, 8192);
	assert_int_equal(hb_pattern_verify(buf, sizeof(buf), 42, 8192), sizeof(buf));
	/* the same bytes do not verify at another offset or seed */
	assert_int_equal(hb_pattern_verify(buf, sizeof(buf), 42, 0), 0);
	assert_int_equal(hb_pattern_verify(buf, sizeof(buf), 43, 8192), 0);
	buf[100] = 0;
	assert_int_equal(hb_pattern_verify(buf, sizeof(buf), 42, 8192), 800);
	assert_int_not_equal(hb_hash("a", 1), hb_hash("b", 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
