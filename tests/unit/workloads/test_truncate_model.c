/* test_truncate_model.c - the truncate workload's pure logic
 * (workloads/wl_truncate.c via wl_truncate.h): the bounds a punch or a
 * truncate must meet and the hole-aware data model that reads a file back.
 * Nothing here touches the kernel. */
#define _GNU_SOURCE
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include "wl_truncate.h"

/* ---- truncate bounds and data model ----------------------------------- */

static void test_tr_bounds(void **state)
{
	const off_t M = (off_t)HB_MB, E = (off_t)HB_HPAGE, K = 1024;
	struct tr_bounds b;

	(void)state;
	/* punch_inside: 256 KiB at 512 KiB into extent 1 */
	b = tr_bounds_of(E + 512 * K, E + 768 * K);
	assert_int_equal(b.must, 0);
	assert_int_equal(b.touched, E);
	assert_int_equal(b.pages, 256 * K);
	/* punch_span: middle of extent 2 to middle of extent 4 */
	b = tr_bounds_of(2 * E + M, 4 * E + M);
	assert_int_equal(b.must, E);
	assert_int_equal(b.touched, 3 * E);
	assert_int_equal(b.pages, 4 * M);
	/* truncate of a 16 MiB file to 1 MiB + 1000 bytes into extent 6 */
	b = tr_bounds_of(6 * E + M + 1000, 8 * E);
	assert_int_equal(b.must, E);
	assert_int_equal(b.touched, 2 * E);
	assert_int_equal(b.pages, 8 * E - (6 * E + M + 4096));
	/* exactly one extent */
	b = tr_bounds_of(E, 2 * E);
	assert_int_equal(b.must, E);
	assert_int_equal(b.touched, E);
	assert_int_equal(b.pages, E);
	/* less than a page: nothing may be freed */
	b = tr_bounds_of(E + 8, E + 16);
	assert_int_equal(b.must, 0);
	assert_int_equal(b.pages, 0);
	assert_int_equal(b.touched, E);
}

static void test_tr_model(void **state)
{
	const size_t len = 64 * 1024;
	struct tr_state t = { .fd = -1 };
	struct tr_verdict v;
	char *buf = malloc(len);

	(void)state;
	assert_non_null(buf);
	t.holes[t.n_holes++] = (struct tr_hole){ 8192, 12288 };
	t.holes[t.n_holes++] = (struct tr_hole){ 40000, 40008 };
	assert_true(tr_in_hole(&t, 8192));
	assert_false(tr_in_hole(&t, 12288));
	assert_int_equal(tr_next_edge(&t, 0, 65536), 8192);
	assert_int_equal(tr_next_edge(&t, 8192, 65536), 12288);
	assert_int_equal(tr_next_edge(&t, 40000, 40004), 40004);

	/* file bytes [4096, 4096 + len): pattern outside the holes, zero inside */
	hb_pattern_fill(buf, len, TR_SEED, 4096);
	memset(buf + (8192 - 4096), 0, 4096);
	memset(buf + (40000 - 4096), 0, 8);
	v = (struct tr_verdict){ -1, -1 };
	tr_compare(&t, buf, 4096, len, &v);
	assert_int_equal(v.bad_data, -1);
	assert_int_equal(v.bad_zero, -1);

	buf[9000 - 4096] = 1;			/* garbage in a hole */
	buf[20000 - 4096] ^= 0x10;		/* corrupted data */
	v = (struct tr_verdict){ -1, -1 };
	tr_compare(&t, buf, 4096, len, &v);
	assert_int_equal(v.bad_zero, 9000);
	assert_int_equal(v.bad_data, 20000);

	/* a hole that was not zeroed is caught even without other damage */
	hb_pattern_fill(buf, len, TR_SEED, 4096);
	v = (struct tr_verdict){ -1, -1 };
	tr_compare(&t, buf, 4096, len, &v);
	assert_int_equal(v.bad_zero, 8192);
	assert_int_equal(v.bad_data, -1);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tr_bounds),
		cmocka_unit_test(test_tr_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
