/* test_util.c - the host's strict readers (harness/common/util.c): option
 * values parsed whole and in range (hb_parse_double(), hb_parse_int(); each
 * bad value below was accepted before and switched a watchdog off or
 * wrapped, issue 9), and the key=value contract of the kernel scripts
 * (hb_kv_get()); hb_sha256_file() reads a regular file only (a FIFO named
 * as a patch or a kernel image blocked it, issue 38). */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static void test_strict_numbers(void **state)
{
	double d = 1;
	int i = 1;

	(void)state;
	/* each of these was accepted before and switched a watchdog off or wrapped */
	assert_int_equal(hb_parse_double("--timeout", "nan", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "inf", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--stall", "NAN", 0, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "abc", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "5s", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "1e400", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_int("--memory", "4294967552", 256, 1 << 20, &i), -1);
	assert_int_equal(hb_parse_int("--vcpus", "4294967298", 1, 64, &i), -1);
	assert_int_equal(hb_parse_int("--vcpus", "-1", 1, 64, &i), -1);
	assert_int_equal(hb_parse_int("--vcpus", "2 ", 1, 64, &i), -1);
	assert_int_equal(i, 1);
	assert_int_equal(hb_parse_double("--timeout", "2.5", 1, 1e6, &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(hb_parse_int("--memory", "2048", 256, 1 << 20, &i), 0);
	assert_int_equal(i, 2048);
}

static void test_kv_contract(void **state)
{
	char v[32];

	(void)state;
	assert_true(hb_kv_get("noise\nrelease=6.1 x\nimage=/a b/c\n", "image", v, sizeof(v)));
	assert_string_equal(v, "/a b/c"); /* a path with a blank survives */
	assert_true(hb_kv_get("release=6.1 x\n", "release", v, sizeof(v)));
	assert_string_equal(v, "6.1 x");
	assert_false(hb_kv_get("images=/x\n", "image", v, sizeof(v)));
	assert_false(hb_kv_get("image=/0123456789012345678901234567890123456789\n", "image", v,
			       sizeof(v)));
}

static void test_sha256_regular_only(void **state)
{
	char hex[65] = "", *fifo;

	(void)state;
	assert_int_equal(hbt_tmpdir("util"), 0);
	fifo = hbt_path("0001-x.patch");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);
	assert_int_equal(hb_sha256_file(fifo, hex), -1);
	assert_int_equal(hb_sha256_file("/dev/zero", hex), -1);
	alarm(0);
	assert_int_equal(hb_sha256_file(hbt_write_tmp("a", "abc"), hex), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	hbt_teardown(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strict_numbers),
		cmocka_unit_test(test_kv_contract),
		cmocka_unit_test(test_sha256_regular_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
